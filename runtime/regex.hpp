// Regex values on RE2: linear-time matching, so no pattern can backtrack
// catastrophically. Java-only constructs RE2 lacks (backreferences,
// lookahead/lookbehind, possessive quantifiers) are rejected with a clear
// error. Patterns are capped at kMaxPatternBytes (spec §8.10).
#pragma once

#include <string_view>

#include "runtime/value.hpp"

namespace ptc {

class Ctx;

constexpr size_t kMaxPatternBytes = 256;

// Compiles `pattern`; throws LispError(TypeError) with RE2's reason and a
// hint when the pattern is invalid or uses an unsupported construct.
Value make_regex(Ctx& ctx, std::string_view pattern);

}  // namespace ptc
