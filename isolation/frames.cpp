#include "isolation/frames.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "embedding/value_codec.hpp"

namespace ptc::isolation {

namespace {

constexpr CodecSubject kFrame{"the frame", "a worker sends only the frames of its protocol",
                              "a worker sends only whole frames"};

ValueReader reader_of(std::string_view body) {
  return ValueReader(body, body.size(), kFrame);
}

void expect_end(ValueReader& r, std::string_view what) {
  if (!r.at_end()) r.fail(fmt::format("{} has {} bytes past its end", what, r.left()));
}

void write_strings(ValueWriter& w, const std::vector<std::string>& v) {
  w.varint(v.size());
  for (const std::string& s : v)
    w.str(s);
}

std::vector<std::string> read_strings(ValueReader& r, std::string_view what) {
  size_t n = r.count(what);
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i)
    out.push_back(r.str(what));
  return out;
}

void write_values(ValueWriter& w, const std::vector<HostValue>& v) {
  w.varint(v.size());
  for (const HostValue& x : v)
    w.value(x);
}

std::vector<HostValue> read_values(ValueReader& r, std::string_view what) {
  size_t n = r.count(what);
  std::vector<HostValue> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i)
    out.push_back(r.value(what));
  return out;
}

size_t read_size(ValueReader& r, std::string_view what) {
  return static_cast<size_t>(r.varint(what));
}

bool io_all(int fd, char* data, size_t n, bool writing) {
  while (n > 0) {
    // send(MSG_NOSIGNAL): a peer that died is an error here, never SIGPIPE.
    ssize_t got = writing ? ::send(fd, data, n, MSG_NOSIGNAL) : ::read(fd, data, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    data += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------- framing

std::string frame_header(FrameKind kind, size_t body_bytes) {
  uint32_t n = static_cast<uint32_t>(body_bytes + 1);
  std::string h(kFrameHeaderBytes, '\0');
  for (int i = 0; i < 4; ++i)
    h[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  h[4] = static_cast<char>(kind);
  return h;
}

bool write_frame(int fd, FrameKind kind, std::string_view body) {
  if (body.size() >= UINT32_MAX) return false;
  std::string header = frame_header(kind, body.size());
  // One write for small frames: a tool call's round trip is two frames.
  if (body.size() <= 4096) {
    header.append(body);
    return io_all(fd, header.data(), header.size(), true);
  }
  return io_all(fd, header.data(), header.size(), true) &&
         io_all(fd, const_cast<char*>(body.data()), body.size(), true);
}

namespace {

uint32_t frame_length(const char* header) {
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i)
    n |= static_cast<uint32_t>(static_cast<uint8_t>(header[i])) << (8 * i);
  return n;
}

}  // namespace

bool FrameReader::ready() const {
  size_t have = end_ - start_;
  return have >= kFrameHeaderBytes &&
         (check_header() != ReadStatus::Ok ||
          have >= kFrameHeaderBytes - 1 + frame_length(buffer_.data() + start_));
}

ReadStatus FrameReader::check_header() const {
  const char* header = buffer_.data() + start_;
  uint32_t n = frame_length(header);
  auto kind = static_cast<uint8_t>(header[4]);
  if (n == 0 || kind < static_cast<uint8_t>(FrameKind::Hello) ||
      kind > static_cast<uint8_t>(FrameKind::Prepare) || kind == 5)
    return ReadStatus::BadKind;
  if (n - 1 > max_) return ReadStatus::TooLarge;
  return ReadStatus::Ok;
}

ReadStatus FrameReader::next(Frame& out) {
  constexpr size_t kChunk = 64 * 1024;
  for (;;) {
    size_t have = end_ - start_;
    size_t whole = 0;
    if (have >= kFrameHeaderBytes) {
      if (ReadStatus s = check_header(); s != ReadStatus::Ok) return s;
      whole = kFrameHeaderBytes - 1 + frame_length(buffer_.data() + start_);
      if (have >= whole) {
        out.kind = static_cast<FrameKind>(buffer_[start_ + 4]);
        out.body.assign(buffer_.data() + start_ + kFrameHeaderBytes, whole - kFrameHeaderBytes);
        start_ += whole;
        if (start_ == end_) {
          start_ = end_ = 0;
          if (buffer_.size() > (size_t{1} << 20))
            std::vector<char>().swap(buffer_);  // after a big one
        }
        return ReadStatus::Ok;
      }
    }
    // Room for the rest of this frame (or a chunk), at the front.
    if (start_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + start_, have);
      start_ = 0;
      end_ = have;
    }
    // The buffer grows with the bytes that arrive (doubling), never to the
    // length a header claims: a lying worker cannot make its parent
    // allocate more than twice what it actually sent.
    if (buffer_.size() - end_ < kChunk / 2 || buffer_.empty())
      buffer_.resize(std::max(buffer_.size() * 2, end_ + kChunk));
    ssize_t got;
    while ((got = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_)) < 0 &&
           errno == EINTR) {}
    if (got <= 0) return ReadStatus::Closed;
    end_ += static_cast<size_t>(got);
  }
}

// ---------------------------------------------------------------- hello

std::string encode_hello(const Hello& hello) {
  ValueWriter w;
  w.varint(hello.version);
  w.u8(hello.seccomp ? 1 : 0);
  w.u8(hello.namespaces ? 1 : 0);
  return std::move(w.out);
}

Hello decode_hello(std::string_view body) {
  ValueReader r = reader_of(body);
  Hello h;
  h.version = r.u32("hello (version)");
  h.seccomp = r.flag("hello (seccomp)");
  h.namespaces = r.flag("hello (namespaces)");
  expect_end(r, "hello");
  return h;
}

// ---------------------------------------------------------------- run

std::string encode_run(const RunRequest& q) {
  ValueWriter w;
  w.str(q.source);
  w.u8(static_cast<uint8_t>(q.context_form));
  switch (q.context_form) {
    case RunRequest::Context::Value:
      w.value(q.context);
      break;
    case RunRequest::Context::Json:
      w.str(q.context_json);
      break;
    case RunRequest::Context::Prepared:
      w.varint(q.prepared_id);
      w.u8(q.prepared_encoded ? 1 : 0);
      if (q.prepared_encoded) w.str(*q.prepared_encoded);
      break;
  }
  w.value(q.memory);
  write_values(w, q.turn_history);
  w.varint(q.tools.size());
  for (const ToolSpec& t : q.tools) {
    w.str(t.name);
    w.u8((t.cacheable ? 1 : 0) | (t.deferred ? 2 : 0));
  }
  write_strings(w, q.deferred_tools);
  w.varint(q.unavailable_tools.size());
  for (const auto& [name, why] : q.unavailable_tools) {
    w.str(name);
    w.str(why);
  }
  w.u8(q.catalog ? 1 : 0);
  if (q.catalog) {
    w.varint(q.catalog->servers.size());
    for (const auto& [name, description] : q.catalog->servers) {
      w.str(name);
      w.str(description);
    }
    w.varint(q.catalog->tools.size());
    for (const CatalogTool& t : q.catalog->tools) {
      w.str(t.server);
      w.str(t.name);
      w.str(t.description);
      w.value(t.input_schema);
      w.u8(t.read_only ? 1 : 0);
    }
  }
  w.str(q.signature);
  w.u8(q.float_precision ? 1 : 0);
  w.svarint(q.float_precision.value_or(0));
  write_limits(w, q.limits);
  w.u8(q.filter_context ? 1 : 0);
  w.value(q.budget);
  w.str(q.caller);
  w.str(q.profile);
  w.varint(q.display_limit);
  w.varint(q.attempt_us);
  return std::move(w.out);
}

RunRequest decode_run(std::string_view body) {
  ValueReader r = reader_of(body);
  RunRequest q;
  q.source = r.str("run (source)");
  uint8_t form = r.u8("run (context form)");
  switch (form) {
    case 0:
      q.context_form = RunRequest::Context::Value;
      q.context = r.value("run (context)");
      break;
    case 1:
      q.context_form = RunRequest::Context::Json;
      q.context_json = r.str("run (context JSON)");
      break;
    case 2:
      q.context_form = RunRequest::Context::Prepared;
      q.prepared_id = r.varint("run (prepared context id)");
      if (r.flag("run (prepared context included)"))
        q.prepared_encoded = std::make_shared<const std::string>(r.bytes("run (prepared context)"));
      break;
    default:
      r.fail(fmt::format("run (context form): {} is not a form", form));
  }
  q.memory = r.value("run (memory)");
  q.turn_history = read_values(r, "run (turn history)");
  size_t tools = r.count("run (tools)", 2);
  for (size_t i = 0; i < tools; ++i) {
    ToolSpec t;
    t.name = r.str("run (tool name)");
    uint8_t flags = r.u8("run (tool flags)");
    if (flags > 3) r.fail("run (tool flags): unknown flags");
    t.cacheable = flags & 1;
    t.deferred = flags & 2;
    q.tools.push_back(std::move(t));
  }
  q.deferred_tools = read_strings(r, "run (deferred tools)");
  size_t unavailable = r.count("run (unavailable tools)", 2);
  for (size_t i = 0; i < unavailable; ++i) {
    std::string name = r.str("run (unavailable tool)");
    q.unavailable_tools.emplace_back(std::move(name), r.str("run (unavailable tool's note)"));
  }
  if (r.flag("run (catalog)")) {
    ToolCatalog c;
    size_t servers = r.count("run (catalog servers)", 2);
    for (size_t i = 0; i < servers; ++i) {
      std::string name = r.str("run (catalog server)");
      c.servers.emplace_back(std::move(name), r.str("run (catalog server's description)"));
    }
    size_t n = r.count("run (catalog tools)", 5);
    for (size_t i = 0; i < n; ++i) {
      CatalogTool t;
      t.server = r.str("run (catalog tool's server)");
      t.name = r.str("run (catalog tool)");
      t.description = r.str("run (catalog tool's description)");
      t.input_schema = r.value("run (catalog tool's schema)");
      t.read_only = r.flag("run (catalog tool's read_only)");
      c.tools.push_back(std::move(t));
    }
    q.catalog = std::move(c);
  }
  q.signature = r.str("run (signature)");
  bool precision = r.flag("run (float precision)");
  int64_t digits = r.svarint("run (float precision)");
  if (digits < -1000 || digits > 1000) r.fail("run (float precision): out of range");
  if (precision) q.float_precision = static_cast<int>(digits);
  q.limits = read_limits(r);
  q.filter_context = r.flag("run (filter_context)");
  q.budget = r.value("run (budget)");
  q.caller = r.str("run (caller)");
  q.profile = r.str("run (profile)");
  q.display_limit = r.varint("run (display limit)");
  q.attempt_us = r.u32("run (attempt)");
  expect_end(r, "run");
  return q;
}

// ---------------------------------------------------------------- tool calls

std::string encode_tool_call(const ToolCallRequest& call) {
  ValueWriter w;
  w.varint(call.id);
  w.str(call.tool);
  w.value(call.args);
  return std::move(w.out);
}

ToolCallRequest decode_tool_call(std::string_view body) {
  ValueReader r = reader_of(body);
  ToolCallRequest c;
  c.id = r.varint("tool call (id)");
  c.tool = r.str("tool call (tool)");
  c.args = r.value("tool call (arguments)");
  expect_end(r, "tool call");
  return c;
}

std::string encode_tool_reply(const ToolReply& reply) {
  ValueWriter w;
  w.varint(reply.id);
  w.u8(reply.result.ok ? 1 : 0);
  if (reply.result.ok)
    w.value(reply.result.value);
  else
    w.str(reply.result.error);
  return std::move(w.out);
}

ToolReply decode_tool_reply(std::string_view body) {
  ValueReader r = reader_of(body);
  ToolReply t;
  t.id = r.varint("tool reply (id)");
  if (r.flag("tool reply (ok)"))
    t.result = ToolResult::success(r.value("tool reply (value)"));
  else
    t.result = ToolResult::failure(r.str("tool reply (error)"));
  expect_end(r, "tool reply");
  return t;
}

// ---------------------------------------------------------------- prepare

std::string encode_prepare(const PrepareRequest& q) {
  ValueWriter w;
  w.varint(q.id);
  w.str(q.encoded ? *q.encoded : std::string());
  return std::move(w.out);
}

PrepareRequest decode_prepare(std::string_view body) {
  ValueReader r = reader_of(body);
  PrepareRequest q;
  q.id = r.varint("prepare (context id)");
  q.encoded = std::make_shared<const std::string>(r.bytes("prepare (context)"));
  expect_end(r, "prepare");
  return q;
}

// ---------------------------------------------------------------- started

std::string encode_started(uint32_t since_ms) {
  ValueWriter w;
  w.varint(since_ms);
  return std::move(w.out);
}

uint32_t decode_started(std::string_view body) {
  ValueReader r = reader_of(body);
  uint32_t since = r.u32("started (milliseconds)");
  expect_end(r, "started");
  return since;
}

// ---------------------------------------------------------------- step

std::string encode_step(const Step& s) {
  ValueWriter w;
  w.u8((s.ok ? 1 : 0) | (s.returned ? 2 : 0) | (s.truncated ? 4 : 0));
  w.value(s.value);
  w.value(s.memory);
  w.str(s.printed);
  w.u8(static_cast<uint8_t>(s.error.kind));
  w.str(s.error.message);
  w.str(s.error.hint);
  w.varint(s.error.loc.line);
  w.varint(s.error.loc.col);
  w.str(s.error.fail_value);
  w.value(s.fail_value);
  write_strings(w, s.prints);
  w.varint(s.tool_calls.size());
  for (const ToolCall& c : s.tool_calls) {
    w.str(c.name);
    w.value(c.args);
    w.str(c.args_key);
    w.value(c.result);
    w.str(c.error);
    w.f64(c.duration_ms);
    w.u8((c.args_truncated ? 1 : 0) | (c.result_truncated ? 2 : 0) | (c.cached ? 4 : 0));
  }
  w.varint(s.pmap_calls.size());
  for (const ParallelCall& p : s.pmap_calls) {
    w.str(p.kind);
    w.varint(p.count);
    w.varint(p.success_count);
    w.varint(p.error_count);
    w.f64(p.duration_ms);
  }
  const Usage& u = s.usage;
  w.f64(u.duration_ms);
  w.varint(u.memory_bytes);
  w.varint(u.eval_reductions);
  w.varint(u.peak_live_bytes);
  w.varint(u.allocated_bytes);
  w.varint(u.collections);
  w.f64(u.collect_ms);
  return std::move(w.out);
}

Step decode_step(std::string_view body) {
  ValueReader r = reader_of(body);
  Step s;
  uint8_t flags = r.u8("done (flags)");
  if (flags > 7) r.fail("done (flags): unknown flags");
  s.ok = flags & 1;
  s.returned = flags & 2;
  s.truncated = flags & 4;
  s.value = r.value("done (value)");
  s.memory = r.value("done (memory)");
  s.printed = r.str("done (printed)");
  uint8_t kind = r.u8("done (error kind)");
  if (kind > static_cast<uint8_t>(ErrorKind::InternalError))
    r.fail(fmt::format("done (error kind): {} is not a kind", kind));
  s.error.kind = static_cast<ErrorKind>(kind);
  s.error.message = r.str("done (error message)");
  s.error.hint = r.str("done (error hint)");
  s.error.loc.line = r.u32("done (error line)");
  s.error.loc.col = r.u32("done (error column)");
  s.error.fail_value = r.str("done (fail value)");
  s.fail_value = r.value("done (fail value)");
  s.prints = read_strings(r, "done (prints)");
  size_t calls = r.count("done (tool calls)", 8);
  s.tool_calls.reserve(calls);
  for (size_t i = 0; i < calls; ++i) {
    ToolCall c;
    c.name = r.str("done (tool call name)");
    c.args = r.value("done (tool call arguments)");
    c.args_key = r.str("done (tool call key)");
    c.result = r.value("done (tool call result)");
    c.error = r.str("done (tool call error)");
    c.duration_ms = r.f64("done (tool call duration)");
    uint8_t f = r.u8("done (tool call flags)");
    if (f > 7) r.fail("done (tool call flags): unknown flags");
    c.args_truncated = f & 1;
    c.result_truncated = f & 2;
    c.cached = f & 4;
    s.tool_calls.push_back(std::move(c));
  }
  size_t parallel = r.count("done (parallel calls)", 12);
  for (size_t i = 0; i < parallel; ++i) {
    ParallelCall p;
    p.kind = r.str("done (parallel call kind)");
    p.count = read_size(r, "done (parallel call count)");
    p.success_count = read_size(r, "done (parallel call successes)");
    p.error_count = read_size(r, "done (parallel call errors)");
    p.duration_ms = r.f64("done (parallel call duration)");
    s.pmap_calls.push_back(std::move(p));
  }
  Usage& u = s.usage;
  u.duration_ms = r.f64("done (duration)");
  u.memory_bytes = read_size(r, "done (memory bytes)");
  u.eval_reductions = r.varint("done (reductions)");
  u.peak_live_bytes = read_size(r, "done (peak live bytes)");
  u.allocated_bytes = read_size(r, "done (allocated bytes)");
  u.collections = r.varint("done (collections)");
  u.collect_ms = r.f64("done (collection time)");
  expect_end(r, "done");
  return s;
}

}  // namespace ptc::isolation
