// A SharedStore (what --store gives a replica) over a test's redis-server,
// with a fixed key: each call is another replica (its own connection pool
// and replica id), so tests can play several replicas in one process.
#pragma once

#include <memory>
#include <string>

#include "protocol/mcp/random_bytes.hpp"
#include "protocol/mcp/shared_store.hpp"
#include "protocol/store/store_address.hpp"
#include "support/redis_server.hpp"

namespace ptc::testing {

inline constexpr const char* kTestStoreKey = "test-store-key-0123456789abcdef0123456789";

inline std::shared_ptr<mcp::SharedStore> shared_store_on(const RedisServer& server,
                                                         std::string key = kTestStoreKey) {
  auto shared = std::make_shared<mcp::SharedStore>();
  store::Redis::Options options;
  store::parse_store_address(server.url(), options.address);
  shared->redis = std::make_shared<store::Redis>(std::move(options));
  shared->key = std::move(key);
  shared->replica_id = mcp::random_hex_id();
  return shared;
}

}  // namespace ptc::testing
