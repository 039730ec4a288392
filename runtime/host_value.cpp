// Host values: construction, structural equality, and conversion to and from
// runtime values. JSON lives in json.cpp.
#include "runtime/host_value.hpp"

#include <fmt/format.h>
#include <gmp.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "runtime/bignum.hpp"
#include "runtime/builtins/registry.hpp"
#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/key_strings.hpp"
#include "runtime/objects.hpp"
#include "runtime/printer.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/strings.hpp"
#include "runtime/vector.hpp"

namespace ptc {

namespace {

using Kind = HostValue::Kind;
using Items = std::vector<HostValue>;

const std::string& empty_text() {
  static const std::string s;
  return s;
}
const Items& no_items() {
  static const Items v;
  return v;
}

// Releasing the last reference to a deeply nested host value would otherwise
// recurse once per level (vector -> element -> shared_ptr -> vector ...). The
// deleter is trampolined: a release that happens while another one is running
// on this thread is queued and freed by the outer loop, so the native stack
// stays flat whatever the nesting. The queue belongs to the outermost release
// (a local); the thread-local is a plain pointer with no destructor, so a
// host value released after thread-local destruction (one in static storage,
// at exit) still works.
thread_local std::vector<const Items*>* t_pending = nullptr;

struct ItemsDeleter {
  void operator()(const Items* p) const noexcept {
    if (t_pending) {
      try {
        t_pending->push_back(p);
        return;
      } catch (...) {
        // No memory to queue it: free it here, recursing one level instead.
      }
      delete p;
      return;
    }
    std::vector<const Items*> pending;
    t_pending = &pending;
    delete p;
    while (!pending.empty()) {
      const Items* q = pending.back();
      pending.pop_back();
      delete q;
    }
    t_pending = nullptr;
  }
};

std::shared_ptr<const Items> share_items(Items items) {
  if (items.empty()) return nullptr;
  return std::shared_ptr<const Items>(new Items(std::move(items)), ItemsDeleter{});
}

// ---------------------------------------------------------------------------
// Numbers. BigInt text is normally canonical (what the runtime and the JSON
// parser produce), but hosts can build one from any digits, so comparisons
// canonicalise first: "+007" and "7" and Int 7 are the same number.

bool is_number(Kind k) {
  return k == Kind::Int || k == Kind::BigInt || k == Kind::Float;
}

// Optional sign, at least one digit, nothing else.
bool valid_decimal(std::string_view t) {
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
  if (t.empty()) return false;
  for (char c : t)
    if (c < '0' || c > '9') return false;
  return true;
}

// "-0042" -> "-42", "+0" -> "0". Invalid text is returned unchanged.
std::string canonical_decimal(std::string_view t) {
  if (!valid_decimal(t)) return std::string(t);
  bool neg = t[0] == '-';
  if (t[0] == '-' || t[0] == '+') t.remove_prefix(1);
  while (t.size() > 1 && t[0] == '0')
    t.remove_prefix(1);
  if (t == "0") neg = false;
  std::string out;
  if (neg) out.push_back('-');
  out.append(t);
  return out;
}

// Exact comparison of a double with an int64 (no rounding of the integer).
bool float_equals_int(double d, int64_t i) {
  if (!std::isfinite(d) || d != std::trunc(d)) return false;
  if (d < -9223372036854775808.0 || d >= 9223372036854775808.0) return false;
  return static_cast<int64_t>(d) == i;
}

bool bigint_equals_float(const std::string& decimal, double d) {
  if (!std::isfinite(d) || d != std::trunc(d)) return false;
  std::string c = canonical_decimal(decimal);
  // A finite double has at most 309 integer digits: longer text cannot be
  // equal, and is not worth parsing (a host may send millions of digits).
  if (c.size() > 320) return false;
  mpz_t z;
  mpz_init(z);
  bool ok = mpz_set_str(z, c.c_str(), 10) == 0 && mpz_cmp_d(z, d) == 0;
  mpz_clear(z);
  return ok;
}

bool numbers_equal_host(const HostValue& a, const HostValue& b) {
  Kind ka = a.kind(), kb = b.kind();
  if (ka == Kind::Int && kb == Kind::Int) return a.as_int() == b.as_int();
  if (ka == Kind::Float && kb == Kind::Float) return a.as_float() == b.as_float();
  if (ka == Kind::Float) return numbers_equal_host(b, a);
  // Now a is Int or BigInt.
  if (kb == Kind::Float) {
    if (ka == Kind::Int) return float_equals_int(b.as_float(), a.as_int());
    return bigint_equals_float(a.text(), b.as_float());
  }
  auto decimal = [](const HostValue& h) {
    return h.kind() == Kind::Int ? std::to_string(h.as_int()) : canonical_decimal(h.text());
  };
  return decimal(a) == decimal(b);
}

// The double nearest to a number; equal numbers give equal doubles, which
// makes it a sound basis for hashing across Int, BigInt and Float.
double number_as_double(const HostValue& h) {
  switch (h.kind()) {
    case Kind::Int:
      return static_cast<double>(h.as_int());
    case Kind::Float:
      return h.as_float();
    default: {
      std::string c = canonical_decimal(h.text());
      return std::strtod(c.c_str(), nullptr);  // digits only: locale-independent
    }
  }
}

// ---------------------------------------------------------------------------
// Structural hash, consistent with host_equal.

uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

uint64_t host_hash(const HostValue& h) {
  check_native_stack("hashing a nested host value");
  switch (h.kind()) {
    case Kind::Nil:
      return 0x9e3779b97f4a7c15ULL;
    case Kind::Bool:
      return h.as_bool() ? 0x51ULL : 0x52ULL;
    case Kind::Int:
    case Kind::BigInt:
    case Kind::Float: {
      double d = number_as_double(h);
      if (d == 0) return mix(0x11);  // 0.0 and -0.0
      if (std::isnan(d)) return mix(0x12);
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return mix(bits ^ 0x13);
    }
    case Kind::String:
      return mix(std::hash<std::string_view>{}(h.text()) ^ 0x21);
    case Kind::Keyword:
      return mix(std::hash<std::string_view>{}(h.text()) ^ 0x22);
    case Kind::Opaque:
      return mix(std::hash<std::string_view>{}(h.text()) ^ 0x23);
    case Kind::Vector: {
      uint64_t acc = 0x31;
      for (const HostValue& x : h.items())
        acc = mix(acc * 31 + host_hash(x));
      return acc;
    }
    case Kind::Set: {
      uint64_t acc = 0;  // order-independent
      for (const HostValue& x : h.items())
        acc += mix(host_hash(x));
      return mix(acc ^ 0x32);
    }
    case Kind::Map: {
      uint64_t acc = 0;
      const Items& it = h.items();
      for (size_t i = 0; i + 1 < it.size(); i += 2)
        acc += mix(host_hash(it[i]) * 31 + host_hash(it[i + 1]));
      return mix(acc ^ 0x33);
    }
  }
  return 0;
}

// ---------------------------------------------------------------------------
// Structural equality.

bool host_equal(const HostValue& a, const HostValue& b);

// Maps and sets: `stride` is 2 for maps (key, value) and 1 for sets. Each
// entry of `a` must match a distinct entry of `b`. Same order is the common
// case and is checked first; the rest goes through a hash index of `b`.
bool unordered_equal(const Items& a, const Items& b, size_t stride) {
  if (a.size() != b.size()) return false;
  size_t n = a.size() / stride;
  auto entry_equal = [&](size_t i, size_t j) {
    for (size_t k = 0; k < stride; ++k)
      if (!host_equal(a[i * stride + k], b[j * stride + k])) return false;
    return true;
  };
  size_t start = 0;
  while (start < n && entry_equal(start, start))
    ++start;
  if (start == n) return true;

  std::vector<bool> used(n, false);
  std::unordered_multimap<uint64_t, size_t> index;
  index.reserve(n - start);
  for (size_t j = start; j < n; ++j)
    index.emplace(host_hash(b[j * stride]), j);
  for (size_t i = start; i < n; ++i) {
    auto [lo, hi] = index.equal_range(host_hash(a[i * stride]));
    bool found = false;
    for (auto it = lo; it != hi; ++it) {
      size_t j = it->second;
      if (!used[j] && entry_equal(i, j)) {
        used[j] = true;
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

bool host_equal(const HostValue& a, const HostValue& b) {
  check_native_stack("comparing nested host values");
  if (is_number(a.kind()) && is_number(b.kind())) return numbers_equal_host(a, b);
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::Nil:
      return true;
    case Kind::Bool:
      return a.as_bool() == b.as_bool();
    case Kind::String:
    case Kind::Keyword:
    case Kind::Opaque:
      return a.text() == b.text();
    case Kind::Vector: {
      const Items& x = a.items();
      const Items& y = b.items();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!host_equal(x[i], y[i])) return false;
      return true;
    }
    case Kind::Set:
      return unordered_equal(a.items(), b.items(), 1);
    case Kind::Map:
      return unordered_equal(a.items(), b.items(), 2);
    default:
      return false;  // numbers handled above
  }
}

// ---------------------------------------------------------------------------
// Runtime value -> host value.

std::shared_ptr<const Restorer> restorer_of(Value v, ExportBudget& budget);
std::shared_ptr<const Restorer> make_restorer(Value v, ExportBudget& budget);

HostValue export_rec(Value v, ExportBudget& budget) {
  check_native_stack("exporting a nested value");
  budget.charge(sizeof(HostValue) + (v.is_string() ? v.str()->view().size() : 0));
  switch (v.type()) {
    case Type::Nil:
      return HostValue::nil();
    case Type::Bool:
      return HostValue::boolean(v.as_bool());
    case Type::Int:
      return HostValue::integer(v.as_int());
    case Type::Float:
      return HostValue::floating(v.as_float());
    case Type::BigInt:
      return HostValue::bigint(bigint_to_string(v.big()));
    case Type::String:
      return HostValue::string(std::string(v.str()->view()));
    case Type::Keyword:
      return HostValue::keyword(std::string(v.kw()->name()));
    case Type::Vector: {
      std::vector<HostValue> items;
      items.reserve(v.vec()->count);
      for (VecIter it(v.vec()); !it.done(); it.next())
        items.push_back(export_rec(it.value(), budget));
      return HostValue::vector(std::move(items));
    }
    case Type::Map: {
      std::vector<std::pair<HostValue, HostValue>> entries;
      entries.reserve(v.map()->count);
      for (HashIter it(v.map()); !it.done(); it.next()) {
        HostValue k;
        if (budget.string_keys && it.key().type() == Type::Keyword) {
          budget.charge(sizeof(HostValue));
          k = HostValue::string(std::string(it.key().kw()->name()));
        } else {
          k = export_rec(it.key(), budget);
        }
        entries.emplace_back(std::move(k), export_rec(it.val(), budget));
      }
      return HostValue::map(std::move(entries));
    }
    case Type::Set: {
      std::vector<HostValue> items;
      items.reserve(v.set()->count);
      for (HashIter it(v.set()); !it.done(); it.next())
        items.push_back(export_rec(it.key(), budget));
      return HostValue::set(std::move(items));
    }
    case Type::Closure:
    case Type::NativeFn:
    case Type::Builtin:
    case Type::Regex:
    case Type::Symbol:
      if (budget.restorable_functions)
        return HostValue::opaque(print_to_string(v), restorer_of(v, budget));
      break;
    case Type::Var:
    case Type::Opaque:
      break;
  }
  return HostValue::opaque(print_to_string(v));
}

// "(fn [c0 c1] (name c0 c1))" for a function `name` made from n values.
std::string call_factory(std::string_view name, uint32_t n) {
  std::string params, call = fmt::format("({}", name);
  for (uint32_t i = 0; i < n; ++i) {
    params += fmt::format("{}c{}", i ? " " : "", i);
    call += fmt::format(" c{}", i);
  }
  return fmt::format("(fn [{}] {})", params, call + ")");
}

// The captured values as restorer arguments; false when one of them cannot be
// rebuilt (then neither can the function).
bool export_captures(const Value* values, uint32_t n, ExportBudget& budget, Items& out) {
  for (uint32_t i = 0; i < n; ++i) {
    out.push_back(export_rec(values[i], budget));
    if (out.back().kind() == Kind::Opaque && !out.back().restorer()) return false;
  }
  return true;
}

std::shared_ptr<const Restorer> make_restorer(Value v, ExportBudget& budget) {
  auto r = std::make_shared<Restorer>();
  switch (v.type()) {
    case Type::Closure: {
      // The compiler knows the function's source and the names of what it captured.
      const auto* c = v.as<ClosureObj>();
      if (!c->fn->restorer_source) return nullptr;
      r->factory = c->fn->restorer_source(*c->fn);
      if (r->factory.empty() || !export_captures(c->captured(), c->ncaptured, budget, r->args))
        return nullptr;
      break;
    }
    case Type::NativeFn: {
      // Made by a builtin from exactly the values it captured (support.hpp).
      const auto* f = v.as<NativeFnObj>();
      r->factory = call_factory(fmt::format("clojure.core/{}", f->name), f->ncaptured);
      if (!export_captures(f->captured(), f->ncaptured, budget, r->args)) return nullptr;
      break;
    }
    case Type::Builtin:
      r->factory = fmt::format("(fn [] clojure.core/{})", builtin_def(v.builtin_id()).name);
      break;
    case Type::Symbol:  // only a quote makes one
      r->factory = fmt::format("(fn [] '{})", v.kw()->name());
      break;
    case Type::Regex:
      r->factory = call_factory("re-pattern", 1);
      r->args.push_back(HostValue::string(std::string(v.as<RegexObj>()->source->view())));
      break;
    default:
      return nullptr;
  }
  budget.charge(r->factory.size());
  return r;
}

std::shared_ptr<const Restorer> restorer_of(Value v, ExportBudget& budget) {
  if (!v.is_object()) return make_restorer(v, budget);
  const void* identity = v.obj();
  if (auto known = budget.restorers.find(identity); known != budget.restorers.end())
    return known->second;
  auto r = make_restorer(v, budget);
  budget.restorers.emplace(identity, r);
  return r;
}

// ---------------------------------------------------------------------------
// Host value -> runtime value.

void check_host_text(std::string_view text, const char* what) {
  size_t bad = 0;
  if (!is_valid_utf8(text, &bad)) {
    throw_error(ErrorKind::RuntimeError,
                fmt::format("host {} is not valid UTF-8 (byte offset {})", what, bad),
                "strings passed into a run must be UTF-8");
  }
}

Value import_rec(Ctx& ctx, const HostValue& h, FunctionRestorer* restorer, KeyStrings& keys) {
  check_native_stack("importing a nested value");
  ctx.tick();  // a large context or tool result is imported within the time limit
  switch (h.kind()) {
    case Kind::Nil:
      return Value::nil();
    case Kind::Bool:
      return Value::boolean(h.as_bool());
    case Kind::Int:
      return Value::integer(h.as_int());
    case Kind::Float:
      return Value::floating(h.as_float());
    case Kind::BigInt:
      if (!valid_decimal(h.text()))
        throw_error(
            ErrorKind::RuntimeError,
            fmt::format("host bigint \"{}\" is not a decimal integer", h.text().substr(0, 40)));
      return integer_from_decimal(ctx.arena, h.text());
    case Kind::String:
      check_host_text(h.text(), "string");
      return ctx.string(h.text());
    case Kind::Opaque:
      if (restorer && h.restorer()) return restorer->restore(ctx, h);
      check_host_text(h.text(), "opaque value's text");
      return ctx.string(h.text());
    case Kind::Keyword:
      check_host_text(h.text(), "keyword");
      return ctx.keyword(h.text());
    case Kind::Vector: {
      VecBuilder b(ctx.arena);
      for (const HostValue& x : h.items())
        b.push(import_rec(ctx, x, restorer, keys));
      return vec_value(b.finish());
    }
    case Kind::Map: {
      HashBuilder b(ctx.arena, Type::Map);
      const Items& it = h.items();
      for (size_t i = 0; i + 1 < it.size(); i += 2) {
        const HostValue& key = it[i];
        Value k;
        if (key.kind() == Kind::String && key.text().size() <= KeyStrings::kShareUpTo) {
          ctx.tick();  // as import_rec would
          check_host_text(key.text(), "string");
          k = keys.get(ctx, key.text());
        } else {
          k = import_rec(ctx, key, restorer, keys);
        }
        b.put(k, import_rec(ctx, it[i + 1], restorer, keys));
      }
      return Value::object(finish_map(b));
    }
    case Kind::Set: {
      HashBuilder b(ctx.arena, Type::Set);
      for (const HostValue& x : h.items())
        b.put(import_rec(ctx, x, restorer, keys));
      return Value::object(finish_set(b));
    }
  }
  return Value::nil();
}

}  // namespace

// ---------------------------------------------------------------------------
// HostValue members.

HostValue HostValue::boolean(bool b) {
  HostValue h;
  h.kind_ = Kind::Bool;
  h.b_ = b;
  return h;
}

HostValue HostValue::integer(int64_t i) {
  HostValue h;
  h.kind_ = Kind::Int;
  h.i_ = i;
  return h;
}

HostValue HostValue::bigint(std::string decimal) {
  HostValue h;
  h.kind_ = Kind::BigInt;
  h.text_ = std::make_shared<const std::string>(std::move(decimal));
  return h;
}

HostValue HostValue::floating(double d) {
  HostValue h;
  h.kind_ = Kind::Float;
  h.d_ = d;
  return h;
}

HostValue HostValue::string(std::string s) {
  HostValue h;
  h.kind_ = Kind::String;
  h.text_ = std::make_shared<const std::string>(std::move(s));
  return h;
}

HostValue HostValue::keyword(std::string name) {
  HostValue h;
  h.kind_ = Kind::Keyword;
  h.text_ = std::make_shared<const std::string>(std::move(name));
  return h;
}

HostValue HostValue::opaque(std::string printed, std::shared_ptr<const Restorer> restorer) {
  HostValue h;
  h.kind_ = Kind::Opaque;
  h.text_ = std::make_shared<const std::string>(std::move(printed));
  h.restorer_ = std::move(restorer);
  return h;
}

HostValue HostValue::vector(std::vector<HostValue> items) {
  HostValue h;
  h.kind_ = Kind::Vector;
  h.items_ = share_items(std::move(items));
  return h;
}

HostValue HostValue::set(std::vector<HostValue> items) {
  HostValue h;
  h.kind_ = Kind::Set;
  h.items_ = share_items(std::move(items));
  return h;
}

HostValue HostValue::map(std::vector<std::pair<HostValue, HostValue>> entries) {
  Items flat;
  flat.reserve(entries.size() * 2);
  for (auto& [k, v] : entries) {
    flat.push_back(std::move(k));
    flat.push_back(std::move(v));
  }
  // `entries` now holds moved-from (empty) values only: freeing it is flat.
  HostValue h;
  h.kind_ = Kind::Map;
  h.items_ = share_items(std::move(flat));
  return h;
}

const std::string& HostValue::text() const {
  return text_ ? *text_ : empty_text();
}

const std::vector<HostValue>& HostValue::items() const {
  return items_ ? *items_ : no_items();
}

size_t HostValue::size() const {
  switch (kind_) {
    case Kind::Vector:
    case Kind::Set:
      return items().size();
    case Kind::Map:
      return items().size() / 2;
    default:
      return 0;
  }
}

const HostValue* HostValue::get(std::string_view key) const {
  if (kind_ != Kind::Map) return nullptr;
  const Items& it = items();
  const HostValue* by_keyword = nullptr;
  for (size_t i = 0; i + 1 < it.size(); i += 2) {
    const HostValue& k = it[i];
    if (k.kind_ == Kind::String && k.text() == key) return &it[i + 1];
    if (!by_keyword && k.kind_ == Kind::Keyword && k.text() == key) by_keyword = &it[i + 1];
  }
  return by_keyword;
}

bool HostValue::operator==(const HostValue& other) const {
  return host_equal(*this, other);
}

void ExportBudget::charge(size_t bytes) {
  charge_walk();
  if (remaining == SIZE_MAX) return;
  if (bytes > remaining)
    throw_error(ErrorKind::MemoryLimit,
                "memory limit exceeded: the result, with the values def keeps in memory, is "
                "too large to return",
                "shared structure counts each time it appears; return or def a summary (a "
                "count, a part) instead");
  remaining -= bytes;
}

HostValue export_value(Value v, ExportBudget& budget) {
  return export_rec(v, budget);
}

HostValue export_value(Value v, size_t max_bytes) {
  ExportBudget budget;
  budget.remaining = max_bytes ? max_bytes : SIZE_MAX;
  return export_rec(v, budget);
}

Value import_value(Ctx& ctx, const HostValue& h, FunctionRestorer* restorer) {
  KeyStrings keys;
  return import_rec(ctx, h, restorer, keys);
}

}  // namespace ptc
