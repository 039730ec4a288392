#include "runtime/builtins/support.hpp"

#include "runtime/access.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/numbers.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"

namespace ptc::builtins {

void type_error(std::string_view fname, std::string_view expected, Value got, int pos,
                std::string_view hint) {
  std::string where = pos > 0 ? fmt::format(" (argument {})", pos) : "";
  throw_error(ErrorKind::TypeError,
              got.is_nil() ? fmt::format("{}: expected {}{}, got nil", fname, expected, where)
                           : fmt::format("{}: expected {}{}, got {} {}", fname, expected, where,
                                         type_name(got.type()), preview(got)),
              std::string(hint));
}

int64_t expect_int(std::string_view fname, Value v, int pos) {
  if (v.is_int()) return v.as_int();
  if (v.is_float()) {
    // A float is accepted only when it is exactly an int64 (3.0, not 3.5 or 1e300).
    auto i = double_to_int64(v.as_float());
    if (i && static_cast<double>(*i) == v.as_float()) return *i;
  }
  type_error(fname, "an integer", v, pos);
}

const StrObj* expect_string(std::string_view fname, Value v, int pos) {
  if (!v.is_string()) type_error(fname, "a string", v, pos);
  return v.str();
}

Value make_native_fn(Ctx& ctx, NativeImpl impl, const char* name, const Value* captured,
                     uint32_t ncaptured) {
  auto* f =
      static_cast<NativeFnObj*>(ctx.arena.alloc(sizeof(NativeFnObj) + ncaptured * sizeof(Value)));
  new (f) NativeFnObj();
  f->type = Type::NativeFn;
  f->impl = impl;
  f->name = name;
  f->ncaptured = ncaptured;
  for (uint32_t i = 0; i < ncaptured; ++i)
    f->captured()[i] = captured[i];
  return Value::object(f);
}

Value make_native_fn(Ctx& ctx, NativeImpl impl, const char* name,
                     std::initializer_list<Value> captured) {
  return make_native_fn(ctx, impl, name, captured.begin(), static_cast<uint32_t>(captured.size()));
}

int64_t truncating_int_arg(std::string_view fname, Value v, int pos, std::string_view expected) {
  if (v.is_int()) return v.as_int();
  if (v.is_float() && !std::isnan(v.as_float())) return double_to_int64_clamped(v.as_float());
  if (v.is(Type::BigInt))
    return v.big()->size < 0 ? std::numeric_limits<int64_t>::min()
                             : std::numeric_limits<int64_t>::max();
  type_error(fname, expected, v, pos);
}

void require_ordered(std::string_view fname, Value coll, int pos) {
  if (coll.is_map())
    type_error(fname, "a vector, string or nil", coll, pos,
               "maps have no positions; use (seq m), (keys m) or (vals m) for an ordered view");
  if (coll.is_set())
    type_error(fname, "a vector, string or nil", coll, pos,
               "sets have no positions; use (vec s) or (sort s) for an ordered view");
}

void charge_items(Ctx& ctx, size_t items) {
  ctx.tick(static_cast<int64_t>(items / 8) + 1);
}

std::string print_joined(Ctx& ctx, const Value* a, uint32_t n, bool readable, bool for_prints) {
  PrintOptions opts;
  opts.readable = readable;
  size_t max_output = ctx.limits.max_print_length;
  // A grapheme is at most a few bytes in practice; the slack keeps the cut
  // made by add_print (and its "...") where it would be without this cap.
  if (for_prints && max_output)
    opts.max_bytes = max_output * 8 + 64;
  else
    opts.max_bytes = std::max<size_t>(ctx.arena.remaining(), 1);
  opts.fail_when_full = !(for_prints && max_output);
  std::string out;
  for (uint32_t i = 0; i < n; ++i) {
    if (i) out.push_back(' ');
    print_value(out, a[i], opts);
  }
  ctx.tick(1 + static_cast<int64_t>(out.size() / 64));
  return out;
}

void reserve_values(Ctx& ctx, double values) {
  double bytes = values * static_cast<double>(sizeof(Value));
  ctx.arena.reserve_check(double_to_size_saturated(bytes, SIZE_MAX / 2));
}

void reserve_scratch(Ctx& ctx, size_t items, size_t bytes_per_item) {
  size_t bytes;
  if (__builtin_mul_overflow(items, bytes_per_item, &bytes)) bytes = SIZE_MAX;
  ctx.arena.reserve_check(bytes);
}

Value apply_key(Ctx& ctx, Value key_fn, Value item, std::string_view fname, int pos) {
  if (key_fn.is_keyword() || key_fn.is_string()) return lookup(ctx, item, key_fn);
  if (!is_callable(key_fn))
    type_error(fname, "a key function or a keyword/string key", key_fn, pos);
  return ctx.call(key_fn, item);
}

Value call_updater(Ctx& ctx, Value f, Value old, const Value* extra, uint32_t nextra) {
  uint32_t n = nextra + 1;
  CallArgs args(n);
  args[0] = old;
  copy_values(args.data() + 1, extra, nextra);
  if (f.is(Type::NativeFn))
    if (const Value* inner = fnil_unwrap(f.as<const NativeFnObj>(), args.data(), n)) f = *inner;
  return ctx.call(f, args.data(), n);
}

}  // namespace ptc::builtins
