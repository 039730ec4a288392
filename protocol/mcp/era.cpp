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
  const HostValue* meta = params.kind() == HostValue::Kind::Map ? params.get("_meta") : nullptr;
  return meta ? read_meta_envelope(*meta) : Envelope();
}

Envelope read_meta_envelope(const HostValue& meta_value) {
  Envelope e;
  const HostValue* meta = &meta_value;
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

std::optional<std::string> decode_header_value(std::string_view value) {
  constexpr std::string_view kPrefix = "=?base64?", kSuffix = "?=";
  if (!value.starts_with(kPrefix) || !value.ends_with(kSuffix) ||
      value.size() < kPrefix.size() + kSuffix.size())
    return std::string(value);
  std::string_view b64 =
      value.substr(kPrefix.size(), value.size() - kPrefix.size() - kSuffix.size());
  if (b64.size() % 4 != 0) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < b64.size(); i += 4) {
    bool last = i + 4 == b64.size();
    int pad = last ? (b64[i + 3] == '=') + (b64[i + 2] == '=' && b64[i + 3] == '=') : 0;
    uint32_t bits = 0;
    for (size_t k = 0; k < 4; ++k) {
      int d = k >= 4 - static_cast<size_t>(pad) ? 0 : digit(b64[i + k]);
      if (d < 0) return std::nullopt;
      bits = bits << 6 | static_cast<uint32_t>(d);
    }
    out += static_cast<char>(bits >> 16);
    if (pad < 2) out += static_cast<char>(bits >> 8 & 0xff);
    if (pad < 1) out += static_cast<char>(bits & 0xff);
  }
  return out;
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
