// Regex values on RE2: linear-time matching, so no pattern can backtrack
// catastrophically. Java-only constructs RE2 lacks (backreferences,
// lookahead/lookbehind, possessive quantifiers) are rejected with a clear
// error. Patterns are capped at kMaxPatternBytes (spec §8.10).
#pragma once

#include <memory>
#include <string_view>

#include "runtime/value.hpp"

namespace re2 {
class RE2;
}

namespace ptc {

class Ctx;

constexpr size_t kMaxPatternBytes = 256;

// Compiles `pattern`; throws LispError(TypeError) with RE2's reason and a
// hint when the pattern is invalid or uses an unsupported construct. The
// regex value lives (and is charged to the heap) until the run ends.
Value make_regex(Ctx& ctx, std::string_view pattern);

// The same compilation for a pattern used once and freed by the caller (a
// pattern string given to extract), so a loop over many items does not keep
// one compiled pattern per item. *memory (when given) is what the pattern may
// hold at most, its DFA cache included.
std::unique_ptr<re2::RE2> compile_regex(std::string_view pattern, size_t* memory = nullptr);

}  // namespace ptc
