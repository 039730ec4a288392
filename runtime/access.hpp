// Keyed access shared by `get`, keyword and map invocation, and
// destructuring: maps use flexible key matching (spec §7.5), vectors and
// strings take integer indexes, sets return the element when present.
#pragma once

#include "runtime/value.hpp"

namespace ptc {

class Ctx;

Value lookup(Ctx& ctx, Value coll, Value key, Value not_found = Value());

// Element at index of a vector or string (graphemes); not_found when out of
// range or for nil. Other types are a type error naming `fname`.
Value nth_or(Ctx& ctx, Value coll, int64_t index, Value not_found, const char* fname);

}  // namespace ptc
