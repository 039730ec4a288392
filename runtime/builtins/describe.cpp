// describe: a bounded summary of the shape of a value.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> describe() {
  return {};
}

}  // namespace ptc::builtins
