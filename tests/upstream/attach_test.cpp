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
