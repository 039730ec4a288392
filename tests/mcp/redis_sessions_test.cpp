// Sessions in the shared store, what only it has: several replicas over one
// store, a race that a version check settles, records planted or altered in
// Redis, and a store that goes away. (What both stores do alike is
// tests/mcp/sessions_test.cpp, run against each.)
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "protocol/mcp/log.hpp"
#include "protocol/mcp/redis_sessions.hpp"
#include "protocol/mcp/session_tools.hpp"
#include "support/build_info.hpp"
#include "support/redis_server.hpp"
#include "support/shared_store.hpp"

namespace ptc::mcp {
namespace {

using H = HostValue;
using namespace std::chrono_literals;

H str(std::string_view s) {
  return H::string(std::string(s));
}

SessionStore::Commit def_x(int64_t x) {
  SessionStore::Commit c;
  c.memory = H::map({{str("x"), H::integer(x)}});
  c.memory_bytes = 7;
  c.result = H::integer(x);
  return c;
}

int64_t x_of(const SessionSnapshot& s) {
  const H* x = s.memory.get("x");
  return x ? x->as_int() : -1;
}

class SharedSessions : public ::testing::Test {
 protected:
  void SetUp() override {
    set_log_level(LogLevel::Error);
    replica_a_ = ptc::testing::shared_store_on(server_);
    replica_b_ = ptc::testing::shared_store_on(server_);
    replica_a_->redis->command({"FLUSHALL"});
    config_.sessions = true;
    a_ = std::make_shared<RedisSessionStore>(config_, replica_a_);
    b_ = std::make_shared<RedisSessionStore>(config_, replica_b_);
  }

  std::string start(SessionStore& store, const std::string& owner = "alice") {
    auto started = store.start(owner, {});
    EXPECT_TRUE(started) << started.error.message;
    return started ? started.value->id : "";
  }

  ptc::testing::RedisServer& server_ = ptc::testing::shared_redis_server();
  ServerConfig config_;
  std::shared_ptr<SharedStore> replica_a_, replica_b_;
  std::shared_ptr<SessionStore> a_, b_;
};

TEST_F(SharedSessions, AnySessionIsServedByAnyReplica) {
  std::string id = start(*a_);
  {
    auto eval = b_->begin_eval("alice", id);
    ASSERT_TRUE(eval) << eval.error.message;
    ASSERT_TRUE(b_->commit(*eval.value, def_x(41)));
  }
  auto seen = a_->snapshot("alice", id);
  ASSERT_TRUE(seen) << seen.error.message;
  EXPECT_EQ(x_of(*seen.value), 41);
  EXPECT_EQ(seen.value->info.turn, 1u);
  ASSERT_EQ(seen.value->history.size(), 1u);
  EXPECT_EQ(seen.value->history[0].as_int(), 41);
  auto listed = b_->list("alice");
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed.value->size(), 1u);
  EXPECT_EQ((*listed.value)[0].id, id);
  ASSERT_TRUE(b_->close("alice", id, "done"));
  EXPECT_EQ(a_->snapshot("alice", id).error.reason, "session_closed");
}

TEST_F(SharedSessions, ABusySessionIsBusyOnEveryReplica) {
  std::string id = start(*a_);
  auto running = a_->begin_eval("alice", id);
  ASSERT_TRUE(running);
  EXPECT_EQ(b_->begin_eval("alice", id).error.reason, "session_busy");
  EXPECT_EQ(b_->check_available("alice", id)->reason, "session_busy");
  EXPECT_EQ(b_->close("alice", id, "").error.reason, "session_busy");
  EXPECT_EQ(b_->forget("alice", id, {{}, true}).error.reason, "session_busy");
}

// An eval whose busy mark lapsed (its replica stalled past the program's
// timeout) races one that started after: the first commit wins, the other
// is refused and nothing of it is kept.
TEST_F(SharedSessions, ARaceIsSettledByTheVersionAndNoUpdateIsLost) {
  std::string id = start(*a_);
  auto first = a_->begin_eval("alice", id);
  ASSERT_TRUE(first);
  replica_a_->redis->command({"DEL", replica_a_->owner_prefix("alice") + "b:" + id});
  auto second = b_->begin_eval("alice", id);
  ASSERT_TRUE(second) << second.error.message;
  ASSERT_TRUE(b_->commit(*second.value, def_x(2)));
  auto late = a_->commit(*first.value, def_x(1));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error.reason, "session_busy");
  EXPECT_NE(late.error.message.find("changed by another eval"), std::string::npos);
  auto seen = a_->snapshot("alice", id);
  ASSERT_TRUE(seen);
  EXPECT_EQ(x_of(*seen.value), 2);
  EXPECT_EQ(seen.value->info.turn, 1u);
}

TEST_F(SharedSessions, OwnersAreSeparatedOnEveryReplica) {
  std::string id = start(*a_, "alice");
  EXPECT_EQ(b_->snapshot("mallory", id).error.reason, "session_not_found");
  EXPECT_EQ(b_->begin_eval("mallory", id).error.reason, "session_not_found");
  EXPECT_EQ(b_->close("mallory", id, "").error.reason, "session_not_found");
  EXPECT_TRUE(b_->list("mallory").value->empty());
  EXPECT_TRUE(a_->snapshot("alice", id));
}

TEST_F(SharedSessions, AlteredOrPlantedRecordsAreTreatedAsMissing) {
  std::string id = start(*a_);
  std::string rec = replica_a_->owner_prefix("alice") + "s:" + id;
  store::RedisReply sealed = replica_a_->redis->command({"HGET", rec, "rec"});
  ASSERT_EQ(sealed.type, store::RedisReply::Type::String);

  // One byte changed.
  std::string altered = sealed.str;
  altered.back() ^= 1;
  replica_a_->redis->command({"HSET", rec, "rec", altered});
  EXPECT_EQ(b_->snapshot("alice", id).error.reason, "session_not_found");
  EXPECT_EQ(b_->begin_eval("alice", id).error.reason, "session_not_found");

  // Alice's genuine record copied under Bob's namespace: sealed for another key.
  replica_a_->redis->command({"HSET", rec, "rec", sealed.str});
  ASSERT_TRUE(b_->snapshot("alice", id));
  std::string bobs = replica_a_->owner_prefix("bob") + "s:" + id;
  replica_a_->redis->command({"HSET", bobs, "rec", sealed.str, "ver", "0", "dl", "99999999999999"});
  EXPECT_EQ(b_->snapshot("bob", id).error.reason, "session_not_found");

  // A record sealed with another key (a writer without the replicas' key).
  auto forger = ptc::testing::shared_store_on(server_, std::string(32, 'f'));
  RedisSessionStore forged(config_, forger);
  std::string planted = start(forged);
  EXPECT_EQ(a_->snapshot("alice", planted).error.reason, "session_not_found");
}

TEST_F(SharedSessions, AnUnreachableStoreIsUnavailableAtOnceAndComesBack) {
  ptc::testing::RedisServer own;
  auto replica = ptc::testing::shared_store_on(own);
  RedisSessionStore store(config_, replica);
  std::string id = start(store);
  own.stop();
  auto t0 = std::chrono::steady_clock::now();
  auto refused = store.begin_eval("alice", id);
  auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(refused.error.reason, "unavailable");
  EXPECT_NE(refused.error.message.find("unreachable"), std::string::npos);
  EXPECT_LT(elapsed, 1000ms * ptc::testing::kSlowdown);
  EXPECT_EQ(store.start("alice", {}).error.reason, "unavailable");
  EXPECT_EQ(store.list("alice").error.reason, "unavailable");
  EXPECT_EQ(store.check_available("alice", id)->reason, "unavailable");

  own.start();
  // The replica reconnects in the background (backoff from 50 ms): wait for it.
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!replica->redis->up() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(replica->redis->up());
  EXPECT_TRUE(store.start("alice", {}));  // (without persistence, the old one is gone)
}

TEST_F(SharedSessions, SessionCapsHoldAcrossReplicas) {
  config_.max_sessions_per_owner = 2;
  a_ = std::make_shared<RedisSessionStore>(config_, replica_a_);
  b_ = std::make_shared<RedisSessionStore>(config_, replica_b_);
  start(*a_);
  start(*b_);
  EXPECT_EQ(a_->start("alice", {}).error.reason, "session_limit_exceeded");
  EXPECT_TRUE(b_->start("bob", {}));
}

}  // namespace
}  // namespace ptc::mcp
