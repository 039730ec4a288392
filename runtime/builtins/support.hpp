// Shared argument checks and errors for builtin implementations. Messages name
// the function, the argument position and what was received.
#pragma once

#include <cstdint>
#include <string_view>

#include "runtime/ctx.hpp"
#include "runtime/error.hpp"
#include "runtime/value.hpp"

namespace ptc::builtins {

// "<fname>: expected <expected> (argument <pos>), got <type> <preview>"
[[noreturn]] void type_error(std::string_view fname, std::string_view expected, Value got, int pos,
                             std::string_view hint = {});

int64_t expect_int(std::string_view fname, Value v, int pos);
const StrObj* expect_string(std::string_view fname, Value v, int pos);
void expect_callable(std::string_view fname, Value v, int pos);

bool is_callable(Value v);

// A builtin definition table entry.
#define PTC_BUILTIN(name, min, max, fn, sig) \
  BuiltinDef {                               \
    name, min, max, fn, sig                  \
  }

}  // namespace ptc::builtins
