// Persistent maps and sets, which share one representation.
//
// Small collections (up to kSmallMax entries) store their entries inline and
// are searched linearly. Larger ones keep entries in an insertion-ordered
// persistent vector (keys, or key/value pairs) plus a HAMT from key hash to
// slot. Removing leaves a tombstone slot until the collection is compacted.
// Iteration is always in insertion order, independent of hashes and addresses.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/equality.hpp"
#include "runtime/hamt.hpp"
#include "runtime/objects.hpp"
#include "runtime/strings.hpp"
#include "runtime/value.hpp"
#include "runtime/vector.hpp"

namespace ptc {

class Arena;
class Tracer;

constexpr uint32_t kSmallMax = 8;
// Marks a removed slot in the entries vector of a large collection.
constexpr uint32_t kTombstoneId = 0xFFFFFFFFu;
inline Value tombstone() {
  return Value::builtin(kTombstoneId);
}
inline bool is_tombstone(Value v) {
  return v.type() == Type::Builtin && v.builtin_id() == kTombstoneId;
}

struct HashObj : Obj {
  // flags: the small form's keys are all strings (a JSON object), so a
  // keyword's lookup may stop at the first key of its name. Bit 0 is kept
  // free: freeze clears it (VecObj::kClaimableTail) on everything it walks.
  static constexpr uint8_t kStringKeys = 2;

  uint32_t count = 0;               // live entries
  uint32_t slots = 0;               // large form: slots used in `entries`, tombstones included
  const VecObj* entries = nullptr;  // large form: keys (set) or key, value pairs (map)
  const HamtNode* index = nullptr;  // large form: hash -> slot

  bool small() const { return entries == nullptr; }
  uint32_t stride() const { return type == Type::Map ? 2 : 1; }
  // Small form: count * stride values directly after the object.
  const Value* inline_data() const { return reinterpret_cast<const Value*>(this + 1); }
  Value* inline_data() { return reinterpret_cast<Value*>(this + 1); }
};
static_assert(sizeof(HashObj) % 16 == 0, "inline entries must stay 16-byte aligned");

struct MapObj : HashObj {};
struct SetObj : HashObj {};

const MapObj* empty_map();
const SetObj* empty_set();

// For the collector: the bytes a map or set object holds (its inline entries
// included; a tagged accumulator has room for kSmallMax), and its values.
size_t hash_object_bytes(const HashObj* h);
void trace_hash(Tracer& t, const HashObj* h);

// Exact lookups (equality as in `=`).
const Value* map_find(const MapObj* m, Value key);  // the stored value, or nullptr
inline Value map_get(const MapObj* m, Value key, Value not_found = Value()) {
  const Value* v = map_find(m, key);
  return v ? *v : not_found;
}
const MapObj* map_assoc(Arena& arena, const MapObj* m, Value key, Value val);
const MapObj* map_dissoc(Arena& arena, const MapObj* m, Value key);

// Flexible key access (spec §7.5): a keyword finds a string key of the same
// name and vice versa; the exact type wins when both exist; as a last resort
// hyphens in the name are read as underscores.
const Value* map_find_flex(const MapObj* m, Value key);
// The stored key matched by map_find_flex, or nullptr.
const Value* map_find_flex_key(const MapObj* m, Value key);
// The slot of a small map or set whose key is `key` itself, or -1. Keywords
// are interned and JSON's short strings shared, so most keyword and string
// keys that match are identical: no hashing, no text. Other keys (or large
// collections) are not looked at here.
// `stride` is h->stride(), which a caller that knows the type passes as such.
inline int64_t small_find_identical(const HashObj* h, Value key, uint32_t stride) {
  if (!h->small() || !(key.is_keyword() || key.is_string())) return -1;
  const Value* d = h->inline_data();
  for (uint32_t i = 0; i < h->count; ++i)
    if (d[i * stride].identical(key)) return i;
  return -1;
}
// map_find_flex_entry past small_find_identical.
const Value* map_search_flex_entry(const MapObj* m, Value key, Value* stored_key);
// Both at once: the stored value (nullptr when absent), its key in
// *stored_key. The identical key is found inline: update asks on every step
// of a reduce.
inline const Value* map_find_flex_entry(const MapObj* m, Value key, Value* stored_key) {
  int64_t slot = small_find_identical(m, key, 2);
  if (slot < 0) return map_search_flex_entry(m, key, stored_key);
  const Value* d = m->inline_data();
  *stored_key = d[slot * 2];
  return &d[slot * 2 + 1];
}

const Value* set_find(const SetObj* s, Value x);  // the stored element, or nullptr
inline bool set_contains(const SetObj* s, Value x) {
  return set_find(s, x) != nullptr;
}
const SetObj* set_conj(Arena& arena, const SetObj* s, Value x);
const SetObj* set_disj(Arena& arena, const SetObj* s, Value x);

// ---- accumulators a reduce owns (runtime/builtins/owned.cpp)
// A small map or set tagged with a reduce's owner token (kept in `slots`,
// which the small form does not use) is held by that reduce alone, so the
// step function's assoc/update/dissoc/conj write it in place. Tagged copies
// have room for kSmallMax entries. The reduce removes its tag before its
// result escapes, so no tagged collection outlives it.

// `h` itself when it carries `owner`'s tag (every step after a reduce's
// first: inline); else, for a small or empty `h` of `type`, a tagged copy;
// nullptr otherwise (a large collection).
HashObj* hash_copy_owned(Arena& arena, const HashObj* h, uint32_t owner);  // the tagged copy
inline HashObj* hash_take_owned(Arena& arena, const HashObj* h, uint32_t owner) {
  if (!h->small()) return nullptr;
  if (owner && h->slots == owner) return const_cast<HashObj*>(h);
  return hash_copy_owned(arena, h, owner);
}
// Exact-key put into an owned collection; false when a new key finds it full.
bool hash_put_owned(HashObj* h, Value key, Value val);
// Removes `key` (exact equality) from an owned collection.
void hash_remove_owned(HashObj* h, Value key);
// Takes the tag off `v` when it is a collection tagged with `owner`.
void hash_disown(Value v, uint32_t owner);

// Entries in insertion order. For sets, val() is the element itself.
class HashIter {
 public:
  explicit HashIter(const HashObj* h);
  bool done() const { return done_; }
  Value key() const { return key_; }
  Value val() const { return val_; }
  void next();

 private:
  void settle();
  const HashObj* h_;
  uint32_t stride_;
  uint32_t slot_ = 0;
  bool done_ = false;
  Value key_, val_;
  VecIter it_;
};

// Bulk construction: later puts of an equal key replace the value but keep the
// key's first position, like repeated assoc.
class HashBuilder {
 public:
  HashBuilder(Arena& arena, Type type) : arena_(arena), type_(type) {}
  void put(Value key, Value val = Value());
  // Starts from the entries of an existing collection of the same type.
  void put_all(const HashObj* h);
  size_t size() const { return small_ <= kSmallMax ? small_ : keys_.size(); }
  const HashObj* finish();
  // What it holds so far, for a root scope (roots.hpp).
  void trace(Tracer& t) const;

 private:
  void grow();
  void put_hashed(Value key, Value val);
  void spill();
  Arena& arena_;
  Type type_;
  // Up to kSmallMax entries stay here, found by equality alone: most maps
  // built (a row, a tool's answer, an argument map) are small, and need no
  // hashing nor table. small_ is kSmallMax + 1 once they moved to the table.
  uint32_t small_ = 0;
  Value small_keys_[kSmallMax], small_vals_[kSmallMax];
  std::vector<Value> keys_, vals_;
  std::vector<uint32_t> hashes_;
  std::vector<uint32_t> table_;  // slot + 1; 0 = empty
};

// (:k m) on a small map, the common case of every (:name row), inline: the
// value stored under keyword k, else under the string of k's name; nullptr
// when neither is there (the caller then asks map_find_flex, which also
// tries the name with hyphens read as underscores).
//
// Rows of one data set share their keys' order, so the keyword remembers the
// slot it last matched in such a map (in its Obj::aux) and tries it
// first. The hint is only a guess, checked like any other slot; threads
// running one program may race on it, harmlessly (relaxed atomics). The
// hint is tried inline; the search (hashcoll.cpp) runs when it misses.
const Value* small_map_scan_keyword(const MapObj* m, const KeywordObj* k);

inline bool string_key_matches(const StrObj* s, const KeywordObj* k) {
  return cached_hash(s) == k->hash && s->len == k->len && same_bytes(s->data(), k->data(), k->len);
}

inline const Value* small_map_find_keyword(const MapObj* m, const KeywordObj* k) {
  if (m->flags & HashObj::kStringKeys) {
    const Value* d = m->inline_data();
    uint32_t guess =
        std::atomic_ref<uint16_t>(const_cast<KeywordObj*>(k)->aux).load(std::memory_order_relaxed);
    if (guess < m->count && string_key_matches(d[guess * 2].str(), k)) return &d[guess * 2 + 1];
  }
  return small_map_scan_keyword(m, k);
}

// A map's value for `key`, flexibly (map_find_flex), with the common (:k row)
// on a small map inline: the lookup `get`, keyword calls and KWGET share.
inline const Value* map_lookup(const MapObj* m, Value key) {
  if (key.is_keyword() && m->small())
    if (const Value* v = small_map_find_keyword(m, key.kw())) return v;
  return map_find_flex(m, key);
}

// A map of n <= kSmallMax entries from n key/value pairs whose keys are all
// different (the caller made sure), without hashing them.
const MapObj* small_map_of_distinct(Arena& arena, const Value* kv, uint32_t n);

inline const MapObj* finish_map(HashBuilder& b) {
  return static_cast<const MapObj*>(b.finish());
}
inline const SetObj* finish_set(HashBuilder& b) {
  return static_cast<const SetObj*>(b.finish());
}

}  // namespace ptc
