// Bitwise operations on integers (spec 8.4a).
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> bitwise() {
  return {};
}

}  // namespace ptc::builtins
