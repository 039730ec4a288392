// Output capture: println, print, prn.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> io() {
  return {};
}

}  // namespace ptc::builtins
