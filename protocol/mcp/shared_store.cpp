#include "protocol/mcp/shared_store.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "protocol/mcp/log.hpp"
#include "protocol/mcp/random_bytes.hpp"
#include "protocol/store/sealed_record.hpp"
#include "runtime/host_builders.hpp"

namespace ptc::mcp {

namespace {

// The file's bytes without trailing whitespace (a key or password file made
// with echo ends in a newline), or an error naming the flag.
std::string read_secret(const std::string& path, const char* flag, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fmt::format("--{}: cannot read {}", flag, path);
  std::ostringstream text;
  text << in.rdbuf();
  out = text.str();
  while (!out.empty() &&
         (out.back() == '\n' || out.back() == '\r' || out.back() == ' ' || out.back() == '\t'))
    out.pop_back();
  return "";
}

}  // namespace

std::string SharedStore::owner_prefix(std::string_view owner) const {
  return fmt::format("{}o:{}:", prefix, store::owner_namespace(key, owner));
}

std::string open_shared_store(const ServerConfig& config, std::shared_ptr<SharedStore>& out) {
  store::StoreAddress address;
  if (std::string e = store::parse_store_address(config.store, address); !e.empty())
    return "--store: " + e;
  auto shared = std::make_shared<SharedStore>();
  if (std::string e = read_secret(config.store_key_file, "store-key-file", shared->key); !e.empty())
    return e;
  if (shared->key.size() < store::kMinStoreKeyBytes)
    return fmt::format(
        "--store-key-file: the key is {} bytes; it must be at least {} (e.g. openssl rand -hex 32)",
        shared->key.size(), store::kMinStoreKeyBytes);
  if (!config.store_password_file.empty())
    if (std::string e =
            read_secret(config.store_password_file, "store-password-file", address.password);
        !e.empty())
      return e;
  shared->replica_id = random_hex_id();
  store::Redis::Options options;
  options.address = address;
  std::string where = address.describe();
  options.on_state = [where](bool up, const std::string& detail) {
    if (up)
      log(LogLevel::Info, "store_up", {{"store", host::str(where)}});
    else
      log(LogLevel::Error, "store_down",
          {{"store", host::str(where)}, {"error", host::str(detail)}});
  };
  shared->redis = std::make_shared<store::Redis>(std::move(options));
  log(LogLevel::Info, "store_opened",
      {{"store", host::str(where)},
       {"reachable", HostValue::boolean(shared->redis->up())},
       {"replica", host::str(shared->replica_id.substr(0, 8))}});
  out = std::move(shared);
  return "";
}

}  // namespace ptc::mcp
