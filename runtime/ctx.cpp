#include "runtime/ctx.hpp"

#include <fmt/format.h>

#include "runtime/collector.hpp"
#include "runtime/error.hpp"
#include "runtime/strings.hpp"

namespace ptc {

namespace {
thread_local Ctx* t_current_run = nullptr;
}  // namespace

[[gnu::noinline]] Ctx* CurrentRun::get() {
  return t_current_run;
}

[[gnu::noinline]] Ctx* CurrentRun::exchange(Ctx* ctx) {
  Ctx* old = t_current_run;
  t_current_run = ctx;
  return old;
}

Ctx::Ctx(const Limits& lim) : Ctx(lim, std::chrono::steady_clock::now()) {}

Ctx::Ctx(const Limits& lim, std::chrono::steady_clock::time_point start)
    : arena(lim.max_heap_bytes), interner(arena, lim.max_symbols), limits(lim) {
  start_clock_at(start, lim.timeout_ms, "execution");
}

void Ctx::start_clock() {
  start_clock(limits.timeout_ms, "execution");
}

void Ctx::start_clock(uint32_t timeout_ms, const char* phase) {
  start_clock_at(clock_now(), timeout_ms, phase);
}

void Ctx::start_clock_at(std::chrono::steady_clock::time_point start, uint32_t timeout_ms,
                         const char* phase) {
  deadline_ = std::min(start + std::chrono::milliseconds(timeout_ms), cap_);
  timeout_ms_ = timeout_ms;
  phase_ = phase;
}

void Ctx::start_clock_until(std::chrono::steady_clock::time_point deadline, uint32_t timeout_ms,
                            const char* phase) {
  deadline_ = std::min(deadline, cap_);
  timeout_ms_ = timeout_ms;
  phase_ = phase;
}

void Ctx::end_slice() {
  spent_ += static_cast<uint64_t>(window_ - budget_);
  // While a collection is due (and only a safe point may make it), short
  // windows bring the VM's next tick here soon.
  window_ = budget_ = !collection_due_ ? kSlice : collect_always_ ? 0 : 64;
  auto steady = std::chrono::steady_clock::now();
  auto now = steady;
  if (paused_ns_) now -= std::chrono::nanoseconds(paused_ns_->load(std::memory_order_relaxed));
  if (now >= deadline_) {
    throw_error(ErrorKind::Timeout, fmt::format("{} timed out after {} ms", phase_, timeout_ms_),
                "the program did too much work; process fewer items or avoid nested loops "
                "over large collections");
  }
  if (cancel_requested()) {
    cancelled_ = true;
    throw_error(ErrorKind::Cancelled, "execution was cancelled");
  }
  if (on_slice) on_slice(on_slice_arg, steady);
}

void Ctx::end_slice_at_safepoint() {
  if (collection_due_ && no_collection_ == 0) collect();
  end_slice();
}

void Ctx::collect_if_due() {
  if (collection_due_ && no_collection_ == 0) collect();
}

void Ctx::collect_around(Value fn, const Value* args, uint32_t nargs) {
  RootScope call(*this);
  call.add(fn);
  call.add(args, nargs);
  collect_if_due();
}

void Ctx::start_collecting() {
  start_collecting(limits.max_heap_bytes);
}

void Ctx::start_collecting(size_t cap) {
  arena.start_collecting(cap, &Ctx::collection_wanted_thunk, this);
  collect_always_ = collect_stress_for_testing();
  if (collect_always_) collection_wanted();
}

void Ctx::collection_wanted() {
  collection_due_ = true;
  spent_ += static_cast<uint64_t>(window_ - budget_);
  window_ = budget_ = 0;
}

void Ctx::collect() {
  collection_due_ = collect_always_;
  // No space yet: nothing was allocated to collect.
  if (arena.space()) collect_heap(*this, Collection::Scheduled);
}

void Ctx::collect_while_parked() {
  if (arena.space()) collect_heap(*this, Collection::Between);
}

void Ctx::remove_root_source(RootSource* source) {
  for (RootSource** at = &root_sources_; *at; at = &(*at)->next_root_source)
    if (*at == source) {
      *at = source->next_root_source;
      return;
    }
}

int64_t Ctx::clock_ms() {
  if (world) return world->clock_ms(*this);
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
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
