// Records in the shared store carry an HMAC-SHA256 under the key the
// replicas share (--store-key-file), taken over the record's Redis key name
// and its bytes: whoever can write to Redis can delete a record, but cannot
// forge one, alter one, or move one to another key (another session, owner
// or task). A record that fails the check is treated as missing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"

namespace ptc::store {

inline constexpr size_t kMinStoreKeyBytes = 32;

// "psr1" + HMAC(key, name + '\0' + payload) (32 bytes) + payload.
std::string seal(std::string_view key, std::string_view name, std::string_view payload);
// The payload, or nullopt when `sealed` is not a record sealed for `name` under `key`.
std::optional<std::string> unseal(std::string_view key, std::string_view name,
                                  std::string_view sealed);

// A short, stable, non-reversible name for an owner in key names: the first
// 128 bits of HMAC(key, owner) in hex. Keyed, so that key names reveal
// nothing of the owner's credentials' digest.
std::string owner_namespace(std::string_view key, std::string_view owner);

// The fields of a record, written and read in order. Numbers are LEB128
// varints, strings a length and bytes, host values the snapshot's encoding.
class RecordWriter {
 public:
  RecordWriter& u64(uint64_t v);
  RecordWriter& i64(int64_t v);
  RecordWriter& str(std::string_view s);
  RecordWriter& value(const HostValue& v);
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Throws std::runtime_error on a record that ends early or is malformed
// (a sealed record never is, unless written by another version).
class RecordReader {
 public:
  explicit RecordReader(std::string_view bytes) : in_(bytes) {}
  uint64_t u64();
  int64_t i64();
  std::string str();
  HostValue value();
  bool done() const { return at_ == in_.size(); }

 private:
  std::string_view in_;
  size_t at_ = 0;
};

}  // namespace ptc::store
