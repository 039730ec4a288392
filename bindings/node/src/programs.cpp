// compile(): a program read, analyzed and compiled once (ptc::compile), and
// prepareContext(): a context imported once (ptc::prepare_context), each as
// an external handle that run() and runSync() accept. A handle belongs to
// the thread (isolate) that made it; sharing.cpp gives other threads handles
// of their own over the same object.
#include "convert.hpp"
#include "exports.hpp"
#include "options.hpp"

namespace ptc::node {

namespace {

constexpr napi_type_tag kProgramTag = {0x7074636c69737031ULL, 0x70726f6772616d21ULL};
constexpr napi_type_tag kPreparedTag = {0x7074636c69737031ULL, 0x707265702d637478ULL};

// An external holding a shared_ptr to `object`, tagged with `tag`.
template <class T>
napi_value make_handle(napi_env env, std::shared_ptr<const T> object, const napi_type_tag& tag) {
  using Holder = std::shared_ptr<const T>;
  auto holder = std::make_unique<Holder>(std::move(object));
  napi_value out = nullptr;
  check(env,
        napi_create_external(
            env, holder.get(),
            [](napi_env, void* data, void*) { delete static_cast<Holder*>(data); }, nullptr, &out));
  holder.release();
  check(env, napi_type_tag_object(env, out, &tag));
  return out;
}

// [handle, null] with the object make() gives, or [null, error] when it
// throws a LispError (what compile() and prepareContext() hand index.js).
template <class Make>
napi_value handle_or_error(napi_env env, const napi_type_tag& tag, Make&& make) {
  napi_value pair[2] = {js_null(env), js_null(env)};
  try {
    pair[0] = make_handle(env, make(), tag);
  } catch (const LispError& e) {
    pair[1] = error_object(env, e.error(), nullptr);
  }
  napi_value out = nullptr;
  check(env, napi_create_array_with_length(env, 2, &out));
  check(env, napi_set_element(env, out, 0, pair[0]));
  check(env, napi_set_element(env, out, 1, pair[1]));
  return out;
}

// The object behind a handle make_handle made with `tag`; nullptr when
// `value` is no such handle.
// (No napi_typeof first: it tries a chain of types, and this is on the path
// of every run of a compiled program.)
template <class T>
const std::shared_ptr<const T>* handle_of(napi_env env, napi_value value,
                                          const napi_type_tag& tag) {
  void* data = nullptr;
  if (napi_get_value_external(env, value, &data) != napi_ok) return nullptr;  // no external
  bool tagged = false;
  check(env, napi_check_object_type_tag(env, value, &tag, &tagged));
  return tagged ? static_cast<const std::shared_ptr<const T>*>(data) : nullptr;
}

// compile(source, options) -> [handle, null] | [null, error]
napi_value compile_program(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    size_t argc = 2;
    napi_value argv[2] = {nullptr, nullptr};
    check(env, napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
    if (argc < 1 || type_of(env, argv[0]) != napi_string)
      throw_type_error(env, "program must be a string");
    std::string source = string_of(env, argv[0]);
    ParsedOptions options;
    if (argc > 1) parse_options(env, argv[1], options);
    return handle_or_error(env, kProgramTag, [&] { return compile(source, options.run); });
  });
}

// programSource(handle) -> the source it was compiled from
napi_value source_of(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value arg = first_argument(env, info);
    std::shared_ptr<const Program> program =
        type_of(env, arg) == napi_undefined ? nullptr : program_of(env, arg);
    if (!program) throw_type_error(env, "not a Program");
    return js_string(env, program_source(*program));
  });
}

// prepareContext(context: object | JSON text, maxBytes?) -> [handle, null] | [null, error]
napi_value prepare(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[2];
    arguments(env, info, argv);
    napi_valuetype t = type_of(env, argv[0]);
    size_t max_bytes = size_t{1} << 30;
    if (type_of(env, argv[1]) != napi_undefined) {
      double d = 0;
      if (type_of(env, argv[1]) != napi_number ||
          napi_get_value_double(env, argv[1], &d) != napi_ok || !(d >= 1) || d > 9e15 ||
          d != static_cast<double>(static_cast<int64_t>(d)))
        throw_range_error(env, "maxBytes must be a positive integer");
      max_bytes = static_cast<size_t>(d);
    }
    if (t != napi_string) require_object(env, argv[0], "context");
    return handle_or_error(env, kPreparedTag, [&] {
      return t == napi_string ? prepare_context(string_of(env, argv[0]), max_bytes)
                              : prepare_context(to_host(env, argv[0], "context"), max_bytes);
    });
  });
}

// preparedBytes(handle) -> bytes the prepared values occupy
napi_value bytes_of(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    auto prepared = prepared_context_of(env, first_argument(env, info));
    if (!prepared) throw_type_error(env, "not a PreparedContext");
    return js_number(env, static_cast<double>(prepared_bytes(*prepared)));
  });
}

}  // namespace

std::shared_ptr<const Program> program_of(napi_env env, napi_value value) {
  const auto* handle = handle_of<Program>(env, value, kProgramTag);
  return handle ? *handle : nullptr;
}

const Program* program_in(napi_env env, napi_value value) {
  const auto* handle = handle_of<Program>(env, value, kProgramTag);
  return handle ? handle->get() : nullptr;
}

std::shared_ptr<const PreparedContext> prepared_context_of(napi_env env, napi_value value) {
  const auto* handle = handle_of<PreparedContext>(env, value, kPreparedTag);
  return handle ? *handle : nullptr;
}

napi_value program_handle(napi_env env, std::shared_ptr<const Program> program) {
  return make_handle(env, std::move(program), kProgramTag);
}

napi_value prepared_context_handle(napi_env env, std::shared_ptr<const PreparedContext> context) {
  return make_handle(env, std::move(context), kPreparedTag);
}

void register_programs(napi_env env, napi_value exports) {
  export_function(env, exports, "compile", compile_program);
  export_function(env, exports, "programSource", source_of);
  export_function(env, exports, "prepareContext", prepare);
  export_function(env, exports, "preparedBytes", bytes_of);
}

}  // namespace ptc::node
