// A run's telemetry events, for every way a run is made (ptc::run, and the
// host's side of an isolated run): the start event, and the stop or
// exception event with what the Step says. Internal.
#pragma once

#include <chrono>
#include <string_view>

#include "include/ptc/ptc.hpp"

namespace ptc {

// The event a run begins with; sent now when options.telemetry is set.
TelemetryEvent report_run_start(std::string_view source, const RunOptions& options,
                                std::chrono::steady_clock::time_point start);
// Turns `event` into the run's last one (Exception when `crashed`, else
// Stop) and sends it when options.telemetry is set.
void report_run_end(TelemetryEvent& event, const RunOptions& options, const Step& step,
                    std::chrono::steady_clock::time_point end, bool crashed);

}  // namespace ptc
