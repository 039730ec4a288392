// What the HTTP transport needs of the dispatcher: Server's calls, behind an
// interface so that the transport's tests can put a scripted dispatcher in
// its place (slow calls, lost replies). serve_http adapts the real Server.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "protocol/mcp/server.hpp"

namespace ptc::mcp {

class McpBackend {
 public:
  virtual ~McpBackend() = default;
  virtual Handled handle(std::string_view frame, const std::shared_ptr<Peer>& peer,
                         const Caller& caller) = 0;
  virtual void cancel_connection(std::string_view connection) = 0;
  virtual void cancel_all() = 0;
  virtual void begin_drain() = 0;
  virtual bool wait_idle(std::chrono::milliseconds grace) = 0;
  virtual size_t in_flight() const = 0;
  virtual uint32_t capacity() const = 0;
  // Whether what calls need beyond this process answers now: the shared
  // store with --store (readiness; may take one round trip to it).
  virtual bool store_reachable() { return true; }
};

// The real one (http_transport.cpp).
class ServerBackend final : public McpBackend {
 public:
  explicit ServerBackend(Server& server) : server_(server) {}
  Handled handle(std::string_view frame, const std::shared_ptr<Peer>& peer,
                 const Caller& caller) override;
  void cancel_connection(std::string_view connection) override;
  void cancel_all() override;
  void begin_drain() override;
  bool wait_idle(std::chrono::milliseconds grace) override;
  size_t in_flight() const override;
  uint32_t capacity() const override;
  bool store_reachable() override;

 private:
  Server& server_;
};

}  // namespace ptc::mcp
