// The runtime value: a 16-byte tagged union. Scalars (nil, booleans, int64,
// doubles, builtin references) live inline; everything else points at an object
// allocated in the run's arena. Values are immutable once built.
#pragma once

#include <cstdint>
#include <cstring>

namespace ptc {

enum class Type : uint8_t {
  Nil,
  Bool,
  Int,       // int64 fast path; promotes to BigInt on overflow, never wraps
  Float,     // IEEE double, including infinities and NaN
  BigInt,    // arbitrary precision, always outside the int64 range
  String,    // UTF-8; characters are one-grapheme strings
  Keyword,   // interned per run
  Symbol,    // only from (quote sym); prints as 'sym
  Vector,    // the one sequential type (PTC-Lisp is vector-first)
  Map,       // insertion ordered
  Set,       // insertion ordered
  Closure,   // compiled function plus captured values
  NativeFn,  // function built by a builtin (partial, comp, ...): C++ code plus captured values
  Builtin,   // reference to a builtin function, payload is its id
  Regex,
  Var,     // #'name
  Opaque,  // host-defined scalar objects (dates, durations); printer asks the object
};

const char* type_name(Type t);

// Common header of every heap object. `hash` caches the structural hash
// (0 = not computed yet) so that keys hash once.
struct Obj {
  Type type;
  uint8_t flags = 0;
  uint16_t aux = 0;
  mutable uint32_t hash = 0;
};

struct StrObj;
struct KeywordObj;
struct BigObj;
struct VecObj;
struct MapObj;
struct SetObj;
struct ClosureObj;
struct NativeFnObj;
struct RegexObj;
struct VarObj;
struct OpaqueObj;

class Value {
 public:
  constexpr Value() : type_(Type::Nil), u_{.i = 0} {}

  static constexpr Value nil() { return Value(); }
  static constexpr Value boolean(bool b) {
    Value v;
    v.type_ = Type::Bool;
    v.u_.i = b ? 1 : 0;
    return v;
  }
  static constexpr Value integer(int64_t i) {
    Value v;
    v.type_ = Type::Int;
    v.u_.i = i;
    return v;
  }
  static constexpr Value floating(double d) {
    Value v;
    v.type_ = Type::Float;
    v.u_.d = d;
    return v;
  }
  static constexpr Value builtin(uint32_t id) {
    Value v;
    v.type_ = Type::Builtin;
    v.u_.i = id;
    return v;
  }
  static Value object(const Obj* o) {
    Value v;
    v.type_ = o->type;
    v.u_.o = const_cast<Obj*>(o);
    return v;
  }

  Type type() const { return type_; }
  bool is(Type t) const { return type_ == t; }
  bool is_nil() const { return type_ == Type::Nil; }
  bool is_bool() const { return type_ == Type::Bool; }
  bool is_int() const { return type_ == Type::Int; }
  bool is_float() const { return type_ == Type::Float; }
  bool is_number() const {
    return type_ == Type::Int || type_ == Type::Float || type_ == Type::BigInt;
  }
  bool is_integer() const { return type_ == Type::Int || type_ == Type::BigInt; }
  bool is_string() const { return type_ == Type::String; }
  bool is_keyword() const { return type_ == Type::Keyword; }
  bool is_vector() const { return type_ == Type::Vector; }
  bool is_map() const { return type_ == Type::Map; }
  bool is_set() const { return type_ == Type::Set; }
  bool is_object() const { return type_ > Type::Float && type_ != Type::Builtin; }
  bool is_fn() const {
    return type_ == Type::Closure || type_ == Type::NativeFn || type_ == Type::Builtin;
  }

  // Only nil and false are falsy (spec §4).
  bool truthy() const { return !(type_ == Type::Nil || (type_ == Type::Bool && u_.i == 0)); }

  bool as_bool() const { return u_.i != 0; }
  int64_t as_int() const { return u_.i; }
  double as_float() const { return u_.d; }
  uint32_t builtin_id() const { return static_cast<uint32_t>(u_.i); }
  Obj* obj() const { return u_.o; }
  template <class T>
  T* as() const {
    return reinterpret_cast<T*>(u_.o);  // every object type starts with its Obj header
  }
  const StrObj* str() const { return as<const StrObj>(); }
  const KeywordObj* kw() const { return as<const KeywordObj>(); }
  const BigObj* big() const { return as<const BigObj>(); }
  const VecObj* vec() const { return as<const VecObj>(); }
  const MapObj* map() const { return as<const MapObj>(); }
  const SetObj* set() const { return as<const SetObj>(); }

  // Bitwise identity: same tag and same payload. Cheap pre-check for equality.
  bool identical(const Value& o) const { return type_ == o.type_ && u_.i == o.u_.i; }

 private:
  Type type_;  // 7 bytes of padding follow: identical() and hashing look at type_ and u_ only
  union {
    int64_t i;
    double d;
    Obj* o;
  } u_;
};

static_assert(sizeof(Value) == 16, "Value must stay two words");

// Copies n arguments: the usual one to four without a call to memmove, which
// costs more than the copy on the paths that forward a call ((fnil + 0), a
// reduce's step). dst may overlap src from above (it copies highest first).
inline void copy_values(Value* dst, const Value* src, uint32_t n) {
  switch (n) {
    case 4:
      dst[3] = src[3];
      [[fallthrough]];
    case 3:
      dst[2] = src[2];
      [[fallthrough]];
    case 2:
      dst[1] = src[1];
      [[fallthrough]];
    case 1:
      dst[0] = src[0];
      [[fallthrough]];
    case 0:
      return;
    default:
      std::memmove(static_cast<void*>(dst), src, n * sizeof(Value));
  }
}

}  // namespace ptc
