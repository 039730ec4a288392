// Sequence slicing and reshaping: take/drop families, partition, interleave, flatten, distinct, ...
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> seq_ops() {
  return {};
}

}  // namespace ptc::builtins
