// Symbol resolution outside local scope: user globals, builtins, namespaced
// names (clojure.string/join, Math/abs, data/x, tool/x; spec §9.8), constants
// (Double/NaN), and the error for unknown names with a did-you-mean hint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "runtime/builtins/special_forms.hpp"  // is_special_form
#include "runtime/error.hpp"
#include "runtime/hash.hpp"
#include "runtime/value.hpp"

namespace ptc {

struct Resolution {
  enum Kind { Global, Builtin, Constant, Data, Tool, Error } kind = Error;
  std::string_view name;            // global name, data key or tool name
  std::optional<uint32_t> builtin;  // for Builtin, and a Global's fallback
  Value constant;
};

// Names bound by def in the program or in memory; they shadow builtins of the
// same name. Every symbol the analyzer resolves asks, so a bit per (first
// character, last character, length) turns most names away before hashing.
class DefinedNames {
 public:
  void insert(std::string_view name) {
    names_.insert(name);
    uint32_t s = slot(name);
    filter_[s / 64] |= uint64_t{1} << (s % 64);
  }
  bool contains(std::string_view name) const {
    if (names_.empty()) return false;
    uint32_t s = slot(name);
    return (filter_[s / 64] >> (s % 64) & 1) && names_.count(name) > 0;
  }
  const StringSet& names() const { return names_; }

 private:
  static uint32_t slot(std::string_view n) {
    if (n.empty()) return 0;
    auto first = static_cast<unsigned char>(n.front()), last = static_cast<unsigned char>(n.back());
    return (first << 4 ^ last ^ static_cast<uint32_t>(n.size()) << 7) % (16 * 64);
  }
  uint64_t filter_[16] = {};
  StringSet names_;
};

Resolution resolve_symbol(std::string_view name, const DefinedNames& defined);

struct UnknownSymbol {
  ErrorKind kind;
  std::string message;
  std::string hint;
};
// The hint for an unknown name when nothing closer can be said.
inline constexpr std::string_view kDefineItHint =
    "define it with (def name value) or let, or check the function reference";
// With `suggest`, the hint lists the closest known names (did you mean).
UnknownSymbol describe_unknown_symbol(std::string_view name,
                                      const std::vector<std::string_view>& locals,
                                      const StringSet& defined, bool suggest = true);

}  // namespace ptc
