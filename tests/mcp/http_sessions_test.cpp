// MCP-Session-Id bookkeeping of the HTTP transport: ids, owners, idle
// expiry, the session cap and the per-session in-flight slots; and what the
// transport reads from a JSON-RPC body before the server does.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "include/ptc/ptc.hpp"
#include "protocol/mcp/http_rpc.hpp"
#include "protocol/mcp/http_sessions.hpp"
#include "protocol/mcp/json_rpc.hpp"

namespace {

using namespace ptc::mcp;
using std::chrono::milliseconds;
using Clock = HttpSessions::Clock;

HttpSessions::Limits limits(uint32_t max_sessions = 4, uint32_t in_flight = 2) {
  return HttpSessions::Limits{max_sessions, in_flight, milliseconds(1000)};
}

TEST(HttpSessions, IdsAreRandomHex) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    std::string id = new_http_session_id();
    ASSERT_EQ(id.size(), 32u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos);
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(HttpSessions, OpenTouchClose) {
  HttpSessions s(limits());
  auto t0 = Clock::now();
  std::string id = s.open("alice", t0);
  ASSERT_FALSE(id.empty());
  EXPECT_TRUE(s.touch(id, "alice", t0));
  EXPECT_FALSE(s.touch(id, "bob", t0));  // someone else's session is unknown to them
  EXPECT_FALSE(s.touch("nope", "alice", t0));
  EXPECT_FALSE(s.close(id, "bob"));
  EXPECT_TRUE(s.close(id, "alice"));
  EXPECT_FALSE(s.touch(id, "alice", t0));
  EXPECT_FALSE(s.close(id, "alice"));
}

TEST(HttpSessions, IdleSessionsExpire) {
  HttpSessions s(limits());
  auto t0 = Clock::now();
  std::string a = s.open("o", t0);
  std::string b = s.open("o", t0);
  EXPECT_TRUE(s.touch(a, "o", t0 + milliseconds(900)));
  // b idled out: touching it forgets it.
  EXPECT_FALSE(s.touch(b, "o", t0 + milliseconds(1000)));
  EXPECT_EQ(s.size(), 1u);
  auto gone = s.expire(t0 + milliseconds(1899));
  EXPECT_TRUE(gone.empty());
  gone = s.expire(t0 + milliseconds(1900));
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0], a);
  EXPECT_EQ(s.size(), 0u);
}

TEST(HttpSessions, ASessionWithACallInFlightDoesNotExpire) {
  HttpSessions s(limits());
  auto t0 = Clock::now();
  std::string a = s.open("o", t0);
  ASSERT_TRUE(s.try_acquire(a));
  EXPECT_TRUE(s.expire(t0 + milliseconds(5000)).empty());
  s.release(a, t0 + milliseconds(5000));  // the release counts as use
  EXPECT_TRUE(s.expire(t0 + milliseconds(5500)).empty());
  EXPECT_EQ(s.expire(t0 + milliseconds(6000)).size(), 1u);
}

TEST(HttpSessions, CapOnSessionsForgetsIdleOnesFirst) {
  HttpSessions s(limits(2));
  auto t0 = Clock::now();
  std::string a = s.open("o", t0);
  std::string b = s.open("o", t0);
  EXPECT_EQ(s.open("o", t0 + milliseconds(10)), "");
  EXPECT_TRUE(s.touch(b, "o", t0 + milliseconds(500)));
  // a is idle by now, b is not.
  std::string c = s.open("o", t0 + milliseconds(1200));
  EXPECT_FALSE(c.empty());
  EXPECT_FALSE(s.touch(a, "o", t0 + milliseconds(1200)));
  EXPECT_TRUE(s.touch(b, "o", t0 + milliseconds(1200)));
}

TEST(HttpSessions, InFlightSlots) {
  HttpSessions s(limits(4, 2));
  auto t0 = Clock::now();
  std::string a = s.open("o", t0);
  std::string b = s.open("o", t0);
  EXPECT_TRUE(s.try_acquire(a));
  EXPECT_TRUE(s.try_acquire(a));
  EXPECT_FALSE(s.try_acquire(a));
  EXPECT_TRUE(s.try_acquire(b));  // per session
  EXPECT_EQ(s.in_flight(a), 2u);
  s.release(a, t0);
  EXPECT_TRUE(s.try_acquire(a));
  EXPECT_FALSE(s.try_acquire("unknown"));
  s.release("unknown", t0);  // harmless
  s.close(a, "o");
  s.release(a, t0);  // after DELETE: harmless
}

// ---------------------------------------------------------------- peek

TEST(HttpRpc, PeekReadsMethodAndId) {
  std::string body = R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":[1,2]}})";
  RpcPeek p = peek_rpc(body);
  EXPECT_TRUE(p.object);
  EXPECT_EQ(p.method, "tools/call");
  EXPECT_TRUE(p.has_id);
  EXPECT_EQ(p.id_json, "7");

  body = R"({"params":{"deep":{"x":"\"id\""}}, "method" : "ping", "id" : "a\"b" })";
  p = peek_rpc(body);
  EXPECT_EQ(p.method, "ping");
  EXPECT_EQ(p.id_json, R"("a\"b")");

  body = R"({"jsonrpc":"2.0","method":"notifications/initialized"})";
  p = peek_rpc(body);
  EXPECT_TRUE(p.object);
  EXPECT_FALSE(p.has_id);
  EXPECT_EQ(p.id_json, "null");

  body = R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})";
  p = peek_rpc(body);
  EXPECT_TRUE(p.has_id);
  EXPECT_EQ(p.id_json, "null");  // not a usable id: answered with null
}

TEST(HttpRpc, PeekRefusesWhatIsNotAnObject) {
  for (std::string body : {std::string("not json"), std::string("[1,2]"), std::string("{\"a\":"),
                           std::string("42"), std::string("{\"a\" 1}")}) {
    RpcPeek p = peek_rpc(body);
    EXPECT_FALSE(p.object) << body;
  }
}

TEST(HttpRpc, FramesAreJson) {
  auto e = ptc::parse_json(rpc_error_frame("\"x\"", -32000, "request \"timed\" out"));
  EXPECT_EQ(e.get("id")->text(), "x");
  EXPECT_EQ(e.get("error")->get("code")->as_int(), -32000);
  EXPECT_EQ(e.get("error")->get("message")->text(), "request \"timed\" out");

  auto r = ptc::parse_json(rpc_result_frame("3", R"({"ok":true})"));
  EXPECT_EQ(r.get("id")->as_int(), 3);
  EXPECT_TRUE(r.get("result")->get("ok")->as_bool());
  EXPECT_TRUE(rpc_reply_is_result(rpc_result_frame("3", "{}")));
  EXPECT_FALSE(rpc_reply_is_result(rpc_error_frame("3", -1, "no")));
  // Replies as the server writes them are read from their head; anything
  // else is parsed: both give the same answers.
  using ptc::HostValue;
  for (const HostValue& id : {HostValue::integer(7), HostValue::string("a\",\"result\":1"),
                              HostValue::string("\\"), HostValue()}) {
    std::string result = result_frame(id, ptc::parse_json(R"({"error":{"code":5}})"));
    EXPECT_TRUE(rpc_reply_is_result(result)) << result;
    EXPECT_EQ(rpc_reply_error_code(result), 0) << result;
    std::string error = error_frame(id, -32601, "Method not found");
    EXPECT_FALSE(rpc_reply_is_result(error)) << error;
    EXPECT_EQ(rpc_reply_error_code(error), -32601) << error;
  }
  EXPECT_EQ(rpc_reply_error_code(R"( {"id":1, "error": {"message":"x", "code": 7}})"), 7);
  EXPECT_EQ(rpc_reply_error_code(R"({"jsonrpc":"2.0","id":1,"error":{"code":12x}})"), 0);
  EXPECT_TRUE(rpc_reply_is_result(R"({"result":{},"jsonrpc":"2.0","id":1})"));

  EXPECT_TRUE(rpc_frame_is_notification(
      R"({"jsonrpc":"2.0","method":"notifications/message","params":{}})"));
  EXPECT_TRUE(rpc_frame_is_notification(R"( { "method" : "x" })"));
  EXPECT_FALSE(rpc_frame_is_notification(R"({"jsonrpc":"2.0","id":1,"result":{}})"));
  EXPECT_FALSE(rpc_frame_is_notification(R"({"jsonrpc":"2.0","id":null,"error":{}})"));
  EXPECT_FALSE(rpc_frame_is_notification(R"({"id":1,"method":"x"})"));
  EXPECT_FALSE(rpc_frame_is_notification("not json"));
  EXPECT_FALSE(rpc_frame_is_notification(""));

  auto n = ptc::parse_json(rpc_cancel_notification("\"r1\"", "gone"));
  EXPECT_EQ(n.get("method")->text(), "notifications/cancelled");
  EXPECT_EQ(n.get("params")->get("requestId")->text(), "r1");
  EXPECT_FALSE(n.get("id"));
}

}  // namespace
