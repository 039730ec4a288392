#include "spec/compare.hpp"

#include <gmp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace spec {

namespace {

using Kind = Datum::Kind;

bool at_least(Level level, Level min) {
  return static_cast<int>(level) >= static_cast<int>(min);
}

bool int_equals_float(const std::string& decimal, double d) {
  if (!std::isfinite(d) || d != std::trunc(d)) return false;
  mpz_t z;
  mpz_init(z);
  bool ok = mpz_set_str(z, decimal.c_str(), 10) == 0 && mpz_cmp_d(z, d) == 0;
  mpz_clear(z);
  return ok;
}

bool close_enough(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b)) return a == b;
  return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

bool numbers_equal(const Datum& a, const Datum& b, Level level) {
  if (a.kind == b.kind) {
    if (a.kind == Kind::Float)
      return a.number == b.number || (std::isnan(a.number) && std::isnan(b.number));
    return a.text == b.text;  // Int and Ratio text is canonical
  }
  if (!at_least(level, Level::Numeric)) return false;
  const Datum& x = a.kind == Kind::Float ? b : a;  // the non-float side
  const Datum& f = a.kind == Kind::Float ? a : b;
  if (f.kind != Kind::Float) return false;  // Int vs Ratio: a ratio is never whole
  if (x.kind == Kind::Int) return int_equals_float(x.text, f.number);
  return close_enough(x.number, f.number);
}

bool stringish(const Datum& d) {
  return d.kind == Kind::String || d.kind == Kind::Char;
}

// Matches every element of `as` to a distinct element of `bs` (same sizes
// assumed) with backtracking. Equality at a level is an equivalence in
// practice, so the greedy first choice nearly always succeeds; the step
// budget bounds the rare hopeless search.
bool match_multiset(size_t n, const std::function<bool(size_t, size_t)>& eq) {
  std::vector<bool> used(n, false);
  std::vector<size_t> choice(n, 0);
  long budget = 200000;
  size_t i = 0;
  size_t j = 0;
  while (true) {
    if (i == n) return true;
    bool placed = false;
    for (; j < n; ++j) {
      if (--budget < 0) return false;
      if (!used[j] && eq(i, j)) {
        used[j] = true;
        choice[i] = j;
        placed = true;
        break;
      }
    }
    if (placed) {
      ++i;
      j = 0;
      continue;
    }
    if (i == 0) return false;
    --i;
    used[choice[i]] = false;
    j = choice[i] + 1;
  }
}

bool equal_rec(const Datum& a, const Datum& b, Level level, bool map_key);

// Upstream's JSON bridge turned number map keys into strings.
bool key_leniency(const Datum& a, const Datum& b) {
  const Datum& num = a.is_number() ? a : b;
  const Datum& str = a.is_number() ? b : a;
  return num.is_number() && str.kind == Kind::String && to_string(num) == str.text;
}

bool equal_rec(const Datum& a, const Datum& b, Level level, bool map_key) {
  if (a.is_number() && b.is_number()) return numbers_equal(a, b, level);
  if (stringish(a) && stringish(b)) {
    if (a.kind != b.kind && !at_least(level, Level::Strict)) return false;
    return a.text == b.text;
  }
  if (at_least(level, Level::Upstream)) {
    if ((a.kind == Kind::Keyword && stringish(b)) || (b.kind == Kind::Keyword && stringish(a)))
      return a.text == b.text;
    if (map_key && key_leniency(a, b)) return true;
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::Nil:
    case Kind::Fn:
      return true;
    case Kind::Bool:
      return a.boolean == b.boolean;
    case Kind::Keyword:
    case Kind::Symbol:
    case Kind::Var:
    case Kind::Regex:
    case Kind::Opaque:
      return a.text == b.text;
    case Kind::Seq: {
      if (a.items.size() != b.items.size()) return false;
      for (size_t i = 0; i < a.items.size(); ++i)
        if (!equal_rec(a.items[i], b.items[i], level, false)) return false;
      return true;
    }
    case Kind::Set:
      if (a.items.size() != b.items.size()) return false;
      return match_multiset(a.items.size(), [&](size_t i, size_t j) {
        return equal_rec(a.items[i], b.items[j], level, false);
      });
    case Kind::Map:
      if (a.items.size() != b.items.size()) return false;
      return match_multiset(a.items.size() / 2, [&](size_t i, size_t j) {
        return equal_rec(a.items[2 * i], b.items[2 * j], level, true) &&
               equal_rec(a.items[2 * i + 1], b.items[2 * j + 1], level, false);
      });
    default:
      return false;  // numbers and strings were handled above
  }
}

}  // namespace

std::string_view level_name(Level level) {
  switch (level) {
    case Level::Exact:
      return "exact";
    case Level::Strict:
      return "strict";
    case Level::Numeric:
      return "numeric";
    case Level::Upstream:
      return "upstream";
  }
  return "?";
}

bool equal_at(const Datum& expected, const Datum& actual, Level level) {
  return equal_rec(expected, actual, level, false);
}

bool matches_at(const Datum& expected, const Datum& actual, Level level, bool unordered) {
  if (!unordered || expected.kind != Kind::Seq || actual.kind != Kind::Seq)
    return equal_at(expected, actual, level);
  if (expected.items.size() != actual.items.size()) return false;
  return match_multiset(expected.items.size(), [&](size_t i, size_t j) {
    return equal_at(expected.items[i], actual.items[j], level);
  });
}

std::optional<Level> first_match(const Datum& expected, const Datum& actual, bool unordered) {
  for (int l = 0; l < kLevels; ++l) {
    auto level = static_cast<Level>(l);
    if (matches_at(expected, actual, level, unordered)) return level;
  }
  return std::nullopt;
}

}  // namespace spec
