// REPL discovery over the builtin table: doc, meta, dir, apropos, ns-publics, all-ns, ns-name,
// source.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> discovery() {
  return {};
}

}  // namespace ptc::builtins
