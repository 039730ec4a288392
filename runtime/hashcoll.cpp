#include "runtime/hashcoll.hpp"

#include <cstring>
#include <string>

#include "runtime/arena.hpp"
#include "runtime/collector.hpp"
#include "runtime/equality.hpp"
#include "runtime/hash.hpp"
#include "runtime/objects.hpp"

namespace ptc {

namespace {

HashObj make_empty(Type t) {
  HashObj h;
  h.type = t;
  return h;
}
const MapObj kEmptyMap = [] {
  MapObj m;
  static_cast<HashObj&>(m) = make_empty(Type::Map);
  return m;
}();
const SetObj kEmptySet = [] {
  SetObj s;
  static_cast<HashObj&>(s) = make_empty(Type::Set);
  return s;
}();

HashObj* new_small(Arena& arena, Type type, uint32_t count) {
  uint32_t stride = type == Type::Map ? 2 : 1;
  auto* h = static_cast<HashObj*>(arena.alloc(sizeof(HashObj) + sizeof(Value) * count * stride));
  new (h) HashObj();
  h->type = type;
  h->count = count;
  return h;
}

HashObj* new_large(Arena& arena, Type type, uint32_t count, uint32_t slots, const VecObj* entries,
                   const HamtNode* index) {
  HashObj* h = arena.make<HashObj>();
  h->type = type;
  h->count = count;
  h->slots = slots;
  h->entries = entries;
  h->index = index;
  return h;
}

const HashObj* empty_of(Type t) {
  return t == Type::Map ? static_cast<const HashObj*>(&kEmptyMap) : &kEmptySet;
}

// Slot of `key` (exact equality), or -1.
int64_t find_slot(const HashObj* h, Value key) {
  uint32_t stride = h->stride();
  if (h->small()) {
    const Value* d = h->inline_data();
    for (uint32_t i = 0; i < h->count; ++i)
      if (equals(d[i * stride], key)) return i;
    return -1;
  }
  int64_t found = -1;
  hamt_for_each_candidate(h->index, hash_value(key), [&](uint32_t slot) {
    if (equals(h->entries->nth(slot * stride), key)) {
      found = slot;
      return true;
    }
    return false;
  });
  return found;
}

const Value* slot_ptr(const HashObj* h, int64_t slot, uint32_t offset) {
  uint32_t stride = h->stride();
  auto i = static_cast<uint32_t>(slot) * stride + offset;
  if (h->small()) return h->inline_data() + i;
  uint32_t len;
  return h->entries->chunk_at(i, &len);
}

// Rebuilds a collection from its live entries (drops tombstones; may become small).
const HashObj* compact(Arena& arena, const HashObj* h) {
  HashBuilder b(arena, h->type);
  b.put_all(h);
  return b.finish();
}

const HashObj* assoc(Arena& arena, const HashObj* h, Value key, Value val) {
  uint32_t stride = h->stride();
  int64_t slot = find_slot(h, key);
  if (slot >= 0) {
    if (stride == 1) return h;  // set already holds an equal element
    const Value* cur = slot_ptr(h, slot, 1);
    if (cur->identical(val)) return h;
    if (h->small()) {
      HashObj* out = new_small(arena, h->type, h->count);
      std::memcpy(static_cast<void*>(out->inline_data()), h->inline_data(),
                  sizeof(Value) * h->count * stride);
      out->inline_data()[slot * 2 + 1] = val;
      return out;
    }
    return new_large(arena, h->type, h->count, h->slots,
                     vec_assoc(arena, h->entries, static_cast<uint32_t>(slot * 2 + 1), val),
                     h->index);
  }
  if (h->small() && h->count < kSmallMax) {
    HashObj* out = new_small(arena, h->type, h->count + 1);
    std::memcpy(static_cast<void*>(out->inline_data()), h->inline_data(),
                sizeof(Value) * h->count * stride);
    out->inline_data()[h->count * stride] = key;
    if (stride == 2) out->inline_data()[h->count * 2 + 1] = val;
    return out;
  }
  if (h->small()) {
    HashBuilder b(arena, h->type);
    b.put_all(h);
    b.put(key, val);
    return b.finish();
  }
  const VecObj* entries = vec_conj(arena, h->entries, key);
  if (stride == 2) entries = vec_conj(arena, entries, val);
  return new_large(arena, h->type, h->count + 1, h->slots + 1, entries,
                   hamt_insert(arena, h->index, hash_value(key), h->slots));
}

const HashObj* dissoc(Arena& arena, const HashObj* h, Value key) {
  int64_t slot = find_slot(h, key);
  if (slot < 0) return h;
  if (h->count == 1) return empty_of(h->type);
  uint32_t stride = h->stride();
  if (h->small()) {
    HashObj* out = new_small(arena, h->type, h->count - 1);
    const Value* src = h->inline_data();
    Value* dst = out->inline_data();
    for (uint32_t i = 0, j = 0; i < h->count; ++i) {
      if (i == slot) continue;
      for (uint32_t k = 0; k < stride; ++k)
        dst[j * stride + k] = src[i * stride + k];
      ++j;
    }
    return out;
  }
  auto s = static_cast<uint32_t>(slot);
  const VecObj* entries = vec_assoc(arena, h->entries, s * stride, tombstone());
  if (stride == 2) entries = vec_assoc(arena, entries, s * 2 + 1, Value());
  const HashObj* out = new_large(arena, h->type, h->count - 1, h->slots, entries,
                                 hamt_remove(arena, h->index, hash_value(key), s));
  if (out->count <= kSmallMax || out->slots >= 2 * out->count + 16) return compact(arena, out);
  return out;
}

bool same_name(Value stored, std::string_view name) {
  if (stored.is_string()) return stored.str()->view() == name;
  if (stored.is_keyword()) return stored.kw()->name() == name;
  return false;
}

// Whether a stored string's or keyword's hash is known and is not `hash`
// (read in place: this runs for every entry a lookup passes).
bool differs(Value stored, uint32_t hash) {
  uint32_t h = cached_hash(stored.obj());
  return h && h != hash;
}

// One probe for a keyword/string key: the exact key wins, the other type of
// the same name is the fallback.
int64_t find_flex_once(const HashObj* h, Value key, std::string_view name, uint32_t hash) {
  uint32_t stride = h->stride();
  int64_t alt = -1;
  auto check = [&](uint32_t slot, Value stored) {
    if (stored.type() == key.type()) {
      if (stored.identical(key)) return true;
      // Names of another length, or known hashes that differ, cannot match.
      if (key.is_string() && (stored.str()->len != name.size() || differs(stored, hash)))
        return false;
      if (equals(stored, key)) return true;
    } else if (alt < 0 && (stored.is_string() || stored.is_keyword()) && !differs(stored, hash) &&
               hash_value(stored) == hash && same_name(stored, name)) {
      // A string and a keyword of one name hash alike (the hash is cached in
      // the stored key): comparing it first spares the text comparison.
      alt = slot;
    }
    return false;
  };
  if (h->small()) {
    const Value* d = h->inline_data();
    for (uint32_t i = 0; i < h->count; ++i)
      if (check(i, d[i * stride])) return i;
    return alt;
  }
  int64_t exact = -1;
  hamt_for_each_candidate(h->index, hash, [&](uint32_t slot) {
    if (check(slot, h->entries->nth(slot * stride))) {
      exact = slot;
      return true;
    }
    return false;
  });
  return exact >= 0 ? exact : alt;
}

// find_flex past small_find_identical, which the caller tried.
int64_t find_flex_search(const HashObj* h, Value key) {
  std::string_view name;
  if (key.is_keyword())
    name = key.kw()->name();
  else if (key.is_string())
    name = key.str()->view();
  else
    return find_slot(h, key);
  int64_t direct = find_flex_once(h, key, name, hash_value(key));
  if (direct >= 0 || name.find('-') == std::string_view::npos) return direct;
  std::string underscored(name);
  for (char& c : underscored)
    if (c == '-') c = '_';
  // Neither type matches the original name: retry with the normalised name,
  // preferring a key of the accessor's own type (a keyword accessor finds
  // :turn_summaries before "turn_summaries", a string accessor the reverse).
  uint32_t stride = h->stride();
  int64_t other = -1;
  auto named = [&](uint32_t slot, Value stored) {
    if (!same_name(stored, underscored)) return false;
    if (stored.type() == key.type()) return true;
    if (other < 0) other = slot;
    return false;
  };
  if (h->small()) {
    const Value* d = h->inline_data();
    for (uint32_t i = 0; i < h->count; ++i)
      if (named(i, d[i * stride])) return i;
    return other;
  }
  int64_t found = -1;
  hamt_for_each_candidate(h->index, hash_bytes(underscored), [&](uint32_t slot) {
    if (named(slot, h->entries->nth(slot * stride))) {
      found = slot;
      return true;
    }
    return false;
  });
  return found >= 0 ? found : other;
}

int64_t find_flex(const HashObj* h, Value key) {
  int64_t slot = small_find_identical(h, key, h->stride());
  return slot >= 0 ? slot : find_flex_search(h, key);
}

}  // namespace

const MapObj* empty_map() {
  return &kEmptyMap;
}

size_t hash_object_bytes(const HashObj* h) {
  if (!h->small()) return sizeof(HashObj);
  // A small collection's `slots` is nonzero only while a reduce owns it.
  uint32_t room = h->slots ? kSmallMax : h->count;
  return sizeof(HashObj) + sizeof(Value) * room * h->stride();
}

void trace_hash(Tracer& t, const HashObj* h) {
  if (h->small()) {
    t.values(h->inline_data(), h->count * h->stride());
    return;
  }
  t.object(h->entries);
  trace_hamt(t, h->index);
}

void HashBuilder::trace(Tracer& t) const {
  if (small_ <= kSmallMax) {
    t.values(small_keys_, small_);
    t.values(small_vals_, small_);
  }
  t.values(keys_.data(), keys_.size());
  t.values(vals_.data(), vals_.size());
}
const SetObj* empty_set() {
  return &kEmptySet;
}

const Value* map_find(const MapObj* m, Value key) {
  int64_t slot = find_slot(m, key);
  return slot < 0 ? nullptr : slot_ptr(m, slot, 1);
}

const Value* map_find_flex(const MapObj* m, Value key) {
  int64_t slot = find_flex(m, key);
  return slot < 0 ? nullptr : slot_ptr(m, slot, 1);
}

const Value* map_find_flex_key(const MapObj* m, Value key) {
  int64_t slot = find_flex(m, key);
  return slot < 0 ? nullptr : slot_ptr(m, slot, 0);
}

const Value* map_search_flex_entry(const MapObj* m, Value key, Value* stored_key) {
  int64_t slot = find_flex_search(m, key);
  if (slot < 0) return nullptr;
  *stored_key = *slot_ptr(m, slot, 0);
  return slot_ptr(m, slot, 1);
}

const MapObj* map_assoc(Arena& arena, const MapObj* m, Value key, Value val) {
  return static_cast<const MapObj*>(assoc(arena, m, key, val));
}

const MapObj* map_dissoc(Arena& arena, const MapObj* m, Value key) {
  return static_cast<const MapObj*>(dissoc(arena, m, key));
}

const Value* set_find(const SetObj* s, Value x) {
  int64_t slot = find_slot(s, x);
  return slot < 0 ? nullptr : slot_ptr(s, slot, 0);
}

const SetObj* set_conj(Arena& arena, const SetObj* s, Value x) {
  return static_cast<const SetObj*>(assoc(arena, s, x, Value()));
}

const SetObj* set_disj(Arena& arena, const SetObj* s, Value x) {
  return static_cast<const SetObj*>(dissoc(arena, s, x));
}

HashObj* hash_copy_owned(Arena& arena, const HashObj* h, uint32_t owner) {
  uint32_t stride = h->stride();
  HashObj* out = new_small(arena, h->type, kSmallMax);
  std::memcpy(static_cast<void*>(out->inline_data()), h->inline_data(),
              sizeof(Value) * h->count * stride);
  out->count = h->count;
  out->slots = owner;
  return out;
}

bool hash_put_owned(HashObj* h, Value key, Value val) {
  uint32_t stride = h->stride();
  Value* d = h->inline_data();
  int64_t slot = find_slot(h, key);
  if (slot < 0) {
    if (h->count == kSmallMax) return false;
    slot = h->count++;
    d[slot * stride] = key;
  }
  if (stride == 2) d[slot * 2 + 1] = val;
  h->hash = 0;  // the cached hash described the old contents
  return true;
}

void hash_remove_owned(HashObj* h, Value key) {
  int64_t slot = find_slot(h, key);
  if (slot < 0) return;
  uint32_t stride = h->stride();
  Value* d = h->inline_data();
  std::memmove(static_cast<void*>(d + slot * stride), d + (slot + 1) * stride,
               sizeof(Value) * (h->count - 1 - static_cast<uint32_t>(slot)) * stride);
  --h->count;
  h->hash = 0;
}

void hash_disown(Value v, uint32_t owner) {
  if (!v.is_map() && !v.is_set()) return;
  auto* h = const_cast<HashObj*>(v.as<const HashObj>());
  if (owner && h->small() && h->slots == owner) h->slots = 0;
}

HashIter::HashIter(const HashObj* h)
    : h_(h), stride_(h->stride()), it_(h->small() ? empty_vector() : h->entries) {
  settle();
}

void HashIter::settle() {
  if (h_->small()) {
    if (slot_ >= h_->count) {
      done_ = true;
      return;
    }
    key_ = h_->inline_data()[slot_ * stride_];
    val_ = stride_ == 2 ? h_->inline_data()[slot_ * 2 + 1] : key_;
    return;
  }
  while (!it_.done()) {
    key_ = it_.value();
    it_.next();
    if (stride_ == 2) {
      val_ = it_.value();
      it_.next();
    } else {
      val_ = key_;
    }
    if (!is_tombstone(key_)) return;
  }
  done_ = true;
}

void HashIter::next() {
  if (h_->small()) ++slot_;
  settle();
}

void HashBuilder::grow() {
  size_t size = table_.empty() ? 16 : table_.size() * 2;
  // The table and the side vectors live outside the arena until finish(); at
  // this size they will hold up to size / 2 entries. Checking them against
  // the heap left keeps a hostile (set coll) or (into {} coll) from
  // allocating far past max_heap natively.
  arena_.reserve_check(size * sizeof(uint32_t) + size / 2 * (2 * sizeof(Value) + sizeof(uint32_t)));
  table_.assign(size, 0);
  size_t mask = size - 1;
  for (uint32_t s = 0; s < keys_.size(); ++s) {
    size_t i = hashes_[s] & mask;
    while (table_[i])
      i = (i + 1) & mask;
    table_[i] = s + 1;
  }
}

const MapObj* small_map_of_distinct(Arena& arena, const Value* kv, uint32_t n) {
  if (n == 0) return empty_map();
  HashObj* h = new_small(arena, Type::Map, n);
  std::memcpy(static_cast<void*>(h->inline_data()), kv, sizeof(Value) * n * 2);
  bool strings = true;
  for (uint32_t i = 0; i < n && strings; ++i)
    strings = kv[i * 2].is_string();
  if (strings) h->flags |= HashObj::kStringKeys;
  return static_cast<const MapObj*>(h);
}

void HashBuilder::put(Value key, Value val) {
  if (small_ <= kSmallMax) {
    for (uint32_t i = 0; i < small_; ++i)
      if (equals(small_keys_[i], key)) {
        small_vals_[i] = val;
        return;
      }
    if (small_ < kSmallMax) {
      small_keys_[small_] = key;
      small_vals_[small_] = val;
      ++small_;
      return;
    }
    spill();
  }
  put_hashed(key, val);
}

// Past kSmallMax entries: the small ones move into the hashed table.
void HashBuilder::spill() {
  uint32_t n = small_;
  small_ = kSmallMax + 1;
  for (uint32_t i = 0; i < n; ++i)
    put_hashed(small_keys_[i], small_vals_[i]);
}

void HashBuilder::put_hashed(Value key, Value val) {
  if ((keys_.size() + 1) * 2 > table_.size()) grow();
  uint32_t h = hash_value(key);
  size_t mask = table_.size() - 1;
  size_t i = h & mask;
  for (; table_[i]; i = (i + 1) & mask) {
    uint32_t s = table_[i] - 1;
    if (hashes_[s] == h && equals(keys_[s], key)) {
      vals_[s] = val;
      return;
    }
  }
  table_[i] = static_cast<uint32_t>(keys_.size()) + 1;
  keys_.push_back(key);
  vals_.push_back(val);
  hashes_.push_back(h);
}

void HashBuilder::put_all(const HashObj* h) {
  for (HashIter it(h); !it.done(); it.next())
    put(it.key(), it.val());
}

const HashObj* HashBuilder::finish() {
  bool is_map = type_ == Type::Map;
  if (small_ <= kSmallMax) {
    if (small_ == 0) return empty_of(type_);
    HashObj* h = new_small(arena_, type_, small_);
    Value* d = h->inline_data();
    bool strings = is_map;
    for (uint32_t i = 0; i < small_; ++i) {
      if (is_map) {
        d[i * 2] = small_keys_[i];
        d[i * 2 + 1] = small_vals_[i];
        strings = strings && small_keys_[i].is_string();
      } else {
        d[i] = small_keys_[i];
      }
    }
    // String keys (a context given as host values, not JSON text): keyword
    // lookups get the fast path JSON objects have.
    if (strings) h->flags |= HashObj::kStringKeys;
    return h;
  }
  auto n = static_cast<uint32_t>(keys_.size());
  VecBuilder entries(arena_);
  std::vector<HamtEntry> index(n);
  for (uint32_t i = 0; i < n; ++i) {
    entries.push(keys_[i]);
    if (is_map) entries.push(vals_[i]);
    index[i] = HamtEntry{hashes_[i], i};
  }
  return new_large(arena_, type_, n, n, entries.finish(), hamt_build(arena_, index));
}

// The search behind small_map_find_keyword, when the slot hint misses.
const Value* small_map_scan_keyword(const MapObj* m, const KeywordObj* k) {
  const Value* d = m->inline_data();
  if (m->flags & HashObj::kStringKeys) {
    std::atomic_ref<uint16_t> hint(const_cast<KeywordObj*>(k)->aux);
    for (uint32_t i = 0; i < m->count; ++i) {
      const StrObj* s = d[i * 2].str();
      if (cached_hash(s) == 0) return nullptr;  // left to the general lookup, which caches it
      if (string_key_matches(s, k)) {
        hint.store(static_cast<uint16_t>(i), std::memory_order_relaxed);
        return &d[i * 2 + 1];
      }
    }
    return nullptr;
  }
  const Value* alt = nullptr;
  for (uint32_t i = 0; i < m->count; ++i) {
    Value stored = d[i * 2];
    if (!stored.is_keyword() && !stored.is_string()) continue;
    const Obj* o = stored.obj();
    if (o == k) return &d[i * 2 + 1];
    // Strings and keywords of one name hash alike; a hash not yet cached
    // (0) is left to the general lookup.
    uint32_t h = cached_hash(o);
    if (h != k->hash) {
      if (h == 0) return nullptr;
      continue;
    }
    uint32_t len = stored.is_keyword() ? stored.kw()->len : stored.str()->len;
    const char* text = stored.is_keyword() ? stored.kw()->data() : stored.str()->data();
    if (len != k->len || !same_bytes(text, k->data(), len)) continue;
    if (stored.is_keyword()) return &d[i * 2 + 1];  // the same keyword from another interner
    if (!alt) alt = &d[i * 2 + 1];
  }
  return alt;
}

}  // namespace ptc
