// The lisp_eval tool of the protocol layer (protocol/lisp_eval/tool.hpp) for
// lispEvalTool() and toolSchema(): the canonical description and input
// schema of a profile, and the args_error payload of a call whose arguments
// are wrong. The payloads of runs are rendered in jobs.cpp.
#include <fmt/format.h>

#include <optional>
#include <utility>

#include "convert.hpp"
#include "exports.hpp"
#include "protocol/lisp_eval/text.hpp"
#include "protocol/lisp_eval/tool.hpp"

namespace ptc::node {

namespace {

protocol::Profile profile_arg(napi_env env, napi_value value) {
  napi_valuetype t = type_of(env, value);
  if (t == napi_undefined) return protocol::Profile::InProcessWithAppTools;
  if (t != napi_string)
    throw_type_error(env, "profile must be a string, got " + std::string(type_name(t)));
  std::string name = string_of(env, value);
  auto p = protocol::profile_from_name(name);
  if (!p)
    throw_type_error(env, "unknown profile '" + name +
                              "' (in_process_with_app_tools, in_process_text_mode or "
                              "mcp_no_tools)");
  return *p;
}

// toolSchema(profile?) -> {name, description, inputSchema}
napi_value tool_schema(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    protocol::Profile p = profile_arg(env, first_argument(env, info));
    napi_value out = nullptr;
    check(env, napi_create_object(env, &out));
    napi_property_descriptor fields[] = {
        field("name", js_string(env, protocol::kLispEval)),
        field("description", js_string(env, protocol::tool_description(p))),
        field("inputSchema", to_js(env, protocol::input_schema(p))),
    };
    check(env, napi_define_properties(env, out, std::size(fields), fields));
    return out;
  });
}

// checkLispEvalArgs(args) -> null when the call may run, else its args_error payload
napi_value check_args(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value arg = first_argument(env, info);
    HostValue args;
    std::string problem =
        type_of(env, arg) == napi_undefined ? "" : to_host_or_message(env, arg, args);
    if (!problem.empty())
      return js_string(env, protocol::render_error(
                                protocol::Reason::ArgsError,
                                protocol::extract_program({}, "not JSON: " + problem).message));
    if (args.kind() != HostValue::Kind::Map) args = HostValue();
    protocol::ProgramArg program = protocol::extract_program(args);
    if (!program.ok)
      return js_string(env, protocol::render_error(protocol::Reason::ArgsError, program.message));
    if (std::string err = protocol::check_context(args.is_nil() ? nullptr : args.get("context"));
        !err.empty())
      return js_string(env, protocol::render_error(protocol::Reason::ArgsError, err));
    return js_null(env);
  });
}

// renderError(reason, message, {feedback, result}?) -> the error payload
napi_value render_error(napi_env env, napi_callback_info info) {
  return guard(env, [&] {
    napi_value argv[3];
    arguments(env, info, argv);
    if (type_of(env, argv[0]) != napi_string) throw_type_error(env, "reason must be a string");
    std::string name = string_of(env, argv[0]);
    std::optional<protocol::Reason> reason = protocol::reason_from_name(name);
    if (!reason)
      throw_type_error(env,
                       "unknown payload reason '" + name + "' (" + protocol::reason_names() + ")");
    if (type_of(env, argv[1]) != napi_string) throw_type_error(env, "message must be a string");
    protocol::ErrorOptions options;
    napi_valuetype t = type_of(env, argv[2]);
    if (t == napi_object) {
      for (auto [key, slot] :
           {std::pair{"feedback", &options.feedback}, std::pair{"result", &options.result}}) {
        napi_value v = named(env, argv[2], key);
        napi_valuetype vt = type_of(env, v);
        if (vt == napi_undefined) continue;
        if (vt != napi_string)
          throw_type_error(env, std::string("option ") + key + " must be a string");
        *slot = string_of(env, v);
      }
    } else if (t != napi_undefined) {
      throw_type_error(env, "options must be an object");
    }
    return to_js(env, protocol::error_payload(*reason, string_of(env, argv[1]), options));
  });
}

}  // namespace

void register_lisp_eval(napi_env env, napi_value exports) {
  export_function(env, exports, "renderError", render_error);
  export_function(env, exports, "toolSchema", tool_schema);
  export_function(env, exports, "checkLispEvalArgs", check_args);
}

}  // namespace ptc::node
