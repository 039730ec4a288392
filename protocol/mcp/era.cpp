#include "protocol/mcp/era.hpp"

#include <fmt/format.h>

#include "protocol/mcp/json_rpc.hpp"

namespace ptc::mcp {

namespace {

HostValue str(std::string_view s) {
  return HostValue::string(std::string(s));
}

bool is_object(const HostValue* v) {
  return v && v->kind() == HostValue::Kind::Map;
}

bool is_string(const HostValue* v) {
  return v && v->kind() == HostValue::Kind::String;
}

// clientInfo is an Implementation: at least a name and a version.
bool is_implementation(const HostValue* v) {
  return is_object(v) && is_string(v->get("name")) && is_string(v->get("version"));
}

}  // namespace

bool is_modern_version(std::string_view version) {
  // ISO dates compare as text.
  return version >= kModernRevision;
}

Envelope read_envelope(const HostValue& params) {
  Envelope e;
  const HostValue* meta = params.kind() == HostValue::Kind::Map ? params.get("_meta") : nullptr;
  if (!is_object(meta)) return e;
  const HostValue* version = meta->get(kProtocolVersionKey);
  if (!version) return e;  // no claim: a 2025-era request that happens to carry _meta
  if (is_string(version)) {
    e.version = version->text();
    if (!is_modern_version(e.version)) return e;  // a 2025 version named in _meta: 2025-era
  }
  e.modern = true;
  auto issue = [&e](std::string_view key, std::string_view problem) {
    if (!e.issue.empty()) return;
    e.issue_key = key;
    e.issue = problem;
  };
  // Missing required keys first, then keys of the wrong shape, in key order.
  const HostValue* capabilities = meta->get(kClientCapabilitiesKey);
  if (!capabilities) issue(kClientCapabilitiesKey, "missing");
  if (!is_string(version)) issue(kProtocolVersionKey, "expected a protocol version string");
  if (capabilities && !is_object(capabilities)) issue(kClientCapabilitiesKey, "expected an object");
  if (const HostValue* info = meta->get(kClientInfoKey); info && !is_implementation(info))
    issue(kClientInfoKey, "expected an object with a string name and version");
  if (const HostValue* level = meta->get(kLogLevelKey); level && !is_string(level))
    issue(kLogLevelKey, "expected a log level name");
  return e;
}

std::string envelope_error_frame(const HostValue& id, const Envelope& envelope) {
  if (!envelope.issue.empty())
    return error_frame(id, kInvalidParams,
                       fmt::format("Invalid _meta envelope for protocol revision {}: {}: {}",
                                   kModernRevision, envelope.issue_key, envelope.issue),
                       HostValue::map({{str("envelope"),
                                        HostValue::map({{str("key"), str(envelope.issue_key)},
                                                        {str("problem"), str(envelope.issue)}})}}));
  if (envelope.version != kModernRevision)
    return error_frame(
        id, kUnsupportedProtocolVersion,
        fmt::format("Unsupported protocol version: {}", envelope.version),
        HostValue::map({{str("supported"), HostValue::vector({str(kModernRevision)})},
                        {str("requested"), str(envelope.version)}}));
  return {};
}

}  // namespace ptc::mcp
