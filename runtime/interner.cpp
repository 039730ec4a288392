#include "runtime/interner.hpp"

#include <fmt/format.h>

#include <cstring>

#include "runtime/arena.hpp"
#include "runtime/collector.hpp"
#include "runtime/error.hpp"
#include "runtime/hash.hpp"

namespace ptc {

Interner::Interner(Arena& arena, uint32_t max_symbols)
    : arena_(arena), max_(max_symbols) {}  // slots_ on the first intern: many runs make none

const KeywordObj* Interner::find(std::string_view name, Type type) const {
  return find_hashed(name, type, hash_bytes(name));
}

const KeywordObj* Interner::find_hashed(std::string_view name, Type type, uint32_t h) const {
  if (parent_)
    if (const KeywordObj* k = parent_->find_hashed(name, type, h)) return k;
  if (slots_.empty()) return nullptr;
  return slots_[probe(name, type, h)];
}

size_t Interner::probe(std::string_view name, Type type, uint32_t h) const {
  size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  for (; slots_[i]; i = (i + 1) & mask) {
    const KeywordObj* k = slots_[i];
    if (k->type == type && k->hash == h && k->name() == name) break;
  }
  return i;
}

const KeywordObj* Interner::intern(std::string_view name, Type type) {
  uint32_t h = hash_bytes(name);
  if (parent_)
    if (const KeywordObj* k = parent_->find_hashed(name, type, h)) return k;
  if (slots_.empty()) slots_.assign(64, nullptr);
  size_t i = probe(name, type, h);
  if (slots_[i]) return slots_[i];
  // The parent's names count too, as if this interner had them itself.
  if (count_ + (parent_ ? parent_->count() : 0) >= max_) {
    throw_error(ErrorKind::SymbolLimit,
                fmt::format("too many distinct keywords and symbols (limit {})", max_),
                "programs should not generate keywords from data; use strings as map keys");
  }
  auto* k = arena_.make_with_tail<KeywordObj>(name.size() + 1);
  k->type = type;
  k->hash = h;
  k->len = static_cast<uint32_t>(name.size());
  char* d = const_cast<char*>(k->data());
  if (!name.empty()) std::memcpy(d, name.data(), name.size());
  d[name.size()] = '\0';
  slots_[i] = k;
  ++count_;
  if (count_ * 2 > slots_.size()) grow();
  return k;
}

void Interner::trace(Tracer& t) const {
  for (const KeywordObj* k : slots_)
    if (k) t.object(k);
}

void Interner::grow() {
  std::vector<const KeywordObj*> old(slots_.size() * 2, nullptr);
  old.swap(slots_);
  size_t mask = slots_.size() - 1;
  for (const KeywordObj* k : old) {
    if (!k) continue;
    size_t i = k->hash & mask;
    while (slots_[i])
      i = (i + 1) & mask;
    slots_[i] = k;
  }
}

}  // namespace ptc
