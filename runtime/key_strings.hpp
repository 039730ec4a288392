// One string object per recent map-key text while a table is imported
// (JSON text, or host values): the rows of a table share their keys, so a key
// is allocated once and its hash, computed at its first lookup, serves every
// row. Strings are immutable values, so sharing one object is invisible.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include "runtime/ctx.hpp"
#include "runtime/strings.hpp"

namespace ptc {

class KeyStrings {
 public:
  static constexpr size_t kShareUpTo = 32;  // bytes of a string value worth sharing

  // Inline: keys are short, and most differ in length or first byte.
  static bool same_text(const StrObj* s, std::string_view key) {
    return s->len == key.size() &&
           (key.empty() ||
            (s->data()[0] == key[0] && std::memcmp(s->data(), key.data(), key.size()) == 0));
  }

  Value get(Ctx& ctx, std::string_view key) {
    size_t i = 0;
    if (!key.empty())
      i = (key.size() * 31 + static_cast<unsigned char>(key[0]) * 7 +
           static_cast<unsigned char>(key.back())) &
          (kSlots - 1);
    const StrObj* s = slots_[i];
    if (s && same_text(s, key)) return Value::object(s);
    Value v = ctx.string(key);
    slots_[i] = v.str();
    return v;
  }

 private:
  static constexpr size_t kSlots = 256;
  const StrObj* slots_[kSlots] = {};
};

}  // namespace ptc
