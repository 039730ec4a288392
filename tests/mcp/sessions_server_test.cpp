// The session tools through Server::handle, as JSON-RPC frames: listed
// beside lisp_eval, a round trip, owner scoping, session_busy before a slot
// is taken, and a cancelled eval (notifications/cancelled) rolled back.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mcp/collecting_peer.hpp"
#include "protocol/mcp/lisp_eval_tool.hpp"
#include "protocol/mcp/log.hpp"
#include "protocol/mcp/server.hpp"
#include "protocol/mcp/session_tools.hpp"
#include "support/build_info.hpp"

namespace {

using ptc::HostValue;
using ptc::parse_json;
using ptc::to_json;
using namespace ptc::mcp;
using H = HostValue;
using namespace std::chrono_literals;

using Collector = ptc::mcp::testing::CollectingPeer;

H at(const H& map, std::string_view key) {
  const H* v = map.get(key);
  return v ? *v : H();
}

std::string text_field(const H& map, std::string_view key) {
  const H* v = map.get(key);
  return v && v->kind() == H::Kind::String ? v->text() : "";
}

std::string text_of(const H& result) {
  H content = at(result, "content");
  if (content.kind() != H::Kind::Vector || content.items().empty()) return "";
  return text_field(content.items()[0], "text");
}

std::string reason_of(const H& result) {
  return text_field(at(result, "structuredContent"), "reason");
}

constexpr const char* kSpin =
    "(defn spin [n] (if (< n 2) n (+ (spin (- n 1)) (spin (- n 2))))) (spin 40)";

struct Fixture {
  explicit Fixture(ServerConfig c) : server(std::make_unique<Server>(c)) {
    set_log_level(LogLevel::Error);
    server->add_tool(make_lisp_eval_tool(server->config()));
    add_session_tools(*server, server->config());
  }
  std::unique_ptr<Server> server;
  std::shared_ptr<Collector> peer = std::make_shared<Collector>();
  Caller caller{"stdio", "stdio", false};
  int64_t next_id = 1;

  // Sends tools/call and returns its id.
  int64_t send_call(std::string_view tool, const H& arguments, const Caller& who) {
    int64_t id = next_id++;
    H frame =
        H::map({{H::string("jsonrpc"), H::string("2.0")},
                {H::string("id"), H::integer(id)},
                {H::string("method"), H::string("tools/call")},
                {H::string("params"), H::map({{H::string("name"), H::string(std::string(tool))},
                                              {H::string("arguments"), arguments}})}});
    server->handle(to_json(frame), peer, who);
    return id;
  }
  H result(int64_t id) { return at(peer->reply(id), "result"); }
  H call(std::string_view tool, const H& arguments) {
    return result(send_call(tool, arguments, caller));
  }
  H call(std::string_view tool, std::string_view arguments_json) {
    return call(tool, parse_json(arguments_json));
  }
};

ServerConfig session_config() {
  ServerConfig c;
  c.sessions = true;
  return c;
}

H eval_args(const std::string& id, std::string_view program) {
  return H::map({{H::string("session_id"), H::string(id)},
                 {H::string("program"), H::string(std::string(program))}});
}

TEST(McpSessions, ListedBesideLispEvalAndRoundTripOverJsonRpc) {
  Fixture f(session_config());
  f.server->handle(R"({"jsonrpc":"2.0","id":100,"method":"tools/list"})", f.peer, f.caller);
  H tools = at(at(f.peer->reply(100), "result"), "tools");
  std::vector<std::string> names;
  for (const H& t : tools.items()) {
    names.push_back(text_field(t, "name"));
    EXPECT_EQ(at(t, "inputSchema").kind(), H::Kind::Map) << names.back();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"lisp_eval", "lisp_session_start", "lisp_session_list",
                                             "lisp_session_list_preludes", "lisp_session_eval",
                                             "lisp_session_inspect", "lisp_session_forget",
                                             "lisp_session_close"}));

  H started = f.call(kSessionStart, R"({"title":"t"})");
  std::string id = text_field(at(started, "structuredContent"), "session_id");
  ASSERT_FALSE(id.empty()) << to_json(started);
  // A session tool's text is the JSON of its structuredContent, in every profile.
  EXPECT_EQ(parse_json(text_of(started)), at(started, "structuredContent"));

  H first = f.call(kSessionEval, eval_args(id, "(def x 41)"));
  EXPECT_FALSE(at(first, "isError").as_bool()) << text_of(first);
  H second = f.call(kSessionEval, eval_args(id, "(inc x)"));
  EXPECT_EQ(text_of(second), "user=> 42\n\n[session turn 2; stored: x]");
  H failed = f.call(kSessionEval, eval_args(id, "(def x 0) (inc nil)"));
  EXPECT_TRUE(at(failed, "isError").as_bool());
  EXPECT_NE(text_of(failed).find("[rolled back: the session is still at turn 2; stored: x]"),
            std::string::npos)
      << text_of(failed);
  EXPECT_EQ(text_of(f.call(kSessionEval, eval_args(id, "[x *1]"))),
            "user=> [41 42]\n\n[session turn 3; stored: x]");
  // lisp_eval beside them stays stateless.
  H plain = f.call("lisp_eval", R"({"program":"x"})");
  EXPECT_TRUE(at(plain, "isError").as_bool());

  H closed = f.call(kSessionClose, H::map({{H::string("session_id"), H::string(id)}}));
  EXPECT_EQ(to_json(at(at(closed, "structuredContent"), "closed")), "true");
  EXPECT_EQ(reason_of(f.call(kSessionEval, eval_args(id, "1"))), "session_closed");
  EXPECT_EQ(reason_of(f.call(kSessionList, R"({"x":1})")), "session_args_error");
}

TEST(McpSessions, OwnersAreKeptApart) {
  Fixture f(session_config());
  Caller alice{"alice-digest", "http-1", true};
  Caller bob{"bob-digest", "http-2", true};
  H started = f.result(f.send_call(kSessionStart, H::map({}), alice));
  std::string id = text_field(at(started, "structuredContent"), "session_id");
  EXPECT_EQ(reason_of(f.result(f.send_call(kSessionEval, eval_args(id, "1"), bob))),
            "session_not_found");
  H listed = f.result(f.send_call(kSessionList, H::map({}), bob));
  EXPECT_EQ(to_json(at(at(listed, "structuredContent"), "count")), "0");
  H mine = f.result(f.send_call(kSessionEval, eval_args(id, "1"), alice));
  EXPECT_FALSE(at(mine, "isError").as_bool()) << text_of(mine);
}

TEST(McpSessions, BusyAndCancelledEvalsOverJsonRpc) {
  ServerConfig c = session_config();
  c.program_timeout_ms = 20000;
  c.max_concurrent_calls = 1;  // the spinning eval takes the only slot
  Fixture f(c);
  H started = f.call(kSessionStart, "{}");
  std::string id = text_field(at(started, "structuredContent"), "session_id");
  ASSERT_FALSE(at(f.call(kSessionEval, eval_args(id, "(def kept 1)")), "isError").as_bool());

  int64_t spinning =
      f.send_call(kSessionEval, eval_args(id, std::string("(def kept 2) ") + kSpin), f.caller);
  // Wait until the eval holds the session (inspect changes nothing).
  H by_id = H::map({{H::string("session_id"), H::string(id)}});
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (to_json(at(at(at(f.call(kSessionInspect, by_id), "structuredContent"), "session"),
                    "busy")) != "true" &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(2ms);
  // session_busy, not the gate's busy: refused before asking for a slot.
  H busy = f.call(kSessionEval, eval_args(id, "kept"));
  EXPECT_EQ(reason_of(busy), "session_busy") << text_of(busy);
  // Other sessions wait for the gate like any call.
  H other = f.call(kSessionStart, "{}");
  std::string other_id = text_field(at(other, "structuredContent"), "session_id");
  EXPECT_EQ(reason_of(f.call(kSessionEval, eval_args(other_id, "1"))), "busy");

  f.server->handle(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)" +
                       std::to_string(spinning) + "}}",
                   f.peer, f.caller);
  ASSERT_TRUE(f.server->wait_idle(2000ms * ptc::testing::kSlowdown));
  EXPECT_TRUE(f.peer->reply(spinning, 100ms).is_nil()) << "no reply after a stdio cancellation";
  H after = f.call(kSessionEval, eval_args(id, "kept"));
  EXPECT_EQ(text_of(after), "user=> 1\n\n[session turn 2; stored: kept]");
}

}  // namespace
