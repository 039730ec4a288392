// compile(): a program read, analyzed and compiled once (ptc::compile), as
// an external handle that run() and runSync() accept. The handle belongs to
// the thread (isolate) that made it: it cannot be posted to a worker_thread.
#include "convert.hpp"
#include "exports.hpp"
#include "options.hpp"

namespace ptc::node {

namespace {

constexpr napi_type_tag kProgramTag = {0x7074636c69737031ULL, 0x70726f6772616d21ULL};

using ProgramHolder = std::shared_ptr<const Program>;

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
    napi_value pair[2] = {js_null(env), js_null(env)};
    try {
      auto holder = std::make_unique<ProgramHolder>(compile(source, options.run));
      check(env, napi_create_external(
                     env, holder.get(),
                     [](napi_env, void* data, void*) { delete static_cast<ProgramHolder*>(data); },
                     nullptr, &pair[0]));
      holder.release();
      check(env, napi_type_tag_object(env, pair[0], &kProgramTag));
    } catch (const LispError& e) {
      pair[1] = error_object(env, e.error(), nullptr);
    }
    napi_value out = nullptr;
    check(env, napi_create_array_with_length(env, 2, &out));
    check(env, napi_set_element(env, out, 0, pair[0]));
    check(env, napi_set_element(env, out, 1, pair[1]));
    return out;
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

}  // namespace

std::shared_ptr<const Program> program_of(napi_env env, napi_value value) {
  if (type_of(env, value) != napi_external) return nullptr;
  bool tagged = false;
  check(env, napi_check_object_type_tag(env, value, &kProgramTag, &tagged));
  if (!tagged) return nullptr;
  void* data = nullptr;
  check(env, napi_get_value_external(env, value, &data));
  return *static_cast<ProgramHolder*>(data);
}

void register_programs(napi_env env, napi_value exports) {
  export_function(env, exports, "compile", compile_program);
  export_function(env, exports, "programSource", source_of);
}

}  // namespace ptc::node
