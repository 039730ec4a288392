#include "embedding/run_telemetry.hpp"

namespace ptc {

namespace {

int64_t ns_of(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

TelemetryEvent report_run_start(std::string_view source, const RunOptions& options,
                                std::chrono::steady_clock::time_point start) {
  TelemetryEvent event;
  event.caller = options.caller;
  event.profile = options.profile;
  event.program_bytes = source.size();
  event.signature_supplied = !options.signature.empty();
  event.trace_context = options.trace_context;
  if (options.telemetry) {
    event.monotonic_ns = ns_of(start);
    event.system_time_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    options.telemetry(event);
  }
  return event;
}

void report_run_end(TelemetryEvent& event, const RunOptions& options, const Step& step,
                    std::chrono::steady_clock::time_point end, bool crashed) {
  if (!options.telemetry) return;
  event.kind = crashed ? TelemetryEvent::Kind::Exception : TelemetryEvent::Kind::Stop;
  event.monotonic_ns = ns_of(end);
  event.system_time_ns = 0;
  event.duration_ms = step.usage.duration_ms;
  event.result_bytes = step.printed.size();
  event.prints_count = step.prints.size();
  if (!step.ok) event.reason = reason_name(step.error.kind);
  options.telemetry(event);
}

}  // namespace ptc
