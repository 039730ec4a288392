// The main of every GoogleTest suite. PTC_GC_STRESS=1 in the environment
// runs the suite with the collector's stress mode on: every run collects at
// every safe point (runtime/collector.hpp). Only test programs read it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

#include "runtime/collector.hpp"

int main(int argc, char** argv) {
  const char* stress = std::getenv("PTC_GC_STRESS");
  if (stress && std::string_view(stress) != "0" && !std::string_view(stress).empty())
    ptc::set_collect_stress_for_testing(true);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
