// serve_http: the HTTP transport over the real Server.
#include <thread>

#include "protocol/mcp/http_service.hpp"
#include "protocol/mcp/shared_store.hpp"
#include "protocol/mcp/transports.hpp"

namespace ptc::mcp {

Handled ServerBackend::handle(std::string_view frame, const std::shared_ptr<Peer>& peer,
                              const Caller& caller) {
  return server_.handle(frame, peer, caller);
}
void ServerBackend::cancel_connection(std::string_view connection) {
  server_.cancel_connection(connection);
}
void ServerBackend::cancel_all() {
  server_.cancel_all();
}
void ServerBackend::begin_drain() {
  server_.begin_drain();
}
bool ServerBackend::wait_idle(std::chrono::milliseconds grace) {
  return server_.wait_idle(grace);
}
size_t ServerBackend::in_flight() const {
  return server_.in_flight();
}
uint32_t ServerBackend::capacity() const {
  return server_.capacity();
}
bool ServerBackend::store_reachable() {
  const auto& shared = server_.config().shared_store;
  return !shared || shared->redis->ping();
}

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
