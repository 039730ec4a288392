// format: printf-style formatting.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> format() {
  return {};
}

}  // namespace ptc::builtins
