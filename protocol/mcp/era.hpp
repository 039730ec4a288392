// Which revision of MCP a message speaks. Revision 2026-07-28 ("modern")
// has no initialize handshake and no sessions: every request names its
// protocol version and the client's capabilities in params._meta (the
// envelope). A message without that claim is 2025-era and served as before.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"

namespace simdjson::dom {
class element;
}

namespace ptc::mcp {

inline constexpr std::string_view kModernRevision = "2026-07-28";

// The reserved _meta keys.
inline constexpr std::string_view kProtocolVersionKey = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view kClientCapabilitiesKey =
    "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view kClientInfoKey = "io.modelcontextprotocol/clientInfo";
inline constexpr std::string_view kLogLevelKey = "io.modelcontextprotocol/logLevel";
inline constexpr std::string_view kServerInfoKey = "io.modelcontextprotocol/serverInfo";
// The tasks extension's name (clientCapabilities.extensions, capabilities.extensions).
inline constexpr std::string_view kTasksExtension = "io.modelcontextprotocol/tasks";

// The revision's error codes.
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingRequiredClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = -32022;

// Revisions are dates: every one from 2026-07-28 on is of the modern era.
bool is_modern_version(std::string_view version);

struct Envelope {
  // The message claims a modern revision: its _meta names a protocol version
  // that is not a 2025-era one (or names one that is not a string).
  bool modern = false;
  std::string version;  // the version named ("" when it is not a string)
  // The first problem with the envelope ("" when none): which key, and what.
  std::string issue_key;
  std::string issue;
  std::string client_name;  // clientInfo.name ("" when absent)
  bool tasks = false;       // the client declares the extension io.modelcontextprotocol/tasks
};

// Reads params._meta as parsed (parse_message hands it over without building
// a host tree for it); anything but an object makes no claim.
Envelope read_envelope(const simdjson::dom::element& meta);
// The same from its JSON text (the HTTP transport's peek; "" when the request
// has none; text that is not JSON makes no claim).
Envelope read_envelope(std::string_view meta_json);

// An HTTP header value as the revision encodes it (Mcp-Name): as it is, or
// the UTF-8 inside `=?base64?...?=`; nullopt for a sentinel that is not
// valid Base64.
std::optional<std::string> decode_header_value(std::string_view value);

// The error answering an envelope with an issue (-32602, data.envelope), or
// a version this server does not serve (-32022, data.supported/requested);
// "" when the envelope is good for this server.
std::string envelope_error_frame(const HostValue& id, const Envelope& envelope);

}  // namespace ptc::mcp
