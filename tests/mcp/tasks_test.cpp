// The task store and the timer that promotes calls to tasks
// (protocol/mcp/tasks.*, protocol/mcp/fifo_timer.*).
#include "protocol/mcp/tasks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "protocol/mcp/fifo_timer.hpp"

namespace {

using namespace std::chrono_literals;
using ptc::HostValue;
using namespace ptc::mcp;

std::string status_of(const HostValue& task) {
  return task.get("status")->text();
}

HostValue tool_result(const char* text) {
  return ptc::parse_json(std::string(R"({"content":[{"type":"text","text":")") + text +
                         R"("}],"isError":false})");
}

TEST(TaskStore, ATaskIsSeenOnlyByItsOwnerAndFollowsItsCall) {
  MemoryTaskStore store(60s, 16, 250ms);
  auto created = store.create("alice", "lisp_eval", [] {});
  EXPECT_EQ(created.id.size(), 32u);
  EXPECT_EQ(status_of(created.view), "working");
  EXPECT_EQ(created.view.get("ttlMs")->as_int(), 60000);
  EXPECT_EQ(created.view.get("pollIntervalMs")->as_int(), 250);
  EXPECT_FALSE(store.view(created.id, "bob")) << "another owner is told it does not exist";
  EXPECT_FALSE(store.cancel(created.id, "bob", [] { ADD_FAILURE() << "not found: no ack"; }));
  EXPECT_FALSE(store.exists(created.id, "bob"));
  ASSERT_TRUE(store.view(created.id, "alice"));
  store.finish(created.id, tool_result("done"), false);
  HostValue done = *store.view(created.id, "alice");
  EXPECT_EQ(status_of(done), "completed");
  EXPECT_EQ(ptc::to_json(*done.get("result")),
            R"({"content":[{"type":"text","text":"done"}],"isError":false})");
  bool acked = false;
  EXPECT_TRUE(store.cancel(created.id, "alice", [&] { acked = true; }))
      << "a finished task is found; nothing changes";
  EXPECT_TRUE(acked) << "a task that has ended is acknowledged at once";
  EXPECT_EQ(status_of(*store.view(created.id, "alice")), "completed");
}

TEST(TaskStore, IdsDoNotRepeat) {
  MemoryTaskStore store(60s, 4096, 250ms);
  std::vector<std::string> ids;
  for (int i = 0; i < 1000; ++i)
    ids.push_back(store.create("o", "t", nullptr).id);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

TEST(TaskStore, CancelAsksTheCallOnceAndIsAcknowledgedWhenTheCallEnds) {
  MemoryTaskStore store(60s, 16, 250ms);
  int asked = 0;
  int acked = 0;
  std::string status_at_ack;
  auto created = store.create("o", "lisp_eval", [&] { ++asked; });
  auto ack = [&] {
    ++acked;
    status_at_ack = status_of(*store.view(created.id, "o"));
  };
  EXPECT_TRUE(store.cancel(created.id, "o", ack));
  EXPECT_TRUE(store.cancel(created.id, "o", ack));
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(acked, 0) << "not while the program still runs";
  HostValue stopping = *store.view(created.id, "o");
  EXPECT_EQ(status_of(stopping), "working");
  EXPECT_NE(stopping.get("statusMessage")->text().find("stopping"), std::string::npos);
  store.finish(created.id, tool_result("late"), false);
  EXPECT_EQ(acked, 2) << "both cancels are answered when the call ends";
  EXPECT_EQ(status_at_ack, "cancelled");
  HostValue end = *store.view(created.id, "o");
  EXPECT_EQ(status_of(end), "cancelled");
  EXPECT_EQ(end.get("result"), nullptr);
  // A call the server stopped (shutdown) ends cancelled too.
  auto stopped = store.create("o", "lisp_eval", nullptr);
  store.finish(stopped.id, tool_result("x"), true);
  EXPECT_EQ(status_of(*store.view(stopped.id, "o")), "cancelled");
}

TEST(TaskStore, TasksExpireAfterTheirTtlAndAWorkingOneIsStoppedThenForgotten) {
  MemoryTaskStore store(30ms, 16, 250ms);
  std::atomic<int> asked{0};
  auto working = store.create("o", "t", [&] { ++asked; });
  auto finished = store.create("o", "t", nullptr);
  store.finish(finished.id, tool_result("x"), false);
  std::this_thread::sleep_for(60ms);  // the TTL itself is what is tested
  EXPECT_FALSE(store.view(finished.id, "o"));
  // Stopped, and still there while it stops: a cancel waiting on it is answered.
  ASSERT_TRUE(store.view(working.id, "o"));
  EXPECT_EQ(asked.load(), 1);
  bool acked = false;
  EXPECT_TRUE(store.cancel(working.id, "o", [&] { acked = true; }));
  EXPECT_EQ(asked.load(), 1) << "asked once";
  store.finish(working.id, tool_result("x"), false);
  EXPECT_TRUE(acked);
  EXPECT_FALSE(store.view(working.id, "o")) << "forgotten once it ended";
  EXPECT_EQ(store.size(), 0u);
}

TEST(TaskStore, AFullStoreDropsItsOldestFinishedTask) {
  MemoryTaskStore store(60s, 3, 250ms);
  auto running = store.create("o", "t", nullptr);
  auto first = store.create("o", "t", nullptr);
  auto second = store.create("o", "t", nullptr);
  store.finish(first.id, tool_result("1"), false);
  store.finish(second.id, tool_result("2"), false);
  auto third = store.create("o", "t", nullptr);
  EXPECT_EQ(store.size(), 3u);
  EXPECT_TRUE(store.view(running.id, "o")) << "working tasks are never dropped for room";
  EXPECT_FALSE(store.view(first.id, "o"));
  EXPECT_TRUE(store.view(second.id, "o"));
  EXPECT_TRUE(store.view(third.id, "o"));
}

TEST(TaskStore, CancelAllStopsEveryWorkingTask) {
  MemoryTaskStore store(60s, 16, 250ms);
  int asked = 0;
  store.create("a", "t", [&] { ++asked; });
  store.create("b", "t", [&] { ++asked; });
  auto done = store.create("c", "t", [&] { ++asked; });
  store.finish(done.id, tool_result("x"), false);
  store.cancel_all();
  EXPECT_EQ(asked, 2);
}

TEST(TasksCapability, AClientWithoutItGetsMinus32021) {
  std::string frame = missing_tasks_capability_frame(HostValue::integer(5));
  EXPECT_NE(frame.find(R"("code":-32021)"), std::string::npos);
  EXPECT_NE(
      frame.find(R"("requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}})"),
      std::string::npos);
}

TEST(FifoTimer, FiresInOrderAfterTheDelay) {
  std::mutex m;
  std::condition_variable cv;
  std::vector<int> fired;
  auto start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration first_after{};
  {
    FifoTimer timer(20ms);
    for (int i = 0; i < 5; ++i)
      timer.arm([&, i] {
        std::lock_guard lock(m);
        if (fired.empty()) first_after = std::chrono::steady_clock::now() - start;
        fired.push_back(i);
        cv.notify_all();
      });
    std::unique_lock lock(m);
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return fired.size() == 5; }));
  }
  EXPECT_EQ(fired, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_GE(first_after, 20ms);
}

TEST(FifoTimer, CallbacksNotYetDueAreDroppedWithTheTimer) {
  std::atomic<int> fired{0};
  {
    FifoTimer timer(10s);
    timer.arm([&] { ++fired; });
  }  // joins at once, not after 10 s
  EXPECT_EQ(fired.load(), 0);
}

}  // namespace
