// The stdio client when requests and answers are larger than the pipes: a
// server that stops reading while it writes must never leave a call waiting
// past its own deadline (tests/mcp/node/lib/blocking-upstream.py, python3).
#include "protocol/upstream/stdio_client.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "include/ptc/error.hpp"
#include "include/ptc/host_value.hpp"
#include "scheduler/lane.hpp"

namespace ptc::upstream {
namespace {

using std::chrono::milliseconds;

// blocking-upstream.py as an upstream speaking `protocol`.
UpstreamConfig blocking_server(std::string protocol) {
  UpstreamConfig c;
  c.name = "b";
  c.transport = "mcp_stdio";
  c.command = "python3";
  c.args = {PTC_SOURCE_DIR "/tests/mcp/node/lib/blocking-upstream.py"};
  c.protocol = std::move(protocol);
  return c;
}

class BlockingUpstream : public ::testing::Test {
 protected:
  void SetUp() override {
    // It ignores requests before its handshake (see Negotiation).
    client_ = std::make_unique<StdioClient>(blocking_server("legacy"), nullptr, LogFn{});
    ASSERT_EQ(client_->start(), "");
    t0_ = Clock::now();
  }

  Reply call(const std::string& tool, const std::string& args_json, int timeout_ms) {
    return client_->request(
        "tools/call", parse_json("{\"name\":\"" + tool + "\",\"arguments\":" + args_json + "}"),
        Clock::now() + milliseconds(timeout_ms), {});
  }
  Reply size_of_a_megabyte(int timeout_ms) {
    return call("size", "{\"message\":\"" + std::string(1000000, 'y') + "\"}", timeout_ms);
  }
  long elapsed_ms() const {
    return static_cast<long>(std::chrono::duration_cast<milliseconds>(Clock::now() - t0_).count());
  }
  static std::string text(const Reply& r) {
    return r.status == Reply::Status::Ok ? to_json(r.result) : r.message;
  }

  std::unique_ptr<StdioClient> client_;
  Clock::time_point t0_;
};

// A call times out while the server sleeps; a second call writes 1 MB into
// the full pipe; the server then writes a 400 kB late answer and waits for
// us to read it. The timed-out call must not keep the others from reading.
TEST_F(BlockingUpstream, ATimedOutCallDoesNotStallALargeWrite) {
  Reply late;
  long late_ms = 0;
  std::thread t([&] {
    late = call("late", R"({"ms":2000,"bytes":400000})", 500);
    late_ms = elapsed_ms();
  });
  std::this_thread::sleep_for(milliseconds(100));
  Reply big = size_of_a_megabyte(8000);
  long big_ms = elapsed_ms();
  t.join();
  EXPECT_EQ(late.status, Reply::Status::Timeout) << text(late);
  EXPECT_LT(late_ms, 1500);
  ASSERT_EQ(big.status, Reply::Status::Ok) << text(big);
  EXPECT_NE(text(big).find("1000000"), std::string::npos);
  EXPECT_LT(big_ms, 5000);
}

// The server asks us something (ping) while another call's 1 MB request
// holds stdin: our answer must not wait for a later write.
TEST_F(BlockingUpstream, AnAnswerToTheServerIsNotHeldBack) {
  Reply asked;
  long asked_ms = 0;
  std::thread t([&] {
    asked = call("ask", "{}", 4000);
    asked_ms = elapsed_ms();
  });
  std::this_thread::sleep_for(milliseconds(50));
  Reply big = size_of_a_megabyte(8000);
  t.join();
  ASSERT_EQ(big.status, Reply::Status::Ok) << text(big);
  ASSERT_EQ(asked.status, Reply::Status::Ok) << text(asked);
  EXPECT_NE(text(asked).find("asked"), std::string::npos);
  EXPECT_LT(asked_ms, 3000);
}

// A call waiting for another call's long write still ends at its deadline.
TEST_F(BlockingUpstream, WaitingForAnotherWriteKeepsTheDeadline) {
  std::thread sleeper([&] { (void)call("late", R"({"ms":2000,"bytes":10})", 5000); });
  std::this_thread::sleep_for(milliseconds(100));
  std::thread writer([&] { (void)size_of_a_megabyte(8000); });
  std::this_thread::sleep_for(milliseconds(100));
  auto start = Clock::now();
  Reply quick = call("size", R"({"message":"hi"})", 300);
  auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
  sleeper.join();
  writer.join();
  EXPECT_EQ(quick.status, Reply::Status::Timeout) << text(quick);
  EXPECT_LT(took, 1000);
}

// A pmap branch (a fiber) holds the reading role, parked in its poll, while
// another branch of its lane computes for seconds: the lane does not poll,
// so a caller on another thread takes the role over instead of waiting for
// the computation (before, its call took as long as the computation).
TEST_F(BlockingUpstream, ABusyLaneDoesNotHoldUpAnotherThreadsCall) {
  std::function<bool()> never = [] { return false; };
  auto params = [](const std::string& tool) {
    return parse_json("{\"name\":\"" + tool + "\",\"arguments\":{\"message\":\"hi\"}}");
  };
  int started = 0;
  std::thread other;
  long other_ms = -1;
  Reply other_reply, held_reply;
  Lane lane;
  lane.run([&]() -> std::function<void()> {
    if (started == 0) {
      ++started;
      return [&] {  // holds the role: its reply never comes
        held_reply = client_->request("tools/call", params("never"),
                                      Clock::now() + milliseconds(4000), never);
      };
    }
    if (started == 1) {
      ++started;
      return [&] {
        other = std::thread([&] {
          auto t0 = Clock::now();
          // No cancel check: its waits are 1 s slices, yet it looks again
          // when the holder's poll is overdue.
          other_reply =
              client_->request("tools/call", params("size"), Clock::now() + milliseconds(6000), {});
          other_ms = static_cast<long>(
              std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count());
        });
        for (auto until = Clock::now() + milliseconds(3000); Clock::now() < until;) {
        }  // computing, never waiting
      };
    }
    return {};
  });
  other.join();
  EXPECT_EQ(held_reply.status, Reply::Status::Timeout);
  ASSERT_EQ(other_reply.status, Reply::Status::Ok) << text(other_reply);
  EXPECT_LT(other_ms, 700) << "the call waited for the busy lane";
}

// The fiber holding the reading role waits for a late 400 kB answer while
// its lane computes; the server, writing that answer, stops reading stdin,
// and another thread's 1 MB request fills it. With nobody else waiting for
// a reply, the writer has the idle reader take the role over from the
// stalled fiber, so its request goes through (before, it was cut short at
// its deadline and the connection died).
TEST_F(BlockingUpstream, AWriterIsNotHeldUpByAStalledReaderOnABusyLane) {
  std::function<bool()> never = [] { return false; };
  int started = 0;
  std::thread writer;
  Reply held, big;
  Lane lane;
  lane.run([&]() -> std::function<void()> {
    if (started == 0) {
      ++started;
      return [&] {
        held = client_->request(
            "tools/call", parse_json(R"({"name":"late","arguments":{"ms":300,"bytes":400000}})"),
            Clock::now() + milliseconds(8000), never);
      };
    }
    if (started == 1) {
      ++started;
      return [&] {
        writer = std::thread([&] {
          std::this_thread::sleep_for(milliseconds(100));
          big = size_of_a_megabyte(4000);
        });
        for (auto until = Clock::now() + milliseconds(6000); Clock::now() < until;) {
        }  // computing, never waiting
      };
    }
    return {};
  });
  writer.join();
  ASSERT_EQ(big.status, Reply::Status::Ok) << text(big);
  EXPECT_NE(text(big).find("1000000"), std::string::npos);
  EXPECT_EQ(held.status, Reply::Status::Ok) << text(held);
}

// blocking-upstream.py is a 2025 server that does not answer a request sent
// before its handshake: the server/discover probe waits its window, then the
// handshake goes to the same process.
TEST(Negotiation, AServerSilentOnTheProbeGetsThe2025Handshake) {
  StdioClient client(blocking_server("auto"), nullptr, LogFn{});
  auto t0 = Clock::now();
  ASSERT_EQ(client.start(), "");
  EXPECT_GE(Clock::now() - t0, milliseconds(2000)) << "the probe window passed first";
  Reply r =
      client.request("tools/call", parse_json(R"({"name":"size","arguments":{"message":"ab"}})"),
                     Clock::now() + milliseconds(5000), {});
  EXPECT_EQ(r.status, Reply::Status::Ok) << r.message;
  client.stop();
}

TEST(Negotiation, PinnedTo2026ARefusingServerIsNotUsed) {
  UpstreamConfig c = blocking_server("2026-07-28");
  c.handshake_timeout_ms = 300;
  StdioClient client(c, nullptr, LogFn{});
  std::string err = client.start();
  EXPECT_NE(
      err.find("server/discover did not offer 2026-07-28 (\"protocol\": \"2026-07-28\" pins it)"),
      std::string::npos)
      << err;
}

}  // namespace
}  // namespace ptc::upstream
