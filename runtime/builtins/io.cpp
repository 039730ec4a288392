// Output capture: print, println and prn.
// Output never reaches stdout: each call appends one entry to the run's
// prints (ctx.add_print), which the host returns with the result. Entries are
// whole calls, so print without a newline still records its own entry.
#include <string>

#include "runtime/builtins/families.hpp"
#include "runtime/builtins/support.hpp"
#include "runtime/printer.hpp"

namespace ptc::builtins {

namespace {

void record(Ctx& ctx, const Value* a, uint32_t n, bool readable) {
  ctx.tick(n);
  ctx.add_print(print_joined(ctx, a, n, readable, true));
}

// Text as str shows it: strings without quotes, nil as "nil".
Value print(Ctx& ctx, const Value* a, uint32_t n) {
  record(ctx, a, n, false);
  return Value();
}

// Entries are lines already, so println records exactly what print does.
Value println(Ctx& ctx, const Value* a, uint32_t n) {
  record(ctx, a, n, false);
  return Value();
}

// Readable forms, as pr-str shows them: strings quoted.
Value prn(Ctx& ctx, const Value* a, uint32_t n) {
  record(ctx, a, n, true);
  return Value();
}

// clang-format off
const BuiltinDef kDefs[] = {
    PTC_BUILTIN(Core, "print", 0, kVariadic, print, "(print & xs)", "Records the arguments, space separated, as one output entry; returns nil."),
    PTC_BUILTIN(Core, "println", 0, kVariadic, println, "(println & xs)", "Records the arguments as one line of output; returns nil."),
    PTC_BUILTIN(Core, "prn", 0, kVariadic, prn, "(prn & xs)", "Records the readable forms of the arguments (strings quoted) as one output entry; returns nil."),
};  // clang-format on

}  // namespace

std::span<const BuiltinDef> io() {
  return kDefs;
}

}  // namespace ptc::builtins
