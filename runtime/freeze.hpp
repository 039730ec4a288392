// Freezing values that many runs share (a compiled program's constants, a
// prepared context). Shared values are only read, with one exception built
// into vectors: conj on the version that owns the end of its tail buffer
// appends in place (vector.hpp). Freezing turns that off for every vector
// reachable from a value, large maps' and sets' entry vectors included, so no
// run ever writes into memory it does not own.
#pragma once

#include "runtime/value.hpp"

namespace ptc {

// Walks `v` once (shared structure is visited once); not thread-safe, call it
// before the value is shared.
void freeze(Value v);

}  // namespace ptc
