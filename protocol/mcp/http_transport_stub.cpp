// Placeholder until the Streamable HTTP transport lands (protocol/mcp/http_transport.cpp).
#include "protocol/mcp/log.hpp"
#include "protocol/mcp/transports.hpp"

namespace ptc::mcp {

int serve_http(Server&) {
  log(LogLevel::Error, "http_unavailable", {{"reason", HostValue::string("not built yet")}});
  return 2;
}

}  // namespace ptc::mcp
