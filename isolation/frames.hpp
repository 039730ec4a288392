// The worker protocol: frames between a WorkerPool (the parent) and its
// worker processes over two stream sockets each, one per direction. A frame is its length (u32,
// little-endian, of what follows), its kind (u8) and a body in the value
// encoding snapshots use (embedding/value_codec.hpp). The parent trusts
// nothing a worker sends: decode_* check every field and throw LispError
// (snapshot_error) for bytes that are not exactly one well-formed frame body.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "include/ptc/ptc.hpp"

namespace ptc::isolation {

enum class FrameKind : uint8_t {
  Hello = 1,      // worker -> parent, once: jailed and ready
  Run = 2,        // parent -> worker: a program and its options
  ToolCall = 3,   // worker -> parent: call a host tool
  ToolReply = 4,  // parent -> worker: what the tool gave back
  // 5 was Cancel: a cancel is a signal now (SIGUSR1 carrying the run's number).
  Done = 6,     // worker -> parent: the run's Step
  Started = 7,  // worker -> parent: a run still going, compiled this long ago
  Prepare = 8,  // parent -> worker: a prepared context to hold before a run needs it
};

// Bumped when a frame's layout changes: the parent refuses a worker of
// another version (a stale ptc-worker next to a new library).
constexpr uint32_t kProtocolVersion = 2;
constexpr size_t kFrameHeaderBytes = 5;
// Prepared contexts a worker keeps, most recent first; the parent mirrors
// the list (same capacity, same order) to know when to send one again.
constexpr size_t kPreparedContexts = 4;

// The one change both lists make when a run (or a Prepare frame) uses a
// context: `item` takes the place of `found` (end() when the list lacks
// it) at the front, and the least recent one past kPreparedContexts goes.
template <class T>
void hold_first(std::deque<T>& list, typename std::deque<T>::iterator found, T item) {
  if (found != list.end()) list.erase(found);
  list.push_front(std::move(item));
  if (list.size() > kPreparedContexts) list.pop_back();
}

struct Frame {
  FrameKind kind = FrameKind::Hello;
  std::string body;
};

// The header of a frame whose body is `body_bytes` long.
std::string frame_header(FrameKind kind, size_t body_bytes);
// Writes the whole frame (blocking, EINTR retried); false when the peer is
// gone. Callers that share a socket between threads hold a lock around it.
bool write_frame(int fd, FrameKind kind, std::string_view body);

enum class ReadStatus { Ok, Closed, TooLarge, BadKind };

// Reads frames from one socket, as many bytes at a time as have arrived, so
// that frames sent together (Started and Done) cost one read.
class FrameReader {
 public:
  FrameReader(int fd, size_t max_body_bytes) : fd_(fd), max_(max_body_bytes) {}
  // Whether a whole frame is already buffered (next() will not block).
  bool ready() const;
  // The next frame (blocking); a length past the cap or an unknown kind is
  // refused before anything more is read.
  ReadStatus next(Frame& out);
  // The bytes its buffer holds room for.
  size_t capacity() const { return buffer_.size(); }

 private:
  ReadStatus check_header() const;
  int fd_;
  size_t max_;
  std::vector<char> buffer_;  // bytes [start_, end_) are read and not yet taken
  size_t start_ = 0;
  size_t end_ = 0;
};

// ---------------------------------------------------------------- bodies

struct Hello {
  uint32_t version = kProtocolVersion;
  bool seccomp = false;     // the allowlist is loaded
  bool namespaces = false;  // it runs in its own user/pid/net namespaces
};

struct ToolSpec {
  std::string name;
  bool cacheable = false;
  bool deferred = false;
};

// Everything of RunOptions a worker needs: what decides what the program
// computes. The tools' functions, the cancel flag and the telemetry observer
// stay with the parent.
struct RunRequest {
  std::string source;
  enum class Context : uint8_t { Value = 0, Json = 1, Prepared = 2 };
  Context context_form = Context::Value;
  HostValue context;         // Value
  std::string context_json;  // Json
  // Prepared: the worker keeps prepared contexts by id; the value comes
  // along the first time a worker sees an id, already encoded (the pool
  // encodes each prepared context once, for all its workers), as a string.
  uint64_t prepared_id = 0;
  std::shared_ptr<const std::string> prepared_encoded;
  HostValue memory;
  std::vector<HostValue> turn_history;
  std::vector<ToolSpec> tools;
  std::vector<std::string> deferred_tools;
  std::vector<std::pair<std::string, std::string>> unavailable_tools;
  std::optional<ToolCatalog> catalog;
  std::string signature;
  std::optional<int> float_precision;
  Limits limits;
  bool filter_context = true;
  HostValue budget;
  std::string caller;
  std::string profile;
  uint64_t display_limit = 0;
  uint32_t attempt_us = 0;
};

// A prepared context a worker is to hold (the first of its list of
// kPreparedContexts) ahead of the runs over it: a recycled worker's
// successor gets the contexts its predecessor held while it is idle.
struct PrepareRequest {
  uint64_t id = 0;
  std::shared_ptr<const std::string> encoded;  // as RunRequest::prepared_encoded
};

struct ToolCallRequest {
  uint64_t id = 0;
  std::string tool;
  HostValue args;
};

struct ToolReply {
  uint64_t id = 0;
  ToolResult result;
};

std::string encode_hello(const Hello& hello);
Hello decode_hello(std::string_view body);
std::string encode_run(const RunRequest& request);
RunRequest decode_run(std::string_view body);
std::string encode_prepare(const PrepareRequest& request);
PrepareRequest decode_prepare(std::string_view body);
std::string encode_tool_call(const ToolCallRequest& call);
ToolCallRequest decode_tool_call(std::string_view body);
std::string encode_tool_reply(const ToolReply& reply);
ToolReply decode_tool_reply(std::string_view body);
// Started: how many milliseconds ago the program finished compiling.
std::string encode_started(uint32_t since_ms);
uint32_t decode_started(std::string_view body);
std::string encode_step(const Step& step);
Step decode_step(std::string_view body);

}  // namespace ptc::isolation
