// Host validators: RunOptions::validate_program sees what a program uses
// (its tools and data/ keys) before anything runs and may refuse it
// (validation_error); validate_tool_call may refuse any call before it runs
// (tool_error "was refused"). Both fail closed when they throw.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"

namespace {

using ptc::ErrorKind;
using ptc::HostValue;
using ptc::PendingCall;
using ptc::ProgramAnalysis;
using ptc::RunOptions;
using ptc::Step;
using ptc::ToolResult;

RunOptions with_tools(std::atomic<int>& calls) {
  RunOptions o;
  for (const char* name : {"read", "delete-all"})
    o.tools[name] = ptc::Tool{[&calls](const HostValue&) {
      ++calls;
      return ToolResult::success(HostValue::integer(1));
    }};
  o.context = HostValue::map({{HostValue::string("secret"), HostValue::integer(7)},
                              {HostValue::string("ids"), HostValue::integer(3)}});
  return o;
}

TEST(Validators, TheProgramValidatorSeesToolsAndDataKeysAndMayRefuse) {
  std::atomic<int> calls{0};
  RunOptions o = with_tools(calls);
  ProgramAnalysis seen;
  std::string seen_source;
  o.validate_program = [&](std::string_view source,
                           const ProgramAnalysis& a) -> std::optional<std::string> {
    seen = a;
    seen_source = std::string(source);
    for (const std::string& k : a.data_keys)
      if (k == "secret") return "programs may not read data/secret";
    return std::nullopt;
  };
  const char* program = "(println \"side effect\") [(tool/read {}) (tool/read {}) data/ids]";
  Step s = ptc::run(program, o);
  ASSERT_TRUE(s.ok) << s.error.describe();
  EXPECT_EQ(seen.tools, std::vector<std::string>{"read"});
  EXPECT_EQ(seen.data_keys, std::vector<std::string>{"ids"});
  EXPECT_EQ(seen_source, program);

  s = ptc::run("(println \"x\") (tool/delete-all {}) data/secret", o);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.error.kind, ErrorKind::ValidationError);
  EXPECT_EQ(s.error.message, "the host refused the program: programs may not read data/secret");
  EXPECT_TRUE(s.prints.empty());  // nothing ran
  EXPECT_EQ(seen.tools, std::vector<std::string>{"delete-all"});
  EXPECT_EQ(calls.load(), 2);

  // Executions are checked alike; a validator that throws refuses.
  o.validate_program = [](std::string_view, const ProgramAnalysis&) -> std::optional<std::string> {
    throw std::runtime_error("policy store down");
  };
  ptc::Execution e = ptc::start("(tool/read {})", o);
  ASSERT_TRUE(e.done());
  EXPECT_EQ(e.step().error.message,
            "the host refused the program: the program validator failed: policy store down");
  EXPECT_EQ(calls.load(), 2);
}

TEST(Validators, TheToolCallValidatorMayRefuseAnyCall) {
  std::atomic<int> calls{0};
  RunOptions o = with_tools(calls);
  std::vector<PendingCall> asked;
  o.validate_tool_call = [&](const PendingCall& call) -> std::optional<std::string> {
    asked.push_back(call);
    if (call.tool == "delete-all") return "deleting everything needs a ticket";
    return std::nullopt;
  };
  Step s = ptc::run("(tool/read {:x 1})\n(tool/delete-all {})", o);
  EXPECT_EQ(s.error.kind, ErrorKind::ToolError);
  EXPECT_EQ(s.error.message, "tool/delete-all was refused: deleting everything needs a ticket");
  EXPECT_EQ(s.error.loc.line, 2u);
  EXPECT_EQ(calls.load(), 1);
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0].args.get("x")->as_int(), 1);
  EXPECT_EQ(asked[1].loc.line, 2u);

  // Before an approval: a refused call asks no one.
  o.tools["delete-all"].needs_approval = true;
  int approvals = 0;
  o.approver = [&](const PendingCall&) {
    ++approvals;
    return ptc::Decision::approve();
  };
  s = ptc::run("(tool/delete-all {})", o);
  EXPECT_EQ(s.error.message, "tool/delete-all was refused: deleting everything needs a ticket");
  EXPECT_EQ(approvals, 0);

  o.validate_tool_call = [](const PendingCall&) -> std::optional<std::string> {
    throw std::runtime_error("down");
  };
  s = ptc::run("(tool/read {})", o);
  EXPECT_EQ(s.error.message, "tool/read was refused: the tool-call validator failed: down");
  EXPECT_EQ(calls.load(), 1);
}

}  // namespace
