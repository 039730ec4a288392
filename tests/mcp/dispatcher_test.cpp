// The MCP dispatcher through Server::handle: JSON-RPC rules, the methods,
// the gate, in-flight ids, cancellation, drain, log notifications, and
// lisp_eval's arguments, reasons and response profiles.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mcp/collecting_peer.hpp"
#include "protocol/mcp/json_rpc.hpp"
#include "protocol/mcp/server.hpp"
#include "support/build_info.hpp"

namespace {

using ptc::HostValue;
using ptc::parse_json;
using namespace ptc::mcp;
using H = HostValue;
using namespace std::chrono_literals;

using Collector = ptc::mcp::testing::CollectingPeer;

std::string request(int64_t id, const std::string& method, const std::string& params = "{}") {
  return R"j({"jsonrpc":"2.0","id":)j" + std::to_string(id) + R"j(,"method":")j" + method +
         R"j(","params":)j" + params + "}";
}

std::string call(int64_t id, const std::string& arguments, const std::string& tool = "lisp_eval") {
  return request(id, "tools/call",
                 R"j({"name":")j" + tool + R"j(","arguments":)j" + arguments + "}");
}

// The arguments {"program": P} (and any further JSON fields), as JSON.
std::string program(const std::string& p, const std::string& more = "") {
  std::string out = ptc::to_json(H::map({{H::string("program"), H::string(p)}}));
  if (!more.empty()) out = out.substr(0, out.size() - 1) + "," + more + "}";
  return out;
}

struct Fixture {
  explicit Fixture(ServerConfig c = {}, Caller who = {"stdio", "stdio", false})
      : server(make_server(c)), caller(std::move(who)) {}
  std::unique_ptr<Server> server;
  std::shared_ptr<Collector> peer = std::make_shared<Collector>();
  Caller caller;
  H ask(const std::string& frame, int64_t id) {
    server->handle(frame, peer, caller);
    return peer->reply(id);
  }
  // The result of a request (or the whole reply when it is an error).
  H result_of(const std::string& frame, int64_t id) {
    H r = ask(frame, id);
    const H* result = r.get("result");
    return result ? *result : r;
  }
};

std::string text_of(const H& result) {
  const H* content = result.get("content");
  if (!content || content->items().empty()) return "";
  return content->items()[0].get("text")->text();
}

bool is_error(const H& result) {
  const H* e = result.get("isError");
  return e && e->as_bool();
}

std::string reason_of(const H& result) {
  const H* s = result.get("structuredContent");
  const H* r = s ? s->get("reason") : nullptr;
  return r ? r->text() : "";
}

// ---------------------------------------------------------------- JSON-RPC

TEST(McpJsonRpc, MalformedMessagesGetTheStandardCodes) {
  Fixture f;
  struct Case {
    std::string frame;
    int code;
  };
  std::vector<Case> cases = {
      {"not json", kParseError},
      {"[1,2]", kInvalidRequest},
      {"42", kInvalidRequest},
      {R"j({"id":1,"method":"ping"})j", kInvalidRequest},
      {R"j({"jsonrpc":"1.0","id":1,"method":"ping"})j", kInvalidRequest},
      {R"j({"jsonrpc":"2.0","id":1,"method":7})j", kInvalidRequest},
      {R"j({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})j", kInvalidRequest},
      {R"j({"jsonrpc":"2.0","id":1,"method":"ping","params":5})j", kInvalidParams},
      {R"j({"jsonrpc":"2.0","id":1,"method":"no/such"})j", kMethodNotFound},
      {R"j({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}})j",
       kInvalidParams},
      {R"j({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lisp_eval","arguments":[1]}})j",
       kInvalidParams},
  };
  for (const Case& c : cases) {
    auto peer = std::make_shared<Collector>();
    f.server->handle(c.frame, peer, f.caller);
    std::vector<H> sent = peer->frames();
    ASSERT_EQ(sent.size(), 1u) << c.frame;
    ASSERT_TRUE(sent[0].get("error")) << c.frame;
    EXPECT_EQ(sent[0].get("error")->get("code")->as_int(), c.code) << c.frame;
    EXPECT_EQ(sent[0].get("jsonrpc")->text(), "2.0");
  }
}

TEST(McpJsonRpc, NotificationsAndResponsesGetNoReply) {
  Fixture f;
  for (std::string frame :
       {R"j({"jsonrpc":"2.0","method":"notifications/initialized"})j",
        R"j({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}})j",
        R"j({"jsonrpc":"2.0","method":"whatever/unknown"})j",
        R"j({"jsonrpc":"2.0","id":5,"result":{}})j"}) {
    EXPECT_EQ(f.server->handle(frame, f.peer, f.caller), Handled::NoReply) << frame;
  }
  EXPECT_TRUE(f.peer->frames().empty());
}

TEST(McpJsonRpc, IdsComeBackExactly) {
  Fixture f;
  f.server->handle(R"j({"jsonrpc":"2.0","id":"abc-1","method":"ping"})j", f.peer, f.caller);
  f.server->handle(R"j({"jsonrpc":"2.0","id":12345678901234,"method":"ping"})j", f.peer, f.caller);
  std::vector<H> sent = f.peer->frames();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].get("id")->text(), "abc-1");
  EXPECT_EQ(sent[1].get("id")->as_int(), 12345678901234);
}

// ---------------------------------------------------------------- methods

TEST(McpMethods, InitializeNegotiatesTheVersion) {
  Fixture f;
  for (std::string v : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    f.peer = std::make_shared<Collector>();
    H r = f.result_of(request(1, "initialize", R"j({"protocolVersion":")j" + v + R"j("})j"), 1);
    EXPECT_EQ(r.get("protocolVersion")->text(), v);
  }
  f.peer = std::make_shared<Collector>();
  H r = f.result_of(request(2, "initialize", R"j({"protocolVersion":"1999-01-01"})j"), 2);
  EXPECT_EQ(r.get("protocolVersion")->text(), "2025-11-25");
  EXPECT_EQ(r.get("serverInfo")->get("name")->text(), "ptc-lisp");
  EXPECT_FALSE(r.get("capabilities")->get("tools")->get("listChanged")->as_bool());
}

TEST(McpMethods, PingListAndCompletions) {
  Fixture f;
  EXPECT_EQ(ptc::to_json(f.result_of(request(1, "ping"), 1)), "{}");
  H list = f.result_of(request(2, "tools/list"), 2);
  ASSERT_EQ(list.get("tools")->size(), 1u);
  const H& tool = list.get("tools")->items()[0];
  EXPECT_EQ(tool.get("name")->text(), "lisp_eval");
  EXPECT_FALSE(tool.get("description")->text().empty());
  EXPECT_EQ(tool.get("inputSchema")->get("type")->text(), "object");
  EXPECT_TRUE(tool.get("annotations")->get("readOnlyHint")->as_bool());
  EXPECT_TRUE(tool.get("annotations")->get("idempotentHint")->as_bool());
  EXPECT_FALSE(tool.get("annotations")->get("openWorldHint")->as_bool());
  H c = f.result_of(
      request(3, "completion/complete", R"j({"ref":{"type":"ref/prompt","name":"x"}})j"), 3);
  EXPECT_EQ(c.get("completion")->get("values")->size(), 0u);
}

TEST(McpMethods, AnUnknownToolIsAToolResult) {
  Fixture f;
  H r = f.result_of(call(1, "{}", "test_simple_text"), 1);
  EXPECT_TRUE(is_error(r));
  EXPECT_EQ(reason_of(r), "unknown_tool");
  EXPECT_FALSE(text_of(r).empty());
}

TEST(McpMethods, LogLevelSubscribesToMessages) {
  Fixture f;
  EXPECT_EQ(ptc::to_json(f.result_of(request(1, "logging/setLevel", R"j({"level":"debug"})j"), 1)),
            "{}");
  f.result_of(call(2, program("(+ 1 2)")), 2);
  std::this_thread::sleep_for(50ms);
  bool saw = false;
  for (const H& frame : f.peer->frames())
    if (const H* m = frame.get("method"); m && m->text() == "notifications/message") saw = true;
  EXPECT_TRUE(saw);
  H bad = f.ask(request(3, "logging/setLevel", R"j({"level":"loud"})j"), 3);
  EXPECT_EQ(bad.get("error")->get("code")->as_int(), kInvalidParams);
}

// ---------------------------------------------------------------- lisp_eval

TEST(McpLispEval, RunsWithContextAndAnswersText) {
  Fixture f;
  H r = f.result_of(call(1, program("(reduce + data/xs)", R"j("context":{"xs":[1,2,3]})j")), 1);
  EXPECT_FALSE(is_error(r));
  EXPECT_EQ(text_of(r), "user=> 6");
  EXPECT_FALSE(r.get("structuredContent")) << "slim answers text only";
  H p = f.result_of(call(2, program("(println \"hi\") 5")), 2);
  EXPECT_EQ(text_of(p), "hi\n\nuser=> 5");
}

TEST(McpLispEval, ArgumentsAreCheckedBeforeRunning) {
  ServerConfig c;
  c.max_program_bytes = 100;
  c.max_context_bytes = 200;
  Fixture f(c);
  struct Case {
    std::string args, needle;
  };
  std::vector<Case> cases = {
      {"{}", "requires a non-empty `program`"},
      {R"j({"program":42})j", "must be a string"},
      {R"j({"program":"   "})j", "non-empty string"},
      {program(std::string(101, '1')), "more than the limit of 100"},
      {program("1", R"j("context":[1])j"), "`context` must be an object"},
      {program("1", R"j("context":{"a/b":1})j"), "cannot be a data/ name"},
      {program("1", R"j("context":{"ok":{"x/y":1},"":2})j"), "cannot be a data/ name"},
      {program("1", R"j("context":"text")j"), "`context` must be an object"},
      {program("1", R"j("context":{"x":")j" + std::string(300, 'y') + "\"}"),
       "more than the limit"},
      {program("1", R"j("output_schema":{"type":"date"})j"), "unsupported type"},
      {program("1", R"j("output_schema":7)j"), "must be an object"},
      {program("1", R"j("signature":":int")j"), "output_schema"},
      {program("1", R"j("extra":true)j"), "unknown argument `extra`"},
  };
  int64_t id = 1;
  for (const Case& k : cases) {
    H r = f.result_of(call(id, k.args), id);
    ++id;
    EXPECT_TRUE(is_error(r)) << k.args;
    EXPECT_EQ(reason_of(r), "args_error") << k.args;
    EXPECT_NE(text_of(r).find(k.needle), std::string::npos) << k.args << " -> " << text_of(r);
  }
}

TEST(McpLispEval, EveryReasonOfARun) {
  ServerConfig c;
  c.response_profile = ResponseProfile::Structured;
  Fixture f(c);
  struct Case {
    std::string program, reason;
  };
  std::vector<Case> cases = {
      {"(+ 1", "parse_error"},
      {"(undefined-fn 1)", "runtime_error"},
      {"(loop [i 0] (if (< i 1) (recur i) i))", "runtime_error"},
      {"(defn f [n] (if (< n 2) n (+ (f (- n 1)) (f (- n 2))))) (f 60)", "timeout"},
      {"(count (range 100000000))", "memory_limit"},
      {"(fail {:why \"no\"})", "fail"},
  };
  int64_t id = 1;
  for (const Case& k : cases) {
    H r = f.result_of(call(id, program(k.program)), id);
    ++id;
    EXPECT_TRUE(is_error(r)) << k.program;
    EXPECT_EQ(reason_of(r), k.reason) << k.program << " -> " << text_of(r);
  }
}

TEST(McpLispEval, OutputSchemaTypesTheResult) {
  ServerConfig c;
  c.response_profile = ResponseProfile::Structured;
  Fixture f(c);
  std::string schema =
      R"j("output_schema":{"type":"object","properties":{"total":{"type":"integer"},"names":{"type":"array","items":{"type":"string"}}},"required":["total"]})j";
  H ok = f.result_of(call(1, program("{:total (count data/rows) :names [\"a\"]}",
                                     R"j("context":{"rows":[1,2]},)j" + schema)),
                     1);
  EXPECT_FALSE(is_error(ok)) << text_of(ok);
  EXPECT_EQ(ptc::to_json(*ok.get("structuredContent")->get("validated"), true),
            R"j({"names":["a"],"total":2})j");
  H bad = f.result_of(call(2, program("{:total \"x\"}", schema)), 2);
  EXPECT_EQ(reason_of(bad), "validation_error");
  EXPECT_NE(text_of(bad).find("total"), std::string::npos);
}

TEST(McpLispEval, ResponseProfilesAndTheirCaps) {
  std::string prints = program("(doseq [i (range 100)] (println i)) :done");
  Fixture s;
  H a = s.result_of(call(1, prints), 1);
  EXPECT_NE(text_of(a).find("19\n"), std::string::npos);
  EXPECT_EQ(text_of(a).find("\n20\n"), std::string::npos) << "slim keeps 20 prints";
  EXPECT_NE(text_of(a).find("[truncated]"), std::string::npos);
  ServerConfig debug;
  debug.response_profile = ResponseProfile::Debug;
  Fixture d(debug);
  H b = d.result_of(call(1, prints), 1);
  EXPECT_EQ(b.get("structuredContent")->get("prints")->size(), 100u);
  EXPECT_EQ(ptc::to_json(parse_json(text_of(b)), true),
            ptc::to_json(*b.get("structuredContent"), true))
      << "debug mirrors the payload as text";
  EXPECT_TRUE(
      d.result_of(request(2, "tools/list"), 2).get("tools")->items()[0].get("outputSchema"));
  EXPECT_FALSE(
      s.result_of(request(2, "tools/list"), 2).get("tools")->items()[0].get("outputSchema"));
}

// ---------------------------------------------------------------- gate, ids, cancellation

const std::string kSpin = program("(defn f [n] (if (< n 2) n (+ (f (- n 1)) (f (- n 2))))) (f 60)");

TEST(McpCalls, BeyondTheGateIsBusyAtOnce) {
  ServerConfig c;
  c.max_concurrent_calls = 1;
  c.program_timeout_ms = 3000;
  Fixture f(c);
  f.server->handle(call(1, kSpin), f.peer, f.caller);
  auto t0 = std::chrono::steady_clock::now();
  H r = f.result_of(call(2, program("1")), 2);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 500ms);
  EXPECT_EQ(reason_of(r), "busy");
  f.server->cancel_all();
}

TEST(McpCalls, ADuplicateIdInFlightIsRejected) {
  ServerConfig c;
  c.program_timeout_ms = 3000;
  Fixture f(c);
  f.server->handle(call(7, kSpin), f.peer, f.caller);
  std::this_thread::sleep_for(20ms);
  auto peer2 = std::make_shared<Collector>();
  f.server->handle(call(7, program("1")), peer2, f.caller);
  H dup = peer2->reply(7);
  ASSERT_TRUE(dup.get("error"));
  EXPECT_EQ(dup.get("error")->get("code")->as_int(), kInvalidRequest);
  // The same id from another connection is fine.
  Caller other{"stdio", "other", false};
  auto peer3 = std::make_shared<Collector>();
  f.server->handle(call(7, program("1")), peer3, other);
  EXPECT_FALSE(peer3->reply(7).get("error"));
  f.server->cancel_all();
}

TEST(McpCalls, CancelledOverStdioNoReplyFollows) {
  ServerConfig c;
  c.program_timeout_ms = 10000;
  Fixture f(c);
  f.server->handle(call(1, kSpin), f.peer, f.caller);
  std::this_thread::sleep_for(50ms);
  auto t0 = std::chrono::steady_clock::now();
  f.server->handle(
      R"j({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})j", f.peer,
      f.caller);
  ASSERT_TRUE(f.server->wait_idle(2000ms));
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 100.0 * ptc::testing::kSlowdown);
  std::printf("[ measured ] notifications/cancelled to the call's end: %.2f ms\n", ms);
  EXPECT_TRUE(f.peer->reply(1, 100ms).is_nil()) << "no reply after a stdio cancellation";
}

TEST(McpCalls, CancelledOverHttpTheCallIsAnsweredCancelled) {
  ServerConfig c;
  c.program_timeout_ms = 10000;
  Fixture f(c, Caller{"owner", "session-1", true});
  f.server->handle(call(1, kSpin), f.peer, f.caller);
  std::this_thread::sleep_for(50ms);
  f.server->cancel_connection("session-1");
  H r = f.peer->reply(1, 2000ms);
  ASSERT_TRUE(r.get("result"));
  EXPECT_EQ(reason_of(*r.get("result")), "cancelled");
}

TEST(McpCalls, DrainRefusesNewCallsAndWaitsForRunningOnes) {
  ServerConfig c;
  c.program_timeout_ms = 300;
  Fixture f(c);
  f.server->handle(call(1, kSpin), f.peer, f.caller);
  std::this_thread::sleep_for(20ms);
  f.server->handle(request(2, "shutdown"), f.peer, f.caller);
  EXPECT_TRUE(f.peer->reply(2).get("result")->is_nil());
  H r = f.result_of(call(3, program("1")), 3);
  EXPECT_EQ(reason_of(r), "shutting_down");
  EXPECT_TRUE(f.server->wait_idle(3000ms));
  H first = f.peer->reply(1);
  ASSERT_TRUE(first.get("result"));
  EXPECT_TRUE(is_error(*first.get("result"))) << "the running call ended with its own timeout";
}

TEST(McpCalls, RepliesMayComeOutOfOrder) {
  ServerConfig c;
  c.max_concurrent_calls = 2;
  Fixture f(c);
  f.server->handle(call(1, kSpin), f.peer, f.caller);  // runs until cancelled
  f.server->handle(call(2, program("2")), f.peer, f.caller);
  ASSERT_FALSE(f.peer->reply(2).is_nil());
  std::vector<H> sent = f.peer->frames();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].get("id")->as_int(), 2) << "the quick call answered while the first runs";
  f.server->handle(
      R"j({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})j", f.peer,
      f.caller);
  EXPECT_TRUE(f.server->wait_idle(3000ms));
}

}  // namespace
