// JSON helpers: json/parse-string, json/generate-string, json/parse-lines.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

std::span<const BuiltinDef> json_fns() {
  return {};
}

}  // namespace ptc::builtins
