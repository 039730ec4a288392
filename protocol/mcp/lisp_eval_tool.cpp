#include "protocol/mcp/lisp_eval_tool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "protocol/lisp_eval/reference_card.hpp"
#include "protocol/lisp_eval/tool.hpp"
#include "protocol/mcp/envelope.hpp"
#include "runtime/error.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::mcp {

namespace {

using K = HostValue::Kind;
using protocol::Profile;

using host::str;

HostValue args_error(std::string message) {
  return error_result("args_error", message,
                      "fix the arguments: program (a PTC-Lisp string), context (an object), "
                      "output_schema (a JSON Schema object)");
}

const char* kind_name(K k) {
  switch (k) {
    case K::Nil:
      return "null";
    case K::Bool:
      return "a boolean";
    case K::Int:
    case K::BigInt:
    case K::Float:
      return "a number";
    case K::String:
    case K::Keyword:
      return "a string";
    case K::Vector:
    case K::Set:
      return "an array";
    case K::Map:
      return "an object";
    default:
      return "a value";
  }
}

std::string profile_note(ResponseProfile p) {
  switch (p) {
    case ResponseProfile::Slim:
      return "The answer is text: what the program printed, then its value as `user=> ...`; "
             "give output_schema to get the value back as typed JSON too.";
    case ResponseProfile::Structured:
      return "The answer is text plus structuredContent {status, result, validated, ...}; "
             "give output_schema to get the value back as typed JSON (`validated`).";
    case ResponseProfile::Debug:
      return "The answer carries the whole payload (prints, feedback, validated, ...) as "
             "structuredContent and as JSON text.";
  }
  return "";
}

HostValue output_schema_of_results() {
  auto prop = [](const char* type) { return HostValue::map({{str("type"), str(type)}}); };
  return HostValue::map(
      {{str("type"), str("object")},
       {str("properties"),
        HostValue::map(
            {{str("status"),
              HostValue::map({{str("type"), str("string")},
                              {str("enum"), HostValue::vector({str("ok"), str("error")})}})},
             {str("result"), prop("string")},
             {str("validated"), HostValue::map({})},
             {str("reason"), prop("string")},
             {str("message"), prop("string")},
             {str("feedback"), prop("string")},
             {str("prints"),
              HostValue::map({{str("type"), str("array")}, {str("items"), prop("string")}})},
             {str("truncated"), prop("boolean")}})},
       {str("required"), HostValue::vector({str("status")})}});
}

class LispEvalTool final : public McpTool {
 public:
  explicit LispEvalTool(const ServerConfig& config) : config_(config) {
    std::vector<std::pair<HostValue, HostValue>> def{
        {str("name"), str("lisp_eval")},
        {str("description"), str(std::string(protocol::tool_description(Profile::McpNoTools)) +
                                 "\n\n" + profile_note(config.response_profile) + "\n\n" +
                                 protocol::compact_reference_card() + config.upstream_catalog)},
        {str("inputSchema"), protocol::input_schema(Profile::McpNoTools)},
        {str("annotations"),
         HostValue::map(
             {{str("title"), str("Run a PTC-Lisp program")},
              {str("readOnlyHint"), HostValue::boolean(!config.attach_upstreams)},
              {str("destructiveHint"), HostValue::boolean(false)},
              {str("idempotentHint"), HostValue::boolean(true)},
              {str("openWorldHint"), HostValue::boolean(bool(config.attach_upstreams))}})}};
    if (config.response_profile != ResponseProfile::Slim)
      def.emplace_back(str("outputSchema"), output_schema_of_results());
    definition_ = HostValue::map(std::move(def));
  }

  const std::string& name() const override { return name_; }
  HostValue definition() const override { return definition_; }
  bool takes_context_json() const override { return true; }

  std::optional<HostValue> precheck(const HostValue& args, const Caller&,
                                    std::string_view context_json) const override {
    EvalArgs unused;
    return check_eval_args(args, config_, {}, &unused, context_json);
  }

  HostValue call(const HostValue& args, const ToolEnv& env) override {
    EvalArgs a;
    // The context's keys were checked before the call took its slot.
    if (auto bad = check_eval_args(args, config_, {}, &a, env.context_json, false)) return *bad;
    Step step = programs_.run(a.program, eval_run_options(a, env));
    return eval_result(step, a, config_);
  }

 private:
  const ServerConfig& config_;
  // Clients send the same programs again (retries, one program over many
  // contexts): each source is compiled once, shared by the worker threads.
  ProgramCache programs_{256};
  std::string name_ = "lisp_eval";
  HostValue definition_;
};

// A context key is a data/ name: non-empty, no '/', no whitespace.
bool usable_key(std::string_view k) {
  if (k.empty()) return false;
  for (char c : k)
    if (c == '/' || c == ' ' || c == '\t' || c == '\n' || c == '\r') return false;
  return true;
}

// The top-level keys of compact JSON object text (as simdjson's minify
// writes it), one after another, without building anything: strings are
// skipped with memchr, so this costs far less than parsing. Keys with
// escapes are given with the escapes as written. `fn` returns false to stop.
template <class Fn>
void for_each_top_level_key(std::string_view j, Fn fn) {
  const char* p = j.data() + 1;  // after the opening brace
  const char* end = j.data() + j.size();
  size_t depth = 0;
  bool expect_key = true;
  while (p < end) {
    char c = *p;
    if (c == '"') {
      const char* start = ++p;
      for (;;) {  // to the closing quote: one not preceded by an odd run of backslashes
        p = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(end - p)));
        if (!p) return;
        const char* b = p;
        while (b > start && b[-1] == '\\')
          --b;
        if ((p - b) % 2 == 0) break;
        ++p;
      }
      if (depth == 0 && expect_key && !fn(std::string_view(start, static_cast<size_t>(p - start))))
        return;
      expect_key = false;
      ++p;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && depth > 0) --depth;
    if (c == ',' && depth == 0) expect_key = true;
    ++p;
  }
}

}  // namespace

size_t json_size(const HostValue& v) {
  switch (v.kind()) {
    case K::Nil:
      return 4;
    case K::Bool:
      return v.as_bool() ? 4 : 5;
    case K::Int:
      return 20;
    case K::Float:
      return 24;
    case K::BigInt:
    case K::String:
    case K::Keyword:
    case K::Opaque:
      return v.text().size() + 2;
    case K::Vector:
    case K::Set:
    case K::Map: {
      size_t n = 2;
      for (const HostValue& x : v.items())
        n += json_size(x) + 1;
      return n;
    }
  }
  return 0;
}

std::optional<HostValue> check_eval_args(const HostValue& args, const ServerConfig& config,
                                         std::initializer_list<std::string_view> extra_allowed,
                                         EvalArgs* out, std::string_view context_json,
                                         bool scan_context_keys) {
  if (args.kind() != K::Map && !args.is_nil())
    return args_error(
        fmt::format("the arguments must be an object, got {}", kind_name(args.kind())));
  const auto& items = args.items();
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    const std::string& k = items[i].text();
    if (k == "program" || k == "context" || k == "output_schema") continue;
    if (std::find(extra_allowed.begin(), extra_allowed.end(), k) != extra_allowed.end()) continue;
    if (k == "signature")
      return args_error(
          "the `signature` argument is not supported; describe the result with `output_schema` "
          "(a JSON Schema)");
    return args_error(
        fmt::format("unknown argument `{}` (accepted: program, context, "
                    "output_schema{})",
                    k, extra_allowed.size() ? ", ..." : ""));
  }
  protocol::ProgramArg program = protocol::validate_program(args.get("program"));
  if (!program.ok) return args_error(program.message);
  if (program.program.size() > config.max_program_bytes)
    return args_error(fmt::format("the program is {} bytes, more than the limit of {} bytes",
                                  program.program.size(), config.max_program_bytes));
  out->program = std::move(program.program);
  out->context = HostValue();
  out->context_json = {};
  if (!context_json.empty() && context_json != "null") {
    if (context_json.front() != '{')
      return args_error(fmt::format("`context` must be an object, got {}",
                                    context_json.front() == '[' ? "an array" : "a scalar"));
    std::string bad;
    bool found_bad = false;
    if (scan_context_keys)
      for_each_top_level_key(context_json, [&](std::string_view k) {
        if (usable_key(k)) return true;
        bad = std::string(k.substr(0, 60));
        found_bad = true;
        return false;
      });
    if (found_bad)
      return args_error(fmt::format(
          "context key \"{}\" cannot be a data/ name (keys must be non-empty, without / or spaces)",
          bad));
    if (context_json.size() > config.max_context_bytes)
      return args_error(fmt::format("`context` is {} bytes as JSON, more than the limit of {}",
                                    context_json.size(), config.max_context_bytes));
    out->context_json = context_json;
  }
  if (const HostValue* c = args.get("context"); c && !c->is_nil()) {
    if (c->kind() != K::Map)
      return args_error(fmt::format("`context` must be an object, got {}", kind_name(c->kind())));
    const auto& ci = c->items();
    for (size_t i = 0; i + 1 < ci.size(); i += 2)
      if (!usable_key(ci[i].text()))
        return args_error(fmt::format(
            "context key \"{}\" cannot be a data/ name (keys must be non-empty, without / or "
            "spaces)",
            ci[i].text().substr(0, 60)));
    size_t bytes = json_size(*c);
    if (bytes > config.max_context_bytes)
      return args_error(
          fmt::format("`context` is about {} bytes as JSON, more than the limit of {}", bytes,
                      config.max_context_bytes));
    out->context = *c;
  }
  out->output.reset();
  if (const HostValue* s = args.get("output_schema"); s && !s->is_nil()) {
    if (s->kind() != K::Map)
      return args_error(
          fmt::format("`output_schema` must be an object, got {}", kind_name(s->kind())));
    std::string error;
    out->output = signature_from_schema(*s, &error);
    if (!out->output) return args_error(error);
  }
  return std::nullopt;
}

RunOptions eval_run_options(const EvalArgs& args, const ToolEnv& env) {
  RunOptions o;
  o.context = args.context;
  o.context_json = args.context_json;
  o.limits.timeout_ms = env.config.program_timeout_ms;
  o.limits.max_heap_bytes = env.config.program_memory_limit_bytes;
  o.cancel = &env.cancel;
  o.caller = "mcp";
  o.profile = "mcp_no_tools";
  o.isolate = env.config.isolation;
  if (env.config.attach_upstreams) {
    env.config.attach_upstreams(o);
    o.profile = "mcp_aggregator";
  }
  return o;
}

HostValue eval_result(const Step& step, const EvalArgs& args, const ServerConfig& config,
                      bool include_memory, const HostValue& prior_memory) {
  ResponseProfile profile = config.response_profile;
  if (!step.ok) {
    if (step.error.kind == ErrorKind::Cancelled)
      return error_result("cancelled", "the call was cancelled before the program finished",
                          "nothing was returned; call again if the result is still needed");
    return payload_result(protocol::step_error_payload(step), profile, &step.usage);
  }
  protocol::SuccessOptions options;
  options.include_memory = include_memory;
  if (args.output) {
    SignatureCheck check = check_output(*args.output, step.value);
    if (!check.ok)
      return payload_result(
          protocol::error_payload(
              protocol::Reason::ValidationError,
              fmt::format("the result does not match output_schema: {}", check.message),
              {fmt::format("the result does not match output_schema: {}. Return a value of that "
                           "shape (keys as in the schema), or change the schema.",
                           check.message),
               std::nullopt}),
          profile, &step.usage);
    options.validated = check.value;
  }
  protocol::ExecutionFeedback fb = protocol::execution_feedback(
      step, prior_memory.is_nil() ? HostValue::map({}) : prior_memory, include_memory ? 2 : 1);
  return payload_result(protocol::success_payload(step, fb, options), profile, &step.usage);
}

std::unique_ptr<McpTool> make_lisp_eval_tool(const ServerConfig& config) {
  return std::make_unique<LispEvalTool>(config);
}

}  // namespace ptc::mcp
