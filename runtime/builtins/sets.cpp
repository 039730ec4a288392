// Set builtins (spec §3.9, clojure.set): construction, membership, and the
// set algebra.
#include <fmt/format.h>

#include "runtime/access.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/equality.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/seq.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

Value set_v(const SetObj* s) {
  return Value::object(s);
}

Value hash_set(Ctx& ctx, const Value* a, uint32_t n) {
  HashBuilder b(ctx.arena, Type::Set);
  for (uint32_t i = 0; i < n; ++i)
    b.put(a[i]);
  return set_v(finish_set(b));
}

Value set(Ctx& ctx, const Value* a, uint32_t) {
  if (a[0].is_set()) return a[0];
  HashBuilder b(ctx.arena, Type::Set);
  for (SeqIter it(ctx, a[0], "set", 1); !it.done(); it.next())
    b.put(it.value());
  return set_v(finish_set(b));
}

Value contains(Ctx&, const Value* a, uint32_t) {
  Value c = a[0], k = a[1];
  switch (c.type()) {
    case Type::Nil:
      return Value::boolean(false);
    case Type::Map:
      return Value::boolean(map_find_flex(c.map(), k) != nullptr);
    case Type::Set:
      return Value::boolean(set_contains(c.set(), k));
    case Type::Vector:
      // PTC-Lisp tests membership on vectors (spec §8.1: "works on lists too"),
      // where Clojure would test the index.
      for (VecIter it(c.vec()); !it.done(); it.next())
        if (equals(it.value(), k)) return Value::boolean(true);
      return Value::boolean(false);
    case Type::String:
      return Value::boolean(k.is_int() && k.as_int() >= 0 &&
                            static_cast<size_t>(k.as_int()) < grapheme_count(c.str()));
    default:
      type_error("contains?", "a collection", c, 1);
  }
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Set, "hash-set", 0, kVariadic, hash_set, "(hash-set & items)", "A set of the arguments."),
    PTC_BUILTIN(Set, "set", 1, 1, set, "(set coll)", "The items of a collection as a set."),
    PTC_BUILTIN(Set, "contains?", 2, 2, contains, "(contains? coll key)", "True when a map has the key, a set the element, or a vector the value."),
};
// clang-format on

}  // namespace

std::span<const BuiltinDef> sets() {
  return kDefs;
}

}  // namespace ptc::builtins
