// Facts about the build that tests need. Sanitizer builds have much larger
// stack frames, so the native stack guard admits less nesting there; tests of
// "this much nesting still works" scale their depth with kDepthScale.
// Sanitized code also runs several times slower: tests that bound how long a
// hostile program may take before its limit stops it scale by kSlowdown.
#pragma once

#include "runtime/sanitizers.hpp"

namespace ptc::testing {

#if defined(PTC_SANITIZER_ADDRESS)
inline constexpr bool kSanitized = true;
inline constexpr int kDepthScale = 8;
inline constexpr int kSlowdown = 4;
#elif defined(PTC_SANITIZER_THREAD)
inline constexpr bool kSanitized = true;
inline constexpr int kDepthScale = 8;
inline constexpr int kSlowdown = 15;
#else
inline constexpr bool kSanitized = false;
inline constexpr int kDepthScale = 1;
inline constexpr int kSlowdown = 1;
#endif

}  // namespace ptc::testing
