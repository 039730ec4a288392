// Minimal date and time interop (spec 8.14).
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> datetime() {
  return {};
}

}  // namespace ptc::builtins
