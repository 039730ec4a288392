#include "runtime/calendar.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace ptc {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(Calendar, FloorDivisionAndModulo) {
  EXPECT_EQ(floor_div(7, 2), 3);
  EXPECT_EQ(floor_div(-7, 2), -4);
  EXPECT_EQ(floor_mod(-7, 2), 1);
  EXPECT_EQ(floor_mod(7, -2), -1);
  // kMin - floor_div(kMin, b) * b overflows; floor_mod does not.
  EXPECT_EQ(floor_mod(kMin, 86400000), 60424192);  // 16:47:04.192 of its day
  EXPECT_EQ(floor_mod(kMax, 86400000), 25975807);  // 07:12:55.807
}

TEST(Calendar, RoundTripsDays) {
  for (int64_t day : {int64_t{0}, int64_t{-1}, int64_t{59}, int64_t{60}, int64_t{-719468},
                      int64_t{2932896}, int64_t{-365243219162}, int64_t{365241780471}}) {
    Civil c = civil_from_days(day);
    EXPECT_EQ(days_from_civil(c.year, c.month, c.day), day) << day;
  }
  Civil epoch = civil_from_days(0);
  EXPECT_EQ(epoch.year, 1970);
  EXPECT_EQ(epoch.month, 1);
  EXPECT_EQ(epoch.day, 1);
}

// Any day number is accepted without overflow (the instant printer passes
// day numbers of the whole millisecond range, and more is harmless).
TEST(Calendar, ExtremeDayNumbers) {
  Civil lo = civil_from_days(kMin);
  Civil hi = civil_from_days(kMax);
  EXPECT_LT(lo.year, -25000000000000000);
  EXPECT_GT(hi.year, 25000000000000000);
  EXPECT_TRUE(lo.month >= 1 && lo.month <= 12 && lo.day >= 1 && lo.day <= 31);
  EXPECT_TRUE(hi.month >= 1 && hi.month <= 12 && hi.day >= 1 && hi.day <= 31);
  Civil first = civil_from_days(floor_div(kMin, 86400000));
  EXPECT_EQ(first.year, -292275055);
  EXPECT_EQ(first.month, 5);
  EXPECT_EQ(first.day, 16);
}

}  // namespace
}  // namespace ptc
