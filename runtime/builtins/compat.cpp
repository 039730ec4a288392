// Clojure idioms that are harmless in an eager language: doall and dorun
// force lazy sequences in Clojure; here every sequence is already realized.
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

namespace {

Value doall(Ctx&, const Value* a, uint32_t n) {
  return a[n - 1];
}
Value dorun(Ctx&, const Value*, uint32_t) {
  return Value();
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "doall", 1, 2, doall, "(doall coll)", "Returns coll: sequences are already realized."),
    PTC_BUILTIN(Core, "dorun", 1, 2, dorun, "(dorun coll)", "Returns nil: sequences are already realized."),
};
// clang-format on

}  // namespace

std::span<const BuiltinDef> compat() {
  return kDefs;
}

}  // namespace ptc::builtins
