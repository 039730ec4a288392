// One TCP connection of the HTTP transport, and what all connections share.
// A connection reads one request at a time (headers, then the body, both
// under the request timeout), checks it, hands a POSTed message to the
// dispatcher with a Peer of its own, and writes the reply when the Peer's
// send() (on a worker thread) posts it back to the connection's strand.
// While a call runs the connection keeps a read open, so that a client that
// goes away cancels its call. Every member is touched only on the strand.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "protocol/mcp/config.hpp"
#include "protocol/mcp/http_backend.hpp"
#include "protocol/mcp/http_guard.hpp"
#include "protocol/mcp/http_rpc.hpp"
#include "protocol/mcp/http_sessions.hpp"

namespace ptc::mcp {

namespace net = boost::asio;
namespace beast_http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

// The transport's settings, resolved from ServerConfig.
struct HttpSettings {
  std::string path = "/mcp";
  size_t max_body_bytes = 8 << 20;  // min(http_max_body_bytes or max_frame_bytes, max_frame_bytes)
  std::chrono::milliseconds request_timeout{2000};      // read a request; wait for its reply; write
  std::chrono::milliseconds keep_alive_timeout{30000};  // an idle connection between requests
  std::chrono::milliseconds linger_timeout{1000};       // discarding input before a close
  // A request's header must arrive within this (slow senders hold no
  // connection long); then request_timeout covers the rest.
  std::chrono::milliseconds header_timeout{5000};
  size_t max_connections = 4096;  // open at once; 0: no cap
  size_t max_per_peer = 256;      // open at once from one address; 0: no cap

  static HttpSettings from_config(const ServerConfig& config);
};

// Lets worker threads post replies while the transport lives, and makes
// them drop replies once it is gone (a call that outlives the drain).
class ReplyGate {
 public:
  template <class F>
  void run(F&& f) {
    std::lock_guard lock(mu_);
    if (open_) f();
  }
  void close() {
    std::lock_guard lock(mu_);
    open_ = false;
  }

 private:
  std::mutex mu_;
  bool open_ = true;
};

class HttpConnection;

struct HttpShared {
  HttpShared(McpBackend& b, const ServerConfig& config);

  McpBackend& backend;
  HttpSettings settings;
  HttpGuardPolicy policy;
  HttpSessions sessions;
  std::shared_ptr<ReplyGate> gate = std::make_shared<ReplyGate>();
  std::atomic<bool> draining{false};

  // X-Request-Id when the client sends none: a random prefix and a counter.
  std::string next_request_id();

  // Live connections, so that the end of the drain can close them, counted
  // per client address. admit() takes a place for a new connection from
  // `peer` ("" when unknown), or says why there is none; add() fills it.
  std::optional<std::string> admit(const std::string& peer);
  void add(const std::shared_ptr<HttpConnection>& c, const std::string& peer);
  void remove(const HttpConnection* c);
  std::vector<std::shared_ptr<HttpConnection>> connections();
  size_t connection_count();
  // Called (on some connection's strand) when the last connection goes
  // while `closing_all` is set.
  std::function<void()> on_all_closed;
  std::atomic<bool> closing_all{false};

 private:
  std::string request_id_prefix_;
  std::atomic<uint64_t> request_counter_{0};
  std::mutex mu_;
  struct Entry {
    std::weak_ptr<HttpConnection> connection;
    std::string peer;
  };
  std::unordered_map<const HttpConnection*, Entry> connections_;
  std::unordered_map<std::string, size_t> per_peer_;
  size_t admitted_ = 0;  // places taken by admit() and not yet added
};

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(HttpShared& shared, tcp::socket socket);
  ~HttpConnection();

  void start();
  // From any thread: the reply to the request numbered `seq`.
  void deliver(uint64_t seq, std::string frame);
  // From any thread: close, unless a response is being written (then close
  // after it).
  void shut();

 private:
  enum class Phase { Idle, Reading, Waiting, Writing, Closing, Closed };
  using Request = beast_http::request<beast_http::string_body>;
  using Response = beast_http::response<beast_http::string_body>;

  // Reading.
  void await_request();
  void read_some();
  void on_read_some(boost::system::error_code ec, size_t n);
  void read_request();
  void on_header(boost::system::error_code ec);
  void on_body(boost::system::error_code ec);
  void on_read_error(boost::system::error_code ec);
  // Routing and the MCP endpoint.
  void route();
  void begin_post();
  // A header of the request being read, by name; nullopt when absent.
  std::optional<std::string_view> header(std::string_view name) const;
  void handle_delete();
  void handle_message();
  enum class Era { Legacy, Modern, Refused };
  Era route_modern(const RpcPeek& peek);
  void refuse_modern(std::string frame);
  void refuse_mismatch(std::string_view header, std::string body);
  void on_reply(uint64_t seq, std::string frame);
  void on_reply_timeout();
  void peer_gone();
  void end_call();
  // Writing.
  void reject(const HttpRejection& r);
  void reject(unsigned status, std::string message);
  void respond_rpc(unsigned status, std::string frame);
  void respond(Response res);
  void on_written(boost::system::error_code ec);
  // Closing and timers.
  void linger_close();
  void close_now();
  void arm_deadline(std::chrono::milliseconds d);
  void disarm_deadline();
  void schedule_timer();
  void on_timer();
  void on_deadline();
  void log_request();

  HttpShared& shared_;
  const net::any_io_executor executor_;  // the connection's strand
  tcp::socket socket_;
  // One timer serves both deadlines (the phase's I/O deadline and the reply
  // deadline). It is re-armed only when a deadline comes earlier than its
  // expiry; when it fires early it re-arms for what is left. A request
  // thus costs about no timer operations.
  net::steady_timer timer_;
  std::chrono::steady_clock::time_point io_deadline_ = std::chrono::steady_clock::time_point::max();
  std::chrono::steady_clock::time_point reply_deadline_ =
      std::chrono::steady_clock::time_point::max();
  std::chrono::steady_clock::time_point timer_at_;
  bool timer_armed_ = false;
  uint64_t timer_gen_ = 0;
  boost::beast::flat_buffer buffer_;
  std::optional<beast_http::request_parser<beast_http::string_body>> parser_;
  Response response_;
  beast_http::response<beast_http::empty_body> continue_;
  Phase phase_ = Phase::Idle;
  bool read_pending_ = false;
  bool first_request_ = true;
  bool timed_out_ = false;  // the request deadline passed while reading
  bool peer_closed_ = false;
  bool shut_requested_ = false;

  // The request being served.
  struct Current {
    std::chrono::steady_clock::time_point started;
    std::string request_id;
    std::string method;
    std::string path;
    std::string session;        // Mcp-Session-Id as sent, or of the new session
    bool event_stream = false;  // reply as SSE
    bool keep_alive = true;
    bool body_read = false;
    // A message handed to the dispatcher.
    uint64_t seq = 0;
    std::string rpc_method;
    bool rpc_has_id = false;
    std::string id_json = "null";
    bool new_session = false;
    bool holds_slot = false;  // one of the session's in-flight slots
    bool modern = false;      // a 2026-07-28 message: no session, JSON replies
    Caller caller;
    unsigned status = 0;
  } cur_;
  uint64_t next_seq_ = 0;
  // A modern request's Caller::connection: this prefix and its sequence
  // number (its in-flight ids are its own).
  std::string modern_key_prefix_;
};

}  // namespace ptc::mcp
