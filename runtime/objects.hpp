// Layouts of the scalar heap objects. Collections have their own headers
// (vector.hpp, map.hpp, set.hpp). Variable-size objects keep their payload
// directly after the struct (`this + 1`), so each is one arena allocation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/value.hpp"

namespace re2 {
class RE2;
}

namespace ptc {

class Ctx;
class Tracer;

struct StrObj : Obj {
  static constexpr uint8_t kAsciiKnown = 1;
  static constexpr uint8_t kAscii = 2;

  uint32_t len = 0;                // bytes, excluding the trailing NUL
  mutable int32_t graphemes = -1;  // cached grapheme count, -1 = unknown

  const char* data() const { return reinterpret_cast<const char*>(this + 1); }
  char* data() { return reinterpret_cast<char*>(this + 1); }
  std::string_view view() const { return {data(), len}; }
};

// Keywords and quoted symbols share this layout; `hash` is set at interning
// and equals hash_bytes(name), the same as a string with that text. That makes
// flexible key access (:a finds "a", spec §7.5) a single hash probe.
// A keyword's Obj::aux is its slot hint: where small_map_find_keyword last
// found it in a map of string keys (hashcoll.hpp).
struct KeywordObj : Obj {
  uint32_t len = 0;
  const char* data() const { return reinterpret_cast<const char*>(this + 1); }
  std::string_view name() const { return {data(), len}; }
};

// Arbitrary-precision integer outside the int64 range. `size` is the number
// of GMP limbs, negative for negative numbers (GMP's mpz convention).
struct BigObj : Obj {
  int32_t size = 0;
  uint32_t pad = 0;  // keeps the limbs after the header 8-byte aligned
  const uint64_t* limbs() const { return reinterpret_cast<const uint64_t*>(this + 1); }
  uint64_t* limbs() { return reinterpret_cast<uint64_t*>(this + 1); }
};
static_assert(sizeof(BigObj) % alignof(uint64_t) == 0, "limbs must be aligned");

// What the runtime needs to know about a compiled function; the compiler's
// function prototype starts with this header.
struct FnHeader {
  std::string_view name;    // "" for anonymous functions
  std::string_view params;  // display of the parameter list, "x y" -> #fn[x y]
  // The Restorer factory (host_value.hpp) of a closure of this function:
  // source taking its captured values in order (kept with the function);
  // "" or unset when unknown.
  const std::string& (*restorer_source)(const FnHeader& fn) = nullptr;
};

struct ClosureObj : Obj {
  const FnHeader* fn = nullptr;
  uint32_t ncaptured = 0;
  const Value* captured() const { return reinterpret_cast<const Value*>(this + 1); }
  Value* captured() { return reinterpret_cast<Value*>(this + 1); }
};

struct NativeFnObj;
using NativeImpl = Value (*)(Ctx& ctx, const NativeFnObj* self, const Value* args, uint32_t nargs);

// A function made by a builtin (partial, comp, complement, ...): C++ code plus
// the values it closed over.
struct NativeFnObj : Obj {
  NativeImpl impl = nullptr;
  const char* name = "";
  uint32_t ncaptured = 0;
  const Value* captured() const { return reinterpret_cast<const Value*>(this + 1); }
  Value* captured() { return reinterpret_cast<Value*>(this + 1); }
};

struct RegexObj : Obj {
  re2::RE2* re = nullptr;  // owned; freed by an arena finalizer
  const StrObj* source = nullptr;
  size_t charged = 0;  // heap bytes charged for `re`, given back when it dies
};

struct VarObj : Obj {
  const KeywordObj* name = nullptr;  // interned symbol name
};

// Host-defined scalar values (dates, durations). The vtable answers the
// questions the generic runtime asks.
struct OpaqueObj;
struct OpaqueVTable {
  const char* type_name;
  void (*print)(const OpaqueObj* self, std::string& out, bool readable);
  bool (*equals)(const OpaqueObj* a, const OpaqueObj* b);
  uint32_t (*hash)(const OpaqueObj* self);
  int (*compare)(const OpaqueObj* a, const OpaqueObj* b);  // same vtable only
  size_t size;                                             // bytes of the object
  // The values it holds, for the collector; nullptr when it holds none.
  void (*trace)(const OpaqueObj* self, Tracer& tracer) = nullptr;
};
struct OpaqueObj : Obj {
  const OpaqueVTable* vt = nullptr;
};

}  // namespace ptc
