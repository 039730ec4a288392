// A session as the shared store keeps it, and its bytes (before sealing):
// what RedisSessionStore writes and reads back. Bytes read back are
// untrusted until unsealed, and checked field by field even then (a record
// of another version, cut short or malformed, throws std::runtime_error).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/mcp/sessions.hpp"

namespace ptc::mcp {

struct StoredSession {
  SessionState state;
  int64_t created_ms = 0, deadline_ms = 0;  // wall clock, ms since the epoch
  int64_t used_ms = 0;                      // kept beside the record (a use does not rewrite it)
  int64_t version = 0;                      // likewise: the store's count of commits
};

std::string encode_session_record(const StoredSession& session);
StoredSession decode_session_record(std::string_view bytes);

}  // namespace ptc::mcp
