#include "protocol/upstream/handshake.hpp"
#include "runtime/host_builders.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

namespace ptc::upstream {

namespace {

using host::str;

HostValue client_info() {
  return HostValue::map({{str("name"), str("ptc-lisp")}, {str("version"), str("0.1")}});
}

}  // namespace

HostValue initialize_params() {
  return HostValue::map({
      {str("protocolVersion"), str(kClientProtocolVersion)},
      {str("capabilities"), HostValue::map({})},
      {str("clientInfo"), client_info()},
  });
}

HostValue with_modern_envelope(const HostValue& params) {
  std::vector<std::pair<HostValue, HostValue>> entries;
  if (params.kind() == HostValue::Kind::Map) {
    const auto& items = params.items();
    for (size_t i = 0; i + 1 < items.size(); i += 2)
      if (!(items[i].kind() == HostValue::Kind::String && items[i].text() == "_meta"))
        entries.emplace_back(items[i], items[i + 1]);
  }
  entries.emplace_back(
      str("_meta"),
      HostValue::map({{str("io.modelcontextprotocol/protocolVersion"), str(kModernProtocolVersion)},
                      {str("io.modelcontextprotocol/clientCapabilities"), HostValue::map({})},
                      {str("io.modelcontextprotocol/clientInfo"), client_info()}}));
  return HostValue::map(std::move(entries));
}

bool offers_modern(const HostValue& discover_result) {
  const HostValue* versions = discover_result.get("supportedVersions");
  if (!versions || versions->kind() != HostValue::Kind::Vector) return false;
  for (const HostValue& v : versions->items())
    if (v.kind() == HostValue::Kind::String && v.text() == kModernProtocolVersion) return true;
  return false;
}

std::string pinned_refusal(const Reply& discover) {
  std::string why = discover.message;
  if (discover.status == Reply::Status::Ok) {
    const HostValue* versions = discover.result.get("supportedVersions");
    why = "it offers " + (versions ? to_json(*versions) : std::string("no supportedVersions"));
  }
  return fmt::format("server/discover did not offer {} (\"protocol\": \"{}\" pins it): {}",
                     kModernProtocolVersion, kModernProtocolVersion, why);
}

std::string mcp_header_value(std::string_view value) {
  bool plain = !value.empty() && value.front() != ' ' && value.back() != ' ';
  for (char c : value)
    if (c < 0x20 || c > 0x7e) plain = false;
  if (plain) return std::string(value);
  std::string b64(4 * ((value.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()),
                          reinterpret_cast<const unsigned char*>(value.data()),
                          static_cast<int>(value.size()));
  b64.resize(static_cast<size_t>(n));
  return "=?base64?" + b64 + "?=";
}

std::string list_all_tools(const std::function<Reply(const HostValue& params)>& request,
                           std::vector<HostValue>& tools) {
  std::string cursor;
  for (int page = 0; page < 100; ++page) {
    HostValue params =
        cursor.empty() ? HostValue::map({})
                       : HostValue::map({{HostValue::string("cursor"), HostValue::string(cursor)}});
    Reply t = request(params);
    if (t.status != Reply::Status::Ok) return "tools/list failed: " + t.message;
    const HostValue* list = t.result.get("tools");
    if (!list || list->kind() != HostValue::Kind::Vector)
      return "tools/list replied without a tools array";
    for (const HostValue& tool : list->items()) {
      const HostValue* n = tool.kind() == HostValue::Kind::Map ? tool.get("name") : nullptr;
      if (n && n->kind() == HostValue::Kind::String) tools.push_back(tool);
    }
    const HostValue* next = t.result.get("nextCursor");
    if (!next || next->kind() != HostValue::Kind::String || next->text().empty()) break;
    cursor = next->text();
  }
  return {};
}

}  // namespace ptc::upstream
