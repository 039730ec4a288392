// The collector under programs nobody wrote by hand: each input runs twice
// through ptc::run, once as usual and once in the stress mode that collects
// at every safe point (runtime/collector.hpp). Both must end the same
// (value, prints, error), unless one ended at a limit whose point depends on
// how much work or heap the run took (time, memory), or the program reads
// the clock. A value the collector freed while it was still reachable shows
// as a difference here, or as AddressSanitizer's report on the freed,
// poisoned granules.
#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "runtime/collector.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using ptc::HostValue;
using ptc::fuzz::ended_at_a_limit;
using ptc::fuzz::outcome;

const ptc::RunOptions& base_options() {
  static const ptc::RunOptions* options = [] {
    auto* o = new ptc::RunOptions;
    o->context = ptc::parse_json(
        R"({"orders": [{"id": 1, "total": 9.5, "tags": ["a", "b"]}, {"id": 2, "total": 120}],
            "user": {"name": "Ada", "roles": ["admin"]}, "n": 3, "text": "héllo"})");
    o->turn_history = {ptc::parse_json(R"({"prev": [1, 2]})")};
    o->limits = ptc::fuzz::tight_limits();
    o->tools["echo"] = {[](const HostValue& args) { return ptc::ToolResult::success(args); }};
    return o;
  }();
  return *options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const ptc::RunOptions& options = base_options();
  if (size > options.limits.max_program_bytes) return -1;
  std::string_view source = ptc::fuzz::as_text(data, size);
  ptc::Step normal = ptc::run(source, options);
  ptc::set_collect_stress_for_testing(true);
  ptc::Step stressed = ptc::run(source, options);
  ptc::set_collect_stress_for_testing(false);
  ptc::fuzz::debug("normal", outcome(normal));
  ptc::fuzz::debug("stressed", outcome(stressed));
  if (ended_at_a_limit(normal) || ended_at_a_limit(stressed)) return 0;
  if (source.find("currentTimeMillis") != std::string_view::npos ||
      source.find("java.util.Date") != std::string_view::npos)
    return 0;
  PTC_FUZZ_CHECK(outcome(normal) == outcome(stressed), "normal run gave:\n" + outcome(normal) +
                                                           "\nwith a collection at every safe "
                                                           "point:\n" +
                                                           outcome(stressed));
  return 0;
}
