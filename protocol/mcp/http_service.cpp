#include "protocol/mcp/http_service.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <exception>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "protocol/mcp/http_connection.hpp"
#include "protocol/mcp/log.hpp"

namespace ptc::mcp {

namespace {

using boost::system::error_code;
using Clock = std::chrono::steady_clock;

std::chrono::milliseconds sweep_period(const ServerConfig& config) {
  auto idle = std::chrono::milliseconds(config.http_session_idle_timeout_ms);
  return std::clamp(idle / 4, std::chrono::milliseconds(1000), std::chrono::milliseconds(60000));
}

}  // namespace

// Member order matters: connections (destroyed with the io_context's
// pending handlers) use `shared`, and the I/O objects need the io_context.
struct HttpService::Impl {
  Impl(McpBackend& b, const ServerConfig& c, HttpOptions o)
      : config(c),
        options(o),
        shared(b, c),
        control(net::make_strand(ioc)),
        acceptor(control),
        retry_timer(control),
        sweep_timer(control),
        signals(control) {
    shared.on_all_closed = [this] { ioc.stop(); };
  }

  ~Impl() {
    shared.gate->close();
    shared.on_all_closed = nullptr;
    ioc.stop();
    if (drain_thread.joinable()) drain_thread.join();
  }

  void accept();
  void refuse(tcp::socket socket, const std::string& why);
  void sweep();
  void await_signal();
  void begin_drain();
  void finish();
  void run_loop();

  ServerConfig config;
  HttpOptions options;
  HttpShared shared;
  net::io_context ioc;
  net::strand<net::io_context::executor_type> control;  // acceptor, timers, signals, drain
  tcp::acceptor acceptor;
  net::steady_timer retry_timer;
  net::steady_timer sweep_timer;
  net::signal_set signals;
  std::atomic<bool> stop_requested{false};
  bool draining = false;  // on `control`
  bool listening = false;
  uint16_t bound_port = 0;
  std::thread drain_thread;
};

// A connection over the caps: 503 at once (best effort: the socket does not
// block, and a client that reads nothing gets nothing), then closed, so a
// flood costs the server one descriptor per connection only for a moment.
void HttpService::Impl::refuse(tcp::socket socket, const std::string& why) {
  static std::atomic<uint64_t> refused{0};
  if (refused.fetch_add(1) % 1000 == 0)
    log(LogLevel::Warning, "http_connection_refused", {{"reason", HostValue::string(why)}});
  std::string body =
      fmt::format(R"({{"jsonrpc":"2.0","id":null,"error":{{"code":-32000,"message":{}}}}})",
                  to_json(HostValue::string("too many connections: " + why)));
  std::string response = fmt::format(
      "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n"
      "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
      body.size(), body);
  error_code ec;
  socket.non_blocking(true, ec);
  socket.write_some(net::buffer(response), ec);
  socket.shutdown(tcp::socket::shutdown_both, ec);
  socket.close(ec);
}

void HttpService::Impl::accept() {
  acceptor.async_accept(net::make_strand(ioc), [this](error_code ec, tcp::socket socket) {
    if (draining || !acceptor.is_open()) return;
    if (ec) {
      // Out of descriptors, usually: try again shortly rather than spin.
      log(LogLevel::Warning, "http_accept_failed", {{"error", HostValue::string(ec.message())}});
      retry_timer.expires_after(std::chrono::milliseconds(100));
      retry_timer.async_wait([this](error_code e) {
        if (!e && !draining) accept();
      });
      return;
    }
    error_code peer_ec;
    tcp::endpoint peer = socket.remote_endpoint(peer_ec);
    std::string address = peer_ec ? std::string() : peer.address().to_string();
    if (std::optional<std::string> full = shared.admit(address)) {
      refuse(std::move(socket), *full);
    } else {
      auto connection = std::make_shared<HttpConnection>(shared, std::move(socket));
      shared.add(connection, address);
      connection->start();
    }
    accept();
  });
}

// Forgets sessions that idled out.
void HttpService::Impl::sweep() {
  sweep_timer.expires_after(sweep_period(config));
  sweep_timer.async_wait([this](error_code ec) {
    if (ec || draining) return;
    for (const std::string& id : shared.sessions.expire(Clock::now())) {
      shared.backend.cancel_connection(id);
      log(LogLevel::Debug, "http_session_expired");
    }
    sweep();
  });
}

void HttpService::Impl::await_signal() {
  signals.async_wait([this](error_code ec, int signal) {
    if (ec) return;
    if (stop_requested.exchange(true)) {
      log(LogLevel::Warning, "http_cancel_all", {{"signal", HostValue::integer(signal)}});
      shared.backend.cancel_all();
    } else {
      log(LogLevel::Info, "http_signal", {{"signal", HostValue::integer(signal)}});
      begin_drain();
    }
    await_signal();
  });
}

void HttpService::Impl::begin_drain() {
  if (draining) return;
  draining = true;
  error_code ignored;
  acceptor.close(ignored);
  retry_timer.cancel();
  sweep_timer.cancel();
  shared.draining = true;
  shared.backend.begin_drain();
  log(LogLevel::Info, "http_draining",
      {{"in_flight", HostValue::integer(static_cast<int64_t>(shared.backend.in_flight()))},
       {"grace_ms", HostValue::integer(config.http_shutdown_grace_ms)}});
  drain_thread = std::thread([this] {
    auto grace = std::chrono::milliseconds(config.http_shutdown_grace_ms);
    if (!shared.backend.wait_idle(grace)) {
      log(LogLevel::Warning, "http_drain_timeout",
          {{"in_flight", HostValue::integer(static_cast<int64_t>(shared.backend.in_flight()))}});
      shared.backend.cancel_all();
      shared.backend.wait_idle(std::chrono::milliseconds(1000));
    }
    // Replies sent before wait_idle returned are already queued on their
    // connections' strands, ahead of the close that finish() queues there.
    net::post(control, [this] { finish(); });
  });
}

void HttpService::Impl::finish() {
  error_code ignored;
  signals.cancel(ignored);
  shared.closing_all = true;
  auto connections = shared.connections();
  if (connections.empty()) {
    ioc.stop();
    return;
  }
  for (auto& c : connections)
    c->shut();
}

void HttpService::Impl::run_loop() {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception& e) {
      log(LogLevel::Error, "http_loop_error", {{"what", HostValue::string(e.what())}});
    }
  }
}

HttpService::HttpService(McpBackend& backend, const ServerConfig& config, HttpOptions options)
    : impl_(std::make_unique<Impl>(backend, config, options)) {}

HttpService::~HttpService() = default;

bool HttpService::listen(std::string* error) {
  Impl& m = *impl_;
  auto fail = [&](std::string reason) {
    log(LogLevel::Error, "http_start_failed", {{"reason", HostValue::string(reason)}});
    if (error) *error = std::move(reason);
    return false;
  };
  std::string problem = http_startup_error(m.config);
  if (!problem.empty()) return fail(problem);

  std::string host = m.config.http_host;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  error_code ec;
  tcp::endpoint endpoint;
  net::ip::address address = net::ip::make_address(host, ec);
  if (!ec) {
    endpoint = tcp::endpoint(address, m.config.http_port);
  } else {
    tcp::resolver resolver(m.ioc);
    auto results = resolver.resolve(host, std::to_string(m.config.http_port), ec);
    if (ec || results.empty())
      return fail(fmt::format("cannot resolve --http-host {}: {}", m.config.http_host,
                              ec ? ec.message() : "no address"));
    endpoint = results.begin()->endpoint();
  }
  m.acceptor.open(endpoint.protocol(), ec);
  if (!ec) m.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) m.acceptor.bind(endpoint, ec);
  if (!ec) m.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    error_code ignored;
    m.acceptor.close(ignored);
    return fail(fmt::format("cannot listen on {}:{}: {}", m.config.http_host, m.config.http_port,
                            ec.message()));
  }
  m.bound_port = m.acceptor.local_endpoint(ec).port();
  m.listening = true;
  // Every connection is a descriptor: the soft limit (often 1,024) goes up
  // to the hard one, and the connection cap stays below what is left of it,
  // so a flood meets the cap (503 at once) before accept() runs dry.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    rlimit raised = files;
    raised.rlim_cur = files.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) files = raised;
  }
  constexpr size_t kSpareDescriptors = 64;  // logs, upstreams, the program cache's files
  if (files.rlim_cur != RLIM_INFINITY && files.rlim_cur > kSpareDescriptors) {
    size_t room = static_cast<size_t>(files.rlim_cur) - kSpareDescriptors;
    if (m.shared.settings.max_connections == 0 || m.shared.settings.max_connections > room)
      m.shared.settings.max_connections = room;
  }
  log(LogLevel::Info, "http_listening",
      {{"host", HostValue::string(m.config.http_host)},
       {"port", HostValue::integer(m.bound_port)},
       {"path", HostValue::string(m.config.http_path)},
       {"descriptors", HostValue::integer(static_cast<int64_t>(files.rlim_cur))},
       {"max_connections",
        HostValue::integer(static_cast<int64_t>(m.shared.settings.max_connections))}});
  return true;
}

uint16_t HttpService::port() const {
  return impl_->bound_port;
}

int HttpService::run() {
  Impl& m = *impl_;
  if (!m.listening) return 2;
  net::post(m.control, [&m] {
    if (m.options.handle_signals) {
      m.signals.add(SIGINT);
      m.signals.add(SIGTERM);
      m.await_signal();
    }
    if (m.stop_requested.load()) return m.begin_drain();
    m.accept();
    m.sweep();
  });
  std::vector<std::thread> threads;
  for (unsigned i = 1; i < m.options.io_threads; ++i)
    threads.emplace_back([&m] { m.run_loop(); });
  m.run_loop();
  for (auto& t : threads)
    t.join();
  if (m.drain_thread.joinable()) m.drain_thread.join();
  log(LogLevel::Info, "http_stopped");
  return 0;
}

void HttpService::stop() {
  Impl& m = *impl_;
  if (m.stop_requested.exchange(true)) return;
  net::post(m.control, [&m] { m.begin_drain(); });
}

}  // namespace ptc::mcp
