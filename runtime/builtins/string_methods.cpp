// Java String methods (spec §8.15): .indexOf .lastIndexOf .toLowerCase
// .toUpperCase .startsWith .endsWith .contains .length .substring.
//
// These keep Java's contract where the Clojure-named helpers return signal
// values: .indexOf answers -1 when absent and .substring raises on an index
// out of range (DIV-22). The receiver must be a string (a character literal
// is one, DIV-40/41). Indexes count graphemes like every other string index
// in PTC-Lisp; Java would count UTF-16 units (GAP-J09). The overloads of
// GAP-J05 are here: .indexOf/.lastIndexOf take a code point instead of a
// string and a from-index, .startsWith an offset. Index arguments may be
// finite floats, truncated as Java interop does (GAP-J14).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/numbers.hpp"
#include "runtime/objects.hpp"
#include "runtime/strings.hpp"

namespace ptc::builtins {

namespace {

const StrObj* receiver(std::string_view method, Value v) {
  if (!v.is_string())
    type_error(method, "a string", v, 1,
               "Java string methods work on strings only; convert with (str x) first");
  return v.str();
}

// A finite number as a Java int argument (truncated toward zero), clamped.
int64_t int_arg(std::string_view method, Value v, int pos) {
  constexpr int64_t kFar = int64_t{1} << 40;
  if (v.is_int()) return std::clamp<int64_t>(v.as_int(), -kFar, kFar);
  if (v.is_float() && std::isfinite(v.as_float()))
    return double_to_int64_clamped(v.as_float(), -kFar, kFar);
  type_error(method, "an integer", v, pos);
}

// The text to look for: a string, or an integer code point (Java's char overloads).
Value needle(Ctx& ctx, std::string_view method, Value v, bool code_points) {
  if (v.is_string()) return v;
  if (code_points && v.is_int()) {
    int64_t cp = v.as_int();
    if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return Value();
    std::string s;
    append_utf8(s, static_cast<int32_t>(cp));
    return ctx.string(s);
  }
  type_error(method, code_points ? "a string or a character code" : "a string", v, 2);
}

// Calls the Clojure-named builtin that has the same semantics once the
// arguments are checked.
Value delegate(Ctx& ctx, std::string_view name, const Value* args, uint32_t n) {
  auto id = find_builtin(name);
  return call_builtin(ctx, *id, args, n);
}

Value index_result(Value v) {
  return v.is_nil() ? Value::integer(-1) : v;
}

Value dot_index_of(Ctx& ctx, const Value* a, uint32_t n) {
  receiver(".indexOf", a[0]);
  Value args[3] = {a[0], needle(ctx, ".indexOf", a[1], true), Value()};
  if (args[1].is_nil()) return Value::integer(-1);
  if (n == 3) args[2] = Value::integer(int_arg(".indexOf", a[2], 3));
  return index_result(delegate(ctx, "index-of", args, n));
}

Value dot_last_index_of(Ctx& ctx, const Value* a, uint32_t n) {
  receiver(".lastIndexOf", a[0]);
  Value args[3] = {a[0], needle(ctx, ".lastIndexOf", a[1], true), Value()};
  if (args[1].is_nil()) return Value::integer(-1);
  if (n == 3) args[2] = Value::integer(int_arg(".lastIndexOf", a[2], 3));
  return index_result(delegate(ctx, "last-index-of", args, n));
}

Value dot_to_lower_case(Ctx& ctx, const Value* a, uint32_t) {
  receiver(".toLowerCase", a[0]);
  return delegate(ctx, "lower-case", a, 1);
}

Value dot_to_upper_case(Ctx& ctx, const Value* a, uint32_t) {
  receiver(".toUpperCase", a[0]);
  return delegate(ctx, "upper-case", a, 1);
}

Value dot_contains(Ctx& ctx, const Value* a, uint32_t) {
  receiver(".contains", a[0]);
  needle(ctx, ".contains", a[1], false);
  return delegate(ctx, "includes?", a, 2);
}

Value dot_ends_with(Ctx& ctx, const Value* a, uint32_t) {
  receiver(".endsWith", a[0]);
  needle(ctx, ".endsWith", a[1], false);
  return delegate(ctx, "ends-with?", a, 2);
}

// (.startsWith s prefix offset): false for an offset outside the string.
Value dot_starts_with(Ctx& ctx, const Value* a, uint32_t n) {
  const StrObj* s = receiver(".startsWith", a[0]);
  std::string_view p = needle(ctx, ".startsWith", a[1], false).str()->view();
  if (n == 2) return Value::boolean(s->view().starts_with(p));
  int64_t offset = int_arg(".startsWith", a[2], 3);
  int64_t count = static_cast<int64_t>(grapheme_count(s));
  if (offset < 0 || offset > count) return Value::boolean(false);
  ctx.tick(1 + s->len / 64);
  size_t from = grapheme_offset(s->view(), static_cast<size_t>(offset));
  return Value::boolean(s->view().substr(from).starts_with(p));
}

Value dot_length(Ctx&, const Value* a, uint32_t) {
  return Value::integer(static_cast<int64_t>(grapheme_count(receiver(".length", a[0]))));
}

// Raises unless 0 <= start <= end <= length, as Java's substring does.
Value dot_substring(Ctx& ctx, const Value* a, uint32_t n) {
  const StrObj* s = receiver(".substring", a[0]);
  int64_t count = static_cast<int64_t>(grapheme_count(s));
  int64_t start = int_arg(".substring", a[1], 2);
  int64_t end = n == 3 ? int_arg(".substring", a[2], 3) : count;
  if (start < 0 || end > count || start > end)
    throw_error(
        ErrorKind::RuntimeError,
        fmt::format(".substring: begin {}, end {}, length {} is out of range", start, end, count),
        "check the index first (.indexOf gives -1 when absent), or use subs, which "
        "returns a shorter or empty string instead of failing");
  if (start == 0 && end == count) return a[0];
  ctx.tick(1 + s->len / 64);
  std::string_view v = s->view();
  size_t from = grapheme_offset(v, static_cast<size_t>(start));
  size_t to = from + grapheme_offset(v.substr(from), static_cast<size_t>(end - start));
  return ctx.string(v.substr(from, to - from));
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Interop, ".indexOf", 2, 3, dot_index_of, "(.indexOf s substr) or (.indexOf s substr from)", "Index of the first occurrence, or -1 (Java String.indexOf)."),
    PTC_BUILTIN(Interop, ".lastIndexOf", 2, 3, dot_last_index_of, "(.lastIndexOf s substr) or (.lastIndexOf s substr from)", "Index of the last occurrence, or -1 (Java String.lastIndexOf)."),
    PTC_BUILTIN(Interop, ".toLowerCase", 1, 1, dot_to_lower_case, "(.toLowerCase s)", "The string in lower case."),
    PTC_BUILTIN(Interop, ".toUpperCase", 1, 1, dot_to_upper_case, "(.toUpperCase s)", "The string in upper case."),
    PTC_BUILTIN(Interop, ".startsWith", 2, 3, dot_starts_with, "(.startsWith s prefix) or (.startsWith s prefix offset)", "True when prefix occurs at the start (or at offset)."),
    PTC_BUILTIN(Interop, ".endsWith", 2, 2, dot_ends_with, "(.endsWith s suffix)", "True when the string ends with suffix."),
    PTC_BUILTIN(Interop, ".contains", 2, 2, dot_contains, "(.contains s substr)", "True when the string contains substr."),
    PTC_BUILTIN(Interop, ".length", 1, 1, dot_length, "(.length s)", "Number of characters in the string."),
    PTC_BUILTIN(Interop, ".substring", 2, 3, dot_substring, "(.substring s start) or (.substring s start end)", "Characters from start up to end; fails when an index is out of range."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> string_methods() {
  return kDefs;
}

}  // namespace ptc::builtins
