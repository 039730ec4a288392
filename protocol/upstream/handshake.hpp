// The client side of an MCP session's start, the same over every transport:
// the initialize request's params, and reading tools/list page by page.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "include/ptc/host_value.hpp"
#include "protocol/upstream/stdio_client.hpp"

namespace ptc::upstream {

// The protocol version this client asks for (also the MCP-Protocol-Version
// header over HTTP).
inline constexpr const char* kClientProtocolVersion = "2025-06-18";

// The params of our initialize request.
HostValue initialize_params();

// Every page of tools/list through `request` (which sends one request with
// the given params), into `tools`: the entries that have a string name.
// Returns "" or what failed. At most 100 pages.
std::string list_all_tools(const std::function<Reply(const HostValue& params)>& request,
                           std::vector<HostValue>& tools);

}  // namespace ptc::upstream
