// Facts about the build that tests need. Sanitizer builds have much larger
// stack frames, so the native stack guard admits less nesting there; tests of
// "this much nesting still works" scale their depth with kDepthScale.
#pragma once

namespace ptc::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
inline constexpr int kDepthScale = 8;
#else
inline constexpr bool kSanitized = false;
inline constexpr int kDepthScale = 1;
#endif

}  // namespace ptc::testing
