#include "protocol/lisp_eval/tool.hpp"

#include <fmt/format.h>

#include <cmath>
#include <unordered_set>
#include <utility>

#include "protocol/lisp_eval/text.hpp"
#include "runtime/host_builders.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"

namespace ptc::protocol {

namespace {

using Kind = HostValue::Kind;
using Entries = std::vector<std::pair<HostValue, HostValue>>;

using host::str;

// ---------------------------------------------------------------- profiles

struct ProfileInfo {
  Profile profile;
  std::string_view name;
  std::string_view description;
};

// Each profile's description is one constant, written whole: no sentence is
// assembled at run time, so what a model reads is exactly what is reviewed
// here. The three share their first sentence and state capabilities only
// (workflow guidance belongs in system prompts and hints).
constexpr ProfileInfo kProfiles[] = {
    {Profile::InProcessWithAppTools, "in_process_with_app_tools",
     "Runs a PTC-Lisp program (a small, sandboxed Clojure subset) and answers with its value, "
     "its printed output, or its error. Use it for deterministic computation and for "
     "orchestrating tool calls. Call app tools as `(tool/name ...)` from inside the program: "
     "they are not native functions here, and only `lisp_eval` is available natively."},
    {Profile::InProcessTextMode, "in_process_text_mode",
     "Runs a PTC-Lisp program (a small, sandboxed Clojure subset) and answers with its value, "
     "its printed output, or its error. Use it for exact work on data: filtering, aggregation, "
     "or multi-step data transformation. Call `:both`-exposed app tools as `(tool/name ...)` "
     "from inside the program. Those tools may also be called natively in this assistant turn, "
     "but not in the same turn as `lisp_eval`."},
    {Profile::McpNoTools, "mcp_no_tools",
     "Runs a PTC-Lisp program (a small, sandboxed Clojure subset) and answers with its value, "
     "its printed output, or its error. Use it for exact work on data: filtering, aggregation, "
     "or multi-step data transformation. No app tools are available inside the program. Pass "
     "external data via the `context` argument: each key is read as `data/key`. Nothing is "
     "kept between calls; each invocation is independent."},
};

const ProfileInfo& info(Profile p) {
  for (const ProfileInfo& i : kProfiles)
    if (i.profile == p) return i;
  return kProfiles[0];
}

constexpr std::string_view kProgramDescription =
    "PTC-Lisp source code to run; it must not be empty. The value of the last form, or of "
    "(return value), is the result.";
constexpr std::string_view kContextDescription =
    "A JSON object of input data: each top-level key is available in the program as "
    "data/<key>.";
constexpr std::string_view kOutputSchemaDescription =
    "Optional JSON Schema (string, integer, number, boolean, array with items, object with "
    "properties and required) that the result must match; a matching result also comes back "
    "as typed JSON in `validated`.";

HostValue typed(std::string_view type, std::string_view description) {
  return HostValue::map({{str("type"), str(type)}, {str("description"), str(description)}});
}

// ---------------------------------------------------------------- program

// Unicode White_Space (what a trim removes).
bool is_space(int32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

bool is_blank(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    int32_t cp = 0;
    size_t n = decode_utf8(s, i, &cp);
    if (n == 0 || !is_space(cp)) return false;
    i += n;
  }
  return true;
}

ProgramArg args_error(std::string message) {
  ProgramArg r;
  r.message = std::move(message);
  return r;
}

// ---------------------------------------------------------------- payloads

HostValue string_list(const std::vector<std::string>& items) {
  std::vector<HostValue> out;
  out.reserve(items.size());
  for (const std::string& s : items)
    out.push_back(HostValue::string(utf8_text(s)));
  return HostValue::vector(std::move(out));
}

// The last resort of a renderer that must not throw: a payload that still
// says what happened.
std::string encode(const HostValue& payload) {
  try {
    return to_json(payload, true);
  } catch (LispError& e) {
    return to_json(HostValue::map({{str("status"), str("error")},
                                   {str("reason"), str("runtime_error")},
                                   {str("message"), str(utf8_text(e.error().message))},
                                   {str("feedback"), str(utf8_text(e.error().message))}}),
                   true);
  }
}

// ---------------------------------------------------------------- to_json_value

struct JsonConverter {
  std::string path;  // of the value being converted; "" = the root
  std::string error;

  bool fail(std::string_view why = {}) {
    error = fmt::format("non-JSON-encodable value at {}", path.empty() ? "<root>" : path);
    if (!why.empty()) error += fmt::format(": {}", why);
    return false;
  }

  bool convert(const HostValue& v, HostValue& out) {
    check_native_stack("converting a nested value to JSON");
    switch (v.kind()) {
      case Kind::Nil:
      case Kind::Bool:
      case Kind::Int:
      case Kind::BigInt:
      case Kind::String:
        out = v;
        return true;
      case Kind::Float:
        if (!std::isfinite(v.as_float())) return fail();
        out = v;
        return true;
      case Kind::Keyword:
        out = HostValue::string(v.text());
        return true;
      case Kind::Opaque:
        return fail();
      case Kind::Vector:
      case Kind::Set: {
        std::vector<HostValue> items(v.items().size());
        size_t mark = path.size();
        for (size_t i = 0; i < items.size(); ++i) {
          path += fmt::format("[{}]", i);
          if (!convert(v.items()[i], items[i])) return false;
          path.resize(mark);
        }
        out = HostValue::vector(std::move(items));
        return true;
      }
      case Kind::Map: {
        const auto& it = v.items();
        // Keys must be names; "a" and :a would become one JSON key.
        std::unordered_set<std::string_view> seen;
        for (size_t i = 0; i + 1 < it.size(); i += 2) {
          Kind k = it[i].kind();
          if (k != Kind::String && k != Kind::Keyword) return fail();
          if (!seen.insert(it[i].text()).second)
            return fail(fmt::format("the keys \"{0}\" and :{0} would be one JSON key",
                                    utf8_text(it[i].text())));
        }
        Entries entries(it.size() / 2);
        size_t mark = path.size();
        for (size_t i = 0; i + 1 < it.size(); i += 2) {
          if (!path.empty()) path += '.';
          path += it[i].text();
          auto& [key, value] = entries[i / 2];
          key = HostValue::string(it[i].text());
          if (!convert(it[i + 1], value)) return false;
          path.resize(mark);
        }
        out = HostValue::map(std::move(entries));
        return true;
      }
    }
    return fail();
  }
};

}  // namespace

// ---------------------------------------------------------------- profiles

std::string_view profile_name(Profile p) {
  return info(p).name;
}

std::optional<Profile> profile_from_name(std::string_view name) {
  for (const ProfileInfo& i : kProfiles)
    if (i.name == name) return i.profile;
  return std::nullopt;
}

std::string_view tool_description(Profile p) {
  return info(p).description;
}

std::string_view program_description() {
  return kProgramDescription;
}

HostValue input_schema(Profile p) {
  Entries properties{{str("program"), typed("string", kProgramDescription)}};
  if (p == Profile::McpNoTools) {
    properties.emplace_back(str("context"), typed("object", kContextDescription));
    properties.emplace_back(str("output_schema"), typed("object", kOutputSchemaDescription));
  }
  return HostValue::map({{str("type"), str("object")},
                         {str("properties"), HostValue::map(std::move(properties))},
                         {str("required"), HostValue::vector({str("program")})},
                         {str("additionalProperties"), HostValue::boolean(false)}});
}

HostValue openai_tool_schema(Profile p) {
  return HostValue::map(
      {{str("type"), str("function")},
       {str("function"), HostValue::map({{str("name"), str(kLispEval)},
                                         {str("description"), str(tool_description(p))},
                                         {str("parameters"), input_schema(p)}})}});
}

HostValue mcp_tool(Profile p) {
  return HostValue::map({{str("name"), str(kLispEval)},
                         {str("description"), str(tool_description(p))},
                         {str("inputSchema"), input_schema(p)}});
}

// ---------------------------------------------------------------- reasons

std::string_view reason_name(Reason r) {
  switch (r) {
    case Reason::ParseError:
      return "parse_error";
    case Reason::RuntimeError:
      return "runtime_error";
    case Reason::Timeout:
      return "timeout";
    case Reason::MemoryLimit:
      return "memory_limit";
    case Reason::ArgsError:
      return "args_error";
    case Reason::Fail:
      return "fail";
    case Reason::ValidationError:
      return "validation_error";
  }
  return "runtime_error";
}

namespace {
constexpr Reason kReasons[] = {Reason::ParseError,     Reason::RuntimeError, Reason::Timeout,
                               Reason::MemoryLimit,    Reason::ArgsError,    Reason::Fail,
                               Reason::ValidationError};
}  // namespace

std::optional<Reason> reason_from_name(std::string_view name) {
  for (Reason r : kReasons)
    if (reason_name(r) == name) return r;
  return std::nullopt;
}

std::string reason_names() {
  std::string names;
  for (Reason r : kReasons) {
    if (!names.empty()) names += ", ";
    names += reason_name(r);
  }
  return names;
}

// The one table from a run's error kind to the payload reason. No default
// case: a new ErrorKind does not compile until it is placed here.
Reason classify(ErrorKind kind) {
  switch (kind) {
    // The source could not be read. Analysis errors (a malformed let, a bad
    // destructuring pattern) are runtime_error, as in the reference, whose
    // parse_error means "failed to parse"; their message names the kind.
    case ErrorKind::ParseError:
      return Reason::ParseError;
    // A run stopped before it finished, by its clock or by its host (the MCP
    // server reports a cancelled call with its own reason).
    case ErrorKind::Timeout:
    case ErrorKind::Cancelled:
      return Reason::Timeout;
    case ErrorKind::MemoryLimit:
      return Reason::MemoryLimit;
    case ErrorKind::Fail:
      return Reason::Fail;
    // Malformed around the program: an oversized program (the reference's
    // "oversized" arguments), a bad option of the call.
    case ErrorKind::ArgsError:
    case ErrorKind::ProgramTooLarge:
    // lisp_eval never loads snapshots; an embedding that maps its errors
    // through here has given bytes that were not one.
    case ErrorKind::SnapshotError:
    case ErrorKind::SnapshotDivergence:
      return Reason::ArgsError;
    // The engine itself failed (an isolated worker died): the payload's
    // closed set has no reason of its own; the message starts with
    // "internal_error".
    case ErrorKind::InternalError:
      return Reason::RuntimeError;
    case ErrorKind::ValidationError:
      return Reason::ValidationError;
    case ErrorKind::InvalidForm:
    case ErrorKind::InvalidArity:
    case ErrorKind::UnboundVar:
    case ErrorKind::InvalidPlaceholder:
    case ErrorKind::UnsupportedPattern:
    case ErrorKind::TypeError:
    case ErrorKind::ArithmeticError:
    case ErrorKind::ArityError:
    case ErrorKind::NotCallable:
    case ErrorKind::DestructureError:
    case ErrorKind::RuntimeError:
    case ErrorKind::UnknownTool:
    case ErrorKind::ToolError:
    case ErrorKind::UnsupportedMethod:
    case ErrorKind::LoopLimitExceeded:
    case ErrorKind::CallDepthExceeded:
    case ErrorKind::SymbolLimit:
    case ErrorKind::ToolCallLimitExceeded:
    case ErrorKind::ParallelCapacityExceeded:
      return Reason::RuntimeError;
  }
  return Reason::RuntimeError;
}

// ---------------------------------------------------------------- program

ProgramArg validate_program(const HostValue* program) {
  if (!program || program->is_nil())
    return args_error("lisp_eval requires a non-empty `program` string argument.");
  if (program->kind() != Kind::String)
    return args_error(
        fmt::format("lisp_eval `program` must be a string, got {}.", short_form(*program, 60)));
  if (is_blank(program->text()))
    return args_error("lisp_eval `program` must be a non-empty string.");
  ProgramArg r;
  r.ok = true;
  r.program = program->text();
  return r;
}

ProgramArg extract_program(const HostValue& args, std::string_view args_error_text) {
  if (!args_error_text.empty())
    return args_error(fmt::format("Invalid tool arguments: {}", utf8_text(args_error_text)));
  return validate_program(args.get("program"));  // nullptr when args is not a map
}

std::string check_context(const HostValue* context) {
  if (!context || context->is_nil()) return "";
  if (context->kind() != HostValue::Kind::Map)
    return fmt::format("lisp_eval `context` must be an object, got {}.", short_form(*context, 60));
  const auto& it = context->items();
  for (size_t i = 0; i + 1 < it.size(); i += 2) {
    const std::string& key = it[i].text();
    if (key.empty() || key.find('/') != std::string::npos)
      return fmt::format("lisp_eval `context` keys must be non-empty names without '/', got {}.",
                         to_json(HostValue::string(key.substr(0, 60))));
  }
  return "";
}

void tag_run(Profile p, RunOptions& run) {
  switch (p) {
    case Profile::InProcessWithAppTools:
      run.caller = "in_process_v1";
      run.profile = "in_process_v1";
      return;
    case Profile::InProcessTextMode:
      run.caller = "text_mode";
      run.profile = "text_mode";
      return;
    case Profile::McpNoTools:
      run.caller = "mcp";
      run.profile = "mcp_no_tools";
      return;
  }
}

// ---------------------------------------------------------------- success

HostValue success_payload(const Step& step, const ExecutionFeedback& execution,
                          const SuccessOptions& options) {
  Entries payload{{str("status"), str("ok")},
                  {str("prints"), string_list(execution.prints)},
                  {str("feedback"), str(utf8_text(execution.feedback))}};
  // `result` is left out only when there is nothing at all to say: no
  // preview and a nil value. A value without a preview (a var) is null.
  if (execution.result)
    payload.emplace_back(str("result"), str(utf8_text(*execution.result)));
  else if (!step.value.is_nil())
    payload.emplace_back(str("result"), HostValue::nil());
  payload.emplace_back(str("truncated"),
                       HostValue::boolean(options.include_memory ? execution.truncated
                                                                 : execution.visible_truncated));
  if (options.include_memory) {
    const MemoryFeedback& m = execution.memory;
    payload.emplace_back(str("memory"),
                         HostValue::map({{str("changed"), m.changed},
                                         {str("stored_keys"), string_list(m.stored_keys)},
                                         {str("truncated"), HostValue::boolean(m.truncated)}}));
  }
  if (options.validated) {
    JsonValue json = to_json_value(*options.validated);
    if (!json.ok) return error_payload(Reason::ValidationError, "validated value: " + json.error);
    payload.emplace_back(str("validated"), std::move(json.value));
  }
  return HostValue::map(std::move(payload));
}

std::string render_success(const Step& step, const ExecutionFeedback& execution,
                           const SuccessOptions& options) {
  return encode(success_payload(step, execution, options));
}

std::string render_success(const Step& step, const ExecutionFeedback& execution,
                           const HostValue& options) {
  SuccessOptions o;
  if (const HostValue* m = options.get("include_memory"); m && m->kind() == Kind::Bool)
    o.include_memory = m->as_bool();
  if (const HostValue* v = options.get("validated")) o.validated = *v;
  return render_success(step, execution, o);
}

std::string render_success_from_step(const Step& step, const SuccessOptions& options,
                                     const FormatOptions& format) {
  // A single shot, unless the caller wants memory shown: then as a turn of
  // a longer conversation, so that the memory block reaches the feedback.
  ExecutionFeedback execution =
      execution_feedback(step, HostValue::map({}), options.include_memory ? 2 : 1, format);
  return render_success(step, execution, options);
}

// ---------------------------------------------------------------- errors

HostValue error_payload(Reason reason, std::string_view message, const ErrorOptions& options) {
  std::string text = utf8_text(message);
  Entries payload{{str("status"), str("error")},
                  {str("reason"), str(reason_name(reason))},
                  {str("message"), str(text)},
                  {str("feedback"), str(options.feedback ? utf8_text(*options.feedback) : text)}};
  if (reason == Reason::Fail)
    payload.emplace_back(str("result"),
                         options.result ? str(utf8_text(*options.result)) : HostValue::nil());
  return HostValue::map(std::move(payload));
}

std::string render_error(Reason reason, std::string_view message, const ErrorOptions& options) {
  return encode(error_payload(reason, message, options));
}

std::string render_error(Reason reason, std::string_view message, const HostValue& options) {
  ErrorOptions o;
  if (const HostValue* f = options.get("feedback"); f && f->kind() == Kind::String)
    o.feedback = f->text();
  if (const HostValue* r = options.get("result"); r && !r->is_nil())
    o.result = r->kind() == Kind::String ? r->text() : short_form(*r, 250);
  return render_error(reason, message, o);
}

HostValue step_error_payload(const Step& step, const FormatOptions& format) {
  const Error& e = step.error;
  if (e.kind != ErrorKind::Fail) return error_payload(classify(e.kind), e.describe());
  // (fail v): the message is v as printed, the result its preview. When v
  // was too large to copy out of the run, only its (capped) printed form is
  // left, and the preview is cut from that.
  ErrorOptions o;
  bool cut = false;
  std::string message = cut_text(e.fail_value, format.feedback_max_chars, &cut);
  if (cut) message += fmt::format("\n... (truncated at {} chars)", format.feedback_max_chars);
  if (step.fail_value.is_nil() && e.fail_value != "nil" && !e.fail_value.empty()) {
    std::string result = cut_text(e.fail_value, format.preview_max_chars, &cut);
    if (cut) result += truncation_marker(format.preview_max_chars);
    o.result = std::move(result);
  } else {
    o.result = preview_text(step.fail_value, format, &cut);
  }
  return error_payload(Reason::Fail, message, o);
}

std::string render_step_error(const Step& step, const FormatOptions& format) {
  return encode(step_error_payload(step, format));
}

// ---------------------------------------------------------------- to_json_value

JsonValue to_json_value(const HostValue& v) {
  JsonValue r;
  JsonConverter c;
  try {
    r.ok = c.convert(v, r.value);
    r.error = std::move(c.error);
  } catch (LispError&) {  // nested deeper than the native stack allows
    r.ok = false;
    r.error = fmt::format("non-JSON-encodable value at {}: nested too deeply",
                          c.path.empty() ? "<root>" : c.path.substr(0, 200));
  }
  if (!r.ok) r.value = HostValue();
  return r;
}

}  // namespace ptc::protocol
