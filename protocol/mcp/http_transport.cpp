// serve_http: the HTTP transport over the real Server.
#include <thread>

#include "protocol/mcp/http_service.hpp"
#include "protocol/mcp/transports.hpp"

namespace ptc::mcp {

namespace {

class ServerBackend final : public McpBackend {
 public:
  explicit ServerBackend(Server& server) : server_(server) {}
  Handled handle(std::string_view frame, const std::shared_ptr<Peer>& peer,
                 const Caller& caller) override {
    return server_.handle(frame, peer, caller);
  }
  void cancel_connection(std::string_view connection) override {
    server_.cancel_connection(connection);
  }
  void cancel_all() override { server_.cancel_all(); }
  void begin_drain() override { server_.begin_drain(); }
  bool wait_idle(std::chrono::milliseconds grace) override { return server_.wait_idle(grace); }
  size_t in_flight() const override { return server_.in_flight(); }
  uint32_t capacity() const override { return server_.capacity(); }

 private:
  Server& server_;
};

}  // namespace

int serve_http(Server& server) {
  ServerBackend backend(server);
  HttpOptions options;
  options.handle_signals = true;
  // The loop only frames bytes; a second thread helps once there are cores
  // to spare beside the workers.
  options.io_threads = std::thread::hardware_concurrency() >= 4 ? 2 : 1;
  HttpService service(backend, server.config(), options);
  if (!service.listen()) return 2;
  return service.run();
}

}  // namespace ptc::mcp
