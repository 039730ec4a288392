// Differential: a program run with synchronous tools (ptc::run) and the same
// program started with every tool deferred and answered with the same values
// (ptc::start, resume; dump and load between steps) must end the same: value,
// prints, memory, ledger and error (tests/support/equivalence.hpp). The input
// is the program; its first byte picks the host's strategy when it is a
// digit ("0".."3" then a newline).
//
// Outcomes that depend on timing are not compared: a run cut short by its
// clock, and programs that read the clock.
#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tests/support/equivalence.hpp"

namespace {

namespace eq = ptc::equivalence;

bool reads_the_clock(std::string_view p) {
  for (std::string_view word : {"Millis", "Date", "now", "Instant", "Clock"})
    if (p.find(word) != std::string_view::npos) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = ptc::fuzz::as_text(data, size);
  eq::Strategy strategy;
  if (text.size() >= 2 && text[0] >= '0' && text[0] <= '3' && text[1] == '\n') {
    switch (text[0]) {
      case '1':
        strategy.order = eq::Strategy::Order::OneAtATimeLastFirst;
        break;
      case '2':
        strategy.order = eq::Strategy::Order::Halves;
        strategy.dump_and_load = true;
        break;
      case '3':
        strategy.dump_and_load = true;
        strategy.key = "k";
        break;
      default:
        break;
    }
    text.remove_prefix(2);
  }
  std::string source(text);
  if (reads_the_clock(source)) return 0;
  ptc::RunOptions options;
  options.limits = ptc::fuzz::tight_limits();
  ptc::Step ran = eq::run_sync(source, options);
  std::string trouble;
  ptc::Step executed = eq::run_executed(source, options, strategy, nullptr, &trouble);
  ptc::fuzz::debug("run", eq::describe(ran));
  ptc::fuzz::debug("execution", eq::describe(executed));
  PTC_FUZZ_CHECK(trouble.empty(), trouble);
  if (eq::timed_out(ran) || eq::timed_out(executed)) return 0;
  bool parallel =
      source.find("pmap") != std::string::npos || source.find("pcalls") != std::string::npos;
  std::string diff = eq::compare(ran, executed, parallel);
  PTC_FUZZ_CHECK(diff.empty(), diff + "\nprogram:\n" + source);
  return 0;
}
