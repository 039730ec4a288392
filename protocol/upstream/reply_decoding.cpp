#include "protocol/upstream/reply_decoding.hpp"

#include <algorithm>
#include <cctype>

#include "include/ptc/error.hpp"

namespace ptc::upstream {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Decodes the complete chunks of a chunked body into `out`; true when the
// last (empty) chunk has come. Stops at the first malformed or partial chunk.
// `used` gets the bytes of the whole body once its trailer's blank line is
// here too, else 0.
bool dechunk(std::string_view in, std::string& out, size_t& used) {
  const size_t total = in.size();
  used = 0;
  for (;;) {
    size_t eol = in.find("\r\n");
    if (eol == std::string_view::npos) return false;
    size_t size = 0;
    std::string_view digits = in.substr(0, eol);
    if (size_t ext = digits.find(';'); ext != std::string_view::npos)
      digits = digits.substr(0, ext);
    if (digits.empty()) return false;
    for (char c : digits) {
      int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
              : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
              : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                          : -1;
      if (d < 0) return false;
      size = size * 16 + static_cast<size_t>(d);
      if (size > (size_t{1} << 31)) return false;
    }
    in.remove_prefix(eol + 2);
    if (size == 0) {
      // No trailer: a blank line right away; else trailer lines up to one.
      size_t trailer_end = in.find("\r\n\r\n");
      size_t end = in.starts_with("\r\n")                  ? 2
                   : trailer_end != std::string_view::npos ? trailer_end + 4
                                                           : 0;
      if (end) used = total - in.size() + end;
      return true;
    }
    if (in.size() < size + 2) return false;
    out.append(in.substr(0, size));
    in.remove_prefix(size + 2);
  }
}

// Whether the complete events of an SSE body include the answer to `id`.
bool answers(std::string_view body, int64_t id) {
  size_t lf = body.rfind("\n\n"), crlf = body.rfind("\r\n\r\n");
  if (lf == std::string_view::npos && crlf == std::string_view::npos) return false;
  size_t end = 0;
  if (lf != std::string_view::npos) end = lf + 2;
  if (crlf != std::string_view::npos) end = std::max(end, crlf + 4);
  for (const std::string& event : sse_event_data(body.substr(0, end))) {
    try {
      HostValue message = parse_json(event);
      const HostValue* mid = message.get("id");
      if (mid && mid->kind() == HostValue::Kind::Int && mid->as_int() == id &&
          !message.get("method"))
        return true;
    } catch (const LispError&) {}
  }
  return false;
}

}  // namespace

HttpReply parse_http_reply(std::string_view bytes, int64_t expect_id) {
  HttpReply r;
  size_t head_end = bytes.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return r;
  r.head_complete = true;
  std::string_view head = bytes.substr(0, head_end);
  r.is_http = head.starts_with("HTTP/");
  r.keep_alive = head.starts_with("HTTP/1.1");
  bool connection_header = false;
  size_t eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  if (size_t sp = status_line.find(' '); sp != std::string_view::npos) {
    std::string_view code = status_line.substr(sp + 1, 3);
    if (code.size() == 3 && std::all_of(code.begin(), code.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        }))
      r.status = (code[0] - '0') * 100 + (code[1] - '0') * 10 + (code[2] - '0');
  }
  size_t pos = eol;
  while (pos != std::string_view::npos && pos < head.size()) {
    size_t next = head.find("\r\n", pos + 2);
    std::string_view line =
        head.substr(pos + 2, (next == std::string_view::npos ? head.size() : next) - pos - 2);
    pos = next;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name = lower(line.substr(0, colon));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
      value.remove_suffix(1);
    if (name == "content-type") {
      r.content_type = lower(value);
      r.event_stream = r.content_type.find("text/event-stream") != std::string::npos;
    } else if (name == "mcp-session-id") {
      r.session = std::string(value);
    } else if (name == "connection") {
      std::string v = lower(value);
      if (v.find("close") != std::string::npos)
        r.keep_alive = false;
      else if (v.find("keep-alive") != std::string::npos)
        connection_header = true;
    } else if (name == "transfer-encoding") {
      r.chunked = lower(value).find("chunked") != std::string::npos;
    } else if (name == "content-length") {
      size_t n = 0;
      bool ok = !value.empty() && value.size() <= 15;
      for (char c : value) {
        if (!std::isdigit(static_cast<unsigned char>(c))) ok = false;
        n = n * 10 + static_cast<size_t>(c - '0');
      }
      if (ok) r.content_length = n;
    }
  }
  if (connection_header && head.starts_with("HTTP/1.0")) r.keep_alive = true;
  std::string_view raw = bytes.substr(head_end + 4);
  if (r.chunked) {
    size_t used = 0;
    r.complete = dechunk(raw, r.body, used);
    if (used) r.length = head_end + 4 + used;
  } else if (r.content_length) {
    r.body = std::string(raw.substr(0, *r.content_length));
    r.complete = raw.size() >= *r.content_length;
    if (r.complete) r.length = head_end + 4 + *r.content_length;
  } else {
    r.body = std::string(raw);
  }
  if (!r.complete && r.event_stream && expect_id >= 0) r.complete = answers(r.body, expect_id);
  return r;
}

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

HostValue tool_payload(const HostValue& result, std::string* text_out) {
  std::string text;
  size_t texts = 0;
  if (const HostValue* content = result.get("content");
      content && content->kind() == HostValue::Kind::Vector) {
    for (const HostValue& item : content->items()) {
      if (item.kind() != HostValue::Kind::Map) continue;
      const HostValue* type = item.get("type");
      const HostValue* t = item.get("text");
      if (type && type->kind() == HostValue::Kind::String && type->text() == "text" && t &&
          t->kind() == HostValue::Kind::String) {
        if (texts++) text += "\n";
        text += t->text();
      }
    }
  }
  if (text_out) *text_out = text;
  if (const HostValue* sc = result.get("structuredContent"); sc && !sc->is_nil()) return *sc;
  if (texts == 0) return HostValue::nil();
  if (texts == 1) {
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
      try {
        return parse_json(text);
      } catch (const LispError&) {}
    }
  }
  return HostValue::string(std::move(text));
}

}  // namespace ptc::upstream
