#include "runtime/ctx.hpp"

#include <fmt/format.h>

#include "runtime/error.hpp"
#include "runtime/strings.hpp"

namespace ptc {

Ctx::Ctx(const Limits& lim) : Ctx(lim, std::chrono::steady_clock::now()) {}

Ctx::Ctx(const Limits& lim, std::chrono::steady_clock::time_point start)
    : arena(lim.max_heap_bytes), interner(arena, lim.max_symbols), limits(lim) {
  start_clock_at(start, lim.timeout_ms, "execution");
}

void Ctx::start_clock() {
  start_clock(limits.timeout_ms, "execution");
}

void Ctx::start_clock(uint32_t timeout_ms, const char* phase) {
  start_clock_at(std::chrono::steady_clock::now(), timeout_ms, phase);
}

void Ctx::start_clock_at(std::chrono::steady_clock::time_point start, uint32_t timeout_ms,
                         const char* phase) {
  start_ = start;
  deadline_ = start + std::chrono::milliseconds(timeout_ms);
  timeout_ms_ = timeout_ms;
  phase_ = phase;
}

void Ctx::start_clock_until(std::chrono::steady_clock::time_point deadline, uint32_t timeout_ms,
                            const char* phase) {
  start_ = std::chrono::steady_clock::now();
  deadline_ = deadline;
  timeout_ms_ = timeout_ms;
  phase_ = phase;
}

int64_t Ctx::elapsed_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start_)
      .count();
}

int64_t Ctx::remaining_ms() const {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline_ - std::chrono::steady_clock::now());
  return left.count() > 0 ? left.count() : 0;
}

void Ctx::end_slice() {
  spent_ += static_cast<uint64_t>(kSlice - budget_);
  budget_ = kSlice;
  auto now = std::chrono::steady_clock::now();
  if (now >= deadline_) {
    throw_error(ErrorKind::Timeout, fmt::format("{} timed out after {} ms", phase_, timeout_ms_),
                "the program did too much work; process fewer items or avoid nested loops "
                "over large collections");
  }
  if (cancel_requested()) {
    cancelled_ = true;
    throw_error(ErrorKind::Cancelled, "execution was cancelled");
  }
  if (on_slice) on_slice(on_slice_arg, now);
}

void Ctx::add_print(std::string line) {
  size_t max = limits.max_print_length;
  if (max && line.size() > max) {
    size_t cut = grapheme_offset(line, max);
    if (cut < line.size()) {
      line.resize(cut);
      line += "...";
    }
  }
  arena.charge(line.size() + sizeof(std::string));
  prints.push_back(std::move(line));
}

Value Ctx::string(std::string_view bytes) {
  return Value::object(new_string(arena, bytes));
}

}  // namespace ptc
