// Moving a value from one run's arena into another's: how a parallel
// branch's result reaches the calling run. Data (numbers, strings, keywords,
// collections) is copied; a value holding code or native state (a closure,
// a regex) cannot be, and the caller keeps the branch's arena alive instead.
#pragma once

#include "runtime/ctx.hpp"

namespace ptc {

// True when v is plain data all the way down, so transfer_value can copy it.
bool is_transferable(Value v);

// A deep copy of transferable v in dst's arena, keywords interned in dst.
// Shared structure is copied each time it appears, so the copy charges dst's
// heap and time limits as it goes.
Value transfer_value(Ctx& dst, Value v);

}  // namespace ptc
