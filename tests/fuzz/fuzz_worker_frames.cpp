// What a worker process writes on its socket is untrusted
// (isolation/frames.hpp): a jailed worker runs programs, and one whose engine
// a program subverted may send anything. The input is the bytes a worker
// wrote before it closed its socket: they go through a socketpair into
// the parent's FrameReader (a body cap of kMaxBody, the pool's max_frame_bytes scaled
// down), and every frame's body through every decoder: decode_hello,
// decode_tool_call and decode_step (what the parent reads), decode_run,
// decode_tool_reply and decode_prepare (what a worker reads from its parent).
//
// What must hold: a decoder gives a value or throws LispError (snapshot_error,
// or call_depth_exceeded for nesting past the native stack), nothing else;
// what decodes encodes to bytes that decode to an equal value (field by
// field, floats by their bits; HostValue's operator== too where no NaN is
// inside) and encode to the same bytes again; reading and decoding a frame
// allocate in proportion to the bytes that arrived, never to a length or
// count the bytes claim but do not hold (the sanitizer allocator's hooks
// measure it).
//
// Three inputs in four have their frames' lengths made to fit after a
// mutation (LLVMFuzzerCustomMutator), so that mutations inside a body reach
// the decoders. The seeds are frames as the encoders write them:
// PTC_FUZZ_WRITE_SEEDS=DIR writes them into DIR and exits.
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "embedding/value_codec.hpp"
#include "isolation/frames.hpp"
#include "tests/fuzz/fuzz_support.hpp"

#if defined(__has_include)
#if __has_include(<sanitizer/allocator_interface.h>)
#include <sanitizer/allocator_interface.h>
#define PTC_FUZZ_COUNT_ALLOCATIONS 1
#endif
#endif

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using ptc::HostValue;
namespace iso = ptc::isolation;

constexpr size_t kMaxBody = size_t{1} << 20;
// Bytes a decoder may hold at once per byte of its input, and a margin: a
// HostValue is about 70 bytes, a map's entries are held twice while built,
// an error message is formatted.
constexpr size_t kBytesPerInputByte = 512;
constexpr size_t kMargin = 256 * 1024;

// ------------------------------------------------------------ allocations

#ifdef PTC_FUZZ_COUNT_ALLOCATIONS
thread_local bool t_counting = false;
thread_local int64_t t_live = 0;
thread_local int64_t t_peak = 0;

void on_malloc(const volatile void*, size_t size) {
  if (!t_counting) return;
  t_live += static_cast<int64_t>(size);
  if (t_live > t_peak) t_peak = t_live;
}

void on_free(const volatile void* p) {
  if (!t_counting || !p) return;
  t_live -= static_cast<int64_t>(__sanitizer_get_allocated_size(p));
}
#endif

void check_peak(int64_t peak, size_t input_bytes, const char* what) {
  auto bound = static_cast<int64_t>(kBytesPerInputByte * input_bytes + kMargin);
  if (peak > bound)
    ptc::fuzz::property_failed("allocations in proportion to the input",
                               std::string(what) + ": " + std::to_string(peak) +
                                   " bytes live at once from " + std::to_string(input_bytes) +
                                   " bytes (bound " + std::to_string(bound) + ")");
}

// Runs `f` (reading or decoding `input_bytes` bytes) and checks the most
// bytes it held live at once, whether it returned or threw.
template <class F>
void bounded(size_t input_bytes, const char* what, F&& f) {
#ifdef PTC_FUZZ_COUNT_ALLOCATIONS
  t_live = t_peak = 0;
  t_counting = true;
  std::exception_ptr failure;
  try {
    f();
  } catch (...) {
    failure = std::current_exception();
  }
  t_counting = false;
  check_peak(t_peak, input_bytes, what);
  if (failure) std::rethrow_exception(failure);
#else
  (void)input_bytes;
  (void)what;
  f();
#endif
}

// ------------------------------------------------------------ equality

bool has_nan(const HostValue& v) {
  if (v.kind() == HostValue::Kind::Float) return std::isnan(v.as_float());
  for (const HostValue& x : v.items())
    if (has_nan(x)) return true;
  if (const ptc::Restorer* r = v.restorer())
    for (const HostValue& a : r->args)
      if (has_nan(a)) return true;
  return false;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Exactly the same value: kinds, order, float bits, restorers.
bool same(const HostValue& a, const HostValue& b) {
  using K = HostValue::Kind;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::Nil:
      return true;
    case K::Bool:
      return a.as_bool() == b.as_bool();
    case K::Int:
      return a.as_int() == b.as_int();
    case K::Float:
      return same_bits(a.as_float(), b.as_float());
    case K::BigInt:
    case K::String:
    case K::Keyword:
      return a.text() == b.text();
    case K::Vector:
    case K::Map:
    case K::Set: {
      const auto& x = a.items();
      const auto& y = b.items();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!same(x[i], y[i])) return false;
      return true;
    }
    case K::Opaque: {
      if (a.text() != b.text()) return false;
      const ptc::Restorer* r = a.restorer();
      const ptc::Restorer* s = b.restorer();
      if (!r || !s) return !r && !s;
      if (r->factory != s->factory || r->args.size() != s->args.size()) return false;
      for (size_t i = 0; i < r->args.size(); ++i)
        if (!same(r->args[i], s->args[i])) return false;
      return true;
    }
  }
  return false;
}

// `same`, and HostValue's own equality where it is defined (NaN is unequal
// to itself there).
void check_value(const HostValue& a, const HostValue& b, const char* field) {
  if (!same(a, b)) ptc::fuzz::property_failed("a value survives a round trip", field);
  if (!has_nan(a) && !(a == b))
    ptc::fuzz::property_failed("operator== holds after a round trip", field);
}

void check_values(const std::vector<HostValue>& a, const std::vector<HostValue>& b,
                  const char* field) {
  PTC_FUZZ_CHECK(a.size() == b.size(), field);
  for (size_t i = 0; i < a.size(); ++i)
    check_value(a[i], b[i], field);
}

void check_bytes(const std::shared_ptr<const std::string>& a,
                 const std::shared_ptr<const std::string>& b, const char* field) {
  PTC_FUZZ_CHECK(!a == !b && (!a || *a == *b), field);
}

void check_equal(const iso::Hello& a, const iso::Hello& b) {
  PTC_FUZZ_CHECK(a.version == b.version && a.seccomp == b.seccomp && a.namespaces == b.namespaces,
                 "hello");
}

void check_equal(const iso::ToolCallRequest& a, const iso::ToolCallRequest& b) {
  PTC_FUZZ_CHECK(a.id == b.id && a.tool == b.tool, "tool call");
  check_value(a.args, b.args, "tool call (arguments)");
}

void check_equal(const iso::PrepareRequest& a, const iso::PrepareRequest& b) {
  PTC_FUZZ_CHECK(a.id == b.id, "prepare (context id)");
  check_bytes(a.encoded, b.encoded, "prepare (context)");
}

void check_equal(const iso::ToolReply& a, const iso::ToolReply& b) {
  PTC_FUZZ_CHECK(a.id == b.id && a.result.ok == b.result.ok && a.result.error == b.result.error,
                 "tool reply");
  check_value(a.result.value, b.result.value, "tool reply (value)");
}

std::string limits_bytes(const ptc::Limits& l) {
  ptc::ValueWriter w;
  ptc::write_limits(w, l);
  return std::move(w.out);
}

void check_equal(const iso::RunRequest& a, const iso::RunRequest& b) {
  PTC_FUZZ_CHECK(a.source == b.source && a.context_form == b.context_form &&
                     a.context_json == b.context_json && a.prepared_id == b.prepared_id,
                 "run (source, context)");
  check_value(a.context, b.context, "run (context)");
  check_bytes(a.prepared_encoded, b.prepared_encoded, "run (prepared context)");
  check_value(a.memory, b.memory, "run (memory)");
  check_values(a.turn_history, b.turn_history, "run (turn history)");
  PTC_FUZZ_CHECK(a.tools.size() == b.tools.size(), "run (tools)");
  for (size_t i = 0; i < a.tools.size(); ++i)
    PTC_FUZZ_CHECK(a.tools[i].name == b.tools[i].name &&
                       a.tools[i].cacheable == b.tools[i].cacheable &&
                       a.tools[i].deferred == b.tools[i].deferred,
                   "run (tool)");
  PTC_FUZZ_CHECK(a.deferred_tools == b.deferred_tools && a.unavailable_tools == b.unavailable_tools,
                 "run (deferred, unavailable tools)");
  PTC_FUZZ_CHECK(a.catalog.has_value() == b.catalog.has_value(), "run (catalog)");
  if (a.catalog) {
    PTC_FUZZ_CHECK(a.catalog->servers == b.catalog->servers, "run (catalog servers)");
    PTC_FUZZ_CHECK(a.catalog->tools.size() == b.catalog->tools.size(), "run (catalog tools)");
    for (size_t i = 0; i < a.catalog->tools.size(); ++i) {
      const ptc::CatalogTool& x = a.catalog->tools[i];
      const ptc::CatalogTool& y = b.catalog->tools[i];
      PTC_FUZZ_CHECK(x.server == y.server && x.name == y.name && x.description == y.description &&
                         x.read_only == y.read_only,
                     "run (catalog tool)");
      check_value(x.input_schema, y.input_schema, "run (catalog tool's schema)");
    }
  }
  PTC_FUZZ_CHECK(a.signature == b.signature && a.float_precision == b.float_precision,
                 "run (signature, precision)");
  PTC_FUZZ_CHECK(limits_bytes(a.limits) == limits_bytes(b.limits), "run (limits)");
  PTC_FUZZ_CHECK(a.filter_context == b.filter_context, "run (filter_context)");
  check_value(a.budget, b.budget, "run (budget)");
  PTC_FUZZ_CHECK(a.caller == b.caller && a.profile == b.profile &&
                     a.display_limit == b.display_limit && a.attempt_us == b.attempt_us,
                 "run (caller, profile, display limit, attempt)");
}

void check_equal(const ptc::Step& a, const ptc::Step& b) {
  PTC_FUZZ_CHECK(a.ok == b.ok && a.returned == b.returned && a.truncated == b.truncated,
                 "done (flags)");
  check_value(a.value, b.value, "done (value)");
  check_value(a.memory, b.memory, "done (memory)");
  PTC_FUZZ_CHECK(a.printed == b.printed, "done (printed)");
  const ptc::Error& e = a.error;
  const ptc::Error& f = b.error;
  PTC_FUZZ_CHECK(e.kind == f.kind && e.message == f.message && e.hint == f.hint &&
                     e.loc.line == f.loc.line && e.loc.col == f.loc.col &&
                     e.fail_value == f.fail_value,
                 "done (error)");
  check_value(a.fail_value, b.fail_value, "done (fail value)");
  PTC_FUZZ_CHECK(a.prints == b.prints, "done (prints)");
  PTC_FUZZ_CHECK(a.tool_calls.size() == b.tool_calls.size(), "done (tool calls)");
  for (size_t i = 0; i < a.tool_calls.size(); ++i) {
    const ptc::ToolCall& x = a.tool_calls[i];
    const ptc::ToolCall& y = b.tool_calls[i];
    PTC_FUZZ_CHECK(x.name == y.name && x.args_key == y.args_key && x.error == y.error &&
                       same_bits(x.duration_ms, y.duration_ms) &&
                       x.args_truncated == y.args_truncated &&
                       x.result_truncated == y.result_truncated && x.cached == y.cached,
                   "done (tool call)");
    check_value(x.args, y.args, "done (tool call arguments)");
    check_value(x.result, y.result, "done (tool call result)");
  }
  PTC_FUZZ_CHECK(a.pmap_calls.size() == b.pmap_calls.size(), "done (parallel calls)");
  for (size_t i = 0; i < a.pmap_calls.size(); ++i) {
    const ptc::ParallelCall& x = a.pmap_calls[i];
    const ptc::ParallelCall& y = b.pmap_calls[i];
    PTC_FUZZ_CHECK(x.kind == y.kind && x.count == y.count && x.success_count == y.success_count &&
                       x.error_count == y.error_count && same_bits(x.duration_ms, y.duration_ms),
                   "done (parallel call)");
  }
  const ptc::Usage& u = a.usage;
  const ptc::Usage& v = b.usage;
  PTC_FUZZ_CHECK(same_bits(u.duration_ms, v.duration_ms) && u.memory_bytes == v.memory_bytes &&
                     u.eval_reductions == v.eval_reductions &&
                     u.peak_live_bytes == v.peak_live_bytes &&
                     u.allocated_bytes == v.allocated_bytes && u.collections == v.collections &&
                     same_bits(u.collect_ms, v.collect_ms),
                 "done (usage)");
}

// ------------------------------------------------------------ decoding

// Decodes `body` as a T; when it decodes, the round trip holds.
template <class T>
void exercise(std::string_view body, T (*decode)(std::string_view), std::string (*encode)(const T&),
              const char* what) {
  T value;
  try {
    bounded(body.size(), what, [&] { value = decode(body); });
  } catch (ptc::LispError& e) {
    auto k = e.error().kind;
    PTC_FUZZ_CHECK(k == ptc::ErrorKind::SnapshotError || k == ptc::ErrorKind::CallDepthExceeded,
                   std::string(what) + ": " + ptc::format_error(e.error()));
    ptc::fuzz::debug(what, ptc::format_error(e.error()));
    return;
  } catch (const std::exception& e) {
    ptc::fuzz::property_failed("a decoder throws only LispError",
                               std::string(what) + ": " + e.what());
  }
  ptc::fuzz::debug(what, "decoded");
  std::string encoded;
  try {
    encoded = encode(value);
  } catch (ptc::LispError& e) {
    ptc::fuzz::property_failed("what decodes encodes",
                               std::string(what) + ": " + ptc::format_error(e.error()));
  }
  T again;
  try {
    again = decode(encoded);
  } catch (ptc::LispError& e) {
    ptc::fuzz::property_failed("what encodes decodes",
                               std::string(what) + ": " + ptc::format_error(e.error()));
  }
  check_equal(value, again);
  PTC_FUZZ_CHECK(encode(again) == encoded, std::string(what) + ": encoding is not stable");
}

void decode_all(std::string_view body) {
  exercise<iso::Hello>(body, iso::decode_hello, iso::encode_hello, "hello");
  exercise<iso::ToolCallRequest>(body, iso::decode_tool_call, iso::encode_tool_call, "tool call");
  exercise<ptc::Step>(body, iso::decode_step, iso::encode_step, "done");
  exercise<iso::RunRequest>(body, iso::decode_run, iso::encode_run, "run");
  exercise<iso::ToolReply>(body, iso::decode_tool_reply, iso::encode_tool_reply, "tool reply");
  exercise<iso::PrepareRequest>(body, iso::decode_prepare, iso::encode_prepare, "prepare");
}

const char* status_name(iso::ReadStatus s) {
  switch (s) {
    case iso::ReadStatus::Ok:
      return "ok";
    case iso::ReadStatus::Closed:
      return "closed";
    case iso::ReadStatus::TooLarge:
      return "too large";
    case iso::ReadStatus::BadKind:
      return "bad kind";
  }
  return "?";
}

// The input as a worker's whole output: frames until the stream ends or a
// frame is refused (the parent kills the worker then).
void read_stream(std::string_view bytes) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) std::abort();
  // A fuzz input (-max_len) is far smaller than a socket's buffer.
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = write(sv[1], bytes.data() + off, bytes.size() - off);
    if (n <= 0) std::abort();
    off += static_cast<size_t>(n);
  }
  close(sv[1]);
  iso::FrameReader reader(sv[0], kMaxBody);
  for (;;) {
    iso::Frame frame;
    iso::ReadStatus status = iso::ReadStatus::Ok;
    bounded(bytes.size(), "FrameReader::next", [&] { status = reader.next(frame); });
    ptc::fuzz::debug("frame", status_name(status));
    if (status != iso::ReadStatus::Ok) break;
    PTC_FUZZ_CHECK(frame.body.size() <= kMaxBody, "the frame reader passed the cap");
    PTC_FUZZ_CHECK(reader.capacity() <= 2 * bytes.size() + (size_t{128} << 10),
                   "the frame reader's buffer outgrew what arrived");
    if (frame.kind == iso::FrameKind::Started) {
      try {
        (void)iso::decode_started(frame.body);
      } catch (const ptc::LispError&) {}
    }
    decode_all(frame.body);
  }
  close(sv[0]);
}

// ------------------------------------------------------------ seeds

std::string frame(iso::FrameKind kind, const std::string& body) {
  return iso::frame_header(kind, body.size()) + body;
}

HostValue sample_value() {
  auto restorer = std::make_shared<ptc::Restorer>();
  restorer->factory = "(fn [n] (fn [x] (+ x n)))";
  restorer->args = {HostValue::integer(5)};
  return HostValue::map({
      {HostValue::keyword("id"), HostValue::integer(-42)},
      {HostValue::string("name"), HostValue::string("ünïcode")},
      {HostValue::string("big"), HostValue::bigint("-123456789012345678901234567890")},
      {HostValue::string("xs"),
       HostValue::vector({HostValue::floating(2.5), HostValue::nil(), HostValue::boolean(true),
                          HostValue::boolean(false)})},
      {HostValue::string("tags"),
       HostValue::set({HostValue::keyword("a"), HostValue::string("b")})},
      {HostValue::string("f"), HostValue::opaque("#fn[add-n]", restorer)},
      {HostValue::string("re"), HostValue::opaque("#\"a+\"")},
  });
}

std::vector<std::string> seeds() {
  using K = iso::FrameKind;
  std::vector<std::string> out;
  iso::Hello hello;
  out.push_back(frame(K::Hello, iso::encode_hello(hello)));
  hello.seccomp = hello.namespaces = true;
  out.push_back(frame(K::Hello, iso::encode_hello(hello)));

  iso::ToolCallRequest call{7, "get", sample_value()};
  out.push_back(frame(K::ToolCall, iso::encode_tool_call(call)));
  out.push_back(frame(K::ToolCall, iso::encode_tool_call({0, "echo", HostValue::map({})})));

  iso::ToolReply reply{7, ptc::ToolResult::success(sample_value())};
  out.push_back(frame(K::ToolReply, iso::encode_tool_reply(reply)));
  out.push_back(frame(K::ToolReply, iso::encode_tool_reply({8, ptc::ToolResult::failure("no")})));

  ptc::Step ok;
  ok.ok = true;
  ok.value = sample_value();
  ok.memory = HostValue::map({{HostValue::string("total"), HostValue::integer(3)}});
  ok.printed = "{:id -42}";
  ok.prints = {"hello", "world"};
  ptc::ToolCall c;
  c.name = "get";
  c.args = HostValue::map({{HostValue::string("id"), HostValue::integer(1)}});
  c.args_key = "0123456789abcdef0123456789abcdef";
  c.result = HostValue::vector({HostValue::integer(1)});
  c.duration_ms = 0.25;
  c.cached = true;
  ok.tool_calls = {c};
  ptc::ParallelCall p;
  p.kind = "pmap";
  p.count = 3;
  p.success_count = 2;
  p.error_count = 1;
  p.duration_ms = 1.5;
  ok.pmap_calls = {p};
  ok.usage.duration_ms = 0.5;
  ok.usage.memory_bytes = 4096;
  ok.usage.eval_reductions = 100;
  ok.usage.collections = 1;
  out.push_back(frame(K::Done, iso::encode_step(ok)));
  ptc::Step failed;
  failed.error.kind = ptc::ErrorKind::Fail;
  failed.error.message = "failed";
  failed.error.hint = "a hint";
  failed.error.loc = {3, 7};
  failed.error.fail_value = "{:code 1}";
  failed.fail_value = HostValue::map({{HostValue::keyword("code"), HostValue::integer(1)}});
  out.push_back(frame(K::Done, iso::encode_step(failed)));

  iso::RunRequest run;
  run.source = "(reduce + (map :n (tool/get {:id 1})))";
  run.context = sample_value();
  run.memory = HostValue::map({{HostValue::string("m"), HostValue::integer(1)}});
  run.turn_history = {HostValue::integer(1), HostValue::string("two")};
  run.tools = {{"get", true, false}, {"put", false, true}};
  run.deferred_tools = {"put"};
  run.unavailable_tools = {{"gone", "the server is down"}};
  ptc::ToolCatalog catalog;
  catalog.servers = {{"fs", "files"}};
  catalog.tools = {{"fs", "read", "reads a file", sample_value(), true}};
  run.catalog = catalog;
  run.signature = "(id :int) -> :int";
  run.float_precision = 2;
  run.limits.max_tool_calls = 5;
  run.budget = HostValue::map({{HostValue::string("tokens"), HostValue::integer(100)}});
  run.caller = "test";
  run.profile = "structured";
  run.display_limit = 200;
  run.attempt_us = 5;
  out.push_back(frame(K::Run, iso::encode_run(run)));
  iso::RunRequest json;
  json.source = "data/x";
  json.context_form = iso::RunRequest::Context::Json;
  json.context_json = R"({"x": [1, 2]})";
  out.push_back(frame(K::Run, iso::encode_run(json)));
  iso::RunRequest prepared;
  prepared.source = "(count data/xs)";
  prepared.context_form = iso::RunRequest::Context::Prepared;
  prepared.prepared_id = 3;
  ptc::ValueWriter encoded;
  encoded.value(sample_value());
  prepared.prepared_encoded = std::make_shared<const std::string>(std::move(encoded.out));
  out.push_back(frame(K::Run, iso::encode_run(prepared)));
  out.push_back(frame(K::Prepare, iso::encode_prepare({4, prepared.prepared_encoded})));
  out.push_back(frame(K::Started, iso::encode_started(40)));

  // A worker's whole conversation: hello, two tool calls, its result.
  out.push_back(out[1] + out[2] + out[3] + out[6]);
  // Arguments nested 48 deep.
  HostValue deep = HostValue::nil();
  for (int i = 0; i < 48; ++i)
    deep = HostValue::vector({deep, HostValue::integer(i)});
  out.push_back(frame(K::ToolCall, iso::encode_tool_call({1, "get", deep})));
  // What the campaigns found: 1,500 nested vectors each claiming 127 items
  // (reserved ahead, they held 13 MB), and a frame that stops midway (an
  // odd length: the worker stays silent).
  std::string claims = "\x01";
  for (int i = 0; i < 1500; ++i)
    claims += "\x08\x7f";
  out.push_back(frame(K::Done, claims));
  out.push_back(out[2].substr(0, 9));
  return out;
}

int write_seeds(const char* dir) {
  int n = 0;
  for (const std::string& s : seeds()) {
    std::string path = std::string(dir) + "/seed-" + std::to_string(n++);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 1;
    std::fwrite(s.data(), 1, s.size(), f);
    std::fclose(f);
  }
  std::fprintf(stderr, "wrote %d frame seeds to %s\n", n, dir);
  return 0;
}

// Makes each frame's length fit: a length that runs past the end of the
// input (or is 0) becomes what is left, so the last frame ends at the end.
void fit_lengths(uint8_t* data, size_t size) {
  size_t pos = 0;
  while (pos + iso::kFrameHeaderBytes <= size) {
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i)
      n |= static_cast<uint32_t>(data[pos + i]) << (8 * i);
    size_t left = size - pos - 4;
    if (n == 0 || n > left) {
      n = static_cast<uint32_t>(left);
      for (int i = 0; i < 4; ++i)
        data[pos + i] = static_cast<uint8_t>((n >> (8 * i)) & 0xff);
    }
    pos += 4 + size_t{n};
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("PTC_FUZZ_WRITE_SEEDS")) std::exit(write_seeds(dir));
#ifdef PTC_FUZZ_COUNT_ALLOCATIONS
  __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
#endif
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  size = LLVMFuzzerMutate(data, size, max_size);
  if (seed % 4 != 0) fit_lengths(data, size);
  return size;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  read_stream(ptc::fuzz::as_text(data, size));
  return 0;
}
