#include "runtime/equality.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <vector>

#include "runtime/bignum.hpp"
#include "runtime/ctx.hpp"
#include "runtime/hash.hpp"
#include "runtime/hashcoll.hpp"
#include "runtime/numbers.hpp"
#include "runtime/objects.hpp"
#include "runtime/stack_guard.hpp"
#include "runtime/vector.hpp"

namespace ptc {

namespace {

// Hashes are cached in object headers (cached_hash), written atomically:
// a racing recompute is harmless.
uint32_t store_hash(const Obj* o, uint32_t h) {
  std::atomic_ref<uint32_t>(const_cast<Obj*>(o)->hash).store(h, std::memory_order_relaxed);
  return h;
}

constexpr uint32_t kNilHash = 0x2b5a8c61u;
constexpr uint32_t kTrueHash = 0x5be0cd19u;
constexpr uint32_t kFalseHash = 0x1f83d9abu;
constexpr uint32_t kNaNHash = 0x6a09e667u;
constexpr uint32_t kEmptyVecHash = 0x3c6ef372u;
constexpr uint32_t kEmptyMapHash = 0x510e527fu;
constexpr uint32_t kEmptySetHash = 0x9b05688cu;

bool is_nan(Value v) {
  return v.is_float() && std::isnan(v.as_float());
}

// Exact comparison of an int64 with a double (no precision loss past 2^53).
int cmp_int_double(int64_t i, double d) {
  auto ti = double_to_int64(d);
  if (!ti) return d > 0 ? -1 : 1;  // beyond int64 (NaN is handled by the callers)
  if (i != *ti) return i < *ti ? -1 : 1;
  double frac = d - std::trunc(d);
  return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

int sign(int x) {
  return x < 0 ? -1 : (x > 0 ? 1 : 0);
}

uint32_t hash_double(double d) {
  if (std::isnan(d)) return kNaNHash;
  if (std::trunc(d) == d && std::isfinite(d)) {
    if (auto i = double_to_int64(d)) return hash_u64(static_cast<uint64_t>(*i));
    // An integral double beyond int64 equals the bignum of the same value.
    Mpz z;
    mpz_set_d(z.get(), d);
    size_t n = mpz_size(z.get());
    uint32_t h =
        hash_bytes(std::string_view(reinterpret_cast<const char*>(mpz_limbs_read(z.get())), n * 8));
    return mpz_sgn(z.get()) < 0 ? nonzero_hash(~h) : h;
  }
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return hash_u64(bits);
}

// Rank of a type in the total order (numbers first, strings last).
int type_rank(Type t) {
  switch (t) {
    case Type::Int:
    case Type::Float:
    case Type::BigInt:
      return 0;
    case Type::Nil:
    case Type::Bool:
    case Type::Keyword:
    case Type::Symbol:
      return 1;
    case Type::Builtin:
    case Type::Closure:
    case Type::NativeFn:
      return 2;
    case Type::Var:
    case Type::Regex:
      return 3;
    case Type::Opaque:
      return 4;
    case Type::Map:
    case Type::Set:
      return 5;
    case Type::Vector:
      return 6;
    case Type::String:
      return 7;
  }
  return 8;
}

std::string_view atom_name(Value v) {
  switch (v.type()) {
    case Type::Nil:
      return "nil";
    case Type::Bool:
      return v.as_bool() ? "true" : "false";
    default:
      return v.kw()->name();
  }
}

int cmp_views(std::string_view a, std::string_view b) {
  return sign(a.compare(b));
}

std::vector<Value> sorted_keys(const HashObj* h) {
  std::vector<Value> keys;
  keys.reserve(h->count);
  for (HashIter it(h); !it.done(); it.next())
    keys.push_back(it.key());
  // n log n comparisons, each charged: ordering two big maps or sets is one
  // native call that can take long.
  std::sort(keys.begin(), keys.end(), [](Value a, Value b) {
    charge_walk();
    return compare(a, b) < 0;
  });
  return keys;
}

}  // namespace

int compare_numbers(Value a, Value b, bool* unordered) {
  if (unordered) *unordered = false;
  if (is_nan(a) || is_nan(b)) {
    if (unordered) *unordered = true;
    return 0;
  }
  if (a.is_int() && b.is_int()) return a.as_int() < b.as_int() ? -1 : (a.as_int() > b.as_int());
  if (a.is_float() && b.is_float())
    return a.as_float() < b.as_float() ? -1 : (a.as_float() > b.as_float());
  if (a.is_int() && b.is_float()) return cmp_int_double(a.as_int(), b.as_float());
  if (a.is_float() && b.is_int()) return -cmp_int_double(b.as_int(), a.as_float());
  // At least one bignum.
  if (a.is_float()) return -sign(mpz_cmp_d(MpzView(b).get(), a.as_float()));
  if (b.is_float()) return sign(mpz_cmp_d(MpzView(a).get(), b.as_float()));
  return sign(mpz_cmp(MpzView(a).get(), MpzView(b).get()));
}

bool numbers_equal(Value a, Value b) {
  bool unordered;
  return compare_numbers(a, b, &unordered) == 0 && !unordered;
}

bool equals(Value a, Value b) {
  if (a.identical(b)) return !is_nan(a);
  if (a.is_number() && b.is_number()) return numbers_equal(a, b);
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::String: {
      const StrObj *x = a.str(), *y = b.str();
      if (x->len != y->len) return false;
      uint32_t hx = cached_hash(x), hy = cached_hash(y);
      if (hx && hy && hx != hy) return false;
      return std::memcmp(x->data(), y->data(), x->len) == 0;
    }
    case Type::Keyword:
    case Type::Symbol:
      return a.kw()->hash == b.kw()->hash && a.kw()->name() == b.kw()->name();
    case Type::Vector: {
      const VecObj *x = a.vec(), *y = b.vec();
      if (x->count != y->count) return false;
      uint32_t hx = cached_hash(x), hy = cached_hash(y);
      if (hx && hy && hx != hy) return false;
      check_native_stack("comparing nested collections");
      VecIter i(x), j(y);
      for (; !i.done(); i.next(), j.next()) {
        charge_walk();
        if (!equals(i.value(), j.value())) return false;
      }
      return true;
    }
    case Type::Map: {
      const MapObj *x = a.map(), *y = b.map();
      if (x->count != y->count) return false;
      uint32_t hx = cached_hash(x), hy = cached_hash(y);
      if (hx && hy && hx != hy) return false;
      check_native_stack("comparing nested collections");
      for (HashIter it(x); !it.done(); it.next()) {
        charge_walk();
        const Value* v = map_find(y, it.key());
        if (!v || !equals(it.val(), *v)) return false;
      }
      return true;
    }
    case Type::Set: {
      const SetObj *x = a.set(), *y = b.set();
      if (x->count != y->count) return false;
      check_native_stack("comparing nested collections");
      for (HashIter it(x); !it.done(); it.next()) {
        charge_walk();
        if (!set_contains(y, it.key())) return false;
      }
      return true;
    }
    case Type::Var:
      return equals(Value::object(a.as<VarObj>()->name), Value::object(b.as<VarObj>()->name));
    case Type::Opaque: {
      auto *x = a.as<OpaqueObj>(), *y = b.as<OpaqueObj>();
      return x->vt == y->vt && x->vt->equals(x, y);
    }
    default:
      return false;  // functions and regexes are equal only to themselves
  }
}

uint32_t hash_value(Value v) {
  switch (v.type()) {
    case Type::Nil:
      return kNilHash;
    case Type::Bool:
      return v.as_bool() ? kTrueHash : kFalseHash;
    case Type::Int:
      return hash_u64(static_cast<uint64_t>(v.as_int()));
    case Type::Float:
      return hash_double(v.as_float());
    case Type::Builtin:
      return hash_u64(0xB0000000ull + v.builtin_id());
    default:
      break;
  }
  const Obj* o = v.obj();
  if (uint32_t h = cached_hash(o)) return h;
  uint32_t h = 0;
  switch (v.type()) {
    case Type::BigInt:
      h = bigint_hash(v.big());
      break;
    case Type::String:
      h = hash_bytes(v.str()->view());
      break;
    case Type::Keyword:
    case Type::Symbol:
      return v.kw()->hash;
    case Type::Vector: {
      if (v.vec()->count == 0) return kEmptyVecHash;
      check_native_stack("hashing nested collections");
      h = 1;
      for (VecIter it(v.vec()); !it.done(); it.next())
        h = hash_combine_ordered(h, hash_value(it.value()));
      break;
    }
    case Type::Map: {
      if (v.map()->count == 0) return kEmptyMapHash;
      check_native_stack("hashing nested collections");
      for (HashIter it(v.map()); !it.done(); it.next())
        h += hash_mix_unordered(hash_value(it.key()) * 31u ^ hash_value(it.val()));
      break;
    }
    case Type::Set: {
      if (v.set()->count == 0) return kEmptySetHash;
      check_native_stack("hashing nested collections");
      for (HashIter it(v.set()); !it.done(); it.next())
        h += hash_mix_unordered(hash_value(it.key()));
      break;
    }
    case Type::Var:
      h = hash_value(Value::object(v.as<VarObj>()->name)) ^ 0x5555u;
      break;
    case Type::Opaque:
      h = v.as<OpaqueObj>()->vt->hash(v.as<OpaqueObj>());
      break;
    default:
      h = hash_u64(reinterpret_cast<uintptr_t>(o));
      break;
  }
  return store_hash(o, nonzero_hash(h));
}

int compare(Value a, Value b) {
  if (a.identical(b) && !a.is_float()) return 0;
  int ra = type_rank(a.type()), rb = type_rank(b.type());
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return compare_numbers(a, b);
    case 1:
      return cmp_views(atom_name(a), atom_name(b));
    case 7:
      return cmp_views(a.str()->view(), b.str()->view());
    case 6: {
      check_native_stack("comparing nested collections");
      VecIter i(a.vec()), j(b.vec());
      for (; !i.done() && !j.done(); i.next(), j.next()) {
        charge_walk();
        if (int c = compare(i.value(), j.value())) return c;
      }
      return i.done() ? (j.done() ? 0 : -1) : 1;
    }
    case 5: {
      auto *x = static_cast<const HashObj*>(a.obj()), *y = static_cast<const HashObj*>(b.obj());
      if (x->count != y->count) return x->count < y->count ? -1 : 1;
      check_native_stack("comparing nested collections");
      std::vector<Value> kx = sorted_keys(x), ky = sorted_keys(y);
      charge_walk(static_cast<int64_t>(kx.size()));
      for (size_t i = 0; i < kx.size(); ++i)
        if (int c = compare(kx[i], ky[i])) return c;
      if (a.is_map() && b.is_map()) {
        for (Value k : kx) {
          charge_walk();
          if (int c = compare(map_get(a.map(), k), map_get(b.map(), k))) return c;
        }
      }
      return 0;
    }
    case 4: {
      auto *x = a.as<OpaqueObj>(), *y = b.as<OpaqueObj>();
      if (x->vt == y->vt) return x->vt->compare(x, y);
      return cmp_views(x->vt->type_name, y->vt->type_name);
    }
    case 3:
      if (a.type() != b.type()) return a.type() < b.type() ? -1 : 1;
      if (a.is(Type::Var))
        return cmp_views(a.as<VarObj>()->name->name(), b.as<VarObj>()->name->name());
      return cmp_views(a.as<RegexObj>()->source->view(), b.as<RegexObj>()->source->view());
    default:
      if (a.identical(b)) return 0;
      if (a.type() != b.type()) return a.type() < b.type() ? -1 : 1;
      if (a.type() == Type::Builtin) return a.builtin_id() < b.builtin_id() ? -1 : 1;
      return 0;  // distinct closures have no meaningful order
  }
}

}  // namespace ptc
