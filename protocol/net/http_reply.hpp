// An HTTP/1.1 response read as its bytes arrive: the status line and every
// header, then the body framed by Content-Length, by chunks or by the end of
// the connection, and when it is complete (an MCP SSE stream, which stays
// open, once an event answers the request's JSON-RPC id). The bytes come
// from the server: untrusted (tests/fuzz/fuzz_upstream.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptc::net {

// A response as far as it has arrived.
struct HttpReply {
  bool head_complete = false;  // the status line and headers are all here
  bool is_http = false;        // the status line starts with "HTTP/"
  int status = 0;              // 0 when the status line has no 3-digit code
  std::vector<std::pair<std::string, std::string>> headers;  // names lower case, in order
  std::string content_type;                                  // lower case
  bool chunked = false;
  std::optional<size_t> content_length;
  bool event_stream = false;
  // The body is whole: Content-Length bytes, the last chunk, or (an SSE
  // stream, which may stay open) an event answering the expected id.
  bool complete = false;
  std::string body;  // decoded: the complete chunks so far; at most Content-Length bytes
  // The connection may carry another request: HTTP/1.1 without
  // "Connection: close" (or HTTP/1.0 with keep-alive).
  bool keep_alive = false;
  // Bytes of the whole response when it is complete and framed (by its
  // Content-Length, or chunks up to the final blank line); 0 otherwise.
  size_t length = 0;
};

// Decodes a response incrementally: each byte is looked at about once, so a
// large body costs no more than its size. Interim 1xx responses are skipped.
class HttpReplyReader {
 public:
  // `sse_expect_id`: the JSON-RPC id an SSE stream must answer (-1: none).
  // `head_request`: the reply to HEAD, which has no body whatever it says.
  explicit HttpReplyReader(int64_t sse_expect_id = -1, bool head_request = false);
  // The next bytes received. Never throws (but bad_alloc).
  void append(std::string_view bytes);
  const HttpReply& reply() const { return reply_; }
  HttpReply& reply() { return reply_; }
  size_t received() const { return received_; }  // every byte appended

 private:
  enum class Stage { Head, Sized, UntilClose, ChunkSize, ChunkData, Trailer, Done };
  void read_head();
  void start_body();
  void read_body(std::string_view bytes);
  void read_chunks();
  void check_event_stream();
  size_t consumed() const { return dropped_ + pos_; }  // bytes of `buffer_`'s stream used

  int64_t sse_expect_id_;
  bool head_request_;
  HttpReply reply_;
  Stage stage_ = Stage::Head;
  size_t received_ = 0;
  size_t head_bytes_ = 0;  // of the final head and any 1xx heads before it
  // Head and chunked bytes not used yet: `buffer_[pos_..]`; `dropped_`
  // counts what was erased from its front.
  std::string buffer_;
  size_t pos_ = 0, dropped_ = 0;
  size_t scanned_ = 0;  // in buffer_: where to look for the next line end
  size_t body_left_ = 0, chunk_size_ = 0;
  size_t events_scanned_ = 0;    // in the body: SSE events up to here are checked
  size_t boundary_scanned_ = 0;  // in the body: no event ends before here unseen
};

// The reply that `bytes` make, read in one piece.
HttpReply parse_http_reply(std::string_view bytes, int64_t sse_expect_id);

}  // namespace ptc::net
