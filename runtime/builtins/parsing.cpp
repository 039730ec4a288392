// Parsing text: parse-long, parse-double, parse-boolean and the Java parse aliases.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> parsing() {
  return {};
}

}  // namespace ptc::builtins
