// Structural comparison of an expected and an actual value at four levels,
// each looser than the one before (see spec/README.md):
//   exact    Clojure's =: sequences interchangeable, maps and sets unordered,
//            integers by value at any size, NaN equal to NaN, vars by name,
//            any function equal to any function.
//   strict   + a char equals the one-character string.
//   numeric  + an integer equals the float of the same value; a ratio equals
//            a float within a relative tolerance of 1e-12.
//   upstream + a keyword equals the string of its name, and a number map key
//            equals the string of its digits (leniencies of the upstream
//            harnesses: reported, never counted as a pass).
#pragma once

#include <optional>
#include <string_view>

#include "spec/clojure_data.hpp"

namespace spec {

enum class Level { Exact = 0, Strict = 1, Numeric = 2, Upstream = 3 };
inline constexpr int kLevels = 4;

std::string_view level_name(Level level);

bool equal_at(const Datum& expected, const Datum& actual, Level level);

// Like equal_at, but when `unordered` the top-level sequences compare as
// multisets.
bool matches_at(const Datum& expected, const Datum& actual, Level level, bool unordered);

// The first (strictest) level at which the values match, or nullopt.
std::optional<Level> first_match(const Datum& expected, const Datum& actual, bool unordered);

}  // namespace spec
