// Java String methods: .indexOf, .substring, .toUpperCase, ...
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> string_methods() {
  return {};
}

}  // namespace ptc::builtins
