// Tools that need a person's approval (Tool::needs_approval): an execution
// suspends before the tool runs, the host approves or rejects; ptc::run asks
// RunOptions::approver or fails closed; snapshots keep what a call waits for.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"

namespace {

using ptc::Decision;
using ptc::ErrorKind;
using ptc::Execution;
using ptc::HostValue;
using ptc::PendingCall;
using ptc::RunOptions;
using ptc::Step;
using ptc::ToolResult;

// A "refund" tool that needs approval and counts its calls, and a "lookup"
// that does not.
struct Shop {
  std::atomic<int> refunds{0};
  RunOptions options() {
    RunOptions o;
    ptc::Tool refund{[this](const HostValue& args) {
      ++refunds;
      return ToolResult::success(
          HostValue::string("refunded " + std::to_string(args.get("amount")->as_int())));
    }};
    refund.needs_approval = true;
    o.tools["refund"] = refund;
    o.tools["lookup"] =
        ptc::Tool{[](const HostValue&) { return ToolResult::success(HostValue::integer(30)); }};
    return o;
  }
};

const char* kProgram =
    "(def amount (tool/lookup {:order 7}))\n"
    "(def done (tool/refund {:order 7 :amount amount}))\n"
    "(str done \"!\")";

TEST(Approval, AnExecutionSuspendsBeforeTheToolRunsAndGoesOnOnceApproved) {
  Shop shop;
  Execution e = ptc::start(kProgram, shop.options());
  ASSERT_FALSE(e.done());
  std::vector<PendingCall> pending = e.pending();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].id, "c1");
  EXPECT_EQ(pending[0].tool, "refund");
  EXPECT_EQ(pending[0].kind, PendingCall::Kind::Approval);
  EXPECT_EQ(pending[0].args.get("amount")->as_int(), 30);
  EXPECT_EQ(pending[0].loc.line, 2u);
  EXPECT_EQ(pending[0].loc.col, 11u);
  EXPECT_EQ(shop.refunds.load(), 0);  // not before a person says so

  e.resume({{"c1", Decision::approve()}});
  ASSERT_TRUE(e.done());
  ASSERT_TRUE(e.step().ok) << e.step().error.describe();
  EXPECT_EQ(e.step().printed, "\"refunded 30!\"");
  EXPECT_EQ(shop.refunds.load(), 1);
  ASSERT_EQ(e.step().tool_calls.size(), 2u);
  EXPECT_EQ(e.step().tool_calls[1].name, "refund");
}

TEST(Approval, ARejectedCallFailsAsAToolErrorThatSaysSo) {
  Shop shop;
  Execution e = ptc::start(kProgram, shop.options());
  e.resume({{"c1", Decision::reject("refunds over 20 need a manager")}});
  ASSERT_TRUE(e.done());
  const Step& s = e.step();
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::ToolError);
  EXPECT_EQ(s.error.message, "tool/refund was rejected: refunds over 20 need a manager");
  EXPECT_NE(s.error.hint.find("a person rejected this call"), std::string::npos);
  EXPECT_EQ(s.error.loc.line, 2u);
  EXPECT_EQ(shop.refunds.load(), 0);
  ASSERT_EQ(s.tool_calls.size(), 2u);
  EXPECT_EQ(s.tool_calls[1].error, "rejected: refunds over 20 need a manager");

  Execution quiet = ptc::start(kProgram, shop.options());
  quiet.resume({{"c1", Decision::reject("")}});
  EXPECT_EQ(quiet.step().error.message, "tool/refund was rejected by the person who approves it");
}

TEST(Approval, AnswersOfTheWrongKindAreRefusedAndChangeNothing) {
  Shop shop;
  Execution e = ptc::start(kProgram, shop.options());
  try {
    e.resume({{"c1", ToolResult::success(HostValue::string("forged"))}});
    ADD_FAILURE() << "a result answered an approval";
  } catch (ptc::LispError& err) {
    EXPECT_EQ(err.error().kind, ErrorKind::ArgsError);
    EXPECT_NE(err.error().message.find("waits for a person's approval"), std::string::npos);
  }
  ASSERT_EQ(e.pending().size(), 1u);
  EXPECT_EQ(shop.refunds.load(), 0);

  // A deferred tool's call is not approved with a decision.
  RunOptions o;
  o.deferred_tools = {"ask"};
  Execution d = ptc::start("(tool/ask {})", o);
  try {
    d.resume({{"c0", Decision::approve()}});
    ADD_FAILURE() << "a decision answered a call";
  } catch (ptc::LispError& err) {
    EXPECT_NE(err.error().message.find("waits for the tool's result"), std::string::npos);
  }
}

TEST(Approval, AnApprovedDeferredToolWaitsForItsResultUnderTheSameId) {
  RunOptions o;
  ptc::Tool send{nullptr};
  send.deferred = true;
  send.needs_approval = true;
  o.tools["send-mail"] = send;
  Execution e = ptc::start("(:id (tool/send-mail {:to \"ada@example.com\"}))", o);
  ASSERT_EQ(e.pending().size(), 1u);
  EXPECT_EQ(e.pending()[0].kind, PendingCall::Kind::Approval);
  // Approved, it is the host's call now: dumped and loaded, it stays one.
  e.resume({{"c0", Decision::approve()}});
  ASSERT_EQ(e.pending().size(), 1u);
  EXPECT_EQ(e.pending()[0].id, "c0");
  EXPECT_EQ(e.pending()[0].kind, PendingCall::Kind::Call);
  Execution loaded = ptc::load(e.dump("k"), {}, "k");
  ASSERT_EQ(loaded.pending().size(), 1u);
  EXPECT_EQ(loaded.pending()[0].kind, PendingCall::Kind::Call);
  EXPECT_TRUE(ptc::inspect_snapshot(e.dump("k"), "k").approvals.empty());
  loaded.resume({{"c0", ToolResult::success(HostValue::map(
                            {{HostValue::string("id"), HostValue::string("m-1")}}))}});
  ASSERT_TRUE(loaded.done());
  EXPECT_EQ(loaded.step().printed, "\"m-1\"");
}

TEST(Approval, APendingApprovalSurvivesDumpAndLoad) {
  Shop shop;
  Execution e = ptc::start(kProgram, shop.options());
  std::string bytes = e.dump("key");
  ptc::SnapshotInfo info = ptc::inspect_snapshot(bytes, "key");
  EXPECT_EQ(info.pending, std::vector<std::string>{"c1"});
  EXPECT_EQ(info.approvals, std::vector<std::string>{"c1"});

  // Loaded with the tool given again, even without its approval flag: the
  // call waited for a decision, and still does.
  RunOptions again = shop.options();
  again.tools["refund"].needs_approval = false;
  Execution loaded = ptc::load(bytes, again, "key");
  ASSERT_EQ(loaded.pending().size(), 1u);
  EXPECT_EQ(loaded.pending()[0].kind, PendingCall::Kind::Approval);
  EXPECT_EQ(loaded.pending()[0].loc.line, 2u);
  EXPECT_EQ(shop.refunds.load(), 0);
  loaded.resume({{"c1", Decision::approve()}});
  ASSERT_TRUE(loaded.step().ok) << loaded.step().error.describe();
  EXPECT_EQ(shop.refunds.load(), 1);

  // Loaded without the tool: approved, the host answers it.
  Execution bare = ptc::load(bytes, {}, "key");
  bare.resume({{"c1", Decision::approve()}});
  ASSERT_EQ(bare.pending().size(), 1u);
  EXPECT_EQ(bare.pending()[0].kind, PendingCall::Kind::Call);
  bare.resume({{"c1", ToolResult::success(HostValue::string("by hand"))}});
  EXPECT_EQ(bare.step().printed, "\"by hand!\"");
}

TEST(Approval, PmapBranchesSuspendOnceWithEveryApprovalPending) {
  Shop shop;
  Execution e = ptc::start("(pmap (fn [n] (tool/refund {:order n :amount (* n 10)})) [1 2 3])",
                           shop.options());
  ASSERT_FALSE(e.done());
  std::vector<PendingCall> pending = e.pending();
  ASSERT_EQ(pending.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(pending[i].id, "p0." + std::to_string(i) + "/c0");
    EXPECT_EQ(pending[i].kind, PendingCall::Kind::Approval);
  }
  e.resume({{"p0.0/c0", Decision::approve()}, {"p0.2/c0", Decision::approve()}});
  ASSERT_EQ(e.pending().size(), 1u);  // the one not yet decided
  EXPECT_EQ(shop.refunds.load(), 2);
  e.resume({{"p0.1/c0", Decision::approve()}});
  ASSERT_TRUE(e.done());
  EXPECT_EQ(e.step().printed, "[\"refunded 10\" \"refunded 20\" \"refunded 30\"]");
}

TEST(Approval, ARunWithoutAnApproverFailsClosed) {
  Shop shop;
  Step s = ptc::run(kProgram, shop.options());
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::ToolError);
  EXPECT_NE(s.error.message.find("tool/refund was not called"), std::string::npos)
      << s.error.message;
  EXPECT_NE(s.error.hint.find("approver"), std::string::npos);
  EXPECT_EQ(shop.refunds.load(), 0);
}

TEST(Approval, TheApproverDecidesInPlace) {
  Shop shop;
  RunOptions o = shop.options();
  std::mutex m;
  std::vector<PendingCall> asked;
  o.approver = [&](const PendingCall& call) {
    std::lock_guard lock(m);
    asked.push_back(call);
    return call.args.get("amount")->as_int() <= 20 ? Decision::approve()
                                                   : Decision::reject("too much");
  };
  Step s = ptc::run("(pmap (fn [n] (tool/refund {:order n :amount (* n 10)})) [1 2])", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0].kind, PendingCall::Kind::Approval);
  EXPECT_EQ(asked[0].loc.line, 1u);
  s = ptc::run(kProgram, o);
  EXPECT_EQ(s.error.message, "tool/refund was rejected: too much");
  EXPECT_EQ(shop.refunds.load(), 2);

  // An execution with an approver does not suspend for approvals.
  Execution e = ptc::start("(tool/refund {:amount 5})", o);
  ASSERT_TRUE(e.done());
  EXPECT_EQ(e.step().printed, "\"refunded 5\"");

  // An approver that throws rejects the call.
  o.approver = [](const PendingCall&) -> Decision { throw std::runtime_error("no network"); };
  s = ptc::run("(tool/refund {:amount 5})", o);
  EXPECT_EQ(s.error.message, "tool/refund was rejected: the approver failed: no network");
  EXPECT_EQ(shop.refunds.load(), 3);
}

TEST(Approval, ACachedAnswerAsksNoOne) {
  RunOptions o;
  std::atomic<int> calls{0};
  ptc::Tool t{[&](const HostValue&) {
    ++calls;
    return ToolResult::success(HostValue::integer(1));
  }};
  t.cacheable = true;
  t.needs_approval = true;
  o.tools["t"] = t;
  int asked = 0;
  o.approver = [&](const PendingCall&) {
    ++asked;
    return Decision::approve();
  };
  Step s = ptc::run("(+ (tool/t {:a 1}) (tool/t {:a 1}))", o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(asked, 1);
}

}  // namespace
