// The agent loop with a scripted model: the tool-call transport's four
// branches, combined mode's dispatch rules and cache bridge, budgets and
// termination, and the pairing rule (every tool-call id answered by exactly
// one tool message) checked after every run; content mode (programs as
// fenced blocks in the reply) and finding the program in a reply.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol/agent/agent.hpp"
#include "protocol/agent/content_turn.hpp"
#include "protocol/lisp_eval/tool.hpp"

namespace {

using ptc::HostValue;
using ptc::ToolResult;
using namespace ptc::protocol;
using H = HostValue;

// ---------------------------------------------------------------- scripting

ToolCallRequest call(std::string id, std::string name, H args) {
  ToolCallRequest c;
  c.id = std::move(id);
  c.name = std::move(name);
  c.args = std::move(args);
  return c;
}

ToolCallRequest eval(std::string id, std::string program) {
  return call(std::move(id), "lisp_eval", H::map({{H::string("program"), H::string(program)}}));
}

LlmResponse calls(std::vector<ToolCallRequest> cs) {
  LlmResponse r;
  r.tool_calls = std::move(cs);
  return r;
}

LlmResponse text(std::string content) {
  LlmResponse r;
  r.content = std::move(content);
  return r;
}

struct Script {
  explicit Script(std::vector<LlmResponse> r = {}) : responses(std::move(r)) {}
  std::vector<LlmResponse> responses;
  std::vector<LlmRequest> requests;
  size_t next = 0;
  LlmCallable callable() {
    return [this](const LlmRequest& req) {
      requests.push_back(req);
      if (next >= responses.size()) return LlmResponse::failure("script exhausted");
      return responses[next++];
    };
  }
};

// Every id of an assistant message's tool calls is answered by exactly one
// tool message, before the next assistant or user message.
void expect_paired(const AgentResult& r) {
  for (size_t i = 0; i < r.messages.size(); ++i) {
    const ChatMessage& m = r.messages[i];
    if (m.role != "assistant" || m.tool_calls.empty()) continue;
    std::map<std::string, int> answered;
    size_t j = i + 1;
    for (; j < r.messages.size() && r.messages[j].role == "tool"; ++j)
      ++answered[r.messages[j].tool_call_id];
    for (const ToolCallRequest& c : m.tool_calls) {
      EXPECT_FALSE(c.id.empty()) << "message " << i;
      EXPECT_EQ(answered[c.id], 1) << "tool call " << c.id << " of message " << i;
    }
    EXPECT_EQ(answered.size(), m.tool_calls.size()) << "stray tool messages after message " << i;
  }
}

AgentResult run(AgentOptions o, Script& script) {
  Agent agent(std::move(o), script.callable());
  AgentResult r = agent.run();
  expect_paired(r);
  return r;
}

// The payloads of the tool messages, in order.
std::vector<H> tool_payloads(const AgentResult& r) {
  std::vector<H> out;
  for (const ChatMessage& m : r.messages)
    if (m.role == "tool") out.push_back(ptc::parse_json(*m.content));
  return out;
}

std::vector<std::string> user_messages(const AgentResult& r) {
  std::vector<std::string> out;
  for (const ChatMessage& m : r.messages)
    if (m.role == "user") out.push_back(*m.content);
  return out;
}

std::string field(const H& payload, const char* key) {
  const H* v = payload.get(key);
  return v ? v->text() : "<absent>";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

AgentTool counting_tool(std::string name, int* count, H result) {
  AgentTool t;
  t.name = std::move(name);
  t.tool.fn = [count, result](const H&) {
    ++*count;
    return ToolResult::success(result);
  };
  return t;
}

// ---------------------------------------------------------------- tool-call transport

TEST(ToolCallTransport, RequestOffersOnlyLispEval) {
  AgentOptions o;
  int n = 0;
  o.tools = {counting_tool("a", &n, H::nil()), counting_tool("b", &n, H::nil())};
  Script s;
  Agent agent(o, s.callable());
  std::vector<H> tools = agent.request_tools();
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0].get("function")->get("name")->text(), "lisp_eval");
  EXPECT_EQ(tools[0].get("function")->get("description")->text(),
            tool_description(Profile::InProcessWithAppTools));
  o.tools.clear();
  EXPECT_EQ(Agent(o, s.callable()).request_tools().size(), 1u);
}

TEST(ToolCallTransport, ReturnEndsTheRun) {
  Script s{{calls({eval("c1", "(return 42)")})}};
  AgentResult r = run({}, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.value, H::integer(42));
  EXPECT_EQ(r.turns.size(), 1u);
}

TEST(ToolCallTransport, MemoryCarriesAcrossTurns) {
  Script s{{calls({eval("c1", "(def x 10)")}), calls({eval("c2", "(return (+ x 5))")})}};
  AgentResult r = run({}, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.value, H::integer(15));
  // The def's payload: result null (a var), memory changed, the feedback block.
  H first = tool_payloads(r)[0];
  EXPECT_EQ(first.get("status")->text(), "ok");
  ASSERT_TRUE(first.get("result"));
  EXPECT_TRUE(first.get("result")->is_nil());
  EXPECT_EQ(ptc::to_json(*first.get("memory"), true),
            R"({"changed":{"x":"10"},"stored_keys":["x"],"truncated":false})");
  EXPECT_TRUE(contains(field(first, "feedback"), ";; x = 10"));
}

TEST(ToolCallTransport, FailEndsTheRunAsAFailure) {
  for (int max_turns : {5, 1}) {
    AgentOptions o;
    o.max_turns = max_turns;
    Script s{{calls({eval("f1", "(fail {:reason :nope :message \"no\"})")})}};
    AgentResult r = run(o, s);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.fail_reason, "failed");
    H payload = tool_payloads(r).at(0);
    EXPECT_EQ(field(payload, "reason"), "fail");
    EXPECT_TRUE(payload.get("result"));
  }
}

TEST(ToolCallTransport, DirectAnswersAreReadAgainstTheSignature) {
  struct Case {
    std::string signature, content;
    H expected;
  };
  std::vector<Case> cases = {
      {"", "just a string answer", H::string("just a string answer")},
      {":string", "hello", H::string("hello")},
      {":any", "opaque", H::string("opaque")},
      {":int", "42", H::integer(42)},
      {":float", "3.14", H::floating(3.14)},
      {":bool", "true", H::boolean(true)},
      {"[:int]", "[1, 2, 3]", H::vector({H::integer(1), H::integer(2), H::integer(3)})},
      {":int?", "null", H::nil()},
  };
  for (const Case& c : cases) {
    AgentOptions o;
    o.signature = c.signature;
    Script s{{text(c.content)}};
    AgentResult r = run(o, s);
    ASSERT_TRUE(r.ok) << c.signature << ": " << r.fail_message;
    EXPECT_EQ(r.value, c.expected) << c.signature;
  }
  AgentOptions o;
  o.signature = "{name :string, age :int}";
  Script s{{text("not json"), text(R"({"name": "alice", "age": 30})")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.turns.size(), 2u);
  EXPECT_FALSE(r.turns[0].success);
  ASSERT_EQ(user_messages(r).size(), 2u);
  EXPECT_TRUE(contains(user_messages(r)[1], "Could not parse JSON"));
}

TEST(ToolCallTransport, FencedProgramsGetTargetedFeedback) {
  Script s{{text("```clojure\n(return 1)\n```"), calls({eval("c2", "(return 7)")})}};
  AgentResult r = run({}, s);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.value, H::integer(7));
  std::string feedback = user_messages(r).at(1);
  EXPECT_TRUE(contains(feedback, "ptc_transport"));
  EXPECT_TRUE(contains(feedback, "fenced"));
  // A fenced turn does not advance *1.
  Script t{{text("```clojure\n(+ 1 2)\n```"), calls({eval("c2", "(return *1)")})}};
  EXPECT_TRUE(run({}, t).value.is_nil());
}

TEST(ToolCallTransport, BadArgumentsAreArgsErrorsAndTheModelRecovers) {
  std::vector<ToolCallRequest> bad = {
      call("c1", "lisp_eval", H::map({})),
      call("c1", "lisp_eval", H::map({{H::string("program"), H::integer(123)}})),
      call("c1", "lisp_eval", H::vector({}))};
  ToolCallRequest garbage = call("c1", "lisp_eval", H());
  garbage.args_error = "the arguments are not valid JSON: garbage";
  garbage.raw_arguments = "garbage";
  bad.push_back(garbage);
  for (const ToolCallRequest& b : bad) {
    Script s{{calls({b}), calls({eval("c2", "(return :ok)")})}};
    AgentResult r = run({}, s);
    ASSERT_TRUE(r.ok) << r.fail_message;
    EXPECT_EQ(r.value, H::keyword("ok"));
    H payload = tool_payloads(r).at(0);
    EXPECT_EQ(field(payload, "reason"), "args_error");
    EXPECT_FALSE(payload.get("result"));
  }
  ToolCallRequest g = garbage;
  Script s{{calls({g}), calls({eval("c2", "(return 1)")})}};
  EXPECT_EQ(field(tool_payloads(run({}, s)).at(0), "message"),
            "Invalid tool arguments: the arguments are not valid JSON: garbage");
}

TEST(ToolCallTransport, AnUnknownNativeToolIsPairedAndTheModelRecovers) {
  Script s{{calls({call("u1", "search", H::map({{H::string("q"), H::string("hello")}}))}),
            calls({eval("c2", "(return 1)")})}};
  AgentResult r = run({}, s);
  ASSERT_TRUE(r.ok);
  H payload = tool_payloads(r).at(0);
  EXPECT_EQ(field(payload, "reason"), "unknown_tool");
  EXPECT_TRUE(contains(field(payload, "message"), "`search`"));
  EXPECT_TRUE(contains(field(payload, "message"), "Only `lisp_eval`"));
}

TEST(ToolCallTransport, SeveralCallsAreEachAnsweredAndNoneRuns) {
  int n = 0;
  AgentOptions o;
  o.tools = {counting_tool("count", &n, H::nil())};
  Script s{{calls({eval("a", "(tool/count {})"), eval("b", "(tool/count {})"),
                   call("c", "search", H::map({}))}),
            calls({eval("d", "(return 1)")})}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(n, 0);
  std::vector<H> payloads = tool_payloads(r);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(field(payloads[i], "reason"), "multiple_tool_calls");
    EXPECT_EQ(field(payloads[i], "message"), "exactly one lisp_eval call per assistant turn");
  }
}

TEST(ToolCallTransport, CallsWithoutIdsGetIdsOfTheirOwn) {
  Script s{{calls({eval("", "(def x 1)")}), calls({eval("", "(+ x 1)"), eval("", "2")}),
            calls({eval("", "(return x)")})}};
  AgentResult r = run({}, s);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.value, H::integer(1));
}

TEST(ToolCallTransport, TurnHistoryAndChangedMemory) {
  Script s{{calls({eval("c1", "(+ 1 2)")}), calls({eval("c2", "(return *1)")})}};
  EXPECT_EQ(run({}, s).value, H::integer(3));
  Script t{{calls({eval("c1", "(def items [1 2 3])")}), calls({eval("c2", "(def total 6)")}),
            calls({eval("c3", "(return total)")})}};
  AgentResult r = run({}, t);
  std::vector<H> p = tool_payloads(r);
  EXPECT_TRUE(p[0].get("memory")->get("changed")->get("items"));
  EXPECT_TRUE(p[1].get("memory")->get("changed")->get("total"));
  EXPECT_FALSE(p[1].get("memory")->get("changed")->get("items"));
}

TEST(ToolCallTransport, LispEvalIsExemptFromMaxToolCalls) {
  AgentOptions o;
  o.max_tool_calls = 1;
  Script s{{calls({eval("a", "(def x 1)")}), calls({eval("b", "(def y 2)")}),
            calls({eval("c", "(return (+ x y))")})}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.value, H::integer(3));
}

TEST(ToolCallTransport, AnInvalidReturnIsFedBackAndRetried) {
  AgentOptions o;
  o.signature = "{total :int}";
  Script s{
      {calls({eval("a", "(return {:total \"x\"})")}), calls({eval("b", "(return {:total 5})")})}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  H bad = tool_payloads(r).at(0);
  EXPECT_EQ(field(bad, "reason"), "runtime_error");
  EXPECT_TRUE(contains(field(bad, "message"), "{total :int}"));
}

TEST(ToolCallTransport, RunningOutOfTurnsFallsBackToTheLastValue) {
  AgentOptions o;
  o.max_turns = 2;
  o.signature = ":int";
  // The newest successful program's value is the answer (the failed one is skipped).
  Script s{{calls({eval("a", "(+ 40 2)")}), calls({eval("b", "(+ 1 nil)")})}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_reason;
  EXPECT_TRUE(r.fallback_used);
  EXPECT_EQ(r.value, H::integer(42));
  // It must fit the signature: "2" is not an :int, and 42 is older.
  Script t{{calls({eval("a", "(+ 40 2)")}), calls({eval("b", "(str 2)")})}};
  AgentResult q = run(o, t);
  EXPECT_FALSE(q.ok);
  EXPECT_EQ(q.fail_reason, "max_turns_exceeded");
}

TEST(ToolCallTransport, MemoryLimitStrictAndRollback) {
  AgentOptions o;
  o.memory_limit = 100;
  Script s{{calls({eval("a", "(def big (str (range 0 1000)))")})}};
  AgentResult r = run(o, s);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.fail_reason, "memory_limit_exceeded");
  o.memory_strategy = MemoryStrategy::Rollback;
  Script t{{calls({eval("a", "(def big (str (range 0 1000)))")}),
            calls({eval("b", "(return (count (keys {})))")})}};
  AgentResult q = run(o, t);
  ASSERT_TRUE(q.ok);
  EXPECT_EQ(field(tool_payloads(q).at(0), "reason"), "memory_limit");
  EXPECT_TRUE(contains(field(tool_payloads(q).at(0), "message"), "rolled back"));
  EXPECT_EQ(q.memory.size(), 0u);
}

TEST(ToolCallTransport, ProgramsCallAppToolsAndPmapThem) {
  int n = 0;
  AgentOptions o;
  o.tools = {counting_tool("one", &n, H::integer(1))};
  Script s{{calls({eval("a", "(return (reduce + (pmap (fn [i] (tool/one {:i i})) (range 4))))")})}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.value, H::integer(4));
  EXPECT_EQ(n, 4);
}

// ---------------------------------------------------------------- bad input

TEST(AgentBadInput, AToolNamedLispEvalIsRejected) {
  AgentOptions o;
  int n = 0;
  o.tools = {counting_tool("lisp_eval", &n, H::nil())};
  Script s;
  EXPECT_THROW(Agent(o, s.callable()), std::invalid_argument);
}

TEST(AgentBadInput, AnLlmThatThrowsOrFailsIsAnLlmError) {
  Agent agent({}, [](const LlmRequest&) -> LlmResponse { throw std::runtime_error("boom"); });
  AgentResult r = agent.run();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.fail_reason, "llm_error");
  EXPECT_TRUE(contains(r.fail_message, "boom"));
  Script s;  // no responses at all
  AgentResult q = run({}, s);
  EXPECT_EQ(q.fail_reason, "llm_error");
}

TEST(AgentBadInput, ATenMegabyteProgramIsAnErrorPayload) {
  Script s{
      {calls({eval("a", std::string(10 << 20, ' ') + "1")}), calls({eval("b", "(return 2)")})}};
  AgentResult r = run({}, s);
  ASSERT_TRUE(r.ok);
  H payload = tool_payloads(r).at(0);
  EXPECT_EQ(field(payload, "status"), "error");
  EXPECT_TRUE(contains(field(payload, "message"), "bytes"));
}

// ---------------------------------------------------------------- combined mode

AgentOptions combined() {
  AgentOptions o;
  o.output = OutputMode::Text;
  o.max_turns = 6;
  return o;
}

H rows(int n) {
  std::vector<H> out;
  for (int i = 0; i < n; ++i)
    out.push_back(H::map({{H::string("id"), H::integer(i)}, {H::string("msg"), H::string("x")}}));
  return H::vector(std::move(out));
}

AgentTool search_logs(int* count, int n = 1842) {
  AgentTool t = counting_tool("search_logs", count, rows(n));
  t.expose = Expose::Both;
  t.cache = true;
  t.native_result = NativeResultOptions{};
  t.description = "Search log events.";
  t.signature = "(query :string) -> [:any]";
  return t;
}

TEST(CombinedMode, RequestListsNativeToolsThenLispEval) {
  int n = 0;
  AgentOptions o = combined();
  AgentTool native = counting_tool("native-only", &n, H::nil());
  AgentTool programs = counting_tool("programs-only", &n, H::nil());
  programs.expose = Expose::PtcLisp;
  o.tools = {native, programs, search_logs(&n)};
  Script s;
  Agent agent(o, s.callable());
  std::vector<H> tools = agent.request_tools();
  ASSERT_EQ(tools.size(), 3u);
  EXPECT_EQ(tools[0].get("function")->get("name")->text(), "native_only");
  EXPECT_EQ(tools[1].get("function")->get("name")->text(), "search_logs");
  EXPECT_EQ(tools[2].get("function")->get("name")->text(), "lisp_eval");
  std::string system = agent.system_prompt();
  EXPECT_TRUE(contains(system, "<ptc_lisp_reference>"));
  EXPECT_TRUE(contains(system, "(tool/search_logs {...})"));
  EXPECT_TRUE(contains(system, "(tool/programs-only {...})"));
  EXPECT_FALSE(contains(system, "(tool/native-only"));
}

// Seed 003's transcript: the native call gets a metadata preview; lisp_eval
// reuses the cached rows; the model's next text is the answer.
TEST(CombinedMode, TheCacheBridgeTranscript) {
  int n = 0;
  AgentOptions o = combined();
  o.tools = {search_logs(&n)};
  std::vector<H> events;
  o.telemetry = [&](const AgentEvent& e) {
    if (e.event == "tool_call")
      events.push_back(H::map({{H::string("tool"), H::string(e.tool_name)},
                               {H::string("layer"), H::string(e.exposure_layer)},
                               {H::string("cached"), H::boolean(e.cached)}}));
  };
  Script s{{calls({call("call_1", "search_logs",
                        H::map({{H::string("query"), H::string("error code 42")}}))}),
            calls({eval("call_2",
                        "(def rows (tool/search_logs {:query \"error code 42\"}))\n"
                        "(return {:total (count rows)})")}),
            text("There were 1842 errors with code 42 in the queried window.")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.value.text(), "There were 1842 errors with code 42 in the queried window.");
  EXPECT_EQ(n, 1) << "search_logs ran once";
  std::vector<H> payloads = tool_payloads(r);
  ASSERT_EQ(payloads.size(), 2u);
  const H& preview = payloads[0];
  EXPECT_EQ(field(preview, "status"), "ok");
  EXPECT_EQ(preview.get("result_count")->as_int(), 1842);
  EXPECT_TRUE(preview.get("full_result_cached")->as_bool());
  EXPECT_EQ(field(preview, "cache_hint"),
            "Call lisp_eval and then call (tool/search_logs {:query \"error code 42\"}) to "
            "process the full cached result.");
  EXPECT_FALSE(preview.get("rows"));
  EXPECT_FALSE(preview.get("result"));
  EXPECT_EQ(field(payloads[1], "result"), "user=> {:total 1842}");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(ptc::to_json(events[1], true),
            R"({"cached":false,"layer":"native","tool":"lisp_eval"})");
  EXPECT_EQ(ptc::to_json(events[2], true),
            R"({"cached":true,"layer":"ptc_lisp","tool":"search_logs"})");
}

TEST(CombinedMode, CacheKeysConvergeAcrossLayersAndForms) {
  int n = 0;
  AgentOptions o = combined();
  AgentTool t = counting_tool("search", &n, H::integer(7));
  t.expose = Expose::Both;
  t.cache = true;
  o.tools = {t};
  Script s{{calls({call("a", "search",
                        H::map({{H::string("was-improved"), H::boolean(true)},
                                {H::string("n"), H::floating(1.0)}}))}),
            calls({eval("b", "(* 2 (tool/search {:n 1 :was_improved true}))")}), text("done")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(field(tool_payloads(r)[1], "result"), "user=> 14");
}

TEST(CombinedMode, ToolsWithoutTheBridgeRunEveryTime) {
  for (int variant = 0; variant < 2; ++variant) {
    int n = 0;
    AgentOptions o = combined();
    AgentTool t = counting_tool("search", &n,
                                H::vector({H::map({{H::string("id"), H::integer(1)},
                                                   {H::string("msg"), H::string("real value")}})}));
    t.expose = variant == 0 ? Expose::Both : Expose::Native;
    t.cache = variant == 1;
    o.tools = {t};
    H args = H::map({{H::string("q"), H::string("x")}});
    Script s{{calls({call("a", "search", args)}), calls({call("b", "search", args)}), text("ok")}};
    AgentResult r = run(o, s);
    EXPECT_EQ(n, 2) << variant;
    EXPECT_EQ(r.messages[3].content.value_or(""), R"([{"id":1,"msg":"real value"}])");
  }
}

TEST(CombinedMode, LispEvalIsAloneInItsTurn) {
  int n = 0;
  AgentOptions o = combined();
  AgentTool t = counting_tool("alpha", &n, H::integer(1));
  o.tools = {t};
  Script s{{calls({eval("a", "1"), eval("b", "2"), call("c", "alpha", H::map({}))}),
            calls({eval("d", "1"), call("e", "alpha", H::map({}))}),
            calls({call("f", "alpha", H::map({})), call("g", "no_such_tool", H::map({}))}),
            text("done")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(n, 1) << "only the valid native call of the third turn ran";
  std::vector<H> p = tool_payloads(r);
  ASSERT_EQ(p.size(), 7u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(
        ptc::to_json(p[i], true),
        R"({"message":"exactly one lisp_eval call per assistant turn","reason":"multiple_tool_calls","status":"error"})");
  EXPECT_EQ(field(p[3], "reason"), "mixed_with_lisp_eval");
  EXPECT_EQ(field(p[4], "reason"), "mixed_with_lisp_eval");
  EXPECT_FALSE(p[3].get("feedback"));
  EXPECT_EQ(p[5], H::integer(1));
  EXPECT_EQ(
      ptc::to_json(p[6], true),
      R"({"message":"Unknown native tool `no_such_tool`.","reason":"unknown_tool","status":"error"})");
}

TEST(CombinedMode, ReturnAndFailAreToolResultsAndTheTextIsTheAnswer) {
  AgentOptions o = combined();
  Script s{{calls({eval("a", "(return {:answer 42})")}), calls({eval("b", "(fail \"boom\")")}),
            text("the answer is 42")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.value.text(), "the answer is 42");
  std::vector<H> p = tool_payloads(r);
  EXPECT_EQ(field(p[0], "status"), "ok");
  EXPECT_EQ(field(p[1], "reason"), "fail");
  EXPECT_TRUE(contains(field(p[1], "result"), "boom"));
}

TEST(CombinedMode, ProgramsCannotCallNativeOnlyTools) {
  int n = 0;
  AgentOptions o = combined();
  o.tools = {counting_tool("echo", &n, H::nil())};
  Script s{{calls({eval("a", "(tool/echo {:v 7})")}), text("ok")}};
  AgentResult r = run(o, s);
  EXPECT_EQ(n, 0);
  H p = tool_payloads(r).at(0);
  EXPECT_EQ(field(p, "status"), "error");
  EXPECT_TRUE(contains(field(p, "message"), "expose")) << field(p, "message");
}

TEST(CombinedMode, MaxTurnsPairsTheLastCallAndStops) {
  AgentOptions o = combined();
  o.max_turns = 1;
  Script s{{calls({eval("c1", "(+ 1 2)")}), text("never asked")}};
  AgentResult r = run(o, s);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.fail_reason, "max_turns_exceeded");
  EXPECT_EQ(s.next, 1u) << "the model is called once";
}

TEST(CombinedMode, MaxToolCallsCountsNativeCallsOnly) {
  int n = 0;
  AgentOptions o = combined();
  o.max_tool_calls = 1;
  o.tools = {counting_tool("alpha", &n, H::integer(1))};
  Script s{{calls({eval("a", "1")}), calls({eval("b", "2")}),
            calls({call("c", "alpha", H::map({})), call("d", "alpha", H::map({}))}), text("ok")}};
  AgentResult r = run(o, s);
  EXPECT_EQ(n, 1);
  std::vector<H> p = tool_payloads(r);
  EXPECT_EQ(ptc::to_json(p[3], true), R"j({"error":"Tool call limit reached (max: 1)"})j");
}

TEST(CombinedMode, HistoryAdvancesOnlyOnPlainValues) {
  AgentOptions o = combined();
  Script s{{calls({eval("a", "(+ 10 20)")}), calls({eval("b", "(fail \"boom\")")}),
            calls({eval("c", "(return 5)")}), calls({eval("d", "*1")}), text("ok")}};
  AgentResult r = run(o, s);
  EXPECT_EQ(field(tool_payloads(r).at(3), "result"), "user=> 30");
}

TEST(CombinedMode, FinalAnswersAreReadAgainstTheSignature) {
  AgentOptions o = combined();
  o.signature = "{name :string}";
  Script s{{text("Here you go:\n```json\n{\"name\": \"ada\"}\n```")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.value.get("name")->text(), "ada");
  o.max_turns = 1;
  Script t{{text("no json here")}};
  AgentResult q = run(o, t);
  EXPECT_FALSE(q.ok);
}

TEST(CombinedMode, APreviewFunctionThatThrowsFallsBackToMetadata) {
  int n = 0;
  AgentOptions o = combined();
  AgentTool t = search_logs(&n, 3);
  NativeResultOptions custom;
  custom.kind = NativeResultOptions::Kind::Custom;
  custom.custom = [](const H&) -> H { throw std::runtime_error("preview broke"); };
  t.native_result = custom;
  o.tools = {t};
  std::string warning;
  o.telemetry = [&](const AgentEvent& e) {
    if (e.event == "preview_fallback") warning = e.reason;
  };
  Script s{{calls({call("a", "search_logs", H::map({{H::string("query"), H::string("q")}}))}),
            text("ok")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(contains(warning, "category=raised")) << warning;
  H p = tool_payloads(r).at(0);
  EXPECT_EQ(p.get("result_count")->as_int(), 3);
  EXPECT_TRUE(p.get("full_result_cached")->as_bool());
}

}  // namespace

// ---------------------------------------------------------------- content mode

AgentOptions content_options() {
  AgentOptions o;
  o.transport = PtcTransport::Content;
  return o;
}

LlmResponse fenced(const std::string& program, const std::string& before = "") {
  return text(before + "```clojure\n" + program + "\n```");
}

TEST(ContentMode, TheRequestOffersNoToolsAndThePromptAsksForOneBlock) {
  AgentOptions o = content_options();
  int n = 0;
  o.tools = {counting_tool("search", &n, H::nil())};
  Script s{{fenced("(return 1)")}};
  Agent agent(o, s.callable());
  EXPECT_TRUE(agent.request_tools().empty());
  std::string system = agent.system_prompt();
  EXPECT_TRUE(contains(system, "exactly one ```clojure fenced code block"));
  EXPECT_TRUE(contains(system, "(return value)"));
  EXPECT_TRUE(contains(system, "(fail reason)"));
  EXPECT_TRUE(contains(system, "(tool/search {...})"));
  EXPECT_FALSE(contains(system, "lisp_eval")) << system;
  AgentResult r = agent.run();
  ASSERT_TRUE(r.ok) << r.fail_message;
  ASSERT_EQ(s.requests.size(), 1u);
  EXPECT_TRUE(s.requests[0].tools.empty());
  EXPECT_EQ(s.requests[0].output, "ptc_lisp");
}

TEST(ContentMode, ReturnAfterTwoTurnsWithMemoryCarried) {
  AgentOptions o = content_options();
  o.signature = "{total :int}";
  o.context = H::map({{H::string("orders"), H::vector({H::integer(10), H::integer(32)})}});
  Script s{{fenced("(def total (reduce + data/orders))", "Summing first.\n"),
            fenced("(return {:total total})")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(ptc::to_json(r.value, true), R"({"total":42})");
  ASSERT_EQ(r.turns.size(), 2u);
  EXPECT_EQ(*r.turns[0].program, "(def total (reduce + data/orders))");
  EXPECT_EQ(ptc::to_json(r.memory, true), R"({"total":42})");
  // The conversation: system, mission, the block (reasoning dropped), the
  // feedback as a user message, the final reply; no tool messages at all.
  ASSERT_EQ(r.messages.size(), 5u);
  EXPECT_EQ(*r.messages[2].content, "```clojure\n(def total (reduce + data/orders))\n```");
  EXPECT_EQ(r.messages[3].role, "user");
  EXPECT_TRUE(contains(*r.messages[3].content, ";; total = 42"));
  EXPECT_TRUE(contains(*r.messages[3].content, std::string(untrusted_preamble())));
  EXPECT_TRUE(contains(*r.messages[3].content, "Turn 2 of 5 (4 remaining)"));
  for (const ChatMessage& m : r.messages) {
    EXPECT_NE(m.role, "tool");
    EXPECT_TRUE(m.tool_calls.empty());
  }
  // The second request carried the first turn's feedback.
  ASSERT_EQ(s.requests.size(), 2u);
  EXPECT_EQ(s.requests[1].messages.back().role, "user");
}

TEST(ContentMode, HistoryValuesAreStarOneToThree) {
  Script s{{fenced("(+ 1 2)"), fenced("(* *1 10)"), fenced("(return [*1 *2])")}};
  AgentResult r = run(content_options(), s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(ptc::to_json(r.value, true), "[30,3]");
  EXPECT_TRUE(contains(user_messages(r).at(1), "user=> 3"));
}

TEST(ContentMode, AnErrorIsFedBackAndFixed) {
  Script s{{fenced("(+ 1 nil)"), fenced("(return (if data/fail 7 0))")}};
  AgentResult r = run(content_options(), s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.value, H::integer(7)) << "data/fail tells the next program about the error";
  std::string feedback = user_messages(r).at(1);
  EXPECT_TRUE(feedback.starts_with("Error:\n")) << feedback;
  EXPECT_TRUE(contains(feedback, "<untrusted_ptc_output source=\"error\">"));
  EXPECT_TRUE(contains(feedback, "Turn 2 of 5")) << feedback;
  EXPECT_FALSE(r.turns[0].success);
  EXPECT_TRUE(r.turns[1].success);
}

TEST(ContentMode, AnInvalidReturnIsFedBackAndRetried) {
  AgentOptions o = content_options();
  o.signature = "{total :int}";
  Script s{{fenced("(return {:total \"x\"})"), fenced("(return {:total 5})")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(ptc::to_json(r.value, true), R"({"total":5})");
  EXPECT_TRUE(contains(user_messages(r).at(1), "{total :int}"));
  EXPECT_EQ(field(r.turns[0].result, "reason"), "return_validation_failed");
}

TEST(ContentMode, FailEndsTheRun) {
  Script s{{fenced("(fail \"no data\")")}};
  AgentResult r = run(content_options(), s);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.fail_reason, "failed");
  EXPECT_EQ(r.messages.back().role, "assistant");
}

TEST(ContentMode, AReplyWithoutAProgramIsNotAnAnswer) {
  // As in the reference, content mode has no direct answer: text without a
  // program is answered with feedback asking for one.
  AgentOptions o = content_options();
  o.signature = ":int";
  Script s{{text("42"), fenced("(return 42)")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.value, H::integer(42));
  ASSERT_EQ(r.turns.size(), 2u);
  EXPECT_FALSE(r.turns[0].program);
  EXPECT_EQ(field(r.turns[0].result, "reason"), "no_code_found");
  std::string feedback = user_messages(r).at(1);
  EXPECT_TRUE(contains(feedback, "no PTC-Lisp program")) << feedback;
  EXPECT_EQ(*r.messages[2].content, "42");
}

TEST(ContentMode, SeveralBlocksAreRefused) {
  Script s{{text("```clojure\n(def a 1)\n```\nthen\n```clojure\n(return a)\n```"),
            fenced("(return 2)")}};
  AgentResult r = run(content_options(), s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.value, H::integer(2));
  EXPECT_EQ(field(r.turns[0].result, "reason"), "multiple_code_blocks");
  EXPECT_TRUE(contains(user_messages(r).at(1), "2 code blocks"));
  EXPECT_EQ(r.memory.size(), 0u) << "nothing ran";
}

TEST(ContentMode, NoBlockOnTheFinalTurn) {
  AgentOptions o = content_options();
  o.max_turns = 2;
  o.signature = ":int";
  // The last program's value is the fallback answer.
  Script s{{fenced("(+ 40 2)"), text("The answer is 42.")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_reason;
  EXPECT_TRUE(r.fallback_used);
  EXPECT_EQ(r.value, H::integer(42));
  EXPECT_TRUE(contains(user_messages(r).at(1), "FINAL WORK TURN"));
  // Without a value to fall back on, the run is out of turns.
  o.signature = "";
  Script u{{text("thinking"), text("done")}};
  AgentResult q = run(o, u);
  EXPECT_FALSE(q.ok);
  EXPECT_EQ(q.fail_reason, "max_turns_exceeded");
}

TEST(ContentMode, MaxTurns) {
  AgentOptions o = content_options();
  o.max_turns = 3;
  o.signature = ":string";
  Script s{{fenced("(+ 1 2)"), fenced("(+ 3 4)"), fenced("(+ 5 6)"), fenced("(return \"late\")")}};
  AgentResult r = run(o, s);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.fail_reason, "max_turns_exceeded");
  EXPECT_EQ(s.requests.size(), 3u) << "no fourth model call";
  EXPECT_EQ(r.turns.size(), 3u);
}

TEST(ContentMode, RetryTurnsAndMemoryLimit) {
  AgentOptions o = content_options();
  o.max_turns = 1;
  o.retry_turns = 1;
  o.signature = ":int";
  Script s{{fenced("(return \"x\")"), fenced("(return 3)")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.value, H::integer(3));
  EXPECT_EQ(r.turns[1].type, "retry");

  AgentOptions m = content_options();
  m.memory_limit = 100;
  Script t{{fenced("(def big (str (range 0 1000)))")}};
  AgentResult q = run(m, t);
  EXPECT_FALSE(q.ok);
  EXPECT_EQ(q.fail_reason, "memory_limit_exceeded");
  m.memory_strategy = MemoryStrategy::Rollback;
  Script u{{fenced("(def big (str (range 0 1000)))"), fenced("(return (count (keys {})))")}};
  AgentResult p = run(m, u);
  ASSERT_TRUE(p.ok) << p.fail_message;
  EXPECT_TRUE(contains(user_messages(p).at(1), "rolled back"));
  EXPECT_EQ(p.memory.size(), 0u);
}

TEST(ContentMode, ProgramsCallAppTools) {
  AgentOptions o = content_options();
  int n = 0;
  o.tools = {counting_tool("search", &n, H::vector({H::integer(1), H::integer(2)}))};
  Script s{{fenced("(return (count (tool/search {:q \"a\"})))")}};
  AgentResult r = run(o, s);
  ASSERT_TRUE(r.ok) << r.fail_message;
  EXPECT_EQ(r.value, H::integer(2));
  EXPECT_EQ(n, 1);
}

TEST(ContentMode, OutputTextWithContentIsRefused) {
  AgentOptions o = content_options();
  o.output = OutputMode::Text;
  Script s;
  try {
    Agent agent(o, s.callable());
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(contains(e.what(),
                         "use transport tool_call for combined mode, or leave "
                         "transport out"))
        << e.what();
  }
}

TEST(ContentMode, FindingTheProgram) {
  using Kind = ContentProgram::Kind;
  auto program = [](std::string_view t) {
    ContentProgram p = extract_content_program(t);
    return p.kind == Kind::Program ? p.source
                                   : "<" + std::to_string(static_cast<int>(p.kind)) + ">";
  };
  EXPECT_EQ(program("```clojure\n(+ 1 2)\n```"), "(+ 1 2)");
  EXPECT_EQ(program("text\r\n```lisp\r\n  (+ 1 2)  \r\n</lisp>\r\nmore"), "(+ 1 2)");
  EXPECT_EQ(program("```\n(inc 1)\n```"), "(inc 1)") << "untagged, starts with (";
  EXPECT_EQ(program("```python\n(inc 1)\n```"), "(inc 1)") << "another tag counts as none";
  EXPECT_EQ(program("```json\n{\"a\": 1}\n```"), "<1>") << "JSON is not a program";
  EXPECT_EQ(program("```clojure\n(a)\n```\n```\n(b)\n```"), "(a)") << "tagged wins";
  EXPECT_EQ(program("<clojure>\n(+ 1 2)\n</clojure>"), "(+ 1 2)");
  EXPECT_EQ(program("  (return 1)  "), "(return 1)") << "a bare s-expression";
  EXPECT_EQ(program("The answer is 42."), "<1>");
  EXPECT_EQ(program("```clojure\n(+ 1 2)"), "<1>") << "an unclosed fence is not a block";
  EXPECT_EQ(program("x ```clojure\n(+ 1 2)\n```"), "<1>") << "fences open at a line's start";
  EXPECT_EQ(program("```clojure\n(str \u201chi\u201d)\u200b\n```"), "(str \"hi\")");
  // Found by fuzz_agent_json: an empty tagged block (here closed by another
  // closer) was taken as an empty program.
  EXPECT_EQ(program("```lisp\r</clojure>\r\r\n(return a)\n```"), "<1>");
  EXPECT_EQ(program("```clojure\n\u200b \n```\n```clojure\n(a)\n```"), "(a)")
      << "an empty tagged block is not a second program";
  ContentProgram two = extract_content_program("```\n(a)\n```\n```\n(b)\n```");
  EXPECT_EQ(two.kind, Kind::Multiple);
  EXPECT_EQ(two.count, 2u);
  EXPECT_EQ(strip_to_program("why\n```clojure\n(a)\n```\nbye"), "```clojure\n(a)\n```");
  EXPECT_EQ(strip_to_program("no code"), "no code");
}
