// ptc_lisp.node: the Node-API addon behind the npm package ptc-lisp
// (bindings/node/index.js). It links the engine statically (libptc.a) and
// exports only the Node-API entry points.
#include <optional>
#include <utility>
#include <vector>

#include "convert.hpp"
#include "exports.hpp"

namespace ptc::node {

void export_function(napi_env env, napi_value exports, const char* name, napi_callback fn) {
  napi_value value = nullptr;
  check(env, napi_create_function(env, name, NAPI_AUTO_LENGTH, fn, nullptr, &value));
  check(env, napi_set_named_property(env, exports, name, value));
}

napi_value error_object(napi_env env, const Error& error, const HostValue* fail_value) {
  napi_value line = js_null(env);
  napi_value column = js_null(env);
  if (error.loc.known()) {
    line = js_number(env, error.loc.line);
    column = js_number(env, error.loc.col);
  }
  napi_value out = nullptr;
  check(env, napi_create_object(env, &out));
  std::vector<napi_property_descriptor> fields = {
      field("reason", js_string(env, reason_name(error.kind))),
      field("message", js_string(env, error.message)),
      field("hint", error.hint.empty() ? js_null(env) : js_string(env, error.hint)),
      field("line", line),
      field("column", column),
      field("text", js_string(env, format_error(error))),
  };
  if (error.kind == ErrorKind::Fail && fail_value)
    fields.push_back(field("failValue", to_js(env, *fail_value)));
  check(env, napi_define_properties(env, out, fields.size(), fields.data()));
  return out;
}

namespace {

napi_value strings_array(napi_env env, const std::vector<std::string>& lines) {
  napi_value out = nullptr;
  check(env, napi_create_array_with_length(env, lines.size(), &out));
  for (size_t i = 0; i < lines.size(); ++i)
    check(env, napi_set_element(env, out, static_cast<uint32_t>(i), js_string(env, lines[i])));
  return out;
}

napi_value tool_calls_array(napi_env env, const Step& step) {
  return objects_array(env, step.tool_calls, [&](const ToolCall& c) {
    return std::array{
        field("name", js_string(env, c.name)),
        field("args", to_js(env, c.args)),
        field("argsTruncated", js_bool(env, c.args_truncated)),
        field("result", to_js(env, c.result)),
        field("resultTruncated", js_bool(env, c.result_truncated)),
        field("error", c.error.empty() ? js_null(env) : js_string(env, c.error)),
        field("durationMs", js_number(env, c.duration_ms)),
        field("cached", js_bool(env, c.cached)),
    };
  });
}

napi_value pmap_calls_array(napi_env env, const Step& step) {
  return objects_array(env, step.pmap_calls, [&](const ParallelCall& c) {
    return std::array{
        field("kind", js_string(env, c.kind)),
        field("count", js_number(env, static_cast<double>(c.count))),
        field("successCount", js_number(env, static_cast<double>(c.success_count))),
        field("errorCount", js_number(env, static_cast<double>(c.error_count))),
        field("durationMs", js_number(env, c.duration_ms)),
    };
  });
}

}  // namespace

namespace {

// index.js's makeResult(ok, value, printed, truncated, returned, prints,
// memory, toolCalls, pmapCalls, durationMs, memoryBytes, evalReductions,
// peakLiveBytes, allocatedBytes, collections, collectMs, error, payload?): a JS object literal,
// whose shape V8 builds once, costs a fraction of defining its properties one by one from here.
struct Instance {
  napi_ref make_result = nullptr;
  // index.js's Float64Array for plain results (plain_result): its memory,
  // kept alive by the reference.
  napi_ref make_plain = nullptr;  // makePlain(value, printed), scalars in the slots
  napi_ref plain_slots_ref = nullptr;
  double* plain_slots = nullptr;
};

Instance& instance(napi_env env) {
  void* data = nullptr;
  check(env, napi_get_instance_data(env, &data));
  return *static_cast<Instance*>(data);
}

// setResultFactory(makeResult, makePlain, plainSlots: Float64Array(kPlainSlots))
napi_value set_result_factory(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[3];
    arguments(env, info, argv);
    if (type_of(env, argv[0]) != napi_function || type_of(env, argv[1]) != napi_function)
      throw_type_error(env, "makeResult and makePlain must be functions");
    argv[1] = std::exchange(argv[2], argv[1]);  // argv[1]: the slots, argv[2]: makePlain
    bool typed = false;
    check(env, napi_is_typedarray(env, argv[1], &typed));
    napi_typedarray_type type = napi_int8_array;
    size_t length = 0;
    void* data = nullptr;
    if (typed)
      check(env, napi_get_typedarray_info(env, argv[1], &type, &length, &data, nullptr, nullptr));
    if (!typed || type != napi_float64_array || length != kPlainSlots)
      throw_type_error(
          env, "plainSlots must be a Float64Array of " + std::to_string(kPlainSlots) + " numbers");
    Instance& in = instance(env);
    if (in.make_result) napi_delete_reference(env, in.make_result);
    if (in.plain_slots_ref) napi_delete_reference(env, in.plain_slots_ref);
    if (in.make_plain) napi_delete_reference(env, in.make_plain);
    check(env, napi_create_reference(env, argv[0], 1, &in.make_result));
    check(env, napi_create_reference(env, argv[2], 1, &in.make_plain));
    check(env, napi_create_reference(env, argv[1], 1, &in.plain_slots_ref));
    in.plain_slots = static_cast<double*>(data);
    return js_undefined(env);
  });
}

}  // namespace

napi_value plain_result(napi_env env, const Step& step) {
  Instance& in = instance(env);
  if (!in.plain_slots) throw_error(env, "ptc-lisp: index.js set no result slots");
  bool plain = step.ok && step.prints.empty() && step.tool_calls.empty() &&
               step.pmap_calls.empty() && step.memory.kind() == HostValue::Kind::Map &&
               step.memory.size() == 0;
  if (!plain) return result_object(env, step, nullptr);
  double* slots = in.plain_slots;
  slots[0] = step.truncated;
  slots[1] = step.returned;
  slots[2] = step.usage.duration_ms;
  slots[3] = static_cast<double>(step.usage.memory_bytes);
  slots[4] = static_cast<double>(step.usage.eval_reductions);
  slots[7] = static_cast<double>(step.usage.peak_live_bytes);
  slots[8] = static_cast<double>(step.usage.allocated_bytes);
  slots[9] = static_cast<double>(step.usage.collections);
  slots[10] = step.usage.collect_ms;
  // A scalar value goes in the slots too, and only `printed` is made here:
  // no call into JS at all (index.js builds the Result around them).
  constexpr int64_t kMaxSafeInt = (int64_t{1} << 53) - 1;
  const HostValue& v = step.value;
  std::optional<double> kind;
  switch (v.kind()) {
    case HostValue::Kind::Int:
      if (v.as_int() <= kMaxSafeInt && v.as_int() >= -kMaxSafeInt) {
        kind = 1;
        slots[6] = static_cast<double>(v.as_int());
      }
      break;
    case HostValue::Kind::Float:
      kind = 1;
      slots[6] = v.as_float();
      break;
    case HostValue::Kind::Bool:
      kind = v.as_bool() ? 2 : 3;
      break;
    case HostValue::Kind::Nil:
      kind = 4;
      break;
    default:
      break;
  }
  if (kind) {
    slots[5] = *kind;
    return js_string(env, step.printed);
  }
  napi_value make = nullptr;
  check(env, napi_get_reference_value(env, in.make_plain, &make));
  napi_value argv[] = {to_js(env, step.value), js_string(env, step.printed)};
  napi_value out = nullptr;
  check(env, napi_call_function(env, js_undefined(env), make, std::size(argv), argv, &out));
  return out;
}

napi_value result_object(napi_env env, const Step& step, const std::string* payload) {
  Instance& in = instance(env);
  napi_value make = nullptr;
  if (in.make_result) check(env, napi_get_reference_value(env, in.make_result, &make));
  if (!make) throw_error(env, "ptc-lisp: index.js set no result factory");
  napi_value argv[] = {
      js_bool(env, step.ok),
      step.ok ? to_js(env, step.value) : js_null(env),
      js_string(env, step.printed),
      js_bool(env, step.truncated),
      js_bool(env, step.returned),
      // Empty ones as undefined: makeResult's literals ([], {}) cost less.
      step.prints.empty() ? js_undefined(env) : strings_array(env, step.prints),
      step.memory.kind() == HostValue::Kind::Map && step.memory.size() == 0
          ? js_undefined(env)
          : to_js(env, step.memory),
      step.tool_calls.empty() ? js_undefined(env) : tool_calls_array(env, step),
      step.pmap_calls.empty() ? js_undefined(env) : pmap_calls_array(env, step),
      js_number(env, step.usage.duration_ms),
      js_number(env, static_cast<double>(step.usage.memory_bytes)),
      js_number(env, static_cast<double>(step.usage.eval_reductions)),
      js_number(env, static_cast<double>(step.usage.peak_live_bytes)),
      js_number(env, static_cast<double>(step.usage.allocated_bytes)),
      js_number(env, static_cast<double>(step.usage.collections)),
      js_number(env, step.usage.collect_ms),
      step.ok ? js_null(env) : error_object(env, step.error, &step.fail_value),
      payload ? js_string(env, *payload) : js_undefined(env),
  };
  napi_value out = nullptr;
  check(env, napi_call_function(env, js_undefined(env), make, std::size(argv), argv, &out));
  return out;
}

namespace {

napi_value init(napi_env env, napi_value exports) {
  return guard(env, [&] {
    check(env,
          napi_set_instance_data(
              env, new Instance,
              // The reference goes with the environment being torn down.
              [](napi_env, void* data, void*) { delete static_cast<Instance*>(data); }, nullptr));
    export_function(env, exports, "setResultFactory", set_result_factory);
    register_jobs(env, exports);
    register_programs(env, exports);
    register_lisp_eval(env, exports);
    register_executions(env, exports);
    register_sessions(env, exports);
    register_sharing(env, exports);
    register_isolation(env, exports);
    BuildInfo info = build_info();
    check(env, napi_set_named_property(env, exports, "version", js_string(env, info.version)));
    check(env,
          napi_set_named_property(env, exports, "gitRevision", js_string(env, info.git_revision)));
    return exports;
  });
}

}  // namespace

}  // namespace ptc::node

NAPI_MODULE_INIT() {
  return ptc::node::init(env, exports);
}
