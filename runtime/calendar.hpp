// Calendar arithmetic (proleptic Gregorian), for dates and for signature
// checks of date-time strings. Eras are 400-year cycles of 146097 days;
// shifting the year to start in March puts the leap day last.
//
// Every int64 input is allowed: civil_from_days takes any day number, and
// days_from_civil any year within +-2.5 * 10^16 (past that the day number
// itself would not fit), so instants at the ends of the millisecond range
// print without overflow.
#pragma once

#include <cstdint>

namespace ptc {

// b > 0 or b < -1: INT64_MIN / -1 has no int64 quotient.
inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// a - floor_div(a, b) * b, in [0, b) for b > 0, without forming the product
// (which overflows for a near INT64_MIN).
inline int64_t floor_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// Days since 1970-01-01.
inline int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = floor_div(y, 400);
  int64_t yoe = y - era * 400;                                    // [0, 399]
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;  // [0, 365]
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            // [0, 146096]
  return era * 146097 + doe - 719468;
}

struct Civil {
  int64_t year;
  int month, day;
};

inline Civil civil_from_days(int64_t z) {
  // Counts from 0000-03-01 (719468 days before the epoch): the shift is
  // applied to the remainder, so z + 719468 cannot overflow.
  int64_t shifted = floor_mod(z, 146097) + 719468;  // positive
  int64_t era = floor_div(z, 146097) + shifted / 146097;
  int64_t doe = shifted % 146097;                                       // [0, 146096]
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  int64_t mp = (5 * doy + 2) / 153;                                     // [0, 11]
  int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2), month, day};
}

inline bool leap_year(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

// m in 1..12.
inline int days_in_month(int64_t y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap_year(y) ? 29 : kDays[m - 1];
}

}  // namespace ptc
