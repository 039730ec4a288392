// Moving a value from one run's arena into another's: how a parallel
// branch's result reaches the calling run. Everything is copied: data
// (numbers, strings, keywords, collections), and functions too, whose code
// (the compiled program, a builtin's C++) both runs share; a regex is
// compiled again in the destination (its cache). The branch's heap can then
// be freed as soon as the branch ends, and the caller's collector never
// meets another run's objects in its values.
#pragma once

#include "runtime/ctx.hpp"

namespace ptc {

// A deep copy of v in dst's arena, keywords interned in dst. Shared
// structure is copied each time it appears, so the copy charges dst's heap
// and time limits as it goes. A value only the engine makes for itself (a
// `for` accumulator) cannot leave its run and is an internal error.
Value transfer_value(Ctx& dst, Value v);

}  // namespace ptc
