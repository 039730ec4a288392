// ptc_lisp.node: the Node-API addon behind the npm package ptc-lisp
// (bindings/node/index.js). It links the engine statically (libptc.a) and
// exports only the Node-API entry points.
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

napi_value result_object(napi_env env, const Step& step, const std::string* payload) {
  napi_value usage = nullptr;
  check(env, napi_create_object(env, &usage));
  napi_property_descriptor usage_fields[] = {
      field("durationMs", js_number(env, step.usage.duration_ms)),
      field("memoryBytes", js_number(env, static_cast<double>(step.usage.memory_bytes))),
      field("evalReductions", js_number(env, static_cast<double>(step.usage.eval_reductions))),
  };
  check(env, napi_define_properties(env, usage, std::size(usage_fields), usage_fields));

  napi_value out = nullptr;
  check(env, napi_create_object(env, &out));
  std::vector<napi_property_descriptor> fields = {
      field("ok", js_bool(env, step.ok)),
      field("value", step.ok ? to_js(env, step.value) : js_null(env)),
      field("printed", js_string(env, step.printed)),
      field("truncated", js_bool(env, step.truncated)),
      field("returned", js_bool(env, step.returned)),
      field("prints", strings_array(env, step.prints)),
      field("memory", to_js(env, step.memory)),
      field("toolCalls", tool_calls_array(env, step)),
      field("pmapCalls", pmap_calls_array(env, step)),
      field("usage", usage),
      field("error", step.ok ? js_null(env) : error_object(env, step.error, &step.fail_value)),
  };
  if (payload) fields.push_back(field("payload", js_string(env, *payload)));
  check(env, napi_define_properties(env, out, fields.size(), fields.data()));
  return out;
}

namespace {

napi_value init(napi_env env, napi_value exports) {
  return guard(env, [&] {
    register_jobs(env, exports);
    register_programs(env, exports);
    register_lisp_eval(env, exports);
    register_executions(env, exports);
    register_sessions(env, exports);
    register_sharing(env, exports);
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
