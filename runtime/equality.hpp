// Equality, hashing and ordering of values.
//
// `=` is structural and numeric type-independent: (= 1 1.0) is true (DIV-32),
// and NaN is never equal to anything. hash_value agrees with equals, so 1 and
// 1.0 are the same map key. compare is the total order used by sort and the
// recoverable ordered comparisons (spec §11.3): numbers < nil/booleans/keywords
// (by name) < functions < maps/sets < vectors < strings, mirroring the term
// order of the reference implementation.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/value.hpp"

namespace ptc {

bool equals(Value a, Value b);
uint32_t hash_value(Value v);
// The hash hash_value cached in an object's header, 0 when not computed yet.
// Parallel workers may read the same object, so it is read atomically.
inline uint32_t cached_hash(const Obj* o) {
  return std::atomic_ref<uint32_t>(const_cast<Obj*>(o)->hash).load(std::memory_order_relaxed);
}
// -1, 0 or 1. NaN compares equal to nothing; callers that must treat NaN as
// unordered check for it first.
int compare(Value a, Value b);

// Numeric comparison of two numbers (ints, bignums, floats); NaN gives 0 and
// sets *unordered.
int compare_numbers(Value a, Value b, bool* unordered = nullptr);
bool numbers_equal(Value a, Value b);

}  // namespace ptc
