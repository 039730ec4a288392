#include "protocol/net/http_reply.hpp"

#include <algorithm>
#include <cctype>

#include "include/ptc/error.hpp"
#include "include/ptc/host_value.hpp"
#include "protocol/net/sse_events.hpp"

namespace ptc::net {

namespace {

constexpr size_t kCompactAfter = 64 << 10;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
    value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
    value.remove_suffix(1);
  return value;
}

int status_code(std::string_view status_line) {
  size_t sp = status_line.find(' ');
  if (sp == std::string_view::npos) return 0;
  std::string_view code = status_line.substr(sp + 1, 3);
  if (code.size() != 3 || !std::all_of(code.begin(), code.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    return 0;
  return (code[0] - '0') * 100 + (code[1] - '0') * 10 + (code[2] - '0');
}

std::optional<size_t> decimal(std::string_view value) {
  if (value.empty() || value.size() > 15) return std::nullopt;
  size_t n = 0;
  for (char c : value) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  return n;
}

// The size of a chunk from its size line (extensions after ';' ignored), or
// nothing when it is not hex or implausibly large.
std::optional<size_t> chunk_size(std::string_view line) {
  if (size_t ext = line.find(';'); ext != std::string_view::npos) line = line.substr(0, ext);
  if (line.empty()) return std::nullopt;
  size_t size = 0;
  for (char c : line) {
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
            : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                        : -1;
    if (d < 0) return std::nullopt;
    size = size * 16 + static_cast<size_t>(d);
    if (size > (size_t{1} << 31)) return std::nullopt;
  }
  return size;
}

// The status line and headers (without the blank line that ends them).
HttpReply parse_head(std::string_view head) {
  HttpReply r;
  r.head_complete = true;
  r.is_http = head.starts_with("HTTP/");
  r.keep_alive = head.starts_with("HTTP/1.1");
  bool connection_keep_alive = false;
  size_t eol = head.find("\r\n");
  r.status = status_code(head.substr(0, eol));
  size_t pos = eol;
  while (pos != std::string_view::npos && pos < head.size()) {
    size_t next = head.find("\r\n", pos + 2);
    std::string_view line =
        head.substr(pos + 2, (next == std::string_view::npos ? head.size() : next) - pos - 2);
    pos = next;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name = lower(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (name == "content-type") {
      r.content_type = lower(value);
      r.event_stream = r.content_type.find("text/event-stream") != std::string::npos;
    } else if (name == "connection") {
      std::string v = lower(value);
      if (v.find("close") != std::string::npos)
        r.keep_alive = false;
      else if (v.find("keep-alive") != std::string::npos)
        connection_keep_alive = true;
    } else if (name == "transfer-encoding") {
      r.chunked = lower(value).find("chunked") != std::string::npos;
    } else if (name == "content-length") {
      if (auto n = decimal(value)) r.content_length = n;
    }
    r.headers.emplace_back(std::move(name), std::string(value));
  }
  if (connection_keep_alive && head.starts_with("HTTP/1.0")) r.keep_alive = true;
  return r;
}

// Whether `message` is the JSON-RPC answer (not a request) to `id`.
bool answers(const std::string& message, int64_t id) {
  try {
    HostValue parsed = parse_json(message);
    const HostValue* mid = parsed.get("id");
    return mid && mid->kind() == HostValue::Kind::Int && mid->as_int() == id &&
           !parsed.get("method");
  } catch (const LispError&) {
    return false;
  }
}

}  // namespace

HttpReplyReader::HttpReplyReader(int64_t sse_expect_id, bool head_request)
    : sse_expect_id_(sse_expect_id), head_request_(head_request) {}

void HttpReplyReader::append(std::string_view bytes) {
  received_ += bytes.size();
  switch (stage_) {
    case Stage::Head:
      buffer_.append(bytes);
      read_head();
      break;
    case Stage::Sized:
    case Stage::UntilClose:
      read_body(bytes);
      break;
    case Stage::ChunkSize:
    case Stage::ChunkData:
    case Stage::Trailer:
      if (pos_ > kCompactAfter && pos_ > buffer_.size() / 2) {
        buffer_.erase(0, pos_);
        dropped_ += pos_;
        scanned_ -= std::min(scanned_, pos_);
        pos_ = 0;
      }
      buffer_.append(bytes);
      read_chunks();
      break;
    case Stage::Done:
      break;
  }
  if (!reply_.complete && reply_.event_stream && sse_expect_id_ >= 0) check_event_stream();
}

void HttpReplyReader::read_head() {
  for (;;) {
    size_t end = buffer_.find("\r\n\r\n", std::max(pos_, scanned_));
    if (end == std::string::npos) {
      scanned_ = buffer_.size() >= 3 ? buffer_.size() - 3 : 0;
      return;
    }
    reply_ = parse_head(std::string_view(buffer_).substr(pos_, end - pos_));
    head_bytes_ = end + 4;
    pos_ = scanned_ = head_bytes_;
    // An interim response (100 Continue, 103 Early Hints): the real one follows.
    bool interim =
        reply_.is_http && reply_.status >= 100 && reply_.status < 200 && reply_.status != 101;
    if (!interim) break;
    reply_ = HttpReply{};
  }
  start_body();
}

void HttpReplyReader::start_body() {
  bool no_body = head_request_ || reply_.status == 204 || reply_.status == 304;
  if (no_body || (!reply_.chunked && reply_.content_length)) {
    stage_ = Stage::Sized;
    body_left_ = no_body ? 0 : *reply_.content_length;
  } else {
    stage_ = reply_.chunked ? Stage::ChunkSize : Stage::UntilClose;
  }
  if (stage_ == Stage::ChunkSize) {
    read_chunks();
    return;
  }
  std::string rest = buffer_.substr(head_bytes_);
  buffer_.clear();
  buffer_.shrink_to_fit();
  read_body(rest);
}

void HttpReplyReader::read_body(std::string_view bytes) {
  if (stage_ == Stage::UntilClose) {
    reply_.body.append(bytes);
    return;
  }
  size_t take = std::min(body_left_, bytes.size());
  reply_.body.append(bytes.substr(0, take));
  body_left_ -= take;
  if (body_left_ == 0) {
    reply_.complete = true;
    reply_.length = head_bytes_ + reply_.body.size();
    stage_ = Stage::Done;
  }
}

void HttpReplyReader::read_chunks() {
  for (;;) {
    std::string_view rest = std::string_view(buffer_).substr(pos_);
    switch (stage_) {
      case Stage::ChunkSize: {
        size_t eol = buffer_.find("\r\n", std::max(pos_, scanned_));
        if (eol == std::string::npos) {
          scanned_ = std::max(pos_, buffer_.empty() ? 0 : buffer_.size() - 1);
          return;
        }
        std::optional<size_t> size = chunk_size(std::string_view(buffer_).substr(pos_, eol - pos_));
        if (!size) {
          stage_ = Stage::Done;  // malformed: never complete
          return;
        }
        pos_ = scanned_ = eol + 2;
        chunk_size_ = *size;
        if (chunk_size_ == 0) reply_.complete = true;
        stage_ = chunk_size_ == 0 ? Stage::Trailer : Stage::ChunkData;
        break;
      }
      case Stage::ChunkData:
        // A chunk counts once it and the line end after it are all here.
        if (rest.size() < chunk_size_ + 2) return;
        reply_.body.append(rest.substr(0, chunk_size_));
        pos_ = scanned_ = pos_ + chunk_size_ + 2;
        stage_ = Stage::ChunkSize;
        break;
      case Stage::Trailer: {
        // No trailer: a blank line right away; else trailer lines up to one.
        if (rest.size() < 2) return;
        size_t end = 0;
        if (rest.starts_with("\r\n")) {
          end = 2;
        } else {
          size_t from = std::max(pos_, scanned_);
          size_t blank = buffer_.find("\r\n\r\n", from);
          if (blank == std::string::npos) {
            scanned_ = std::max(pos_, buffer_.size() >= 3 ? buffer_.size() - 3 : 0);
            return;
          }
          end = blank + 4 - pos_;
        }
        reply_.length = consumed() + end;
        stage_ = Stage::Done;
        return;
      }
      default:
        return;
    }
  }
}

void HttpReplyReader::check_event_stream() {
  std::string_view body = reply_.body;
  // Only whole events count: those before the last blank line.
  size_t from = std::max(events_scanned_, boundary_scanned_);
  std::string_view tail = body.substr(std::min(from, body.size()));
  boundary_scanned_ = body.size() >= 3 ? body.size() - 3 : 0;
  size_t lf = tail.rfind("\n\n"), crlf = tail.rfind("\r\n\r\n");
  if (lf == std::string_view::npos && crlf == std::string_view::npos) return;
  size_t end = 0;
  if (lf != std::string_view::npos) end = lf + 2;
  if (crlf != std::string_view::npos) end = std::max(end, crlf + 4);
  end += from;
  for (const std::string& event :
       sse_event_data(body.substr(events_scanned_, end - events_scanned_)))
    if (answers(event, sse_expect_id_)) reply_.complete = true;
  events_scanned_ = end;
}

HttpReply parse_http_reply(std::string_view bytes, int64_t sse_expect_id) {
  HttpReplyReader reader(sse_expect_id);
  reader.append(bytes);
  return std::move(reader.reply());
}

}  // namespace ptc::net
