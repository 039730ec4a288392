// Sessions in the store replicas share (--store): any replica answers for
// any session. Each session is one Redis hash under its owner's namespace
// (so another owner's lookups name other keys), holding the sealed record
// (store::seal: HMAC'd, bound to the key's name), a version, and the TTL's
// deadline. The TTL and idle timeout are the key's Redis expiry, refreshed
// at each use. An eval marks the session busy with a key of its own (expiring
// after the program's timeout, so a replica that dies mid-eval does not hold
// the session for longer), and commits only if the version is still the one
// it started from: an eval that lost a race is refused as session_busy and
// nothing of it is kept. Every step is one Lua script, atomic in Redis.
//
// Keys ({ns} = SharedStore::owner_prefix(owner)):
//   {ns}s:{id}  hash  rec (sealed record), ver, dl (TTL deadline, ms), used (ms)
//   {ns}b:{id}  string  the running eval's token            (PX: timeout + margin)
//   {ns}t:{id}  string  sealed "why" of a closed session      (PX: one hour)
//   {ns}idx     zset   the owner's session ids, by TTL deadline (expired ones
//                      stay an hour, so their owner hears why they are gone)
//   {prefix}sessions  zset  every session's key (max_sessions across replicas)
#pragma once

#include <memory>

#include "protocol/mcp/sessions.hpp"
#include "protocol/mcp/shared_store.hpp"

namespace ptc::mcp {

class RedisSessionStore : public SessionStore {
 public:
  RedisSessionStore(ServerConfig config, std::shared_ptr<SharedStore> shared);

  SessionResult<SessionInfo> start(const std::string& owner, StartOptions options) override;
  SessionResult<std::vector<SessionInfo>> list(const std::string& owner) override;
  SessionResult<SessionSnapshot> snapshot(const std::string& owner, std::string_view id) override;
  std::optional<SessionError> check_available(const std::string& owner,
                                              std::string_view id) override;
  SessionResult<Eval> begin_eval(const std::string& owner, std::string_view id) override;
  SessionResult<SessionInfo> commit(Eval& eval, Commit commit) override;
  SessionResult<ForgetOutcome> forget(const std::string& owner, std::string_view id,
                                      const ForgetRequest& request) override;
  SessionResult<SessionInfo> close(const std::string& owner, std::string_view id,
                                   const std::string& reason) override;
  size_t live_count() override;

 protected:
  void release(Eval& eval) override;

 private:
  struct Keys;
  struct Stored;
  struct Running;

  Keys keys(const std::string& owner, std::string_view id) const;
  // The record of `keys`, checked (owner, id, seal); nullopt when it fails.
  std::optional<Stored> decode(const Keys& keys, const std::string& sealed, int64_t version,
                               int64_t used_ms) const;
  std::string encode(const Keys& keys, const Stored& stored) const;
  SessionInfo info(const Stored& stored, bool busy) const;
  SessionSnapshot snapshot_of(const Stored& stored, bool busy) const;
  // Why a session that is not there is not there: closed, expired, or unknown.
  SessionError missing(const Keys& keys, std::string_view id);

  std::shared_ptr<SharedStore> shared_;
};

}  // namespace ptc::mcp
