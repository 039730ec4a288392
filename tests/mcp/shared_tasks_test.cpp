// Tasks in the store replicas share (protocol/mcp/redis_tasks.*): the
// TaskStore contract over both stores (TaskContract, once in memory and once
// in a private redis-server), then what only the shared store does: two
// replicas on one store, a runner lost with its lease, records altered in
// the store, and the store going down and coming back; last, two servers
// (Server::handle) on one store.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mcp/collecting_peer.hpp"
#include "protocol/mcp/json_rpc.hpp"
#include "protocol/mcp/random_bytes.hpp"
#include "protocol/mcp/redis_tasks.hpp"
#include "protocol/mcp/server.hpp"
#include "protocol/mcp/tasks.hpp"
#include "protocol/store/redis.hpp"
#include "support/build_info.hpp"
#include "support/redis_server.hpp"
#include "support/shared_store.hpp"

namespace {

using namespace std::chrono_literals;
using ptc::HostValue;
using ptc::store::StoreUnavailable;
using ptc::testing::RedisServer;
using namespace ptc::mcp;
using std::chrono::milliseconds;

std::string status_of(const HostValue& task) {
  return task.get("status")->text();
}

HostValue tool_result(const char* text) {
  return ptc::parse_json(std::string(R"({"content":[{"type":"text","text":")") + text +
                         R"("}],"isError":false})");
}

// Polls `done` until it holds or `limit` (times the build's slowdown) passed.
template <class Done>
bool eventually(Done done, milliseconds limit = 10s) {
  auto deadline = std::chrono::steady_clock::now() + limit * ptc::testing::kSlowdown;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// A replica's view of the store: its own connection and replica id, the key they all share.
std::shared_ptr<SharedStore> replica_of(const RedisServer& server) {
  return ptc::testing::shared_store_on(server);
}

std::string record_key(const SharedStore& shared, std::string_view owner, std::string_view id) {
  return shared.owner_prefix(owner) + "task:" + std::string(id);
}

// ---------------------------------------------------------------------------
// The contract, over both stores.

enum class Backend { Memory, Redis };

class TaskContract : public ::testing::TestWithParam<Backend> {
 protected:
  std::unique_ptr<TaskStore> make(milliseconds ttl = 60s) {
    if (GetParam() == Backend::Memory) return std::make_unique<MemoryTaskStore>(ttl, 4096, 250ms);
    if (!redis_) redis_ = std::make_unique<RedisServer>();
    return std::make_unique<RedisTaskStore>(replica_of(*redis_), ttl, 2s, 250ms);
  }
  std::unique_ptr<RedisServer> redis_;
};

std::string backend_name(const ::testing::TestParamInfo<Backend>& p) {
  return p.param == Backend::Memory ? "Memory" : "Redis";
}

INSTANTIATE_TEST_SUITE_P(Stores, TaskContract, ::testing::Values(Backend::Memory, Backend::Redis),
                         backend_name);

TEST_P(TaskContract, ATaskIsSeenOnlyByItsOwnerAndFollowsItsCall) {
  auto store = make();
  auto created = store->create("alice", "lisp_eval", [] {});
  EXPECT_EQ(created.id.size(), 32u);
  EXPECT_EQ(status_of(created.view), "working");
  EXPECT_EQ(created.view.get("ttlMs")->as_int(), 60000);
  EXPECT_EQ(created.view.get("pollIntervalMs")->as_int(), 250);
  EXPECT_EQ(store->size(), 1u);
  EXPECT_FALSE(store->view(created.id, "bob")) << "another owner is told it does not exist";
  EXPECT_FALSE(store->cancel(created.id, "bob", [] { ADD_FAILURE() << "not found: no ack"; }));
  EXPECT_FALSE(store->exists(created.id, "bob"));
  EXPECT_FALSE(store->view(std::string(32, '0'), "alice")) << "an unknown id";
  EXPECT_FALSE(store->view("not an id", "alice"));
  ASSERT_TRUE(store->exists(created.id, "alice"));
  store->finish(created.id, tool_result("done"), false);
  HostValue done = *store->view(created.id, "alice");
  EXPECT_EQ(status_of(done), "completed");
  EXPECT_EQ(ptc::to_json(*done.get("result")),
            R"({"content":[{"type":"text","text":"done"}],"isError":false})");
  bool acked = false;
  EXPECT_TRUE(store->cancel(created.id, "alice", [&] { acked = true; }))
      << "a finished task is found; nothing changes";
  EXPECT_TRUE(acked) << "a task that has ended is acknowledged at once";
  EXPECT_EQ(status_of(*store->view(created.id, "alice")), "completed");
}

TEST_P(TaskContract, ATaskShowsTheSameFieldsInEitherStore) {
  auto store = make();
  auto created = store->create("o", "lisp_eval", nullptr);
  auto keys = [](const HostValue& v) {
    std::vector<std::string> out;
    const auto& items = v.items();
    for (size_t i = 0; i < items.size(); i += 2)
      out.push_back(items[i].text());
    return out;
  };
  std::vector<std::string> working = {"taskId",        "status", "statusMessage", "createdAt",
                                      "lastUpdatedAt", "ttlMs",  "pollIntervalMs"};
  EXPECT_EQ(keys(created.view), working);
  HostValue seen = *store->view(created.id, "o");
  EXPECT_EQ(keys(seen), working);
  EXPECT_EQ(seen.get("statusMessage")->text(), "lisp_eval is running");
  EXPECT_EQ(seen.get("createdAt")->text(), created.view.get("createdAt")->text());
  store->finish(created.id, tool_result("x"), false);
  EXPECT_EQ(keys(*store->view(created.id, "o")),
            (std::vector<std::string>{"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs",
                                      "pollIntervalMs", "result"}));
}

TEST_P(TaskContract, IdsDoNotRepeat) {
  auto store = make();
  std::vector<std::string> ids;
  for (int i = 0; i < 300; ++i)
    ids.push_back(store->create("o", "t", nullptr).id);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());
}

TEST_P(TaskContract, CancelAsksTheCallOnceAndIsAcknowledgedWhenTheCallEnds) {
  auto store = make();
  std::atomic<int> asked{0};
  std::atomic<int> acked{0};
  std::string status_at_ack;
  auto created = store->create("o", "lisp_eval", [&] { ++asked; });
  auto ack = [&] {
    status_at_ack = status_of(*store->view(created.id, "o"));
    ++acked;
  };
  EXPECT_TRUE(store->cancel(created.id, "o", ack));
  EXPECT_TRUE(store->cancel(created.id, "o", ack));
  EXPECT_EQ(asked.load(), 1) << "the replica running the call stops it at once";
  EXPECT_EQ(acked.load(), 0) << "not while the program still runs";
  HostValue stopping = *store->view(created.id, "o");
  EXPECT_EQ(status_of(stopping), "working");
  EXPECT_EQ(stopping.get("statusMessage")->text(), "lisp_eval is stopping (cancel asked)");
  store->finish(created.id, tool_result("late"), false);
  EXPECT_EQ(acked.load(), 2) << "both cancels are answered when the call ends";
  EXPECT_EQ(status_at_ack, "cancelled");
  HostValue end = *store->view(created.id, "o");
  EXPECT_EQ(status_of(end), "cancelled");
  EXPECT_EQ(end.get("statusMessage")->text(), "cancelled by tasks/cancel");
  EXPECT_EQ(end.get("result"), nullptr);
  // A call the server stopped (shutdown) ends cancelled too.
  auto stopped = store->create("o", "lisp_eval", nullptr);
  store->finish(stopped.id, tool_result("x"), true);
  EXPECT_EQ(status_of(*store->view(stopped.id, "o")), "cancelled");
  EXPECT_EQ(store->size(), GetParam() == Backend::Memory ? 2u : 0u)
      << "memory keeps tasks; the shared store holds only the calls this replica runs";
}

TEST_P(TaskContract, PastItsTtlAFinishedTaskIsForgottenAndAWorkingOneIsStopped) {
  auto store = make(100ms);
  std::atomic<int> asked{0};
  auto working = store->create("o", "t", [&] { ++asked; });
  auto finished = store->create("o", "t", nullptr);
  store->finish(finished.id, tool_result("x"), false);
  EXPECT_TRUE(eventually([&] { return !store->view(finished.id, "o"); }));
  // The memory store stops it when next asked, the shared one from its
  // background thread (the record is gone from the store by then).
  EXPECT_TRUE(eventually([&] {
    store->view(working.id, "o");
    return asked.load() > 0;
  }));
  store->finish(working.id, tool_result("x"), false);
  EXPECT_EQ(asked.load(), 1);
  EXPECT_FALSE(store->view(working.id, "o")) << "forgotten once it ended";
  EXPECT_EQ(store->size(), 0u);
}

TEST_P(TaskContract, CancelAllStopsEveryWorkingTask) {
  auto store = make();
  std::atomic<int> asked{0};
  store->create("a", "t", [&] { ++asked; });
  auto b = store->create("b", "t", [&] { ++asked; });
  auto done = store->create("c", "t", [&] { ++asked; });
  store->finish(done.id, tool_result("x"), false);
  store->cancel_all();
  EXPECT_EQ(asked.load(), 2);
  store->finish(b.id, tool_result("x"), false);
  EXPECT_EQ(status_of(*store->view(b.id, "b")), "cancelled");
}

// ---------------------------------------------------------------------------
// The shared store only: replicas on one redis-server.

class SharedTasks : public ::testing::Test {
 protected:
  std::unique_ptr<RedisTaskStore> replica(milliseconds lease = 2s, milliseconds ttl = 60s) {
    auto shared = replica_of(server_);
    shared_.push_back(shared);
    return std::make_unique<RedisTaskStore>(shared, ttl, lease, 250ms);
  }
  // A connection of its own, to read and write records as an intruder would.
  ptc::store::Redis& raw() {
    if (!raw_) raw_ = replica_of(server_);
    return *raw_->redis;
  }
  const SharedStore& shared(size_t i) const { return *shared_.at(i); }

  RedisServer server_{/*persist=*/true};
  std::vector<std::shared_ptr<SharedStore>> shared_;
  std::shared_ptr<SharedStore> raw_;
};

TEST_F(SharedTasks, AnotherReplicaSeesTheTaskAndItsCancelStopsTheCall) {
  auto runner = replica();
  auto other = replica();
  std::atomic<int> asked{0};
  auto created = runner->create("o", "lisp_eval", [&] { ++asked; });
  ASSERT_TRUE(other->view(created.id, "o"));
  EXPECT_EQ(status_of(*other->view(created.id, "o")), "working");
  EXPECT_FALSE(other->view(created.id, "p")) << "another owner, on another replica too";
  EXPECT_TRUE(other->exists(created.id, "o"));
  EXPECT_EQ(other->size(), 0u) << "it runs on the first replica";

  std::atomic<int> acked{0};
  std::string status_at_ack;
  ASSERT_TRUE(other->cancel(created.id, "o", [&] {
    status_at_ack = status_of(*other->view(created.id, "o"));
    ++acked;
  }));
  EXPECT_EQ(status_of(*other->view(created.id, "o")), "working");
  EXPECT_EQ(other->view(created.id, "o")->get("statusMessage")->text(),
            "lisp_eval is stopping (cancel asked)");
  EXPECT_TRUE(eventually([&] { return asked.load() == 1; }))
      << "the runner reads the request within a renewal period and stops its call";
  EXPECT_EQ(acked.load(), 0) << "not while the program still runs";
  runner->finish(created.id, tool_result("late"), true);
  EXPECT_TRUE(eventually([&] { return acked.load() == 1; }))
      << "the other replica acknowledges once the task no longer works";
  EXPECT_EQ(status_at_ack, "cancelled");
  EXPECT_EQ(asked.load(), 1);
  EXPECT_EQ(runner->size(), 0u);

  // A result is seen on every replica.
  auto second = runner->create("o", "lisp_eval", nullptr);
  runner->finish(second.id, tool_result("done"), false);
  HostValue done = *other->view(second.id, "o");
  EXPECT_EQ(status_of(done), "completed");
  EXPECT_EQ(ptc::to_json(*done.get("result")),
            R"({"content":[{"type":"text","text":"done"}],"isError":false})");
}

TEST_F(SharedTasks, ATaskWhoseRunnerVanishesIsFailedWithinItsLease) {
  auto runner = replica(600ms);
  auto other = replica(600ms);
  auto created = runner->create("o", "lisp_eval", nullptr);
  std::atomic<int> acked{0};
  ASSERT_TRUE(other->cancel(created.id, "o", [&] { ++acked; }));
  EXPECT_EQ(status_of(*other->view(created.id, "o")), "working");
  // Killed: no finish, no more renewals (the store is left as it is).
  runner.reset();
  std::optional<HostValue> seen;
  EXPECT_TRUE(eventually([&] {
    seen = other->view(created.id, "o");
    return seen && status_of(*seen) == "failed";
  })) << "it never stays working";
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->get("statusMessage")->text(), kTaskLostMessage);
  EXPECT_EQ(seen->get("result"), nullptr);
  EXPECT_TRUE(eventually([&] { return acked.load() == 1; }))
      << "the cancel waiting on it is answered";
  EXPECT_EQ(status_of(*other->view(created.id, "o")), "failed") << "and it stays failed";
}

TEST_F(SharedTasks, ALateEndLosesToTheLostTransition) {
  // A long lease: no renewal comes between the lease's removal and the look.
  auto runner = replica(60s);
  auto other = replica(60s);
  auto created = runner->create("o", "lisp_eval", nullptr);
  std::string lease = record_key(shared(0), "o", created.id) + ":lease";
  EXPECT_EQ(raw().command({"GET", lease}).str, shared(0).replica_id);
  ASSERT_EQ(raw().command({"DEL", lease}).integer, 1);  // as if it lapsed
  EXPECT_EQ(status_of(*other->view(created.id, "o")), "failed");
  runner->finish(created.id, tool_result("too late"), false);
  HostValue end = *other->view(created.id, "o");
  EXPECT_EQ(status_of(end), "failed") << "one of the two wins, and stays";
  EXPECT_EQ(end.get("result"), nullptr);
  EXPECT_EQ(runner->size(), 0u);

  // The other way round: once ended, a lapsed lease changes nothing.
  auto second = runner->create("o", "lisp_eval", nullptr);
  runner->finish(second.id, tool_result("done"), false);
  EXPECT_EQ(raw().command({"EXISTS", record_key(shared(0), "o", second.id) + ":lease"}).integer, 0)
      << "the lease goes with the end";
  EXPECT_EQ(status_of(*other->view(second.id, "o")), "completed");
}

TEST_F(SharedTasks, ARecordAlteredInTheStoreIsTreatedAsMissing) {
  auto store = replica();
  auto flipped = store->create("o", "t", nullptr);
  auto garbage = store->create("o", "t", nullptr);
  auto moved = store->create("o", "t", nullptr);
  auto victim = store->create("o", "t", nullptr);
  auto hash = store->create("o", "t", nullptr);
  for (const auto* t : {&flipped, &garbage, &moved, &victim, &hash})
    store->finish(t->id, tool_result("x"), false);
  std::string key = record_key(shared(0), "o", flipped.id);
  std::string bytes = raw().command({"GET", key}).str;
  ASSERT_FALSE(bytes.empty());
  bytes.back() ^= 1;
  raw().command({"SET", key, bytes, "KEEPTTL"});
  raw().command({"SET", record_key(shared(0), "o", garbage.id), "garbage", "KEEPTTL"});
  // A genuine record, moved to another task's key.
  raw().command({"SET", record_key(shared(0), "o", victim.id),
                 raw().command({"GET", record_key(shared(0), "o", moved.id)}).str, "KEEPTTL"});
  // Not a string at all.
  std::string hash_key = record_key(shared(0), "o", hash.id);
  raw().command({"DEL", hash_key});
  raw().command({"HSET", hash_key, "status", "completed"});
  for (const auto* t : {&flipped, &garbage, &victim, &hash}) {
    EXPECT_FALSE(store->view(t->id, "o"));
    EXPECT_FALSE(store->exists(t->id, "o"));
    EXPECT_FALSE(store->cancel(t->id, "o", [] { ADD_FAILURE() << "not found: no ack"; }));
  }
  EXPECT_TRUE(store->view(moved.id, "o")) << "the original is untouched";
}

TEST_F(SharedTasks, WhileTheStoreIsDownCallsFailFastAndWorkAgainAfter) {
  auto store = replica(10s * ptc::testing::kSlowdown);
  auto before = store->create("o", "lisp_eval", nullptr);
  store->finish(before.id, tool_result("kept"), false);
  auto running = store->create("o", "lisp_eval", nullptr);
  server_.stop(SIGTERM);  // its append-only file keeps the records

  auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(store->view(before.id, "o"), StoreUnavailable);
  EXPECT_THROW(store->exists(before.id, "o"), StoreUnavailable);
  EXPECT_THROW(store->cancel(before.id, "o", [] { ADD_FAILURE() << "no ack"; }), StoreUnavailable);
  EXPECT_THROW(store->create("o", "lisp_eval", nullptr), StoreUnavailable);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s * ptc::testing::kSlowdown);

  // A call that ends now keeps its result until the store takes it.
  store->finish(running.id, tool_result("while down"), false);
  EXPECT_EQ(store->size(), 1u);

  server_.start();
  EXPECT_TRUE(eventually([&] {
    try {
      auto v = store->view(running.id, "o");
      return v && status_of(*v) == "completed";
    } catch (const StoreUnavailable&) {
      return false;
    }
  })) << "the result reaches the store once it is back";
  EXPECT_EQ(ptc::to_json(*store->view(running.id, "o")->get("result")),
            R"({"content":[{"type":"text","text":"while down"}],"isError":false})");
  EXPECT_EQ(status_of(*store->view(before.id, "o")), "completed");
  auto after = store->create("o", "lisp_eval", nullptr);
  EXPECT_EQ(status_of(*store->view(after.id, "o")), "working");
  EXPECT_TRUE(eventually([&] { return store->size() == 1u; }));
}

TEST_F(SharedTasks, ACancelForACallThatDoesNotStopIsAnsweredAfterTwoLeasePeriods) {
  auto runner = replica(1s);
  auto other = replica(1s);
  std::atomic<int> asked{0};
  auto created = runner->create("o", "lisp_eval", [&] { ++asked; });
  std::atomic<int> acked{0};
  ASSERT_TRUE(other->cancel(created.id, "o", [&] { ++acked; }));
  EXPECT_TRUE(eventually([&] { return asked.load() == 1; }));
  EXPECT_TRUE(eventually([&] { return acked.load() == 1; }))
      << "the requester is not kept waiting on a call that ignores its cancel";
  runner->finish(created.id, tool_result("x"), true);
  EXPECT_EQ(status_of(*other->view(created.id, "o")), "cancelled");
}

// ---------------------------------------------------------------------------
// Servers on one store, through Server::handle.

// A 2026-07-28 request of a client that declares the tasks extension.
std::string modern(int64_t id, const std::string& method, const std::string& fields) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":")" + method +
         R"(","params":{)" + fields +
         R"(,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
         R"("io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},)"
         R"("io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}})";
}

const std::string kAddCall = R"j("name":"lisp_eval","arguments":{"program":"(+ 1 2)"})j";

std::string task_id_field(const std::string& id) {
  return R"("taskId":")" + id + R"(")";
}

class SharedTaskServers : public ::testing::Test {
 protected:
  std::unique_ptr<Server> replica() {
    ServerConfig config;
    config.task_after_ms = 0;  // every call of a client with the extension becomes a task
    config.shared_store = replica_of(server_);
    return make_server(config);
  }
  HostValue ask(Server& server, const std::string& frame, int64_t id) {
    auto peer = std::make_shared<ptc::mcp::testing::CollectingPeer>();
    server.handle(frame, peer, caller_);
    return peer->reply(id, 10s * ptc::testing::kSlowdown);
  }

  RedisServer server_;
  Caller caller_{"loopback", "connection", true};
};

TEST_F(SharedTaskServers, ATaskStartedOnOneServerIsPolledOnAnother) {
  auto a = replica();
  auto b = replica();
  HostValue created = ask(*a, modern(1, "tools/call", kAddCall), 1);
  ASSERT_NE(created.get("result"), nullptr) << ptc::to_json(created);
  EXPECT_EQ(created.get("result")->get("resultType")->text(), "task");
  std::string id = created.get("result")->get("taskId")->text();
  HostValue seen;
  int64_t n = 2;
  EXPECT_TRUE(eventually([&] {
    seen = ask(*b, modern(n, "tasks/get", task_id_field(id)), n);
    ++n;
    const HostValue* r = seen.get("result");
    return r && status_of(*r) == "completed";
  })) << ptc::to_json(seen);
  EXPECT_EQ(seen.get("result")->get("result")->get("isError")->as_bool(), false);
  HostValue updated =
      ask(*b, modern(100, "tasks/update", task_id_field(id) + R"(,"inputResponses":{})"), 100);
  EXPECT_NE(updated.get("result"), nullptr) << ptc::to_json(updated);
}

TEST_F(SharedTaskServers, WhileTheStoreIsDownCallsAnswerThemselvesAndTasksRequestsAreRetryable) {
  auto a = replica();
  server_.stop();
  HostValue answered = ask(*a, modern(1, "tools/call", kAddCall), 1);
  ASSERT_NE(answered.get("result"), nullptr) << ptc::to_json(answered);
  EXPECT_EQ(answered.get("result")->get("resultType")->text(), "complete")
      << "not promoted: the call's own answer";
  std::string id(32, 'a');
  int64_t n = 2;
  for (std::string method : {"tasks/get", "tasks/cancel", "tasks/update"}) {
    std::string fields = task_id_field(id);
    if (method == "tasks/update") fields += R"(,"inputResponses":{})";
    HostValue reply = ask(*a, modern(n, method, fields), n);
    ++n;
    const HostValue* error = reply.get("error");
    ASSERT_NE(error, nullptr) << method << ": " << ptc::to_json(reply);
    EXPECT_EQ(error->get("code")->as_int(), kInternalError) << method;
    EXPECT_NE(error->get("message")->text().find("safe to retry"), std::string::npos);
    EXPECT_EQ(ptc::to_json(*error->get("data")), R"({"reason":"unavailable","retryable":true})");
  }
}

}  // namespace
