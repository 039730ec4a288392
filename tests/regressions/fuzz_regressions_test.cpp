// Regression tests from the fuzz campaigns (tests/fuzz/README.md): each
// finding becomes a test here, its minimized input written out, so it runs in
// every ordinary build (gcc, ASan+UBSan, TSan) and not only in the fuzz build.
// The memory and JSON cases below pin down the properties the targets check on
// the hostile shapes the campaigns kept reaching.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "isolation/frames.hpp"
#include "protocol/mcp/http_rpc.hpp"
#include "protocol/mcp/json_rpc.hpp"
#include "protocol/mcp/server.hpp"
#include "protocol/upstream/reply_decoding.hpp"
#include "runtime/host_value.hpp"

namespace {

using ptc::ErrorKind;
using ptc::HostValue;

HostValue fn_value(const char* factory, std::vector<HostValue> args = {}) {
  auto r = std::make_shared<ptc::Restorer>();
  r->factory = factory;
  r->args = std::move(args);
  return HostValue::opaque("#fn[fuzzed]", r);
}

// Keeps the frames a Server sends.
class Frames final : public ptc::mcp::Peer {
 public:
  void send(std::string frame) override { sent.push_back(std::move(frame)); }
  std::vector<std::string> sent;
};

ptc::Step run_with_memory(const char* program, HostValue memory) {
  ptc::RunOptions o;
  o.memory = std::move(memory);
  o.limits.timeout_ms = 1000;
  return ptc::run(program, o);
}

// fuzz_memory: a factory that calls another memory function while the run
// rebuilds it fails the run with an error naming it; nothing is left half-done.
TEST(FuzzRegressions, MemoryFactoryCallingAnotherMemoryFunctionFailsCleanly) {
  HostValue memory = HostValue::map({
      {HostValue::string("a"), fn_value("(fn [] (b))")},
      {HostValue::string("b"), fn_value("(fn [] (fn [] 1))")},
  });
  ptc::Step s = run_with_memory("[a b (a)]", memory);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::UnboundVar) << s.error.describe();
  EXPECT_EQ(s.memory, memory);
}

// fuzz_memory: factories whose captured values rebuild each other without end,
// or that loop, stop at the run's limits.
TEST(FuzzRegressions, MemoryFactoriesThatRecurseOrLoopStopAtTheLimits) {
  HostValue recursive = HostValue::map({
      {HostValue::string("a"), fn_value("(fn [x] (fn [] (x)))", {fn_value("(fn [] (fn [] (a)))")})},
  });
  ptc::Step s = run_with_memory("(a)", recursive);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::CallDepthExceeded) << s.error.describe();

  HostValue looping = HostValue::map({
      {HostValue::string("a"), fn_value("(fn [] (loop [] (recur)))")},
  });
  s = run_with_memory("a", looping);
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::LoopLimitExceeded) << s.error.describe();
}

// fuzz_memory: a kept function's source that says (return ...) ends that
// source with the value, not the process (it threw past the run).
TEST(FuzzRegressions, MemoryFactoryThatReturnsIsItsOwnValue) {
  HostValue memory = HostValue::map({
      {HostValue::string("counter"), fn_value("(return (fn [] (fn [] 3)))")},
      {HostValue::string("early"), fn_value("(fn [] (return (fn [] 7)))")},
      {HostValue::string("odd"), fn_value("(return (fn [] (range 2)))")},
  });
  ptc::Step s = run_with_memory("[(counter) (early)]", memory);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(s.value, HostValue::vector({HostValue::integer(3), HostValue::integer(7)}));
  s = run_with_memory("(odd)", memory);  // the fuzzer's shape: the value is no function
  EXPECT_FALSE(s.ok);
  EXPECT_FALSE(s.returned);
}

// fuzz_memory: a value with no data form (no Restorer) cannot be rebuilt; the
// run says so by name instead of importing its printed text as a function.
TEST(FuzzRegressions, MemoryValueWithoutRestorerIsReportedByName) {
  ptc::Step s = run_with_memory(
      "[x lost]", HostValue::map({{HostValue::string("lost"), HostValue::opaque("#fn[lost]")},
                                  {HostValue::string("x"), HostValue::integer(1)}}));
  ASSERT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::UnboundVar);
  EXPECT_NE(s.error.message.find("lost"), std::string::npos) << s.error.message;
}

// fuzz_json: numbers beyond double range are a parse error (never an infinity
// that to_json could not write back); tiny ones round to zero.
TEST(FuzzRegressions, JsonNumbersBeyondDoubleRangeDoNotParse) {
  for (const char* text : {"1e400", "[-1e999]", "{\"a\": 1.5e309}"}) {
    try {
      ptc::parse_json(text);
      ADD_FAILURE() << text << " parsed";
    } catch (ptc::LispError& e) {
      EXPECT_EQ(e.error().kind, ErrorKind::ParseError) << text;
    }
  }
  HostValue tiny = ptc::parse_json("[1e-999, -1e-999, 5e-324]");
  EXPECT_EQ(ptc::to_json(tiny), "[0.0,-0.0,5e-324]");
  EXPECT_EQ(ptc::parse_json(ptc::to_json(tiny)), tiny);
}

// fuzz_jsonrpc: a backslash followed by a byte that is not UTF-8 ended up raw
// in the parse error's message, so the -32700 reply was not valid UTF-8 (not
// JSON). The message describes the byte instead.
TEST(FuzzRegressions, JsonInvalidEscapeMessageIsUtf8AndItsRpcErrorIsJson) {
  const std::string frame = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\\\xC9\"}";
  try {
    ptc::parse_json(frame);
    ADD_FAILURE() << "parsed";
  } catch (ptc::LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::ParseError);
    EXPECT_NE(e.error().message.find("invalid escape"), std::string::npos) << e.error().message;
    EXPECT_EQ(e.error().message.find('\xC9'), std::string::npos) << e.error().message;
  }
  auto server = ptc::mcp::make_server(ptc::mcp::ServerConfig{});
  auto peer = std::make_shared<Frames>();
  server->handle(frame, peer, ptc::mcp::Caller{"stdio", "stdio", false});
  ASSERT_EQ(peer->sent.size(), 1u);
  HostValue reply = ptc::parse_json(peer->sent[0]);  // throws when not JSON
  EXPECT_EQ(reply.get("error")->get("code")->as_int(), -32700) << peer->sent[0];
}

// fuzz_http: the server's parser ignores a leading UTF-8 byte order mark but
// the transport's peek_rpc did not, so a POSTed message with one passed as
// "not a JSON object": no Mcp-Session-Id was required, the per-session call
// cap was not applied, and the call still ran (its result answered with 400).
// The peek reads such a message as the server does.
TEST(FuzzRegressions, HttpPeekReadsAMessageWithAByteOrderMarkAsTheServerDoes) {
  const std::string message =
      "\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
      "\"params\":{\"name\":\"lisp_eval\",\"arguments\":{\"program\":\"1\"}}}";
  ptc::mcp::RpcMessage m = ptc::mcp::parse_message(message);
  ASSERT_EQ(m.kind, ptc::mcp::RpcMessage::Kind::Request);
  std::string body = message;
  ptc::mcp::RpcPeek peek = ptc::mcp::peek_rpc(body);
  EXPECT_EQ(body, message);
  EXPECT_TRUE(peek.object);
  EXPECT_EQ(peek.method, m.method);
  EXPECT_TRUE(peek.has_id);
  EXPECT_EQ(peek.id_json, "7");
}

// fuzz_jsonrpc (its -32603 property, on a context nested ~1026 levels): the
// message reader took the context out as text without the depth check
// parse_json makes, so a message parse_json rejects was accepted, and a tool
// that takes its context as a host tree (the session tools) failed to parse
// it again: the dispatcher answered -32603 Internal error. The reader now
// rejects such a message as parse_json does (-32700).
TEST(FuzzRegressions, JsonRpcContextNestedTooDeepIsAParseErrorNotAnInternalError) {
  for (size_t depth : {1019u, 1020u, 1021u, 1026u}) {
    std::string context = "{\"a\":" + std::string(depth, '[') + std::string(depth, ']') + "}";
    std::string frame =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
        "\"lisp_session_list\",\"arguments\":{\"context\":" +
        context + "}}}";
    bool parses = true;
    try {
      ptc::parse_json(frame);
    } catch (ptc::LispError&) {
      parses = false;
    }
    EXPECT_EQ(parses, depth <= 1020) << depth;  // containers at depth 3 .. 1023
    ptc::mcp::RpcMessage m = ptc::mcp::parse_message(frame);
    EXPECT_EQ(m.kind == ptc::mcp::RpcMessage::Kind::Invalid, !parses) << depth;
    if (parses) {
      EXPECT_EQ(ptc::parse_json(m.context_json), ptc::parse_json(context)) << depth;
    } else {
      EXPECT_EQ(m.error_code, ptc::mcp::kParseError) << depth;
    }
    ptc::mcp::ServerConfig config;
    config.sessions = true;
    auto server = ptc::mcp::make_server(config);
    auto peer = std::make_shared<Frames>();
    server->handle(frame, peer, ptc::mcp::Caller{"stdio", "stdio", false});
    ASSERT_EQ(peer->sent.size(), 1u);
    HostValue reply = ptc::parse_json(peer->sent[0]);
    const HostValue* error = reply.get("error");
    if (parses) {
      EXPECT_TRUE(reply.get("result")) << peer->sent[0];
    } else {
      ASSERT_TRUE(error) << peer->sent[0];
      EXPECT_EQ(error->get("code")->as_int(), ptc::mcp::kParseError) << peer->sent[0];
    }
  }
}

// fuzz_jsonrpc (its property that parse_message reads params as parse_json
// does): with a repeated "params" (or "arguments") key the later one wins,
// but the context taken out as text still came from the earlier one, so a
// call ran the later arguments with the earlier context. The text now goes
// with the value it came from.
TEST(FuzzRegressions, JsonRpcRepeatedParamsKeepNoContextOfTheReplacedOne) {
  const std::string frame =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call",)"
      R"("params":{"name":"lisp_eval","arguments":{"program":"data/a","context":{"a":1}}},)"
      R"("params":{"name":"lisp_eval","arguments":{"program":"data/a"}}})";
  ptc::mcp::RpcMessage m = ptc::mcp::parse_message(frame);
  ASSERT_EQ(m.kind, ptc::mcp::RpcMessage::Kind::Request);
  EXPECT_EQ(m.context_json, "");
  EXPECT_EQ(m.params, *ptc::parse_json(frame).get("params"));

  const std::string nested =
      R"({"params":{"arguments":{"context":{"a":1}},"arguments":{"program":"1"}}})";
  static constexpr std::string_view kPath[] = {"params", "arguments", "context"};
  std::string raw = "?";
  HostValue h = ptc::parse_json_extracting(nested, kPath, &raw);
  EXPECT_EQ(raw, "");
  EXPECT_EQ(h, ptc::parse_json(nested));

  const std::string twice =
      R"({"params":{"arguments":{"context":{"a":1}}},"params":{"arguments":{"context":[2]}}})";
  h = ptc::parse_json_extracting(twice, kPath, &raw);
  EXPECT_EQ(raw, "[2]");
}

// fuzz_upstream: a chunked reply whose trailer line is two bytes ("ch") was
// measured as ending right after them, so a kept-alive connection would have
// read the next reply from the middle of this one.
TEST(FuzzRegressions, ChunkedReplyLengthCountsATwoByteTrailerLine) {
  std::string reply =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nch\r\n\r\n";
  ptc::upstream::HttpReply r = ptc::upstream::parse_http_reply(reply + "0\r\n\r\n", 7);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.body, "abc");
  EXPECT_EQ(r.length, reply.size());
}

// fuzz_worker_frames: the frame reader sized a frame's body by the length
// its header claimed before any of it came, so a worker that sent 7 bytes
// made the parent allocate (and zero) up to max_frame_bytes (over 1 GiB by
// default). The buffer now grows with the bytes that arrive.
TEST(FuzzRegressions, WorkerFrameBodyGrowsWithTheBytesThatArrive) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  // A tool call whose length says 512 MiB, and two bytes of it.
  const char bytes[] = {0x01, 0x00, 0x00, 0x20, 0x03, 0x28, 0x69};
  ASSERT_EQ(write(sv[1], bytes, sizeof bytes), static_cast<ssize_t>(sizeof bytes));
  close(sv[1]);
  ptc::isolation::FrameReader reader(sv[0], size_t{1} << 30);
  ptc::isolation::Frame frame;
  EXPECT_EQ(reader.next(frame), ptc::isolation::ReadStatus::Closed);
  EXPECT_LE(reader.capacity(), size_t{1} << 20);
  close(sv[0]);
}

// fuzz_worker_frames (its allocation count; the input is in its corpus):
// each nested collection reserved room for as many items as its count
// claimed, up to every byte left, so 1,500 nested vectors each claiming 127
// items (3 KB) held 13 MB before the frame was refused. Reading reserves at
// most a few items ahead now; the frame is refused as before.
TEST(FuzzRegressions, NestedCountsInAWorkerFrameAreRefusedWithoutReservingThem) {
  std::string body = "\x01";
  for (int i = 0; i < 1500; ++i)
    body += "\x08\x7f";
  try {
    (void)ptc::isolation::decode_step(body);
    FAIL() << "decoded";
  } catch (ptc::LispError& e) {
    EXPECT_EQ(e.error().kind, ErrorKind::SnapshotError);
    EXPECT_NE(e.error().message.find("127 items cannot fit"), std::string::npos)
        << e.error().message;
  }
}

}  // namespace
