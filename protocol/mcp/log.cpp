#include "protocol/mcp/log.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include <fmt/format.h>

namespace ptc::mcp {

namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::Info)};
std::mutex g_write;

}  // namespace

std::string utc_timestamp(std::chrono::system_clock::time_point t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
}

void set_log_level(LogLevel level) {
  g_level.store(static_cast<int>(level), std::memory_order_relaxed);
}

bool log_enabled(LogLevel level) {
  return static_cast<int>(level) >= g_level.load(std::memory_order_relaxed);
}

void log(LogLevel level, std::string_view event, const LogFields& fields) {
  if (!log_enabled(level)) return;
  std::vector<std::pair<HostValue, HostValue>> entries;
  entries.emplace_back(HostValue::string("ts"),
                       HostValue::string(utc_timestamp(std::chrono::system_clock::now())));
  entries.emplace_back(HostValue::string("level"),
                       HostValue::string(std::string(log_level_name(level))));
  entries.emplace_back(HostValue::string("event"), HostValue::string(std::string(event)));
  for (const auto& [k, v] : fields)
    entries.emplace_back(HostValue::string(k), v);
  std::string line;
  try {
    line = to_json(HostValue::map(std::move(entries)));
  } catch (...) {
    line = fmt::format(R"({{"level":"error","event":"log_encoding_failed","of":"{}"}})",
                       std::string(event));
  }
  line.push_back('\n');
  std::lock_guard lock(g_write);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

std::string_view log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warning:
      return "warning";
    case LogLevel::Error:
      return "error";
  }
  return "info";
}

bool log_level_from_name(std::string_view name, LogLevel* out) {
  if (name == "debug")
    *out = LogLevel::Debug;
  else if (name == "info" || name == "notice")
    *out = LogLevel::Info;
  else if (name == "warning" || name == "warn")
    *out = LogLevel::Warning;
  else if (name == "error" || name == "critical" || name == "alert" || name == "emergency")
    *out = LogLevel::Error;
  else
    return false;
  return true;
}

}  // namespace ptc::mcp
