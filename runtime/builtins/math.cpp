// Rounding, roots, powers, coercions and Math/* functions.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> math() {
  return {};
}

}  // namespace ptc::builtins
