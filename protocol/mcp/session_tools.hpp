// The lisp_session_* tools (--sessions) over one SessionStore:
// lisp_session_start, _list, _list_preludes, _eval, _inspect, _forget and
// _close. lisp_session_eval runs programs (gated: a worker and a slot); the
// other six answer at once on the transport's thread. Every argument is
// checked (types, required, no unknown keys) and a bad one is answered with
// session_args_error naming it; store errors keep their session_* reason.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "protocol/mcp/server.hpp"
#include "protocol/mcp/sessions.hpp"

namespace ptc::mcp {

inline constexpr std::string_view kSessionStart = "lisp_session_start";
inline constexpr std::string_view kSessionList = "lisp_session_list";
inline constexpr std::string_view kSessionListPreludes = "lisp_session_list_preludes";
inline constexpr std::string_view kSessionEval = "lisp_session_eval";
inline constexpr std::string_view kSessionInspect = "lisp_session_inspect";
inline constexpr std::string_view kSessionForget = "lisp_session_forget";
inline constexpr std::string_view kSessionClose = "lisp_session_close";

// The seven tools in the order tools/list shows them, sharing `store`.
std::vector<std::unique_ptr<McpTool>> make_session_tools(std::shared_ptr<SessionStore> store);

// The server's session store: the shared one (RedisSessionStore) when
// config.shared_store is set, else one in this process (MemorySessionStore).
std::shared_ptr<SessionStore> make_session_store(const ServerConfig& config);

// Adds them, over a new store with the config's caps, to the server
// (make_server calls it when config.sessions is set).
void add_session_tools(Server& server, const ServerConfig& config);

}  // namespace ptc::mcp
