// Helpers of the HTTP transport tests: a blocking Beast client with a
// receive timeout (a misbehaving server fails a test instead of hanging
// it), a scripted McpBackend whose tools/call sleeps, never answers, or
// answers at once, and a harness that runs an HttpService on an ephemeral
// port in a thread.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "include/ptc/ptc.hpp"
#include "protocol/mcp/http_service.hpp"

namespace http_test {

namespace net = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using ptc::HostValue;
using namespace std::chrono_literals;

struct Reply {
  unsigned status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
  bool keep_alive = false;
  bool ok = false;  // a response was read at all

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  HostValue json() const { return ptc::parse_json(body); }
};

// v[key], or nil: a missing member fails the assertion instead of crashing.
inline HostValue field(const HostValue& v, std::string_view key) {
  const HostValue* f = v.get(key);
  return f ? *f : HostValue();
}

// The member at `path` of a reply's JSON body; nil when absent or not JSON.
inline HostValue at(const Reply& r, std::initializer_list<std::string_view> path) {
  HostValue v;
  try {
    v = r.json();
  } catch (...) {
    return HostValue();
  }
  for (std::string_view k : path)
    v = field(v, k);
  return v;
}

// A string's text, or a marker naming what it is instead.
inline std::string text(const HostValue& v) {
  if (v.kind() == HostValue::Kind::String) return v.text();
  if (v.is_nil()) return "<missing>";
  try {
    return "<" + ptc::to_json(v) + ">";
  } catch (...) {
    return "<?>";
  }
}

inline std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// One keep-alive connection.
class Client {
 public:
  explicit Client(uint16_t port, std::chrono::milliseconds timeout = 10s)
      : port_(port), socket_(ioc_) {
    boost::system::error_code ec;
    socket_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port), ec);
    connected_ = !ec;
    if (connected_) {
      timeval tv{};
      tv.tv_sec = static_cast<long>(timeout.count() / 1000);
      tv.tv_usec = static_cast<long>((timeout.count() % 1000) * 1000);
      setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
  }

  bool connected() const { return connected_; }
  tcp::socket& socket() { return socket_; }
  std::string host() const { return "127.0.0.1:" + std::to_string(port_); }

  Reply request(bhttp::verb verb, const std::string& target, const std::string& body = "",
                const std::vector<std::pair<std::string, std::string>>& headers = {},
                bool default_headers = true) {
    bhttp::request<bhttp::string_body> req{verb, target, 11};
    if (default_headers) {
      req.set(bhttp::field::host, host());
      if (verb == bhttp::verb::post) {
        req.set(bhttp::field::content_type, "application/json");
        req.set(bhttp::field::accept, "application/json, text/event-stream");
      }
    }
    for (const auto& [k, v] : headers) {
      if (v.empty())
        req.erase(k);
      else
        req.set(k, v);
    }
    req.body() = body;
    req.prepare_payload();
    boost::system::error_code ec;
    bhttp::write(socket_, req, ec);
    if (ec) return {};
    return read_reply();
  }

  Reply read_reply() {
    Reply out;
    bhttp::response<bhttp::string_body> res;
    boost::system::error_code ec;
    bhttp::read(socket_, buffer_, res, ec);
    if (ec) return out;
    out.ok = true;
    out.status = res.result_int();
    out.body = res.body();
    out.keep_alive = res.keep_alive();
    for (const auto& f : res)
      out.headers[lower(std::string(f.name_string()))] = std::string(f.value());
    return out;
  }

  Reply post(const std::string& body, const std::string& session = "",
             std::vector<std::pair<std::string, std::string>> headers = {}) {
    if (!session.empty()) headers.emplace_back("Mcp-Session-Id", session);
    return request(bhttp::verb::post, "/mcp", body, headers);
  }

  // True when the server closed the connection (EOF or reset).
  bool closed_by_server() {
    char c;
    boost::system::error_code ec;
    socket_.read_some(net::buffer(&c, 1), ec);
    return ec == net::error::eof || ec == net::error::connection_reset;
  }

 private:
  uint16_t port_;
  net::io_context ioc_;
  tcp::socket socket_;
  boost::beast::flat_buffer buffer_;
  bool connected_ = false;
};

inline std::string initialize_body(int id = 1) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},)"
         R"("clientInfo":{"name":"test","version":"1"}}})";
}

inline std::string call_body(int id, const std::string& arguments_json) {
  return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
         R"(,"method":"tools/call","params":{"name":"work","arguments":)" + arguments_json + "}}";
}

// ---------------------------------------------------------------- backend

// A dispatcher with scripted answers. tools/call arguments:
//   {}                  answer at once (on a worker thread)
//   {"sleep_ms": N}     answer after N ms, or "cancelled" when cancelled first
//   {"never": true}     answer only when cancelled
class FakeBackend final : public ptc::mcp::McpBackend {
 public:
  ~FakeBackend() override {
    {
      std::lock_guard lock(mu_);
      for (auto& [key, call] : calls_)
        call->cancelled = true;
    }
    cv_.notify_all();
    for (auto& t : threads_)
      t.join();
  }

  ptc::mcp::Handled handle(std::string_view frame, const std::shared_ptr<ptc::mcp::Peer>& peer,
                           const ptc::mcp::Caller& caller) override {
    using ptc::mcp::Handled;
    {
      std::lock_guard lock(mu_);
      callers_.push_back(caller);
      frames_.emplace_back(frame);
    }
    HostValue msg;
    try {
      msg = ptc::parse_json(frame);
    } catch (...) {
      peer->send(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})");
      return Handled::Reply;
    }
    if (msg.kind() != HostValue::Kind::Map) {
      peer->send(
          R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}})");
      return Handled::Reply;
    }
    const HostValue* method = msg.get("method");
    const HostValue* id = msg.get("id");
    std::string m = method ? method->text() : "";
    if (!id) {
      if (m == "notifications/cancelled") {
        std::string key =
            caller.connection + "/" + ptc::to_json(*msg.get("params")->get("requestId"));
        std::lock_guard lock(mu_);
        cancelled_ids_.push_back(key);
        if (auto it = calls_.find(key); it != calls_.end()) it->second->cancelled = true;
        cv_.notify_all();
      }
      return Handled::NoReply;
    }
    std::string id_json = ptc::to_json(*id);
    if (m == "initialize") {
      const HostValue* params = msg.get("params");
      if (params && params->get("fail")) {
        peer->send(reply_error(id_json, -32602, "bad initialize"));
      } else {
        peer->send(reply(id_json, R"({"protocolVersion":"2025-11-25","capabilities":{}})"));
      }
      return Handled::Reply;
    }
    if (m == "ping") {
      peer->send(reply(id_json, "{}"));
      return Handled::Reply;
    }
    if (m == "tools/list") {
      peer->send(reply(id_json, R"({"tools":[]})"));
      return Handled::Reply;
    }
    if (m != "tools/call") {
      peer->send(reply_error(id_json, -32601, "Method not found"));
      return Handled::Reply;
    }
    const HostValue* args = msg.get("params")->get("arguments");
    auto call = std::make_shared<Call>();
    if (args && args->get("sleep_ms"))
      call->sleep = std::chrono::milliseconds(args->get("sleep_ms")->as_int());
    if (args && args->get("never")) call->never = true;
    std::string key = caller.connection + "/" + id_json;
    std::lock_guard lock(mu_);
    calls_[key] = call;
    ++in_flight_;
    cv_.notify_all();
    threads_.emplace_back([this, call, key, id_json, peer] {
      std::unique_lock lk(mu_);
      auto until = std::chrono::steady_clock::now() + call->sleep;
      while (!call->cancelled && (call->never || std::chrono::steady_clock::now() < until)) {
        if (call->never)
          cv_.wait(lk);
        else
          cv_.wait_until(lk, until);
      }
      bool cancelled = call->cancelled;
      calls_.erase(key);
      lk.unlock();
      peer->send(
          cancelled
              ? reply(id_json, R"({"content":[{"type":"text","text":"cancelled"}],"isError":true})")
              : reply(id_json, R"({"content":[{"type":"text","text":"done"}],"isError":false})"));
      lk.lock();
      --in_flight_;
      cv_.notify_all();
    });
    return Handled::Reply;
  }

  void cancel_connection(std::string_view connection) override {
    std::lock_guard lock(mu_);
    cancelled_connections_.emplace_back(connection);

    for (auto& [key, call] : calls_)
      if (key.starts_with(std::string(connection) + "/")) call->cancelled = true;
    cv_.notify_all();
  }
  void cancel_all() override {
    std::lock_guard lock(mu_);
    cancel_all_called_ = true;
    for (auto& [key, call] : calls_)
      call->cancelled = true;
    cv_.notify_all();
  }
  void begin_drain() override {
    std::lock_guard lock(mu_);
    drain_called_ = true;
  }
  bool wait_idle(std::chrono::milliseconds grace) override {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, grace, [this] { return in_flight_ == 0; });
  }
  size_t in_flight() const override {
    std::lock_guard lock(mu_);
    return in_flight_;
  }
  uint32_t capacity() const override { return capacity_; }
  bool store_reachable() override { return store_reachable_.load(); }

  void set_capacity(uint32_t c) { capacity_ = c; }
  void set_store_reachable(bool up) { store_reachable_.store(up); }
  std::vector<ptc::mcp::Caller> callers() {
    std::lock_guard lock(mu_);
    return callers_;
  }
  std::vector<std::string> cancelled_ids() {
    std::lock_guard lock(mu_);
    return cancelled_ids_;
  }
  std::vector<std::string> cancelled_connections() {
    std::lock_guard lock(mu_);
    return cancelled_connections_;
  }
  bool drain_called() {
    std::lock_guard lock(mu_);
    return drain_called_;
  }
  bool cancel_all_called() {
    std::lock_guard lock(mu_);
    return cancel_all_called_;
  }
  // Waits until `pred` holds (checked whenever the backend changes) or 5 s.
  template <class Pred>
  bool wait_for(Pred pred) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 5s, [&] { return pred(); });
  }
  size_t in_flight_locked() const { return in_flight_; }
  const std::vector<std::string>& cancelled_ids_locked() const { return cancelled_ids_; }

 private:
  struct Call {
    std::chrono::milliseconds sleep{0};
    bool never = false;
    bool cancelled = false;
  };
  static std::string reply(const std::string& id, const std::string& result) {
    return R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":)" + result + "}";
  }
  static std::string reply_error(const std::string& id, int code, const std::string& message) {
    return R"({"jsonrpc":"2.0","id":)" + id + R"(,"error":{"code":)" + std::to_string(code) +
           R"(,"message":")" + message + R"("}})";
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<Call>> calls_;
  std::vector<std::thread> threads_;
  size_t in_flight_ = 0;
  uint32_t capacity_ = 8;
  std::atomic<bool> store_reachable_{true};
  std::vector<ptc::mcp::Caller> callers_;
  std::vector<std::string> frames_;
  std::vector<std::string> cancelled_ids_;
  std::vector<std::string> cancelled_connections_;
  bool drain_called_ = false;
  bool cancel_all_called_ = false;
};

// ---------------------------------------------------------------- harness

inline ptc::mcp::ServerConfig test_config() {
  ptc::mcp::ServerConfig c;
  c.http = true;
  c.http_port = 0;
  c.http_request_timeout_ms = 2000;
  c.http_shutdown_grace_ms = 2000;
  return c;
}

// Runs an HttpService over `backend` in a thread; stops it on destruction.
class Running {
 public:
  Running(ptc::mcp::McpBackend& backend, const ptc::mcp::ServerConfig& config,
          ptc::mcp::HttpOptions options = {2, false})
      : service_(backend, config, options) {
    ok_ = service_.listen(&error_);
    if (ok_) thread_ = std::thread([this] { exit_code_ = service_.run(); });
  }
  ~Running() { stop(); }

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  uint16_t port() const { return service_.port(); }
  ptc::mcp::HttpService& service() { return service_; }
  // Stops (as SIGTERM) and waits for run() to return; its exit code.
  int stop() {
    if (thread_.joinable()) {
      service_.stop();
      thread_.join();
    }
    return exit_code_;
  }
  // Waits for run() to return after someone else stopped it.
  int join() {
    if (thread_.joinable()) thread_.join();
    return exit_code_;
  }

 private:
  ptc::mcp::HttpService service_;
  bool ok_ = false;
  std::string error_;
  std::thread thread_;
  int exit_code_ = -1;
};

}  // namespace http_test
