// Recording and replay of model calls (ptc agent --record / --replay).
// A recording is JSONL, one exchange per line, written and flushed as each
// attempt ends:
//   {"hash": H, "request": {"provider", "path", "body": <the JSON body>},
//    "reply": {"status", "retry_after", "body"}                 (an HTTP reply)
//          or {"failure": "timeout" | "server_error" | ..., "message"}}
// The request holds no header and no host: nothing secret is written (the
// key is also cut out of reply bodies and messages). H is the hash of the
// canonical request (keys sorted), so a replay finds the answer whatever the
// key order; the same request asked several times (a retry) is answered by
// its recordings in order. A replay that finds nothing fails with
// replay_miss, naming the request and the nearest recorded one and where
// they differ.
#pragma once

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "include/ptc/host_value.hpp"
#include "protocol/agent/model/wire.hpp"

namespace ptc::model {

// What came back for one attempt: an HTTP reply, or a failure before one.
struct RecordedReply {
  int status = 0;           // 0 with a failure
  std::string retry_after;  // the Retry-After header, "" when absent
  std::string body;
  Failure failure = Failure::None;  // Timeout, ServerError (no connection, dropped), ...
  std::string message;
};

// `text` with every occurrence of `secret` (an API key) replaced by
// "[redacted]"; unchanged when `secret` is empty. Recordings and the client's
// messages both go through it.
std::string redact_secret(std::string text, std::string_view secret);

// The hash of a request (provider, path and the body's JSON, keys sorted).
std::string request_hash(std::string_view provider, std::string_view path, const HostValue& body);

class Recorder {
 public:
  // Creates (truncates) the file; throws std::invalid_argument when it cannot.
  Recorder(const std::string& path, std::string secret);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  void write(std::string_view provider, std::string_view path, const HostValue& body,
             const RecordedReply& reply);

 private:
  std::FILE* file_ = nullptr;
  std::string secret_;
};

class Replayer {
 public:
  // Reads the file; throws std::invalid_argument naming the line that is not
  // a recorded exchange.
  explicit Replayer(const std::string& path);
  // The next recorded reply to this request, or nullopt with *miss saying
  // which request was not found and the nearest recorded one.
  std::optional<RecordedReply> answer(std::string_view provider, std::string_view path,
                                      const HostValue& body, std::string* miss);

 private:
  struct Entry {
    size_t line;
    std::string hash;
    HostValue request;  // {"provider", "path", "body"}
    RecordedReply reply;
    bool used = false;
  };
  std::string path_;
  std::vector<Entry> entries_;
  size_t asked_ = 0;
};

}  // namespace ptc::model
