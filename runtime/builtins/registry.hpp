// The builtin function table. Each family of builtins lives in its own file
// and contributes a table of BuiltinDef; ids are positions in the combined,
// process-wide, immutable table.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/value.hpp"

namespace ptc {

class Ctx;

using BuiltinFn = Value (*)(Ctx& ctx, const Value* args, uint32_t nargs);
constexpr int16_t kVariadic = -1;

// Which namespaces a builtin belongs to: `clojure.string/x` and `str/x` only
// reach String builtins, `clojure.set/x` Set ones, `Math/x` Math ones,
// `clojure.walk/x` Walk, `regex/x` Regex; `clojure.core/x` reaches all.
enum class Category : uint8_t {
  Core,
  String,
  Set,
  Walk,
  Regex,
  Math,
  Json,
  Interop,
  Discovery,
  Internal
};

struct BuiltinDef {
  Category category;
  std::string_view name;  // as written in programs, e.g. "map", "+", "starts-with?"
  int16_t min_args;
  int16_t max_args;  // kVariadic: no upper bound
  BuiltinFn fn;
  std::string_view signature;  // for arity errors and docs, e.g. "(map f coll)"
  std::string_view doc;        // one line for (doc name), written for this project
};

std::span<const BuiltinDef> all_builtins();

namespace detail {
// all_builtins().data(), once the table is built: builtin_def runs on every
// call of a builtin as a value ((fnil + 0), (reduce + xs)), where the
// function-local static behind all_builtins() costs a call and a guard.
extern std::atomic<const BuiltinDef*> builtin_defs;
const BuiltinDef* build_builtin_defs();
}  // namespace detail

inline const BuiltinDef& builtin_def(uint32_t id) {
  const BuiltinDef* defs = detail::builtin_defs.load(std::memory_order_acquire);
  if (!defs) [[unlikely]]
    defs = detail::build_builtin_defs();
  return defs[id];
}
std::optional<uint32_t> find_builtin(std::string_view name);

// Membership by builtin id of the builtins `names` (all must exist), for the
// compiler's and analyzer's tables that a hot path indexes by id.
std::vector<bool> builtin_id_set(std::initializer_list<std::string_view> names);

// Throws ErrorKind::ArityError naming the builtin and its signature.
[[noreturn]] void throw_builtin_arity(const BuiltinDef& def, uint32_t nargs);
inline void check_builtin_arity(const BuiltinDef& def, uint32_t nargs) {
  if (nargs < static_cast<uint32_t>(def.min_args) ||
      (def.max_args != kVariadic && nargs > static_cast<uint32_t>(def.max_args)))
    throw_builtin_arity(def, nargs);
}

// Calls builtin `id` after checking the argument count.
inline Value call_builtin(Ctx& ctx, uint32_t id, const Value* args, uint32_t nargs) {
  const BuiltinDef& def = builtin_def(id);
  check_builtin_arity(def, nargs);
  return def.fn(ctx, args, nargs);
}

}  // namespace ptc
