// clojure.walk (spec §8.1 Tree Traversal): walk, prewalk, postwalk.
//
// Vectors, maps and sets are branches and keep their type when rebuilt; a map
// is walked as its [key value] entries. Everything else (strings included) is
// a leaf. The walkers recurse over the data with a native stack check, so a
// very deep (or ever-growing) structure ends with an error, not a crash.
#include <fmt/format.h>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/printer.hpp"
#include "runtime/seq.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/vector.hpp"

namespace ptc::builtins {

namespace {

// Adds what the inner function made of a map entry back into the map being
// built, the way conj would: a [key value] vector, a map (merged) or nil
// (nothing). Anything else cannot be a map entry (GAP-S91).
void put_entry(HashBuilder& out, Value e, const char* fname) {
  if (e.is_vector() && e.vec()->count == 2) {
    out.put(e.vec()->nth(0), e.vec()->nth(1));
  } else if (e.is_map()) {
    for (HashIter it(e.map()); !it.done(); it.next())
      out.put(it.key(), it.val());
  } else if (!e.is_nil()) {
    throw_error(ErrorKind::TypeError,
                fmt::format("{}: a map entry must stay a [key value] vector, got {} {}", fname,
                            type_name(e.type()), preview(e)),
                "when walking a map, the function receives each entry as [k v] and must "
                "return a [k v] vector for it");
  }
}

// `form` with `inner` applied to each child, rebuilt as the same kind of
// collection; leaves are returned as they are.
template <class Inner>
Value map_children(Ctx& ctx, Value form, const char* fname, Inner&& inner) {
  RootScope roots(ctx);  // `inner` calls back
  roots.add(form);
  switch (form.type()) {
    case Type::Vector: {
      VecBuilder out(ctx.arena);
      roots.add(out);
      for (VecIter it(form.vec()); !it.done(); it.next()) {
        ctx.tick();
        out.push(inner(it.value()));
      }
      return Value::object(out.finish());
    }
    case Type::Map: {
      HashBuilder out(ctx.arena, Type::Map);
      roots.add(out);
      for (HashIter it(form.map()); !it.done(); it.next()) {
        ctx.tick();
        put_entry(out, inner(make_entry(ctx, it.key(), it.val())), fname);
      }
      return Value::object(out.finish());
    }
    case Type::Set: {
      HashBuilder out(ctx.arena, Type::Set);
      roots.add(out);
      for (HashIter it(form.set()); !it.done(); it.next()) {
        ctx.tick();
        out.put(inner(it.key()));
      }
      return Value::object(out.finish());
    }
    default:
      return form;
  }
}

Value walk_fn(Ctx& ctx, const Value* a, uint32_t) {
  expect_callable("walk", a[0], 1);
  expect_callable("walk", a[1], 2);
  Value inner = a[0];
  RootScope roots(ctx);
  roots.add(a, 3);
  Value walked = map_children(ctx, a[2], "walk", [&](Value x) { return ctx.call(inner, x); });
  return ctx.call(a[1], walked);
}

Value prewalk_node(Ctx& ctx, Value f, Value form) {
  check_native_stack("walking a nested value");
  RootScope roots(ctx);
  roots.add(f);
  ctx.tick();
  Value replaced = ctx.call(f, form);
  return map_children(ctx, replaced, "prewalk", [&](Value x) { return prewalk_node(ctx, f, x); });
}

Value postwalk_node(Ctx& ctx, Value f, Value form) {
  check_native_stack("walking a nested value");
  RootScope roots(ctx);
  roots.add(f);
  ctx.tick();
  Value rebuilt =
      map_children(ctx, form, "postwalk", [&](Value x) { return postwalk_node(ctx, f, x); });
  return ctx.call(f, rebuilt);
}

Value prewalk(Ctx& ctx, const Value* a, uint32_t) {
  expect_callable("prewalk", a[0], 1);
  return prewalk_node(ctx, a[0], a[1]);
}

Value postwalk(Ctx& ctx, const Value* a, uint32_t) {
  expect_callable("postwalk", a[0], 1);
  return postwalk_node(ctx, a[0], a[1]);
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Walk, "walk", 3, 3, walk_fn, "(walk inner outer form)", "Applies inner to each child of form (map entries as [k v]), rebuilds the same kind of collection, and returns (outer result)."),
    PTC_BUILTIN(Walk, "prewalk", 2, 2, prewalk, "(prewalk f form)", "Replaces each node with (f node), parents before their children."),
    PTC_BUILTIN(Walk, "postwalk", 2, 2, postwalk, "(postwalk f form)", "Replaces each node with (f node), children before their parents."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> walk() {
  return kDefs;
}

}  // namespace ptc::builtins
