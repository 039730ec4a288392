// What --store gives a replica: the connection to the store the replicas
// share, the key their records are sealed with, and this replica's identity
// (which names the leases of the tasks it runs). Sessions (redis_sessions)
// and tasks (redis_tasks) keep their state there instead of in this process.
//
// Key names, all under `prefix` ("ptc:"): per owner, under the keyed digest
// of the owner (store::owner_namespace), so one owner's keys are never
// another's: "{prefix}o:{ns}:..." (a task: "{prefix}o:{ns}:task:{id}" and
// "...:lease", redis_tasks.hpp).
#pragma once

#include <memory>
#include <string>

#include "protocol/mcp/config.hpp"
#include "protocol/store/redis.hpp"

namespace ptc::mcp {

struct SharedStore {
  std::shared_ptr<store::Redis> redis;
  std::string key;         // the HMAC key (--store-key-file)
  std::string replica_id;  // random, per process
  std::string prefix = "ptc:";

  std::string owner_prefix(std::string_view owner) const;  // "{prefix}o:{ns}:"
};

// Reads the key and password files, parses the address and connects (a
// store that is down at start is not an error: the replica starts not ready
// and reconnects). Returns an error that names the flag, or "" and sets `out`.
std::string open_shared_store(const ServerConfig& config, std::shared_ptr<SharedStore>& out);

// The error a call that needs the store answers while it is unreachable.
inline constexpr std::string_view kStoreUnavailableReason = "unavailable";
inline constexpr std::string_view kStoreUnavailableHint =
    "the shared store is unreachable; the call is safe to retry in a moment";

}  // namespace ptc::mcp
