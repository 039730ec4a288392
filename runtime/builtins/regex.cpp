// Regex builtins on RE2 (spec §8.10). Matching functions arrive with the core
// library; this file holds construction and the type predicate.
#include "runtime/regex.hpp"
#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"

namespace ptc::builtins {

namespace {

Value re_pattern(Ctx& ctx, const Value* a, uint32_t) {
  if (a[0].is(Type::Regex)) return a[0];
  return make_regex(ctx, expect_string("re-pattern", a[0], 1)->view());
}

Value regex_p(Ctx&, const Value* a, uint32_t) {
  return Value::boolean(a[0].is(Type::Regex));
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Regex, "re-pattern", 1, 1, re_pattern, "(re-pattern s)", "Compiles a regex."),
    PTC_BUILTIN(Regex, "regex?", 1, 1, regex_p, "(regex? x)", "True for regexes."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> regex() {
  return kDefs;
}

}  // namespace ptc::builtins
