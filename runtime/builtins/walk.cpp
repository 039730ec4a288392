// clojure.walk: walk, prewalk, postwalk.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> walk() {
  return {};
}

}  // namespace ptc::builtins
