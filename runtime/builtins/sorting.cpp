// Ordering: sort, sort-by, and comparator handling.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> sorting() {
  return {};
}

}  // namespace ptc::builtins
