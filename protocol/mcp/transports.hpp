// The two ways bytes reach the server.
#pragma once

#include "protocol/mcp/server.hpp"

namespace ptc::mcp {

// stdio: one JSON message per line on `in_fd`, replies one per line on
// `out_fd` (nothing else is written there). A line longer than
// max_frame_bytes is dropped up to its newline and answered with -32700.
// Returns at EOF (every call cancelled) or after shutdown + exit; the
// process exit code (0).
int serve_stdio(Server& server, int in_fd, int out_fd);

// Streamable HTTP on config.http_host:http_port, path http_path. Returns
// when stopped by SIGTERM/SIGINT (after draining) with the exit code; 2 when
// it cannot start (the reason is logged).
int serve_http(Server& server);

}  // namespace ptc::mcp
