// The lisp_session_* tools called directly (precheck, then call, as the
// server does): round trips, memory and *1 *2 *3, rollback, expiry, owner
// scoping, one eval at a time, caps, argument errors and cancellation.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "protocol/mcp/log.hpp"
#include "protocol/mcp/memory_sessions.hpp"
#include "protocol/mcp/redis_sessions.hpp"
#include "protocol/mcp/session_tools.hpp"
#include "protocol/mcp/sessions.hpp"
#include "support/build_info.hpp"
#include "support/redis_server.hpp"
#include "support/shared_store.hpp"

namespace ptc::mcp {
namespace {

using namespace std::chrono_literals;
using H = HostValue;

H json(std::string_view text) {
  return parse_json(text);
}

std::string text_of(const H& result) {
  const H* content = result.get("content");
  if (!content || content->items().empty()) return "";
  const H* text = content->items()[0].get("text");
  return text ? text->text() : "";
}

bool is_error(const H& result) {
  const H* e = result.get("isError");
  return e && e->as_bool();
}

// structuredContent, or the JSON text when there is none (slim eval results
// have text only).
H structured(const H& result) {
  if (const H* s = result.get("structuredContent")) return *s;
  return H();
}

std::string field(const H& map, std::string_view key) {
  const H* v = map.get(key);
  if (!v) return "<absent>";
  if (v->kind() == H::Kind::String) return v->text();
  return to_json(*v, true);
}

std::string reason_of(const H& result) {
  return field(structured(result), "reason");
}

// A map's entry (nil when absent), so a missing key fails the check, not the run.
H at(const H& map, std::string_view key) {
  const H* v = map.get(key);
  return v ? *v : H();
}

int64_t int_field(const H& map, std::string_view key) {
  const H* v = map.get(key);
  return v && v->kind() == H::Kind::Int ? v->as_int() : -1;
}

// Where the sessions live: every test of Sessions runs against both stores
// (the shared store on a private redis-server); MemorySessions' tests move
// time by hand, which only the in-process store allows.
enum class Backend { Memory, Redis };

std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::Memory ? "Memory" : "Redis";
}

class Sessions : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    set_log_level(LogLevel::Error);  // session events are logged at info
    if (GetParam() == Backend::Redis) {
      shared_ = ptc::testing::shared_store_on(ptc::testing::shared_redis_server());
      shared_->redis->command({"FLUSHALL"});
    }
    build();
  }

  // (Re)builds the store and tools with the current config; in memory, time
  // is moved by hand with advance().
  void build() {
    if (GetParam() == Backend::Redis)
      store_ = std::make_shared<RedisSessionStore>(config_, shared_);
    else
      store_ = std::make_shared<MemorySessionStore>(
          config_, [this] { return base_ + std::chrono::milliseconds(offset_ms_.load()); });
    tools_ = make_session_tools(store_);
  }
  // The same on the real clock.
  void build_on_real_clock() {
    if (GetParam() == Backend::Redis)
      build();
    else
      store_ = std::make_shared<MemorySessionStore>(config_);
    tools_ = make_session_tools(store_);
  }

  void advance(std::chrono::milliseconds by) { offset_ms_ += by.count(); }

  McpTool& tool(std::string_view name) {
    for (auto& t : tools_)
      if (t->name() == name) return *t;
    ADD_FAILURE() << "no tool " << name;
    return *tools_[0];
  }

  H call(std::string_view name, const H& args, const Caller& who,
         const std::atomic<bool>* cancel = nullptr) {
    McpTool& t = tool(name);
    if (auto early = t.precheck(args, who)) return *early;
    ToolEnv env{who, cancel ? *cancel : no_cancel_, config_};
    return t.call(args, env);
  }
  H call(std::string_view name, const H& args) { return call(name, args, alice_); }
  H call(std::string_view name, std::string_view args_json) { return call(name, json(args_json)); }

  std::string start(const Caller& who) {
    H r = call(kSessionStart, H::map({}), who);
    EXPECT_FALSE(is_error(r)) << text_of(r);
    return field(structured(r), "session_id");
  }
  std::string start() { return start(alice_); }

  H eval(const std::string& id, std::string_view program, const Caller& who) {
    return call(kSessionEval,
                H::map({{H::string("session_id"), H::string(id)},
                        {H::string("program"), H::string(std::string(program))}}),
                who);
  }
  H eval(const std::string& id, std::string_view program) { return eval(id, program, alice_); }

  H inspect(const std::string& id, std::string_view view) {
    return structured(
        call(kSessionInspect, H::map({{H::string("session_id"), H::string(id)},
                                      {H::string("view"), H::string(std::string(view))}})));
  }

  // The session block of an eval (structured profile).
  H session_block(const H& result) {
    const H* s = structured(result).get("session");
    return s ? *s : H();
  }

  ServerConfig config_ = [] {
    ServerConfig c;
    c.sessions = true;
    c.response_profile = ResponseProfile::Structured;
    return c;
  }();
  std::chrono::steady_clock::time_point base_ = std::chrono::steady_clock::now();
  std::atomic<int64_t> offset_ms_{0};
  std::shared_ptr<SharedStore> shared_;
  std::shared_ptr<SessionStore> store_;
  std::vector<std::unique_ptr<McpTool>> tools_;
  std::atomic<bool> no_cancel_{false};
  Caller alice_{"alice", "conn-a"};
  Caller bob_{"bob", "conn-b"};
};

class MemorySessions : public Sessions {};

INSTANTIATE_TEST_SUITE_P(Backends, Sessions, ::testing::Values(Backend::Memory, Backend::Redis),
                         backend_name);
INSTANTIATE_TEST_SUITE_P(InProcess, MemorySessions, ::testing::Values(Backend::Memory),
                         backend_name);

// ---------------------------------------------------------------- ids and definitions

TEST(SessionIds, AreUrlSafeRandomAndShaped) {
  std::set<std::string> seen;
  for (int i = 0; i < 2000; ++i) {
    std::string id = new_session_id();
    ASSERT_EQ(id.size(), 29u) << id;
    ASSERT_EQ(id.substr(0, 5), "ptcs_");
    ASSERT_TRUE(is_session_id(id)) << id;
    ASSERT_EQ(id.find_first_not_of(
                  "ptcs_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
              std::string::npos);
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 2000u);
  EXPECT_FALSE(is_session_id("ptcs_short"));
  EXPECT_FALSE(is_session_id("ptcx_AAAAAAAAAAAAAAAAAAAAAAAA"));
  EXPECT_FALSE(is_session_id("ptcs_AAAAAAAAAAAAAAAAAAAAAA+/"));
  EXPECT_TRUE(is_session_id("ptcs_AAAAAAAAAAAAAAAAAAAAAA-_"));
}

TEST_P(Sessions, DefinitionsListEveryArgumentWithTypesAndAnnotations) {
  std::vector<std::string> names;
  for (auto& t : tools_) {
    names.push_back(t->name());
    H d = t->definition();
    EXPECT_EQ(field(d, "name"), t->name());
    EXPECT_GT(field(d, "description").size(), 60u) << t->name();
    const H* schema = d.get("inputSchema");
    ASSERT_TRUE(schema) << t->name();
    EXPECT_EQ(field(*schema, "type"), "object");
    EXPECT_EQ(field(*schema, "additionalProperties"), "false") << t->name();
    const H* props = schema->get("properties");
    ASSERT_TRUE(props && props->kind() == H::Kind::Map) << t->name();
    for (size_t i = 0; i + 1 < props->items().size(); i += 2) {
      const H& p = props->items()[i + 1];
      EXPECT_TRUE(p.get("type")) << t->name() << "." << props->items()[i].text();
      EXPECT_TRUE(p.get("description")) << t->name() << "." << props->items()[i].text();
    }
    const H* a = d.get("annotations");
    ASSERT_TRUE(a) << t->name();
    EXPECT_EQ(field(*a, "openWorldHint"), "false");
    EXPECT_EQ(t->gated(), t->name() == kSessionEval) << t->name();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"lisp_session_start", "lisp_session_list",
                                             "lisp_session_list_preludes", "lisp_session_eval",
                                             "lisp_session_inspect", "lisp_session_forget",
                                             "lisp_session_close"}));
  auto hint = [&](std::string_view tool_name, std::string_view key) {
    return field(*tool(tool_name).definition().get("annotations"), key);
  };
  for (auto name : {kSessionList, kSessionListPreludes, kSessionInspect}) {
    EXPECT_EQ(hint(name, "readOnlyHint"), "true") << name;
    EXPECT_EQ(hint(name, "idempotentHint"), "true") << name;
  }
  for (auto name : {kSessionStart, kSessionEval, kSessionForget, kSessionClose})
    EXPECT_EQ(hint(name, "readOnlyHint"), "false") << name;
  EXPECT_EQ(hint(kSessionForget, "destructiveHint"), "true");
  EXPECT_EQ(hint(kSessionClose, "destructiveHint"), "true");
  EXPECT_EQ(hint(kSessionEval, "idempotentHint"), "false");
  H eval_definition = tool(kSessionEval).definition();
  const H* eval_schema = eval_definition.get("inputSchema");
  EXPECT_EQ(field(*eval_schema, "required"), R"(["session_id","program"])");
  EXPECT_TRUE(eval_schema->get("properties")->get("context"));
  EXPECT_TRUE(eval_schema->get("properties")->get("output_schema"));
}

// ---------------------------------------------------------------- round trips

TEST_P(Sessions, StartEvalInspectForgetCloseRoundTrip) {
  H started = structured(call(kSessionStart, R"({"title":"orders","ttl_ms":60000})"));
  EXPECT_EQ(field(started, "status"), "ok");
  std::string id = field(started, "session_id");
  EXPECT_TRUE(is_session_id(id));
  EXPECT_EQ(field(started, "title"), "orders");
  EXPECT_EQ(field(started, "mode"), "read_only");
  EXPECT_EQ(field(started, "prelude_refs"), "[]");
  EXPECT_EQ(int_field(at(started, "limits"), "ttl_ms"), 60000);
  EXPECT_EQ(int_field(at(started, "limits"), "max_session_bindings"), 200);
  EXPECT_EQ(field(started, "expires_at").size(), 24u);  // 2026-01-02T03:04:05.678Z

  H first = call(kSessionEval, H::map({{H::string("session_id"), H::string(id)},
                                       {H::string("program"), H::string("(def total (+ 1 2))")}}));
  ASSERT_FALSE(is_error(first)) << text_of(first);
  EXPECT_EQ(field(session_block(first), "turn"), "1");
  EXPECT_EQ(field(session_block(first), "binding_count"), "1");
  EXPECT_EQ(field(session_block(first), "session_id"), id);

  H second = eval(id, "(* total 10)");
  ASSERT_FALSE(is_error(second)) << text_of(second);
  EXPECT_EQ(field(structured(second), "result"), "user=> 30");
  EXPECT_EQ(field(session_block(second), "turn"), "2");

  H overview = inspect(id, "overview");
  EXPECT_EQ(field(overview, "stored_keys"), R"(["total"])");
  EXPECT_EQ(field(at(overview, "session"), "turn"), "2");
  EXPECT_EQ(field(at(overview, "session"), "title"), "orders");

  H list = structured(call(kSessionList, "{}"));
  EXPECT_EQ(field(list, "count"), "1");
  EXPECT_EQ(field(list.get("sessions")->items()[0], "session_id"), id);

  H forgot = structured(
      call(kSessionForget, H::map({{H::string("session_id"), H::string(id)},
                                   {H::string("bindings"), json(R"(["total","nope","total"])")}})));
  EXPECT_EQ(field(forgot, "status"), "ok");
  EXPECT_EQ(field(forgot, "forgotten"), R"(["total"])");  // listed twice, forgotten once
  EXPECT_EQ(field(forgot, "not_bound"), R"(["nope"])");
  EXPECT_EQ(field(at(forgot, "session"), "binding_count"), "0");
  EXPECT_EQ(reason_of(eval(id, "total")), "runtime_error");

  H closed = structured(call(kSessionClose, H::map({{H::string("session_id"), H::string(id)},
                                                    {H::string("reason"), H::string("done")}})));
  EXPECT_EQ(field(closed, "closed"), "true");
  EXPECT_EQ(field(closed, "reason"), "done");
  EXPECT_EQ(field(structured(call(kSessionList, "{}")), "count"), "0");
  H after = eval(id, "1");
  EXPECT_EQ(reason_of(after), "session_closed");
  EXPECT_NE(
      field(structured(after), "message").find("closed with lisp_session_close (reason: done)"),
      std::string::npos);
}

TEST_P(Sessions, MemoryAndTheLastThreeResultsCarryAcrossEvals) {
  std::string id = start();
  ASSERT_FALSE(is_error(eval(id, "(defn twice [x] (* 2 x))")));
  ASSERT_FALSE(is_error(eval(id, "(twice 5)")));
  ASSERT_FALSE(is_error(eval(id, "(twice 6)")));
  ASSERT_FALSE(is_error(eval(id, "(twice 7)")));
  H r = eval(id, "[*1 *2 *3]");
  ASSERT_FALSE(is_error(r)) << text_of(r);
  EXPECT_EQ(field(structured(r), "result"), "user=> [14 12 10]");
  r = eval(id, "*1");
  EXPECT_EQ(field(structured(r), "result"), "user=> [14 12 10]");

  H history = inspect(id, "history");
  ASSERT_EQ(history.get("history")->items().size(), 3u);
  EXPECT_EQ(field(history.get("history")->items()[0], "name"), "*1");
  EXPECT_EQ(field(history.get("history")->items()[0], "preview"), "[14 12 10]");

  H memory = inspect(id, "memory");
  ASSERT_EQ(memory.get("bindings")->items().size(), 1u);
  EXPECT_EQ(field(memory.get("bindings")->items()[0], "name"), "twice");
  EXPECT_GT(int_field(memory.get("bindings")->items()[0], "bytes"), 10);
  // A function has no JSON form; it still counts, as the source it is rebuilt from.
  EXPECT_GT(int_field(at(memory, "session"), "memory_bytes"), 10);
}

TEST_P(Sessions, ContextIsPerEvalAndOutputSchemaGivesValidated) {
  std::string id = start();
  H r = call(kSessionEval, H::map({{H::string("session_id"), H::string(id)},
                                   {H::string("program"), H::string("(def n (count data/rows)) n")},
                                   {H::string("context"), json(R"({"rows":[1,2,3]})")},
                                   {H::string("output_schema"), json(R"({"type":"integer"})")}}));
  ASSERT_FALSE(is_error(r)) << text_of(r);
  EXPECT_EQ(field(structured(r), "validated"), "3");
  EXPECT_EQ(field(at(structured(r), "session"), "binding_count"), "1");
  EXPECT_NE(text_of(r).find("stored: n]"), std::string::npos) << text_of(r);
  // The context was not kept.
  EXPECT_EQ(field(structured(eval(id, "(nil? data/rows)")), "result"), "user=> true");
  EXPECT_EQ(field(structured(eval(id, "n")), "result"), "user=> 3");
}

TEST_P(Sessions, PrintsAreKeptForInspect) {
  std::string id = start();
  ASSERT_FALSE(is_error(eval(id, "(println \"one\") (println \"two\") 1")));
  ASSERT_FALSE(is_error(eval(id, "(println \"three\")")));
  H prints = inspect(id, "prints");
  ASSERT_EQ(prints.get("prints")->items().size(), 3u);
  EXPECT_EQ(field(prints.get("prints")->items()[2], "text"), "three");
  EXPECT_EQ(field(prints.get("prints")->items()[2], "turn"), "2");
  EXPECT_EQ(field(prints, "older_prints_dropped"), "false");
  for (int i = 0; i < 30; ++i)
    ASSERT_FALSE(is_error(eval(id, "(println \"a\") (println \"b\")")));
  prints = inspect(id, "prints");
  EXPECT_EQ(prints.get("prints")->items().size(), kMaxSessionPrintEntries);
  EXPECT_EQ(field(prints, "older_prints_dropped"), "true");

  H forgot = structured(
      call(kSessionForget, H::map({{H::string("session_id"), H::string(id)},
                                   {H::string("clear"), json(R"(["prints","history"])")}})));
  EXPECT_EQ(field(forgot, "cleared"), R"(["prints","history"])");
  EXPECT_EQ(inspect(id, "prints").get("prints")->items().size(), 0u);
  EXPECT_EQ(inspect(id, "history").get("history")->items().size(), 0u);
}

TEST_P(Sessions, InspectViewsAndPreludes) {
  std::string id = start();
  ASSERT_FALSE(is_error(eval(id, "(def big (vec (range 1000))) (def s \"x\")")));
  H memory = inspect(id, "memory");
  const auto& bindings = memory.get("bindings")->items();
  ASSERT_EQ(bindings.size(), 2u);
  EXPECT_EQ(field(bindings[0], "name"), "big");  // sorted by name
  EXPECT_EQ(field(bindings[0], "truncated"), "true");
  EXPECT_EQ(field(bindings[1], "preview"), "\"x\"");
  EXPECT_EQ(inspect(id, "tool_calls").get("tool_calls")->items().size(), 0u);
  H limits = inspect(id, "limits");
  EXPECT_EQ(int_field(at(limits, "limits"), "max_session_memory_bytes"), 1 << 20);
  EXPECT_EQ(field(inspect(id, "overview"), "view"), "overview");
  EXPECT_EQ(
      field(structured(call(kSessionInspect, H::map({{H::string("session_id"), H::string(id)}}))),
            "view"),
      "overview");

  H preludes =
      structured(call(kSessionListPreludes, H::map({{H::string("session_id"), H::string(id)}})));
  EXPECT_EQ(field(preludes, "status"), "ok");
  EXPECT_EQ(field(preludes, "prelude_refs"), "[]");
}

// ---------------------------------------------------------------- rollback

TEST_P(Sessions, AFailedEvalLeavesTheSessionExactlyAsBefore) {
  std::string id = start();
  ASSERT_FALSE(is_error(eval(id, "(def a 1) (println \"kept\") 10")));
  ASSERT_FALSE(is_error(eval(id, "20")));
  // Everything inspect can see, bar the timestamps.
  auto state = [&] {
    H overview = inspect(id, "overview");
    const H& s = at(overview, "session");
    return field(s, "turn") + "|" + field(s, "memory_bytes") + "|" + field(s, "binding_count") +
           "|" + field(overview, "stored_keys") + "|" + field(inspect(id, "memory"), "bindings") +
           "|" + field(inspect(id, "history"), "history") + "|" +
           field(inspect(id, "prints"), "prints");
  };
  const std::string before = state();
  EXPECT_NE(before.find("kept"), std::string::npos) << before;

  struct Case {
    std::string program;
    std::string output_schema;  // JSON, or empty
    std::string reason;
  };
  std::vector<Case> cases = {
      {"(def a 2) (def b 3) (println \"lost\") (/ 1 0)", "", "runtime_error"},
      {"(def a 5) (fail \"no\")", "", "fail"},
      {"(def a 6) (+ 1", "", "parse_error"},
      {"(def a 7) (undefined-fn 1)", "", "runtime_error"},
      {"(def a 8) \"text\"", R"({"type":"integer"})", "validation_error"},
  };
  for (const Case& c : cases) {
    std::vector<std::pair<H, H>> args{{H::string("session_id"), H::string(id)},
                                      {H::string("program"), H::string(c.program)}};
    if (!c.output_schema.empty())
      args.emplace_back(H::string("output_schema"), json(c.output_schema));
    H r = call(kSessionEval, H::map(std::move(args)));
    EXPECT_TRUE(is_error(r)) << c.program;
    EXPECT_EQ(reason_of(r), c.reason) << c.program << ": " << text_of(r);
    // The error tells where the session still stands.
    EXPECT_EQ(field(session_block(r), "turn"), "2") << c.program;
    EXPECT_EQ(field(structured(r), "rolled_back"), "true") << c.program;
    EXPECT_EQ(state(), before) << c.program;
  }
  EXPECT_EQ(field(structured(eval(id, "[a *1 *2]")), "result"), "user=> [1 20 10]");
}

// ---------------------------------------------------------------- caps

TEST_P(Sessions, MemoryAndBindingCapsRollTheEvalBack) {
  config_.max_session_memory_bytes = 2000;
  config_.max_session_bindings = 3;
  build();
  std::string id = start();
  ASSERT_FALSE(is_error(eval(id, "(def a 1)")));
  H r = eval(id, "(def big (apply str (repeat 3000 \"x\"))) 1");
  EXPECT_EQ(reason_of(r), "session_limit_exceeded");
  EXPECT_NE(field(structured(r), "message").find("2000 bytes"), std::string::npos);
  r = eval(id, "(def b 2) (def c 3) (def d 4)");
  EXPECT_EQ(reason_of(r), "session_limit_exceeded");
  EXPECT_NE(field(structured(r), "message").find("4 bindings"), std::string::npos);
  H now = inspect(id, "overview");
  EXPECT_EQ(field(now, "stored_keys"), R"(["a"])");
  EXPECT_EQ(field(at(now, "session"), "turn"), "1");
  ASSERT_FALSE(is_error(eval(id, "(def b 2) (def c 3)")));  // exactly the cap
}

TEST_P(Sessions, AResultTooLargeToKeepIsNotKeptAsStar1) {
  std::string id = start();
  H r = eval(id, "(apply str (repeat 70000 \"x\"))");
  ASSERT_FALSE(is_error(r)) << text_of(r);
  EXPECT_NE(field(structured(r), "history_notices").find("*1 is nil"), std::string::npos);
  EXPECT_EQ(field(structured(eval(id, "(nil? *1)")), "result"), "user=> true");
}

TEST_P(Sessions, SessionCountCaps) {
  config_.max_sessions = 3;
  config_.max_sessions_per_owner = 2;
  build();
  start(alice_);
  std::string second = start(alice_);
  H r = call(kSessionStart, H::map({}), alice_);
  EXPECT_EQ(reason_of(r), "session_limit_exceeded");
  EXPECT_NE(field(structured(r), "message").find("per caller"), std::string::npos);
  start(bob_);
  Caller carol{"carol", "conn-c"};
  r = call(kSessionStart, H::map({}), carol);
  EXPECT_EQ(reason_of(r), "session_limit_exceeded");
  EXPECT_NE(field(structured(r), "message").find("maximum of 3 sessions"), std::string::npos);
  // Closing one makes room again.
  call(kSessionClose, H::map({{H::string("session_id"), H::string(second)}}), alice_);
  EXPECT_FALSE(is_error(call(kSessionStart, H::map({}), carol)));
}

TEST_P(Sessions, TtlIsClampedToTheServerMaximum) {
  config_.session_ttl_ms = 5000;
  build();
  H r = structured(call(kSessionStart, R"({"ttl_ms":999999999})"));
  EXPECT_EQ(int_field(at(r, "limits"), "ttl_ms"), 5000);
  r = structured(call(kSessionStart, R"({"ttl_ms":100})"));
  EXPECT_EQ(int_field(at(r, "limits"), "ttl_ms"), 100);
}

// ---------------------------------------------------------------- expiry

TEST_P(MemorySessions, TtlExpiry) {
  H r = structured(call(kSessionStart, R"({"ttl_ms":1000})"));
  std::string id = field(r, "session_id");
  advance(999ms);
  ASSERT_FALSE(is_error(eval(id, "(def x 1)")));
  advance(1ms);
  H gone = eval(id, "x");
  EXPECT_EQ(reason_of(gone), "session_closed");
  EXPECT_NE(field(structured(gone), "message").find("TTL of 1000 ms"), std::string::npos);
  EXPECT_EQ(field(structured(call(kSessionList, "{}")), "count"), "0");
  EXPECT_EQ(store_->live_count(), 0u);
}

TEST_P(MemorySessions, IdleExpiryAndListDoesNotRefreshIt) {
  config_.session_idle_timeout_ms = 1000;
  build();
  std::string id = start();
  advance(900ms);
  ASSERT_EQ(field(structured(call(kSessionList, "{}")), "count"), "1");
  advance(100ms);  // 1000 ms since the start; the list did not count as use
  EXPECT_EQ(field(structured(call(kSessionList, "{}")), "count"), "0");
  EXPECT_EQ(reason_of(eval(id, "1")), "session_closed");

  std::string other = start();
  advance(900ms);
  inspect(other, "overview");  // inspect is a use
  advance(900ms);
  EXPECT_FALSE(is_error(eval(other, "1")));
  advance(999ms);
  EXPECT_FALSE(is_error(eval(other, "1")));
  advance(1000ms);
  H r = eval(other, "1");
  EXPECT_EQ(reason_of(r), "session_closed");
  EXPECT_NE(field(structured(r), "message").find("1000 ms without use"), std::string::npos);
}

TEST_P(Sessions, TinyTtlOnTheRealClock) {
  build_on_real_clock();
  H r = structured(call(kSessionStart, R"({"ttl_ms":30})"));
  std::string id = field(r, "session_id");
  std::this_thread::sleep_for(60ms);
  EXPECT_EQ(reason_of(eval(id, "1")), "session_closed");
}

TEST_P(MemorySessions, AnExpiredSessionIsGoneForItsOwnerOnEveryTool) {
  H r = structured(call(kSessionStart, R"({"ttl_ms":10})"));
  std::string id = field(r, "session_id");
  advance(10ms);
  H by_id = H::map({{H::string("session_id"), H::string(id)}});
  EXPECT_EQ(reason_of(call(kSessionInspect, by_id)), "session_closed");
  EXPECT_EQ(reason_of(call(kSessionListPreludes, by_id)), "session_closed");
  EXPECT_EQ(reason_of(call(kSessionClose, by_id)), "session_closed");
  EXPECT_EQ(reason_of(call(kSessionForget, H::map({{H::string("session_id"), H::string(id)},
                                                   {H::string("clear"), json(R"(["memory"])")}}))),
            "session_closed");
  // To anyone else it never existed.
  EXPECT_EQ(reason_of(eval(id, "1", bob_)), "session_not_found");
}

TEST_P(MemorySessions, ARunningEvalKeepsItsSessionPastExpiry) {
  SessionStore::StartOptions o;
  o.ttl_ms = 100;
  SessionResult<SessionInfo> started = store_->start("alice", o);
  ASSERT_TRUE(started);
  {
    SessionResult<SessionStore::Eval> running = store_->begin_eval("alice", started.value->id);
    ASSERT_TRUE(running);
    advance(200ms);
    EXPECT_EQ(store_->list("alice").value->size(), 1u);
    EXPECT_EQ(store_->begin_eval("alice", started.value->id).error.reason, "session_busy");
  }  // released without commit: rolled back, and now past its TTL
  EXPECT_EQ(store_->list("alice").value->size(), 0u);
  EXPECT_EQ(store_->snapshot("alice", started.value->id).error.reason, "session_closed");
}

TEST_P(MemorySessions, TombstonesAreBounded) {
  std::string first = start();
  call(kSessionClose, H::map({{H::string("session_id"), H::string(first)}}));
  EXPECT_EQ(reason_of(eval(first, "1")), "session_closed");
  for (size_t i = 0; i < kTombstones; ++i)
    store_->close("alice", start(), "");
  EXPECT_EQ(reason_of(eval(first, "1")), "session_not_found");
}

TEST(SessionValueBytes, CountsJsonSizeAndStopsEarly) {
  EXPECT_EQ(session_value_bytes(parse_json(R"({"a":1})")), 7u);
  EXPECT_EQ(session_value_bytes(parse_json(R"([1,"x\n",null,true,{"k":[]}])")),
            std::string(R"([1,"x\n",null,true,{"k":[]}])").size());
  H big = parse_json("[" + std::string(100000, '1') + "]");
  EXPECT_EQ(session_value_bytes(big), 100002u);
  H many = H::vector(std::vector<H>(100000, H::integer(1)));
  EXPECT_GT(session_value_bytes(many, 1000), 1000u);
  EXPECT_EQ(session_value_bytes(many), 2u + 100000u + 99999u);
  // A function capturing another twice, 60 levels deep: 2^60 values to walk
  // unless counting stops at the cap.
  H f = H::opaque("#function", std::make_shared<Restorer>(Restorer{"(fn [] (fn [] 1))", {}}));
  for (int i = 0; i < 60; ++i)
    f = H::opaque("#function",
                  std::make_shared<Restorer>(Restorer{"(fn [a b] (fn [] [a b]))", {f, f}}));
  EXPECT_GT(session_value_bytes(f, 1 << 20), size_t{1} << 20);
}

// ---------------------------------------------------------------- owners

TEST_P(Sessions, AnotherOwnerCannotSeeOrUseASession) {
  std::string id = start(alice_);
  ASSERT_FALSE(is_error(eval(id, "(def secret 42)")));
  H by_id = H::map({{H::string("session_id"), H::string(id)}});
  H unknown = H::map({{H::string("session_id"), H::string(new_session_id())}});
  for (auto name : {kSessionInspect, kSessionListPreludes, kSessionClose}) {
    H r = call(name, by_id, bob_);
    EXPECT_EQ(reason_of(r), "session_not_found") << name;
    // Word for word what an id that never existed gets (bar the id itself).
    std::string m = field(structured(r), "message");
    std::string u = field(structured(call(name, unknown, bob_)), "message");
    m.replace(m.find(id), id.size(), "ID");
    std::string other = unknown.get("session_id")->text();
    u.replace(u.find(other), other.size(), "ID");
    EXPECT_EQ(m, u);
  }
  EXPECT_EQ(reason_of(eval(id, "secret", bob_)), "session_not_found");
  EXPECT_EQ(reason_of(call(kSessionForget,
                           H::map({{H::string("session_id"), H::string(id)},
                                   {H::string("bindings"), json(R"(["secret"])")}}),
                           bob_)),
            "session_not_found");
  EXPECT_EQ(field(structured(call(kSessionList, H::map({}), bob_)), "count"), "0");
  // Closed by its owner, it stays unknown to others.
  call(kSessionClose, by_id, alice_);
  EXPECT_EQ(reason_of(call(kSessionInspect, by_id, bob_)), "session_not_found");
  EXPECT_EQ(reason_of(call(kSessionInspect, by_id, alice_)), "session_closed");
}

// ---------------------------------------------------------------- concurrency

constexpr const char* kSpin =
    "(defn spin [n] (if (< n 2) n (+ (spin (- n 1)) (spin (- n 2))))) (spin 40)";

TEST_P(Sessions, ASecondEvalOnABusySessionIsRefusedAtOnce) {
  config_.program_timeout_ms = 20000;
  build();
  std::string id = start();
  ASSERT_FALSE(is_error(eval(id, "(def kept 1)")));
  std::atomic<bool> stop{false};
  H first;
  std::thread runner([&] {
    first = call(kSessionEval,
                 H::map({{H::string("session_id"), H::string(id)},
                         {H::string("program"), H::string(kSpin)}}),
                 alice_, &stop);
  });
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (field(at(inspect(id, "overview"), "session"), "busy") != "true" &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  auto t0 = std::chrono::steady_clock::now();
  H second = eval(id, "(+ 1 2)");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  EXPECT_EQ(reason_of(second), "session_busy");
  // The tool itself (past precheck) refuses too: no queue.
  ToolEnv env{alice_, no_cancel_, config_};
  H direct = tool(kSessionEval)
                 .call(H::map({{H::string("session_id"), H::string(id)},
                               {H::string("program"), H::string("1")}}),
                       env);
  EXPECT_EQ(reason_of(direct), "session_busy");
  H by_id = H::map({{H::string("session_id"), H::string(id)}});
  EXPECT_EQ(reason_of(call(kSessionClose, by_id)), "session_busy");
  EXPECT_EQ(reason_of(call(kSessionForget, H::map({{H::string("session_id"), H::string(id)},
                                                   {H::string("clear"), json(R"(["memory"])")}}))),
            "session_busy");
  EXPECT_EQ(field(structured(call(kSessionList, "{}")).get("sessions")->items()[0], "busy"),
            "true");
  // Other sessions are not held up.
  std::string other = start();
  EXPECT_FALSE(is_error(eval(other, "(+ 1 2)")));
  stop = true;
  runner.join();
  EXPECT_EQ(reason_of(first), "cancelled");
  EXPECT_FALSE(is_error(eval(id, "kept")));
}

TEST_P(Sessions, CancellingALoopingEvalRollsItBack) {
  config_.program_timeout_ms = 20000;
  build();
  std::string id = start();
  ASSERT_FALSE(is_error(eval(id, "(def kept 1)")));
  std::atomic<bool> cancel{false};
  std::thread host([&] {
    std::this_thread::sleep_for(50ms);
    cancel = true;
  });
  auto t0 = std::chrono::steady_clock::now();
  H r = call(kSessionEval,
             H::map({{H::string("session_id"), H::string(id)},
                     {H::string("program"), H::string(std::string("(def kept 2) ") + kSpin)}}),
             alice_, &cancel);
  auto took = std::chrono::steady_clock::now() - t0;
  host.join();
  EXPECT_EQ(reason_of(r), "cancelled") << text_of(r);
  EXPECT_LT(took, 2s * ptc::testing::kSlowdown);
  H now = inspect(id, "overview");
  EXPECT_EQ(field(now, "stored_keys"), R"(["kept"])");
  EXPECT_EQ(field(at(now, "session"), "busy"), "false");
  EXPECT_EQ(field(structured(eval(id, "kept")), "result"), "user=> 1");
}

TEST_P(Sessions, ATimedOutEvalIsRolledBack) {
  config_.program_timeout_ms = 50;
  build();
  std::string id = start();
  H r = eval(id, std::string("(def x 1) ") + kSpin);
  EXPECT_EQ(reason_of(r), "timeout");
  EXPECT_EQ(field(inspect(id, "overview"), "stored_keys"), "[]");
}

// Many callers at once on one store (run under TSan): every commit of the
// shared session counted exactly once.
TEST_P(Sessions, ConcurrentCallersKeepTheStoreConsistent) {
  config_.max_sessions = 64;
  config_.max_sessions_per_owner = 64;
  build();
  std::string shared = start();
  ASSERT_FALSE(is_error(eval(shared, "(def hits 0)")));
  std::atomic<int> busy{0}, ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      Caller me{t % 2 ? "alice" : "bob", "c"};
      for (int i = 0; i < 25; ++i) {
        std::string mine = start(me);
        H r = eval(mine, "(def n (+ 1 (or (get *1 0) 0))) [n]", me);
        EXPECT_FALSE(is_error(r)) << text_of(r);
        H c = eval(shared, "(def hits (inc hits)) hits", alice_);
        if (reason_of(c) == "session_busy")
          ++busy;
        else if (!is_error(c))
          ++ok;
        else
          ADD_FAILURE() << text_of(c);
        call(kSessionList, H::map({}), me);
        call(kSessionInspect, H::map({{H::string("session_id"), H::string(shared)},
                                      {H::string("view"), H::string("memory")}}));
        call(kSessionClose, H::map({{H::string("session_id"), H::string(mine)}}), me);
      }
    });
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(busy + ok, 100);
  EXPECT_EQ(store_->live_count(), 1u);
  H overview = inspect(shared, "overview");
  EXPECT_EQ(field(at(overview, "session"), "busy"), "false");
  EXPECT_EQ(int_field(at(overview, "session"), "turn"), ok + 1);
  EXPECT_EQ(field(structured(eval(shared, "hits")), "result"),
            "user=> " + std::to_string(ok.load()));
}

// ---------------------------------------------------------------- profiles

TEST_P(Sessions, SlimTextEndsWithTheSessionNote) {
  config_.response_profile = ResponseProfile::Slim;
  build();
  std::string id = start();
  H r = eval(id, "(def a 1) (def b 2) (+ a b)");
  ASSERT_FALSE(is_error(r));
  std::string text = text_of(r);
  EXPECT_NE(text.find("user=> 3"), std::string::npos) << text;
  EXPECT_NE(text.find("[session turn 1; stored: a, b]"), std::string::npos) << text;
  r = eval(id, "(def c 1) (/ 1 0)");
  text = text_of(r);
  EXPECT_TRUE(is_error(r));
  EXPECT_EQ(text.rfind("runtime_error", 0), 0u) << text;
  EXPECT_NE(text.find("[rolled back: the session is still at turn 1; stored: a, b]"),
            std::string::npos)
      << text;
}

TEST_P(Sessions, DebugPayloadCarriesTheSessionBlock) {
  config_.response_profile = ResponseProfile::Debug;
  build();
  std::string id = start();
  H r = eval(id, "(def a 1)");
  H payload = structured(r);
  EXPECT_EQ(field(at(payload, "session"), "turn"), "1");
  EXPECT_EQ(field(at(payload, "memory"), "stored_keys"), R"(["a"])");
  // The text is the payload's JSON, untouched.
  EXPECT_EQ(json(text_of(r)), payload);
}

// ---------------------------------------------------------------- arguments

struct ArgsCase {
  std::string_view tool;
  std::string args;   // JSON; $ID is replaced by a live session id
  std::string names;  // what the message must mention
};

TEST_P(Sessions, EveryBadArgumentIsASessionArgsErrorNamingIt) {
  std::string id = start();
  std::string big_program(config_.max_program_bytes + 1, ' ');
  big_program[0] = '1';
  std::string many_names = "\"n0\"";  // one more than a session may hold
  for (uint32_t i = 1; i <= config_.max_session_bindings; ++i)
    many_names += ",\"n" + std::to_string(i) + "\"";
  std::vector<ArgsCase> cases = {
      {kSessionStart, R"([1])", "JSON object"},
      {kSessionStart, R"({"nope":1})", "nope"},
      {kSessionStart, R"({"title":5})", "`title`"},
      {kSessionStart, R"({"title":")" + std::string(201, 't') + R"("})", "`title`"},
      {kSessionStart, R"({"ttl_ms":0})", "`ttl_ms`"},
      {kSessionStart, R"({"ttl_ms":-5})", "`ttl_ms`"},
      {kSessionStart, R"({"ttl_ms":"100"})", "`ttl_ms`"},
      {kSessionStart, R"({"ttl_ms":1.5})", "`ttl_ms`"},
      {kSessionStart, R"({"mode":"root"})", "`mode`"},
      {kSessionStart, R"({"mode":"write_capable"})", "`mode`"},
      {kSessionStart, R"({"mode":1})", "`mode`"},
      {kSessionStart, R"({"preludes":["std"]})", "`preludes`"},
      {kSessionStart, R"({"preludes":"std"})", "`preludes`"},
      {kSessionList, R"({"session_id":"$ID"})", "session_id"},
      {kSessionList, R"("x")", "JSON object"},
      {kSessionListPreludes, R"({})", "`session_id`"},
      {kSessionListPreludes, R"({"session_id":7})", "`session_id`"},
      {kSessionListPreludes, R"({"session_id":"abc"})", "`session_id`"},
      {kSessionListPreludes, R"({"session_id":"$ID","x":1})", "\"x\""},
      {kSessionEval, R"({"program":"1"})", "`session_id`"},
      {kSessionEval, R"({"session_id":"$ID"})", "`program`"},
      {kSessionEval, R"({"session_id":"$ID","program":5})", "`program`"},
      {kSessionEval, R"({"session_id":"$ID","program":"  \n "})", "`program`"},
      {kSessionEval, R"({"session_id":"$ID","program":")" + big_program + R"("})", "`program`"},
      {kSessionEval, R"({"session_id":"$ID","program":"1","context":[1]})", "`context`"},
      {kSessionEval, R"({"session_id":"$ID","program":"1","context":{"a/b":1}})", "`context`"},
      {kSessionEval, R"({"session_id":"$ID","program":"1","context":{"":1}})", "`context`"},
      {kSessionEval, R"({"session_id":"$ID","program":"1","output_schema":"int"})",
       "`output_schema`"},
      {kSessionEval, R"({"session_id":"$ID","program":"1","output_schema":{"type":"date"}})",
       "`output_schema`"},
      {kSessionEval, R"({"session_id":"$ID","program":"1","signature":":int"})", "signature"},
      {kSessionInspect, R"({"session_id":"$ID","view":"everything"})", "`view`"},
      {kSessionInspect, R"({"session_id":"$ID","view":3})", "`view`"},
      {kSessionInspect, R"({"view":"memory"})", "`session_id`"},
      {kSessionForget, R"({"session_id":"$ID"})", "`bindings`"},
      {kSessionForget, R"({"session_id":"$ID","bindings":"a"})", "`bindings`"},
      {kSessionForget, R"({"session_id":"$ID","bindings":[1]})", "`bindings[0]`"},
      {kSessionForget, R"({"session_id":"$ID","clear":["everything"]})", "`clear[0]`"},
      {kSessionForget, R"({"session_id":"$ID","bindings":[)" + many_names + "]}", "`bindings`"},
      {kSessionForget, R"({"session_id":"$ID","clear":"memory"})", "`clear`"},
      {kSessionClose, R"({})", "`session_id`"},
      {kSessionClose, R"({"session_id":"$ID","reason":false})", "`reason`"},
      {kSessionClose, R"({"session_id":"$ID","reason":")" + std::string(201, 'r') + R"("})",
       "`reason`"},
  };
  for (const ArgsCase& c : cases) {
    std::string args = c.args;
    if (auto at = args.find("$ID"); at != std::string::npos) args.replace(at, 3, id);
    H r = call(c.tool, json(args));
    EXPECT_TRUE(is_error(r)) << c.tool << " " << args;
    EXPECT_EQ(reason_of(r), "session_args_error") << c.tool << " " << args;
    std::string message = field(structured(r), "message");
    EXPECT_NE(message.find(c.names), std::string::npos)
        << c.tool << " " << args.substr(0, 100) << " -> " << message;
    EXPECT_NE(message.find(c.tool), std::string::npos) << message;
    // The tool refuses the same way when called without precheck.
    ToolEnv env{alice_, no_cancel_, config_};
    EXPECT_EQ(reason_of(tool(c.tool).call(json(args), env)), "session_args_error") << args;
  }
  // Nothing changed, and null arguments count as absent.
  EXPECT_EQ(field(at(inspect(id, "overview"), "session"), "turn"), "0");
  EXPECT_FALSE(is_error(call(kSessionList, H())));
  EXPECT_FALSE(is_error(call(kSessionStart, R"({"title":null,"preludes":[]})")));
  EXPECT_FALSE(is_error(
      call(kSessionEval, R"({"session_id":")" + id + R"(","program":"1","context":null})")));
}

TEST_P(Sessions, AnUnknownIdIsNotFound) {
  H r = eval(new_session_id(), "1");
  EXPECT_EQ(reason_of(r), "session_not_found");
  EXPECT_NE(field(structured(r), "feedback").find("lisp_session_list"), std::string::npos);
}

}  // namespace
}  // namespace ptc::mcp
