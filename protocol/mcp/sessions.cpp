#include "protocol/mcp/sessions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <set>
#include <utility>

#include "protocol/mcp/random_bytes.hpp"

namespace ptc::mcp {

namespace {

using Kind = HostValue::Kind;

constexpr std::string_view kIdPrefix = "ptcs_";
constexpr size_t kIdRandomBytes = 18;
constexpr size_t kIdChars = 24;  // 18 bytes in base64, no padding

size_t json_string_bytes(std::string_view s) {
  size_t n = 2;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      n += 2;
    else if (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
      n += 2;
    else if (c < 0x20)
      n += 6;
    else
      n += 1;
  }
  return n;
}

size_t json_scalar_bytes(const HostValue& v) {
  switch (v.kind()) {
    case Kind::Nil:
      return 4;
    case Kind::Bool:
      return v.as_bool() ? 4 : 5;
    case Kind::Int:
      return fmt::formatted_size("{}", v.as_int());
    case Kind::BigInt:
      return v.text().size();
    case Kind::Float:
      try {
        return to_json(v).size();
      } catch (LispError&) {
        return 4;  // NaN and infinities have no JSON form; count them as null
      }
    default:  // String, Keyword, Opaque: as a JSON string
      return json_string_bytes(v.text());
  }
}

}  // namespace

size_t session_value_bytes(const HostValue& value, size_t stop_after) {
  // Iterative: memory may nest as deep as a run allowed, and a function's
  // captured values are shared (counted each time they are reached, which
  // stop_after keeps bounded).
  size_t total = 0;
  std::vector<const HostValue*> todo{&value};
  while (!todo.empty()) {
    const HostValue* v = todo.back();
    todo.pop_back();
    switch (v->kind()) {
      case Kind::Vector:
      case Kind::Set:
      case Kind::Map: {
        const auto& items = v->items();
        size_t n = v->kind() == Kind::Map ? items.size() / 2 : items.size();
        // Brackets, commas and (for a map) colons.
        total += 2 + (n ? n - 1 : 0) + (v->kind() == Kind::Map ? n : 0);
        if (total > stop_after) return total;
        for (const HostValue& x : items)
          todo.push_back(&x);
        break;
      }
      case Kind::Opaque:
        total += json_scalar_bytes(*v);
        if (const Restorer* r = v->restorer()) {
          total += json_string_bytes(r->factory);
          for (const HostValue& x : r->args)
            todo.push_back(&x);
        }
        break;
      default:
        total += json_scalar_bytes(*v);
    }
    if (total > stop_after) return total;
  }
  return total;
}

std::string new_session_id() {
  std::array<unsigned char, kIdRandomBytes> bytes{};
  fill_random(bytes.data(), bytes.size());
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string id(kIdPrefix);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    for (int shift = 18; shift >= 0; shift -= 6)
      id += kAlphabet[(n >> shift) & 63];
  }
  return id;
}

bool is_session_id(std::string_view id) {
  if (id.size() != kIdPrefix.size() + kIdChars || id.substr(0, kIdPrefix.size()) != kIdPrefix)
    return false;
  return std::all_of(id.begin() + kIdPrefix.size(), id.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

// ---------------------------------------------------------------- rules

std::string session_busy_message(std::string_view id) {
  return fmt::format("session {} is running another eval; one eval at a time per session", id);
}

std::string session_not_found_message(std::string_view id) {
  return fmt::format("there is no session {} open for this caller", id);
}

std::string session_closed_why(const std::string& reason) {
  return reason.empty() ? std::string("was closed with lisp_session_close")
                        : fmt::format("was closed with lisp_session_close (reason: {})", reason);
}

std::string session_idle_why(uint64_t idle_timeout_ms) {
  return fmt::format("expired after {} ms without use", idle_timeout_ms);
}

SessionInfo session_info(const SessionState& s, bool busy, const SessionTimes& times,
                         uint64_t idle_timeout_ms) {
  SessionInfo i;
  i.id = s.id;
  i.title = s.title;
  i.mode = s.mode;
  i.turn = s.turn;
  i.memory_bytes = s.memory_bytes;
  i.binding_count = s.memory.size();
  i.busy = busy;
  i.ttl_ms = s.ttl_ms;
  i.created_at = times.created;
  i.last_used_at = times.last_used;
  i.expires_at = times.expires;
  i.idle_expires_at =
      std::min(i.expires_at, times.last_used + std::chrono::milliseconds(idle_timeout_ms));
  return i;
}

SessionSnapshot session_snapshot(const SessionState& s, SessionInfo info) {
  return {std::move(info), s.memory, s.history, s.prints, s.prints_dropped, s.notices};
}

std::string session_log_tag(std::string_view id) {
  return std::string(id.substr(0, std::min(id.size(), kIdPrefix.size() + 4)));
}

void apply_commit(SessionState& s, SessionStore::Commit commit) {
  s.memory = std::move(commit.memory);
  s.memory_bytes = commit.memory_bytes;
  s.history.push_back(std::move(commit.result));
  if (s.history.size() > kHistoryDepth)
    s.history.erase(s.history.begin(),
                    s.history.end() - static_cast<std::ptrdiff_t>(kHistoryDepth));
  ++s.turn;
  for (std::string& text : commit.prints) {
    s.print_bytes += text.size();
    s.prints.push_back({s.turn, std::move(text)});
  }
  while (!s.prints.empty() &&
         (s.prints.size() > kMaxSessionPrintEntries || s.print_bytes > kMaxSessionPrintBytes)) {
    s.print_bytes -= s.prints.front().text.size();
    s.prints.pop_front();
    s.prints_dropped = true;
  }
  s.notices = std::move(commit.notices);
}

SessionStore::ForgetOutcome apply_forget(SessionState& s,
                                         const SessionStore::ForgetRequest& request,
                                         size_t max_memory_bytes) {
  SessionStore::ForgetOutcome out;
  const auto& items = s.memory.items();
  std::set<std::string_view> bound, gone;
  for (size_t i = 0; i + 1 < items.size(); i += 2)
    bound.insert(items[i].text());
  for (const std::string& name : request.bindings) {
    if (!bound.count(name)) {
      out.missing.push_back(name);
    } else if (gone.insert(name).second) {
      out.forgotten.push_back(name);
    }
  }
  std::vector<std::pair<HostValue, HostValue>> kept;
  if (!request.memory)
    for (size_t i = 0; i + 1 < items.size(); i += 2)
      if (!gone.count(items[i].text())) kept.emplace_back(items[i], items[i + 1]);
  HostValue memory = HostValue::map(std::move(kept));
  s.memory_bytes = session_value_bytes(memory, max_memory_bytes);
  s.memory = std::move(memory);
  if (request.history) s.history.clear();
  if (request.prints) {
    s.prints.clear();
    s.print_bytes = 0;
    s.prints_dropped = false;
  }
  return out;
}

}  // namespace ptc::mcp
