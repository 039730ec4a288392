// The lisp_eval tool through the C API: its schema, one call answered as its
// payload (protocol/lisp_eval/call.hpp, as `ptc lisp-eval`), the renderers.
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "capi/errors.hpp"
#include "capi/handles.hpp"
#include "protocol/libptc_protocol/text_out.hpp"
#include "protocol/lisp_eval/call.hpp"
#include "runtime/error.hpp"

namespace ptc::protocol::capi {

using ptc::capi::InvalidArgument;

void hand_out(std::string_view text, char** out, size_t* len) {
  char* buffer = static_cast<char*>(std::malloc(text.size() + 1));
  if (!buffer) throw std::bad_alloc();
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  *out = buffer;
  if (len) *len = text.size();
}

Profile profile_arg(const char* name) {
  if (!name) return Profile::InProcessWithAppTools;
  std::optional<Profile> p = profile_from_name(name);
  if (!p)
    throw InvalidArgument(fmt::format(
        "profile: unknown profile '{}' (in_process_with_app_tools, in_process_text_mode or "
        "mcp_no_tools)",
        name));
  return *p;
}

HostValue options_object(const char* json, size_t len, const char* what,
                         std::initializer_list<std::string_view> known) {
  std::string_view text = ptc::capi::text_arg(json, len, what);
  if (text.empty()) return HostValue::map({});
  HostValue options = ptc::capi::json_object_arg(text, what);
  const auto& items = options.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    std::string_view key = items[i].text();
    bool ok = false;
    std::string names;
    for (std::string_view k : known) {
      ok = ok || k == key;
      names += fmt::format("{}{}", names.empty() ? "" : ", ", k);
    }
    if (!ok)
      throw InvalidArgument(fmt::format("{}: unknown key '{}' (known: {})", what, key, names));
  }
  return options;
}

namespace {

const ptc::Step& result_step(const ptc_result* result) {
  return ptc::capi::required(result, "result").step;
}

}  // namespace

}  // namespace ptc::protocol::capi

using ptc::capi::guarded;
using ptc::capi::InvalidArgument;
using ptc::capi::out_arg;
using ptc::capi::required;
namespace pc = ptc::protocol::capi;
namespace pr = ptc::protocol;

extern "C" {

void ptc_protocol_free(char* text) {
  std::free(text);
}

ptc_status ptc_protocol_tool_schema(const char* profile, int form, char** out, size_t* len) {
  return guarded([&] {
    out_arg(out, "out");
    pr::Profile p = pc::profile_arg(profile);
    ptc::HostValue schema;
    if (form == PTC_PROTOCOL_SCHEMA_TOOL)
      schema = pr::mcp_tool(p);
    else if (form == PTC_PROTOCOL_SCHEMA_OPENAI)
      schema = pr::openai_tool_schema(p);
    else
      throw InvalidArgument(fmt::format(
          "form: {} is not PTC_PROTOCOL_SCHEMA_TOOL (0) or PTC_PROTOCOL_SCHEMA_OPENAI (1)", form));
    pc::hand_out(ptc::to_json(schema, true), out, len);
    return PTC_OK;
  });
}

ptc_status ptc_protocol_lisp_eval(const ptc_options* options, const char* profile,
                                  const char* arguments, size_t arguments_len, int flags,
                                  char** payload, size_t* payload_len) {
  return guarded([&] {
    out_arg(payload, "payload");
    required(arguments, "arguments");
    std::string_view args = ptc::capi::text_arg(arguments, arguments_len, "arguments");
    pr::Profile p = pc::profile_arg(profile);
    if (flags & ~PTC_PROTOCOL_INCLUDE_MEMORY)
      throw InvalidArgument(
          fmt::format("flags: {} is not 0 or PTC_PROTOCOL_INCLUDE_MEMORY (1)", flags));
    const ptc::RunOptions& run = ptc::capi::run_options(options);
    if (p == pr::Profile::McpNoTools && !run.tools.empty())
      throw InvalidArgument(
          "the mcp_no_tools profile has no tools inside programs: use in_process_with_app_tools "
          "or in_process_text_mode, or options without tools");
    pr::LispEvalAnswer answer =
        pr::answer_lisp_eval(args, p, run, (flags & PTC_PROTOCOL_INCLUDE_MEMORY) != 0);
    pc::hand_out(answer.payload, payload, payload_len);
    ptc::capi::succeed();  // whatever the tools' own calls recorded
    if (answer.ok) return PTC_OK;
    return ptc::capi::fail(PTC_PROGRAM_ERROR, "the payload is an error payload (status error)");
  });
}

ptc_status ptc_protocol_render_success(const ptc_result* result, const char* options_json,
                                       size_t options_len, char** out, size_t* len) {
  return guarded([&] {
    out_arg(out, "out");
    const ptc::Step& step = pc::result_step(result);
    if (!step.ok)
      throw InvalidArgument(
          "result: the run failed; its payload is ptc_protocol_render_step_error's");
    ptc::HostValue o = pc::options_object(options_json, options_len, "options_json",
                                          {"include_memory", "validated"});
    pr::SuccessOptions success{false, {}};
    if (const ptc::HostValue* m = o.get("include_memory"); m && !m->is_nil()) {
      if (m->kind() != ptc::HostValue::Kind::Bool)
        throw InvalidArgument("options_json.include_memory: expected true or false");
      success.include_memory = m->as_bool();
    }
    if (const ptc::HostValue* v = o.get("validated")) success.validated = *v;
    pc::hand_out(pr::render_success_from_step(step, success), out, len);
    return PTC_OK;
  });
}

ptc_status ptc_protocol_render_step_error(const ptc_result* result, char** out, size_t* len) {
  return guarded([&] {
    out_arg(out, "out");
    const ptc::Step& step = pc::result_step(result);
    if (step.ok)
      throw InvalidArgument(
          "result: the run succeeded; its payload is ptc_protocol_render_success's");
    pc::hand_out(pr::render_step_error(step), out, len);
    return PTC_OK;
  });
}

ptc_status ptc_protocol_render_error(const char* reason, const char* message, size_t message_len,
                                     const char* options_json, size_t options_len, char** out,
                                     size_t* len) {
  return guarded([&] {
    out_arg(out, "out");
    required(reason, "reason");
    std::optional<pr::Reason> r = pr::reason_from_name(reason);
    if (!r)
      throw InvalidArgument(
          fmt::format("reason: unknown reason '{}' ({})", reason, pr::reason_names()));
    std::string_view text = ptc::capi::text_arg(message, message_len, "message");
    ptc::HostValue o =
        pc::options_object(options_json, options_len, "options_json", {"feedback", "result"});
    if (const ptc::HostValue* f = o.get("feedback");
        f && !f->is_nil() && f->kind() != ptc::HostValue::Kind::String)
      throw InvalidArgument("options_json.feedback: expected a string");
    if (const ptc::HostValue* res = o.get("result");
        res && !res->is_nil() && *r != pr::Reason::Fail)
      throw InvalidArgument("options_json.result: only an error of reason fail has a result");
    pc::hand_out(pr::render_error(*r, text, o), out, len);
    return PTC_OK;
  });
}

}  // extern "C"
