// pmap and pcalls.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> parallel() {
  return {};
}

}  // namespace ptc::builtins
