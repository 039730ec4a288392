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

// Revision 2026-07-28: no handshake; every request carries this envelope in
// params._meta, and over HTTP the standard headers.
inline constexpr const char* kModernProtocolVersion = "2026-07-28";

// The params of our initialize request.
HostValue initialize_params();

// `params` (a map, or nil) with the 2026-07-28 envelope in _meta.
HostValue with_modern_envelope(const HostValue& params);

// Whether a server/discover result offers revision 2026-07-28.
bool offers_modern(const HostValue& discover_result);
// Why a server pinned to 2026-07-28 ("protocol": "2026-07-28") cannot be used,
// from its server/discover reply (status, result, message).
std::string pinned_refusal(const Reply& discover);

// An HTTP header value for `value` (Mcp-Name): as it is when it is plain
// printable ASCII, else the revision's `=?base64?...?=` form of its UTF-8.
std::string mcp_header_value(std::string_view value);

// Every page of tools/list through `request` (which sends one request with
// the given params), into `tools`: the entries that have a string name.
// Returns "" or what failed. At most 100 pages.
std::string list_all_tools(const std::function<Reply(const HostValue& params)>& request,
                           std::vector<HostValue>& tools);

}  // namespace ptc::upstream
