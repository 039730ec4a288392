#include "runtime/access.hpp"

#include "runtime/builtins/support.hpp"
#include "runtime/ctx.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/objects.hpp"
#include "runtime/seq.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc {

namespace {
bool index_of(Value key, int64_t* out) {
  if (key.is_int()) {
    *out = key.as_int();
    return true;
  }
  return false;
}

Value string_at(Ctx& ctx, const StrObj* s, int64_t i, Value not_found) {
  if (i < 0) return not_found;
  if (is_ascii(s)) {
    if (i >= s->len) return not_found;
    return char_string(ctx, s->view().substr(static_cast<size_t>(i), 1));
  }
  std::string_view v = s->view();
  size_t off = grapheme_offset(v, static_cast<size_t>(i));
  if (off >= v.size()) return not_found;
  return char_string(ctx, v.substr(off, grapheme_length(v, off)));
}
}  // namespace

Value lookup(Ctx& ctx, Value coll, Value key, Value not_found) {
  switch (coll.type()) {
    case Type::Map: {
      const Value* v = map_lookup(coll.map(), key);
      return v ? *v : not_found;
    }
    case Type::Vector: {
      int64_t i;
      if (index_of(key, &i) && i >= 0 && i < coll.vec()->count)
        return coll.vec()->nth(static_cast<uint32_t>(i));
      return not_found;
    }
    case Type::Set: {
      const Value* v = set_find(coll.set(), key);
      return v ? *v : not_found;
    }
    case Type::String: {
      int64_t i;
      if (index_of(key, &i)) return string_at(ctx, coll.str(), i, not_found);
      return not_found;
    }
    default:
      return not_found;
  }
}

Value nth_or(Ctx& ctx, Value coll, int64_t i, Value not_found, const char* fname) {
  switch (coll.type()) {
    case Type::Nil:
      return not_found;
    case Type::Vector:
      if (i >= 0 && i < coll.vec()->count) return coll.vec()->nth(static_cast<uint32_t>(i));
      return not_found;
    case Type::String:
      return string_at(ctx, coll.str(), i, not_found);
    default:
      builtins::type_error(fname, "a vector or string", coll, 1,
                           coll.is_map() ? "maps have no order to index; use get with a key"
                                         : "sets have no order to index; convert with (vec s)");
  }
}

}  // namespace ptc
