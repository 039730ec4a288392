#include "runtime/datetime_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "runtime/calendar.hpp"

namespace ptc {

DateTimeText parse_datetime(std::string_view s) {
  DateTimeText r;
  size_t i = 0;
  auto number = [&](size_t width, int64_t& out) {
    if (i + width > s.size()) return false;
    out = 0;
    for (size_t k = 0; k < width; ++k) {
      char c = s[i + k];
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    i += width;
    return true;
  };
  auto lit = [&](char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (!number(4, y) || !lit('-') || !number(2, mo) || !lit('-') || !number(2, d)) return r;
  if (!(lit('T') || lit('t') || lit(' '))) return r;
  if (!number(2, h) || !lit(':') || !number(2, mi) || !lit(':') || !number(2, sec)) return r;
  std::string frac;
  if (lit('.') || lit(',')) {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9')
      ++i;
    if (i == start) return r;
    frac = std::string(s.substr(start, std::min<size_t>(i - start, 6)));
  }
  if (mo < 1 || mo > 12 || d < 1) return r;
  if (d > days_in_month(y, static_cast<int>(mo))) return r;
  if (h > 23 || mi > 59 || sec > 59) return r;
  int64_t offset = 0;
  if (i == s.size()) {
    r.naive = true;
    return r;
  }
  if (lit('Z') || lit('z')) {
    offset = 0;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int64_t sign = s[i] == '-' ? -1 : 1;
    ++i;
    int64_t oh = 0, om = 0;
    if (!number(2, oh)) return r;
    if (i < s.size()) {
      lit(':');
      if (!number(2, om)) return r;
    }
    if (oh > 23 || om > 59) return r;
    offset = sign * (oh * 60 + om);
  } else {
    return r;
  }
  if (i != s.size()) return r;
  int64_t seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset * 60;
  int64_t days = floor_div(seconds, 86400);
  int64_t rem = floor_mod(seconds, 86400);
  Civil utc = civil_from_days(days);
  if (utc.year < 0 || utc.year > 9999) return r;
  r.ok = true;
  r.offset_minutes = static_cast<int>(offset);
  r.utc = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{}Z", utc.year, utc.month, utc.day,
                      rem / 3600, rem / 60 % 60, rem % 60, frac.empty() ? "" : ".", frac);
  return r;
}

}  // namespace ptc
