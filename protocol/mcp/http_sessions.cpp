#include "protocol/mcp/http_sessions.hpp"

#include "protocol/mcp/random_bytes.hpp"

namespace ptc::mcp {

std::string new_http_session_id() {
  return random_hex_id();
}

std::string HttpSessions::open(std::string_view owner, Clock::time_point now) {
  std::lock_guard lock(mu_);
  if (sessions_.size() >= limits_.max_sessions) {
    for (auto it = sessions_.begin(); it != sessions_.end();)
      it = idle(it->second, now) ? sessions_.erase(it) : std::next(it);
    if (sessions_.size() >= limits_.max_sessions) return "";
  }
  std::string id = new_http_session_id();
  while (sessions_.count(id))
    id = new_http_session_id();
  sessions_.emplace(id, Entry{std::string(owner), now, 0});
  return id;
}

bool HttpSessions::touch(std::string_view id, std::string_view owner, Clock::time_point now) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(std::string(id));
  if (it == sessions_.end() || it->second.owner != owner) return false;
  if (idle(it->second, now)) {
    sessions_.erase(it);
    return false;
  }
  it->second.last_used = now;
  return true;
}

bool HttpSessions::try_acquire(std::string_view id) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(std::string(id));
  if (it == sessions_.end() || it->second.in_flight >= limits_.max_in_flight) return false;
  ++it->second.in_flight;
  return true;
}

void HttpSessions::release(std::string_view id, Clock::time_point now) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(std::string(id));
  if (it == sessions_.end() || it->second.in_flight == 0) return;
  --it->second.in_flight;
  it->second.last_used = now;
}

bool HttpSessions::close(std::string_view id, std::string_view owner) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(std::string(id));
  if (it == sessions_.end() || it->second.owner != owner) return false;
  sessions_.erase(it);
  return true;
}

std::vector<std::string> HttpSessions::expire(Clock::time_point now) {
  std::lock_guard lock(mu_);
  std::vector<std::string> gone;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (idle(it->second, now)) {
      gone.push_back(it->first);
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
  return gone;
}

size_t HttpSessions::size() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

uint32_t HttpSessions::in_flight(std::string_view id) const {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(std::string(id));
  return it == sessions_.end() ? 0 : it->second.in_flight;
}

}  // namespace ptc::mcp
