// Function combinators: apply, comp, partial, juxt, complement, constantly, every-pred, some-fn,
// fnil.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> functional() {
  return {};
}

}  // namespace ptc::builtins
