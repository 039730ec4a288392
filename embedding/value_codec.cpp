#include "embedding/value_codec.hpp"

namespace ptc {

void write_limits(ValueWriter& w, const Limits& l) {
  w.varint(l.max_heap_bytes);
  w.varint(l.timeout_ms);
  w.varint(l.loop_limit);
  w.varint(l.max_call_depth);
  w.varint(l.max_symbols);
  w.varint(l.max_program_bytes);
  w.varint(l.max_print_length);
  w.varint(l.max_nesting_depth);
  w.varint(l.compile_timeout_ms);
  w.u8(l.max_tool_calls ? 1 : 0);
  w.varint(l.max_tool_calls.value_or(0));
  w.varint(l.max_tool_call_result_bytes);
  w.varint(l.pmap_timeout_ms);
  w.varint(l.pmap_max_concurrency);
  w.varint(l.max_parallel_workers);
  w.varint(l.worker_max_heap_bytes);
}

Limits read_limits(ValueReader& r) {
  Limits l;
  auto size = [&](const char* what) { return static_cast<size_t>(r.varint(what)); };
  l.max_heap_bytes = size("the limits (max_heap)");
  l.timeout_ms = r.u32("the limits (timeout)");
  l.loop_limit = r.u32("the limits (loop_limit)");
  l.max_call_depth = r.u32("the limits (max_call_depth)");
  l.max_symbols = r.u32("the limits (max_symbols)");
  l.max_program_bytes = size("the limits (max_program_bytes)");
  l.max_print_length = r.u32("the limits (max_print_length)");
  l.max_nesting_depth = r.u32("the limits (max_nesting_depth)");
  l.compile_timeout_ms = r.u32("the limits (compile_timeout)");
  bool has_calls = r.flag("the limits (max_tool_calls)");
  uint32_t calls = r.u32("the limits (max_tool_calls)");
  if (has_calls) l.max_tool_calls = calls;
  l.max_tool_call_result_bytes = size("the limits (max_tool_call_result_bytes)");
  l.pmap_timeout_ms = r.u32("the limits (pmap_timeout)");
  l.pmap_max_concurrency = r.u32("the limits (pmap_max_concurrency)");
  l.max_parallel_workers = r.u32("the limits (max_parallel_workers)");
  l.worker_max_heap_bytes = size("the limits (worker_max_heap)");
  return l;
}

}  // namespace ptc
