// The server's log: one JSON object per line on stderr ({"ts", "level",
// "event", ...fields}), at or above the configured level, never on stdout
// (which carries only frames in stdio mode). Thread-safe, process-wide.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "protocol/mcp/config.hpp"

namespace ptc::mcp {

using LogFields = std::vector<std::pair<std::string, HostValue>>;

void set_log_level(LogLevel level);
bool log_enabled(LogLevel level);
void log(LogLevel level, std::string_view event, const LogFields& fields = {});

// A time in ISO 8601, UTC, to the millisecond: 2026-11-27T08:30:00.123Z (the
// log's "ts", and the times sessions and tasks report).
std::string utc_timestamp(std::chrono::system_clock::time_point t);

std::string_view log_level_name(LogLevel level);  // "debug", "info", "warning", "error"
// Also accepts the MCP levels (notice, critical, alert, emergency), mapped to the nearest.
bool log_level_from_name(std::string_view name, LogLevel* out);

}  // namespace ptc::mcp
