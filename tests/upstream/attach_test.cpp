// Attaching upstreams to a run's options: tool/call and tool/servers come
// from the upstreams, may be attached again (a Session's next eval), and
// never silently replace a host's own tool of that name.
#include <gtest/gtest.h>

#include <string>

#include "include/ptc/error.hpp"
#include "include/ptc/ptc.hpp"
#include "include/ptc/upstreams.hpp"
#include "protocol/upstream/upstreams.hpp"

namespace ptc {
namespace {

std::shared_ptr<const UpstreamServers> no_servers() {
  UpstreamStart start = start_upstreams_from_json(R"({"upstreams": {}})");
  EXPECT_TRUE(start.errors.empty());
  return start.servers;
}

Tool host_tool() {
  Tool t;
  t.fn = [](const HostValue&) { return ToolResult::success(HostValue::string("host")); };
  return t;
}

TEST(AttachUpstreams, AddsCallAndServersAndMayBeAttachedAgain) {
  auto servers = no_servers();
  ASSERT_TRUE(servers);
  RunOptions options;
  options.tools["get-user"] = host_tool();
  attach_upstreams(options, servers);
  attach_upstreams(options, servers);  // a Session's next eval: replaced, not refused
  EXPECT_EQ(options.tools.size(), 3u);
  Step step = run("[(tool/servers) (tool/get-user {})]", options);
  ASSERT_TRUE(step.ok) << step.error.describe();
  EXPECT_EQ(step.printed, "[[] \"host\"]");
  EXPECT_EQ(upstream::host_tool_conflict(options.tools), "");
}

TEST(AttachUpstreams, RefusesAHostToolNamedCallOrServers) {
  auto servers = no_servers();
  ASSERT_TRUE(servers);
  for (const char* name : {"call", "servers"}) {
    RunOptions options;
    options.tools[name] = host_tool();
    std::string conflict = upstream::host_tool_conflict(options.tools);
    EXPECT_NE(conflict.find(std::string("named \"") + name + "\""), std::string::npos) << conflict;
    try {
      attach_upstreams(options, servers);
      ADD_FAILURE() << "attached over the host tool " << name;
    } catch (const LispError& e) {
      EXPECT_EQ(e.error().kind, ErrorKind::ArgsError);
      EXPECT_NE(e.error().message.find("rename the host tool"), std::string::npos);
    }
    // The host's tool is still there, untouched.
    Step step = run(std::string("(tool/") + name + " {})", options);
    ASSERT_TRUE(step.ok) << step.error.describe();
    EXPECT_EQ(step.printed, "\"host\"");
  }
}

}  // namespace
}  // namespace ptc

namespace ptc {
namespace {

// An upstream whose tools matching its approval patterns wait for a person:
// blocking-upstream.py's "size" needs approval ("si*"), "late" does not.
TEST(AttachUpstreams, ToolsMatchingTheApprovalPatternsWaitForAPerson) {
  std::string json = R"({"upstreams": {"b": {"transport": "mcp_stdio", "command": "python3",
      "args": [")" PTC_SOURCE_DIR R"(/tests/mcp/node/lib/blocking-upstream.py"],
      "approval": ["si*", "nev?r"]}}})";
  UpstreamStart started = start_upstreams_from_json(json, true);
  ASSERT_TRUE(started.servers) << (started.errors.empty() ? "" : started.errors[0]);
  RunOptions options;
  attach_upstreams(options, started.servers);
  const char* size = R"((tool/call {:server "b" :tool "size" :args {:message "abc"}}))";
  const char* late = R"((:ok (tool/call {:server "b" :tool "late" :args {:ms 1 :bytes 2}})))";

  // Not named by a pattern: no one is asked.
  Step step = run(late, options);
  ASSERT_TRUE(step.ok) << step.error.describe();
  EXPECT_EQ(step.printed, "true");
  // Named: fails closed without an approver, and the upstream is not called.
  step = run(size, options);
  EXPECT_EQ(step.error.kind, ErrorKind::ToolError);
  EXPECT_NE(step.error.message.find("tool/call was not called"), std::string::npos)
      << step.error.message;
  EXPECT_TRUE(step.tool_calls.empty() || step.tool_calls[0].error.find("not approved") == 0);

  std::vector<PendingCall> asked;
  options.approver = [&](const PendingCall& call) {
    asked.push_back(call);
    return Decision::approve();
  };
  step = run(size, options);
  ASSERT_TRUE(step.ok) << step.error.describe();
  EXPECT_NE(step.printed.find(":ok true"), std::string::npos) << step.printed;
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].tool, "call");
  EXPECT_EQ(asked[0].args.get("tool")->text(), "size");

  // An execution suspends there, with the upstream tool in the arguments.
  options.approver = nullptr;
  Execution e = start(size, options);
  ASSERT_EQ(e.pending().size(), 1u);
  EXPECT_EQ(e.pending()[0].kind, PendingCall::Kind::Approval);
  e.resume({{"c0", Decision::reject("not this one")}});
  EXPECT_EQ(e.step().error.message, "tool/call was rejected: not this one");
}

TEST(UpstreamApprovalConfig, AlwaysOrPatternsElseAPreciseError) {
  auto bad = [](const char* approval) {
    std::string json =
        std::string(
            R"({"upstreams": {"b": {"transport": "mcp_stdio", "command": "x", "approval": )") +
        approval + "}}}";
    UpstreamStart start = start_upstreams_from_json(json);
    return start.errors.empty() ? std::string() : start.errors[0];
  };
  EXPECT_NE(bad(R"("sometimes")").find(R"(upstreams.b.approval: expected "always")"),
            std::string::npos)
      << bad(R"("sometimes")");
  EXPECT_NE(bad("[1]").find("upstreams.b.approval[0]"), std::string::npos) << bad("[1]");
  EXPECT_NE(bad(R"([""])").find("an empty pattern"), std::string::npos);
  EXPECT_NE(bad("true").find("upstreams.b.approval"), std::string::npos);
}

}  // namespace
}  // namespace ptc
