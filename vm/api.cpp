// The small parts of the embedding API around ptc::run: displaying host
// values and errors, and Session (memory and *1 *2 *3 across runs).
#include <utility>

#include "include/ptc/ptc.hpp"
#include "runtime/ctx.hpp"
#include "runtime/printer.hpp"

namespace ptc {

std::string format_value(const HostValue& value, size_t limit, bool* truncated) {
  // The runtime printer is the one definition of Clojure syntax: bring the
  // value into a scratch run and print it there.
  Limits limits;
  limits.max_heap_bytes = SIZE_MAX / 4;
  limits.max_symbols = UINT32_MAX;
  Ctx ctx(limits);
  return display_value(import_value(ctx, value), limit, truncated);
}

std::string format_error(const Error& error) {
  return error.describe();
}

Session::Session(RunOptions defaults, size_t history_depth)
    : options_(std::move(defaults)), depth_(history_depth) {}

Step Session::eval(std::string_view source) {
  Step step = run(source, options_);
  if (!step.ok) return step;
  options_.memory = step.memory;
  auto& history = options_.turn_history;
  history.push_back(step.value);
  if (history.size() > depth_) history.erase(history.begin(), history.end() - depth_);
  return step;
}

void Session::reset() {
  options_.memory = HostValue();
  options_.turn_history.clear();
}

}  // namespace ptc
