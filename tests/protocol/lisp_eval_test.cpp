// The lisp_eval wire format: profiles and schemas, the `program` argument,
// success and error payloads (every reason, the result elision rule,
// include_memory, validated, unknown options), the error-kind table and
// to_json_value. Numbered comments refer to the reference's facts
// (../shared/reference/protocol.md §6).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/lisp_eval/tool.hpp"

namespace {

using ptc::ErrorKind;
using ptc::HostValue;
using ptc::parse_json;
using ptc::Step;
using ptc::to_json;
using namespace ptc::protocol;
using H = HostValue;

H str(const std::string& s) {
  return H::string(s);
}

// The JSON text of a payload, re-encoded: fails the test when it is not JSON.
H decode(const std::string& payload) {
  try {
    return parse_json(payload);
  } catch (ptc::LispError& e) {
    ADD_FAILURE() << "not JSON: " << payload << "\n" << e.error().describe();
    return H();
  }
}

bool has_key(const H& payload, const char* key) {
  return payload.get(key) != nullptr;
}

Step value_step(H value) {
  Step s;
  s.ok = true;
  s.value = std::move(value);
  s.memory = H::map({});
  return s;
}

ExecutionFeedback execution(std::optional<std::string> result) {
  ExecutionFeedback e;
  e.result = std::move(result);
  return e;
}

Step run_ok(const std::string& program, ptc::RunOptions options = {}) {
  Step s = ptc::run(program, options);
  EXPECT_TRUE(s.ok) << program << ": " << s.error.describe();
  return s;
}

Step run_failing(const std::string& program, ptc::RunOptions options = {}) {
  Step s = ptc::run(program, options);
  EXPECT_FALSE(s.ok) << program;
  return s;
}

const Profile kAllProfiles[] = {Profile::InProcessWithAppTools, Profile::InProcessTextMode,
                                Profile::McpNoTools};

// ---------------------------------------------------------------- profiles

TEST(LispEvalProfiles, NamesRoundTrip) {
  EXPECT_EQ(kLispEval, "lisp_eval");
  EXPECT_EQ(profile_name(Profile::InProcessWithAppTools), "in_process_with_app_tools");
  EXPECT_EQ(profile_name(Profile::InProcessTextMode), "in_process_text_mode");
  EXPECT_EQ(profile_name(Profile::McpNoTools), "mcp_no_tools");
  for (Profile p : kAllProfiles)
    EXPECT_EQ(profile_from_name(profile_name(p)), p);
  EXPECT_FALSE(profile_from_name("mcp"));
  EXPECT_FALSE(profile_from_name(""));
}

// 20: three distinct descriptions, each stating its profile's capabilities.
TEST(LispEvalProfiles, DescriptionsStateEachProfilesCapabilities) {
  std::string v1(tool_description(Profile::InProcessWithAppTools));
  std::string text(tool_description(Profile::InProcessTextMode));
  std::string mcp(tool_description(Profile::McpNoTools));
  EXPECT_NE(v1, text);
  EXPECT_NE(v1, mcp);
  EXPECT_NE(text, mcp);

  EXPECT_NE(v1.find("only `lisp_eval` is available natively"), std::string::npos);
  EXPECT_NE(v1.find("Call app tools as `(tool/name ...)` from inside the program"),
            std::string::npos);

  EXPECT_NE(
      text.find("Call `:both`-exposed app tools as `(tool/name ...)` from inside the program"),
      std::string::npos);
  EXPECT_NE(text.find("in this assistant turn, but not in the same turn as `lisp_eval`"),
            std::string::npos);
  EXPECT_NE(text.find("filtering, aggregation, or multi-step data transformation"),
            std::string::npos);

  EXPECT_NE(mcp.find("No app tools are available inside the program"), std::string::npos);
  EXPECT_NE(mcp.find("Pass external data via the `context` argument"), std::string::npos);
  EXPECT_NE(mcp.find("each invocation is independent"), std::string::npos);
  EXPECT_NE(mcp.find("filtering, aggregation, or multi-step data transformation"),
            std::string::npos);
  EXPECT_EQ(mcp.find("(tool/"), std::string::npos);  // no tools to call there

  // One shared first sentence.
  std::string first = v1.substr(0, v1.find(". ") + 1);
  EXPECT_GT(first.size(), 20u);
  EXPECT_EQ(text.rfind(first, 0), 0u);
  EXPECT_EQ(mcp.rfind(first, 0), 0u);
}

TEST(LispEvalProfiles, OpenAiSchemaHasOneDefinitionPerProfile) {
  for (Profile p : kAllProfiles) {
    H schema = openai_tool_schema(p);
    EXPECT_EQ(schema.get("type")->text(), "function");
    const H* fn = schema.get("function");
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(fn->get("name")->text(), "lisp_eval");
    EXPECT_EQ(fn->get("description")->text(), tool_description(p));
    const H* params = fn->get("parameters");
    ASSERT_NE(params, nullptr);
    EXPECT_EQ(*params, input_schema(p));
    EXPECT_EQ(to_json(*params->get("required")), R"(["program"])");
    EXPECT_EQ(params->get("properties")->get("program")->get("type")->text(), "string");
    EXPECT_EQ(params->get("properties")->get("program")->get("description")->text(),
              program_description());
    EXPECT_EQ(params->get("type")->text(), "object");
    EXPECT_FALSE(params->get("additionalProperties")->as_bool());
    // The MCP tool object shares the input schema.
    H mcp = mcp_tool(p);
    EXPECT_EQ(mcp.get("name")->text(), "lisp_eval");
    EXPECT_EQ(mcp.get("description")->text(), tool_description(p));
    EXPECT_EQ(*mcp.get("inputSchema"), *params);
  }
  EXPECT_EQ(openai_tool_schema(Profile::InProcessWithAppTools)
                .get("function")
                ->get("parameters")
                ->get("properties")
                ->size(),
            1u);
  EXPECT_EQ(input_schema(Profile::InProcessTextMode).get("properties")->size(), 1u);
  H mcp_schema = input_schema(Profile::McpNoTools);
  const H* mcp = mcp_schema.get("properties");
  EXPECT_EQ(mcp->size(), 3u);
  EXPECT_EQ(mcp->get("context")->get("type")->text(), "object");
  EXPECT_EQ(mcp->get("output_schema")->get("type")->text(), "object");
  // Deterministic bytes: keys sorted at every depth.
  std::string json = to_json(openai_tool_schema(Profile::McpNoTools), true);
  EXPECT_EQ(json.rfind(R"({"function":{"description":)", 0), 0u) << json;
  EXPECT_NE(json.find(R"("required":["program"],"type":"object"}},"type":"function"})"),
            std::string::npos)
      << json;
}

// ---------------------------------------------------------------- program

TEST(LispEvalProgram, AStringIsKeptAsGiven) {  // 1
  H p = str("(+ 1 2)");
  ProgramArg r = validate_program(&p);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.program, "(+ 1 2)");
  p = str("  (+ 1 2)\n");
  EXPECT_EQ(validate_program(&p).program, "  (+ 1 2)\n");  // untrimmed
}

TEST(LispEvalProgram, AbsentProgram) {  // 2
  const char* expected = "lisp_eval requires a non-empty `program` string argument.";
  EXPECT_EQ(validate_program(nullptr).message, expected);
  H nil;
  ProgramArg r = validate_program(&nil);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, expected);
}

TEST(LispEvalProgram, NotAStringNamesWhatCame) {  // 3
  auto message = [](const char* json) {
    H v = parse_json(json);
    ProgramArg r = validate_program(&v);
    EXPECT_FALSE(r.ok);
    return r.message;
  };
  EXPECT_EQ(message("42"), "lisp_eval `program` must be a string, got 42.");
  EXPECT_EQ(message(R"(["a"])"), R"(lisp_eval `program` must be a string, got ["a"].)");
  EXPECT_EQ(message(R"({"a": 1})"), R"(lisp_eval `program` must be a string, got {"a" 1}.)");
  EXPECT_EQ(message("true"), "lisp_eval `program` must be a string, got true.");
  EXPECT_EQ(message("false"), "lisp_eval `program` must be a string, got false.");
  EXPECT_EQ(message("1.5"), "lisp_eval `program` must be a string, got 1.5.");
  // A big value is shortened.
  std::string big = message(("[\"" + std::string(5000, 'x') + "\"]").c_str());
  EXPECT_LT(big.size(), 120u);
  EXPECT_NE(big.find("...."), std::string::npos) << big;
}

TEST(LispEvalProgram, BlankProgram) {  // 4
  for (const char* blank : {"", "   ", "\n\t \r", "\u00a0\u3000\u2003", "\u2028\u0085"}) {
    H p = str(blank);
    ProgramArg r = validate_program(&p);
    EXPECT_FALSE(r.ok) << blank;
    EXPECT_EQ(r.message, "lisp_eval `program` must be a non-empty string.");
  }
  H p = str("\u00a0x");
  EXPECT_TRUE(validate_program(&p).ok);
}

TEST(LispEvalProgram, ExtractedFromTheCallArguments) {
  ProgramArg r = extract_program(parse_json(R"j({"program": "(+ 1 2)", "other": 1})j"));
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.program, "(+ 1 2)");
  r = extract_program(H::map({{H::keyword("program"), str("(inc 1)")}}));
  EXPECT_EQ(r.program, "(inc 1)");
  // Arguments that are not a map count as absent.
  for (const char* json : {"[]", "\"(+ 1 2)\"", "null", "7"})
    EXPECT_EQ(extract_program(parse_json(json)).message,
              "lisp_eval requires a non-empty `program` string argument.")
        << json;
  EXPECT_EQ(extract_program(parse_json("{}")).message,
            "lisp_eval requires a non-empty `program` string argument.");
  EXPECT_EQ(extract_program(parse_json(R"({"program": 123})")).message,
            "lisp_eval `program` must be a string, got 123.");
  // 46: arguments that failed to decode win over any program.
  r = extract_program(parse_json(R"j({"program": "(+ 1 2)"})j"), "Invalid JSON arguments: garbage");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, "Invalid tool arguments: Invalid JSON arguments: garbage");
}

// ---------------------------------------------------------------- success

TEST(LispEvalSuccess, FieldsPassThrough) {  // 5
  Step step = value_step(H::integer(42));
  ExecutionFeedback e = execution("42");
  e.prints = {"hi"};
  e.feedback = "computed 42";
  EXPECT_EQ(render_success(step, e),
            R"({"feedback":"computed 42","memory":{"changed":{},"stored_keys":[],)"
            R"("truncated":false},"prints":["hi"],"result":"42","status":"ok","truncated":false})");
}

TEST(LispEvalSuccess, ResultElisionRule) {
  // 6: no preview and a nil value: no key.
  H p = decode(render_success(value_step(H()), execution(std::nullopt)));
  EXPECT_FALSE(has_key(p, "result"));
  // 7: a value without a preview: null.
  p = decode(render_success(value_step(str("non-nil-return")), execution(std::nullopt)));
  ASSERT_TRUE(has_key(p, "result"));
  EXPECT_TRUE(p.get("result")->is_nil());
  // 8: a preview always shows.
  p = decode(render_success(value_step(H()), execution("x")));
  EXPECT_EQ(p.get("result")->text(), "x");
  // From real runs: a var has no preview, nil has nothing.
  p = decode(render_success_from_step(run_ok("(def x 10)")));
  ASSERT_TRUE(has_key(p, "result"));
  EXPECT_TRUE(p.get("result")->is_nil());
  p = decode(render_success_from_step(run_ok("nil")));
  EXPECT_FALSE(has_key(p, "result"));
  p = decode(render_success_from_step(run_ok("false")));
  EXPECT_EQ(p.get("result")->text(), "user=> false");
}

TEST(LispEvalSuccess, IncludeMemoryFalseLeavesMemoryOut) {  // 9
  ExecutionFeedback e = execution("user=> 1");
  e.visible_truncated = false;
  e.truncated = true;
  SuccessOptions no_memory{false, {}};
  H p = decode(render_success(value_step(H::integer(1)), e, no_memory));
  EXPECT_FALSE(has_key(p, "memory"));
  EXPECT_FALSE(p.get("truncated")->as_bool());
  e.visible_truncated = true;
  p = decode(render_success(value_step(H::integer(1)), e, no_memory));
  EXPECT_TRUE(p.get("truncated")->as_bool());
  // With memory, `truncated` counts memory too.
  e.visible_truncated = false;
  p = decode(render_success(value_step(H::integer(1)), e));
  EXPECT_TRUE(p.get("truncated")->as_bool());
  EXPECT_TRUE(has_key(p, "memory"));
}

TEST(LispEvalSuccess, Validated) {  // 10
  Step step = value_step(H::integer(7));
  SuccessOptions o;
  o.validated = parse_json(R"({"count": 7})");
  H p = decode(render_success(step, execution("user=> 7"), o));
  EXPECT_EQ(to_json(*p.get("validated")), R"({"count":7})");
  EXPECT_FALSE(has_key(decode(render_success(step, execution("user=> 7"))), "validated"));
  o.validated = H();  // given as null: still a field
  p = decode(render_success(step, execution("user=> 7"), o));
  ASSERT_TRUE(has_key(p, "validated"));
  EXPECT_TRUE(p.get("validated")->is_nil());
  // Keywords become strings.
  o.validated = H::map({{H::keyword("status"), H::keyword("done")}});
  p = decode(render_success(step, execution("user=> 7"), o));
  EXPECT_EQ(to_json(*p.get("validated")), R"({"status":"done"})");
  // No JSON form: a validation_error payload that says where.
  o.validated = H::map({{str("rows"), H::vector({H::map({{str("ts"), H::opaque("#fn[]")}})})}});
  EXPECT_EQ(render_success(step, execution("user=> 7"), o),
            R"({"feedback":"validated value: non-JSON-encodable value at rows[0].ts",)"
            R"("message":"validated value: non-JSON-encodable value at rows[0].ts",)"
            R"("reason":"validation_error","status":"error"})");
}

TEST(LispEvalSuccess, OptionsAsAMapIgnoreUnknownKeys) {  // 10, and Addendum 12
  Step step = value_step(H::integer(7));
  ExecutionFeedback e = execution("user=> 7");
  std::string plain = render_success(step, e);
  EXPECT_EQ(render_success(step, e, parse_json(R"({"bogus": 1, "execution": "x"})")), plain);
  EXPECT_EQ(render_success(step, e, H()), plain);
  EXPECT_EQ(render_success(step, e, parse_json("[1, 2]")), plain);
  H p = decode(render_success(step, e, parse_json(R"({"include_memory": false, "zzz": [1]})")));
  EXPECT_FALSE(has_key(p, "memory"));
  p = decode(render_success(
      step, e, H::map({{H::keyword("validated"), H::integer(7)}, {H::keyword("x"), H()}})));
  EXPECT_EQ(p.get("validated")->as_int(), 7);
  EXPECT_TRUE(has_key(p, "memory"));
  // A non-boolean include_memory is ignored, not guessed at.
  p = decode(render_success(step, e, parse_json(R"({"include_memory": "no"})")));
  EXPECT_TRUE(has_key(p, "memory"));
}

TEST(LispEvalSuccess, FromAStep) {  // 15, 16
  EXPECT_EQ(render_success_from_step(run_ok("(+ 1 2)")),
            R"({"feedback":"","prints":[],"result":"user=> 3","status":"ok","truncated":false})");
  H p = decode(render_success_from_step(run_ok("(println \"hi\")")));
  EXPECT_FALSE(has_key(p, "result"));
  EXPECT_EQ(to_json(*p.get("prints")), R"(["hi"])");
  EXPECT_FALSE(has_key(p, "memory"));
  EXPECT_NE(p.get("feedback")->text().find("hi"), std::string::npos);
  // The seed transcript: a returned map previews with its keywords.
  p = decode(render_success_from_step(run_ok("(return {:total 5})")));
  EXPECT_EQ(p.get("result")->text(), "user=> {:total 5}");
  // Map entries keep their order (no sorting).
  p = decode(render_success_from_step(run_ok("{:b 1 :a 2 \"c\" 3}")));
  EXPECT_EQ(p.get("result")->text(), "user=> {:b 1 :a 2 \"c\" 3}");
  // Validated passes through.
  p = decode(render_success_from_step(run_ok("[1 2]"), SuccessOptions{false, H::integer(2)}));
  EXPECT_EQ(p.get("validated")->as_int(), 2);
}

TEST(LispEvalSuccess, FromAStepWithMemory) {  // 17
  ptc::RunOptions o;
  o.memory = parse_json(R"({"session_api_value": 1})");
  Step step = run_ok("(def session_api_value 2)", o);
  H p = decode(render_success_from_step(step, SuccessOptions{true, {}}));
  EXPECT_EQ(to_json(*p.get("memory"), true),
            R"({"changed":{"session_api_value":"2"},"stored_keys":["session_api_value"],)"
            R"("truncated":false})");
  EXPECT_NE(p.get("feedback")->text().find("session_api_value = 2"), std::string::npos);
}

TEST(LispEvalSuccess, PreviewCapsReachThePayload) {
  FormatOptions f;
  f.preview_max_chars = 20;
  H p = decode(render_success_from_step(run_ok("(range 1 201)"), {false, {}}, f));
  EXPECT_EQ(p.get("result")->text(),
            "user=> [1 2 3 4 5 6 7 8 9 1 ... (truncated at 20 chars; use println on specific "
            "fields)");
  EXPECT_TRUE(p.get("truncated")->as_bool());
  // A huge value: the preview is cut without printing all of it.
  Step big = value_step(H::string(std::string(10 << 20, 'z')));
  p = decode(render_success_from_step(big));
  EXPECT_LT(p.get("result")->text().size(), 400u);
  EXPECT_TRUE(p.get("truncated")->as_bool());
}

TEST(LispEvalSuccess, PayloadStringsAreValidUtf8) {
  ExecutionFeedback e = execution("user=> \"a\xff\"");
  e.prints = {"bad \xc3"};
  std::string json = render_success(value_step(H::integer(1)), e);
  H p = decode(json);
  EXPECT_EQ(p.get("prints")->items()[0].text(), "bad \xEF\xBF\xBD");
  EXPECT_EQ(p.get("result")->text(), "user=> \"a\xEF\xBF\xBD\"");
}

// ---------------------------------------------------------------- errors

TEST(LispEvalErrors, FailCarriesAResult) {
  // 11
  ErrorOptions o;
  o.result = "{:bad-input 42}";
  EXPECT_EQ(render_error(Reason::Fail, "boom", o),
            R"({"feedback":"boom","message":"boom","reason":"fail","result":"{:bad-input 42}",)"
            R"("status":"error"})");
  // 12
  EXPECT_EQ(render_error(Reason::Fail, "msg"),
            R"({"feedback":"msg","message":"msg","reason":"fail","result":null,"status":"error"})");
  EXPECT_EQ(render_error(Reason::Fail, "msg", parse_json(R"({"result": null})")),
            render_error(Reason::Fail, "msg"));
  // 13
  o.result = "v";
  o.feedback = "polished";
  H p = decode(render_error(Reason::Fail, "raw", o));
  EXPECT_EQ(p.get("feedback")->text(), "polished");
  EXPECT_EQ(p.get("message")->text(), "raw");
  EXPECT_EQ(p.get("result")->text(), "v");
}

TEST(LispEvalErrors, EveryReasonRenders) {  // 14
  const std::pair<Reason, const char*> reasons[] = {
      {Reason::ParseError, "parse_error"},
      {Reason::RuntimeError, "runtime_error"},
      {Reason::Timeout, "timeout"},
      {Reason::MemoryLimit, "memory_limit"},
      {Reason::ArgsError, "args_error"},
      {Reason::Fail, "fail"},
      {Reason::ValidationError, "validation_error"},
  };
  for (auto [reason, name] : reasons) {
    EXPECT_EQ(reason_name(reason), name);
    std::string expected =
        std::string(R"({"feedback":"something went wrong","message":"something went wrong",)") +
        R"("reason":")" + name + "\"" + (reason == Reason::Fail ? R"(,"result":null)" : "") +
        R"(,"status":"error"})";
    EXPECT_EQ(render_error(reason, "something went wrong"), expected) << name;
    // A result is only for fail.
    ErrorOptions o;
    o.result = "ignored unless fail";
    H p = decode(render_error(reason, "something went wrong", o));
    EXPECT_EQ(has_key(p, "result"), reason == Reason::Fail) << name;
    o.feedback = "override";
    EXPECT_EQ(decode(render_error(reason, "m", o)).get("feedback")->text(), "override");
    // The same as a map, with unknown keys ignored.
    H m = parse_json(R"({"feedback": "override", "unknown": {"x": 1}, "result": "r"})");
    p = decode(render_error(reason, "m", m));
    EXPECT_EQ(p.get("feedback")->text(), "override") << name;
    EXPECT_EQ(has_key(p, "result"), reason == Reason::Fail);
    EXPECT_FALSE(has_key(p, "unknown"));
    EXPECT_EQ(render_error(reason, "m", parse_json(R"({"nope": true})")),
              render_error(reason, "m"));
  }
}

TEST(LispEvalErrors, ErrorOptionsMapWithKeywordsAndNonStringResult) {
  H m = H::map({{H::keyword("result"), parse_json(R"({"a": [1, 2]})")},
                {H::keyword("feedback"), str("fb")}});
  H p = decode(render_error(Reason::Fail, "m", m));
  EXPECT_EQ(p.get("result")->text(), R"({"a" [1 2]})");
  EXPECT_EQ(p.get("feedback")->text(), "fb");
}

// Every error kind of a run and its payload reason, written out; the kinds
// are enumerated from their own table, so a new kind fails here until it is
// placed.
TEST(LispEvalErrors, EveryErrorKindIsClassified) {
  const std::map<std::string_view, std::string_view> expected = {
      {"parse_error", "parse_error"},
      {"invalid_form", "runtime_error"},  // analysis, not reading
      {"invalid_arity", "runtime_error"},
      {"unbound_var", "runtime_error"},
      {"invalid_placeholder", "runtime_error"},
      {"unsupported_pattern", "runtime_error"},
      {"type_error", "runtime_error"},
      {"arithmetic_error", "runtime_error"},
      {"arity_error", "runtime_error"},
      {"not_callable", "runtime_error"},
      {"destructure_error", "runtime_error"},
      {"runtime_error", "runtime_error"},
      {"unknown_tool", "runtime_error"},
      {"tool_error", "runtime_error"},
      {"unsupported_method", "runtime_error"},
      {"loop_limit_exceeded", "runtime_error"},
      {"call_depth_exceeded", "runtime_error"},
      {"timeout", "timeout"},
      {"cancelled", "timeout"},
      {"memory_limit", "memory_limit"},
      {"symbol_limit_exceeded", "runtime_error"},
      {"program_too_large", "args_error"},  // oversized arguments
      {"tool_call_limit_exceeded", "runtime_error"},
      {"parallel_capacity_exceeded", "runtime_error"},
      {"args_error", "args_error"},
      {"validation_error", "validation_error"},
      {"fail", "fail"},
      {"snapshot_error", "args_error"},  // bytes given to load that are not a snapshot
      {"snapshot_divergence", "args_error"},
      {"internal_error", "runtime_error"},  // an isolated worker died
  };
  size_t count = 0;
#define PTC_X(name, reason)                                                         \
  ASSERT_TRUE(expected.count(reason)) << "no expectation for " << reason;           \
  EXPECT_EQ(reason_name(classify(ErrorKind::name)), expected.at(reason)) << reason; \
  ++count;
  PTC_ERROR_KINDS(PTC_X)
#undef PTC_X
  EXPECT_EQ(count, expected.size());
}

TEST(LispEvalErrors, FromFailedRuns) {
  // 68: unbalanced source is a parse error; the message says where.
  H p = decode(render_step_error(run_failing("((((not balanced")));
  EXPECT_EQ(p.get("reason")->text(), "parse_error");
  EXPECT_NE(p.get("message")->text().find("at 1:"), std::string::npos);
  EXPECT_EQ(p.get("feedback")->text(), p.get("message")->text());
  EXPECT_FALSE(has_key(p, "result"));
  // An undefined function is a runtime error, with its kind, place and hint.
  p = decode(render_step_error(run_failing("(undefined-fn 1 2)")));
  EXPECT_EQ(p.get("reason")->text(), "runtime_error");
  EXPECT_EQ(p.get("message")->text().rfind("unbound_var at 1:2: ", 0), 0u)
      << p.get("message")->text();
  EXPECT_NE(p.get("message")->text().find("hint: "), std::string::npos);
  p = decode(render_step_error(run_failing("(let [x] x)")));
  EXPECT_EQ(p.get("reason")->text(), "runtime_error");
  EXPECT_EQ(p.get("message")->text().rfind("invalid_form at", 0), 0u);

  ptc::RunOptions o;
  o.limits.timeout_ms = 50;
  p = decode(render_step_error(
      run_failing("(defn f [n] (if (= n 0) 0 (+ (f (dec n)) (f (dec n))))) (f 40)", o)));
  EXPECT_EQ(p.get("reason")->text(), "timeout");

  o = {};
  o.limits.max_heap_bytes = 100000;
  p = decode(render_step_error(run_failing("(def big (vec (range 1000000)))", o)));
  EXPECT_EQ(p.get("reason")->text(), "memory_limit");

  o = {};
  o.signature = ":int";
  p = decode(render_step_error(run_failing("\"a\"", o)));
  EXPECT_EQ(p.get("reason")->text(), "validation_error");

  o = {};
  o.caller = "nobody";
  p = decode(render_step_error(run_failing("1", o)));
  EXPECT_EQ(p.get("reason")->text(), "args_error");

  // A 10 MB program is an oversized argument.
  p = decode(render_step_error(run_failing("(+ 1 2)" + std::string(10 << 20, ' '))));
  EXPECT_EQ(p.get("reason")->text(), "args_error");
  EXPECT_EQ(p.get("message")->text().rfind("program_too_large: ", 0), 0u);
}

TEST(LispEvalErrors, FailRendersThePrintedValue) {
  // 67: a string keeps its quotes.
  EXPECT_EQ(render_step_error(run_failing("(fail \"boom\")")),
            R"({"feedback":"\"boom\"","message":"\"boom\"","reason":"fail",)"
            R"("result":"\"boom\"","status":"error"})");
  // 49: a map.
  H p = decode(render_step_error(run_failing("(fail {:reason :x :message \"boom\"})")));
  EXPECT_EQ(p.get("reason")->text(), "fail");
  EXPECT_EQ(p.get("message")->text(), "{:reason :x :message \"boom\"}");
  EXPECT_EQ(p.get("result")->text(), "{:reason :x :message \"boom\"}");
  // (fail nil) still has its result.
  p = decode(render_step_error(run_failing("(fail nil)")));
  EXPECT_EQ(p.get("result")->text(), "nil");
  // The result is a preview: collection limit and character cap.
  p = decode(render_step_error(run_failing("(fail (range 100))")));
  EXPECT_NE(p.get("result")->text().find("(50/100)"), std::string::npos);
  EXPECT_EQ(p.get("result")->text().find("user=>"), std::string::npos);
  FormatOptions f;
  f.preview_max_chars = 10;
  f.feedback_max_chars = 30;
  p = decode(render_step_error(run_failing("(fail (vec (range 1000)))"), f));
  EXPECT_EQ(p.get("result")->text(),
            "[0 1 2 3 4 ... (truncated at 10 chars; use println on specific fields)");
  EXPECT_EQ(p.get("message")->text(),
            "[0 1 2 3 4 5 6 7 8 9 10 11 12 \n... (truncated at 30 chars)");
  EXPECT_EQ(p.get("feedback")->text(), p.get("message")->text());
}

TEST(LispEvalErrors, FailWithAValueTooLargeToCopyOut) {
  // Only the printed (capped) form is left: the result is cut from it.
  Step s;
  s.ok = false;
  s.error.kind = ErrorKind::Fail;
  s.error.fail_value = "[" + std::string(5000, '7') + "]";
  H p = decode(render_step_error(s));
  EXPECT_EQ(
      p.get("result")->text().size(),
      250 + std::string(" ... (truncated at 250 chars; use println on specific fields)").size());
  EXPECT_LT(p.get("message")->text().size(), 600u);
}

// ---------------------------------------------------------------- to_json_value

std::string json_of(const H& v) {
  JsonValue r = to_json_value(v);
  EXPECT_TRUE(r.ok) << r.error;
  return to_json(r.value, true);
}

std::string error_of(const H& v) {
  JsonValue r = to_json_value(v);
  EXPECT_FALSE(r.ok) << to_json(r.value);
  return r.error;
}

TEST(ToJsonValue, Data) {  // 18
  EXPECT_EQ(json_of(H::integer(42)), "42");
  EXPECT_EQ(json_of(H::floating(1.5)), "1.5");
  EXPECT_EQ(json_of(H::keyword("foo")), R"("foo")");
  EXPECT_EQ(json_of(H::vector({H::integer(1), H::keyword("ok"), str("a")})), R"([1,"ok","a"])");
  EXPECT_EQ(json_of(str("2026-05-07T12:00:00Z")), R"("2026-05-07T12:00:00Z")");
  EXPECT_EQ(json_of(H::map({{H::keyword("count"), H::integer(2)},
                            {H::keyword("items"), H::vector({H::keyword("a"), H::keyword("b")})}})),
            R"({"count":2,"items":["a","b"]})");
  EXPECT_EQ(json_of(H()), "null");
  EXPECT_EQ(json_of(H::boolean(true)), "true");
  EXPECT_EQ(json_of(H::bigint("123456789012345678901234567890")), "123456789012345678901234567890");
  EXPECT_EQ(json_of(H::set({H::integer(1)})), "[1]");
  // 19: string and keyword keys together.
  EXPECT_EQ(json_of(H::map({{H::keyword("a"), H::integer(1)}, {str("b"), H::integer(2)}})),
            R"({"a":1,"b":2})");
}

TEST(ToJsonValue, ErrorsNameThePath) {  // 19
  H rows =
      H::map({{H::keyword("rows"), H::vector({H::map({{H::keyword("ts"), H::opaque("#'t")}})})}});
  EXPECT_EQ(error_of(rows), "non-JSON-encodable value at rows[0].ts");
  EXPECT_EQ(error_of(H::vector({H::integer(1), H::opaque("#fn[x]")})),
            "non-JSON-encodable value at [1]");
  EXPECT_EQ(error_of(H::opaque("#\"re\"")), "non-JSON-encodable value at <root>");
  // Keys that are not names, or two that would become one.
  EXPECT_EQ(error_of(H::map({{H::integer(1), str("a")}, {str("1"), str("b")}})),
            "non-JSON-encodable value at <root>");
  EXPECT_EQ(error_of(H::map({{H::integer(42), str("value")}})),
            "non-JSON-encodable value at <root>");
  EXPECT_EQ(error_of(H::map({{H::keyword("a"), H::integer(1)}, {str("a"), H::integer(2)}})),
            "non-JSON-encodable value at <root>: the keys \"a\" and :a would be one JSON key");
  EXPECT_EQ(error_of(H::map({{str("a"), H::map({{H::vector({}), H::integer(1)}})}})),
            "non-JSON-encodable value at a");
  EXPECT_EQ(error_of(H::map({{str("a"), H::map({{str("b"), H::floating(std::nan(""))}})}})),
            "non-JSON-encodable value at a.b");
  EXPECT_EQ(error_of(H::vector({H::vector({H::integer(0), H::floating(1.0 / 0.0)})})),
            "non-JSON-encodable value at [0][1]");
  EXPECT_EQ(error_of(H::set({H::opaque("#'s")})), "non-JSON-encodable value at [0]");
}

}  // namespace
