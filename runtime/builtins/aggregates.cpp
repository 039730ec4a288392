// Aggregation helpers: sum, avg, sum-by, avg-by, min-by, max-by, distinct-by, min-key, max-key,
// frequencies, group-by.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> aggregates() {
  return {};
}

}  // namespace ptc::builtins
