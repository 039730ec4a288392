// Native stack protection. Recursion over program structure (reader,
// analyzer, compiler) and over data (printing, equality, copying) checks the
// remaining stack and fails with a clear error instead of overflowing when a
// hostile program nests things deeply.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptc {

// Bytes kept free below the deepest allowed frame: enough for the error path
// and for a builtin's own frames.
constexpr uintptr_t kStackReserve = 256 * 1024;

// A fiber's limit while one runs on this thread, else 0. Read inline: every
// level of recursion over data checks the stack.
extern constinit thread_local uintptr_t t_stack_limit;
// The thread's own limit once computed, else 0: read inline, since every
// call a builtin makes checks the stack.
extern constinit thread_local uintptr_t t_thread_stack_limit;
uintptr_t thread_stack_limit();  // the thread's own stack (computed once)

// The lowest usable address of the stack running now.
inline uintptr_t native_stack_limit() {
  uintptr_t fiber = t_stack_limit;
  if (fiber) return fiber;
  uintptr_t own = t_thread_stack_limit;
  return own ? own : thread_stack_limit();
}

// The limit for a stack whose lowest address is `low` and whose size is
// `size` (0: unknown): `low` plus the reserve, as every stack keeps.
uintptr_t stack_limit_for(uintptr_t low, size_t size);

// A fiber runs on a stack of its own: while it runs, its limit replaces the
// thread's (0 restores the thread's). Returns the limit it replaces.
uintptr_t exchange_native_stack_limit(uintptr_t limit);

[[noreturn]] void throw_stack_exhausted(const char* what);

// `what` names the activity for the message, e.g. "printing a nested value".
inline void check_native_stack(const char* what) {
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (here < native_stack_limit()) [[unlikely]]
    throw_stack_exhausted(what);
}

}  // namespace ptc
