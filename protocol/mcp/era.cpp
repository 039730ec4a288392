#include "protocol/mcp/era.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include "protocol/mcp/json_rpc.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::mcp {

namespace {

using host::str;

using simdjson::dom::element_type;

simdjson::dom::parser& thread_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

bool is_string(const simdjson::dom::element& e) {
  return e.type() == element_type::STRING;
}

// The member `key` of an object (the last of a repeated key, as a parsed
// tree keeps it; at_key finds the first); nullopt when absent or no object.
std::optional<simdjson::dom::element> member(const simdjson::dom::element& object,
                                             std::string_view key) {
  std::optional<simdjson::dom::element> found;
  if (object.type() != element_type::OBJECT) return found;
  simdjson::dom::object members = object.get_object().value_unsafe();
  for (simdjson::dom::key_value_pair kv : members)
    if (kv.key == key) found = kv.value;
  return found;
}

// clientCapabilities.extensions[io.modelcontextprotocol/tasks] is an object.
bool declares_tasks_extension(const simdjson::dom::element& capabilities) {
  auto extensions = member(capabilities, "extensions");
  auto tasks = extensions ? member(*extensions, kTasksExtension) : std::nullopt;
  return tasks && tasks->type() == element_type::OBJECT;
}

}  // namespace

bool is_modern_version(std::string_view version) {
  // ISO dates compare as text.
  return version >= kModernRevision;
}

Envelope read_envelope(const simdjson::dom::element& meta) {
  Envelope e;
  if (meta.type() != element_type::OBJECT) return e;
  // One pass over the members, a later one of a repeated key overwriting.
  std::optional<simdjson::dom::element> version, capabilities, info, level;
  simdjson::dom::object members = meta.get_object().value_unsafe();
  for (simdjson::dom::key_value_pair kv : members) {
    if (kv.key == kProtocolVersionKey)
      version = kv.value;
    else if (kv.key == kClientCapabilitiesKey)
      capabilities = kv.value;
    else if (kv.key == kClientInfoKey)
      info = kv.value;
    else if (kv.key == kLogLevelKey)
      level = kv.value;
  }
  if (!version) return e;  // no claim: a 2025-era request that happens to carry _meta
  if (is_string(*version)) {
    e.version = std::string(version->get_string().value_unsafe());
    if (!is_modern_version(e.version)) return e;  // a 2025 version named in _meta: 2025-era
  }
  e.modern = true;
  // clientInfo is an Implementation: at least a name and a version.
  auto name = info ? member(*info, "name") : std::nullopt;
  auto info_version = info ? member(*info, "version") : std::nullopt;
  bool implementation = name && is_string(*name) && info_version && is_string(*info_version);
  if (implementation) e.client_name = std::string(name->get_string().value_unsafe());
  e.tasks = capabilities && capabilities->type() == element_type::OBJECT &&
            declares_tasks_extension(*capabilities);
  auto issue = [&e](std::string_view key, std::string_view problem) {
    if (!e.issue.empty()) return;
    e.issue_key = key;
    e.issue = problem;
  };
  // Missing required keys first, then keys of the wrong shape, in key order.
  if (!capabilities) issue(kClientCapabilitiesKey, "missing");
  if (!is_string(*version)) issue(kProtocolVersionKey, "expected a protocol version string");
  if (capabilities && capabilities->type() != element_type::OBJECT)
    issue(kClientCapabilitiesKey, "expected an object");
  if (info && !implementation)
    issue(kClientInfoKey, "expected an object with a string name and version");
  if (level && !is_string(*level)) issue(kLogLevelKey, "expected a log level name");
  return e;
}

Envelope read_envelope(std::string_view meta_json) {
  simdjson::dom::element meta;
  if (meta_json.empty() || thread_parser().parse(meta_json.data(), meta_json.size()).get(meta))
    return Envelope();
  return read_envelope(meta);
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
