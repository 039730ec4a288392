#include "protocol/net/sse_events.hpp"

namespace ptc::net {

std::vector<std::string> sse_event_data(std::string_view body) {
  std::vector<std::string> events;
  std::string data;
  size_t at = 0;
  while (at <= body.size()) {
    size_t nl = body.find('\n', at);
    std::string_view line = body.substr(at, (nl == std::string_view::npos ? body.size() : nl) - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      if (!data.empty()) events.push_back(std::move(data));
      data.clear();
    } else if (line.starts_with("data:")) {
      std::string_view d = line.substr(5);
      if (!d.empty() && d.front() == ' ') d.remove_prefix(1);
      if (!data.empty()) data += '\n';
      data += d;
    }
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  if (!data.empty()) events.push_back(std::move(data));
  return events;
}

}  // namespace ptc::net
