#include "runtime/stack_guard.hpp"

#include <pthread.h>

#include <string>

#include "runtime/error.hpp"
#include "runtime/sanitizers.hpp"

namespace ptc {

namespace {
uintptr_t compute_limit() {
  pthread_attr_t attr;
  void* addr = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
  }
  auto low = reinterpret_cast<uintptr_t>(addr);
  // Unknown bounds: assume 1 MB below the current frame.
  if (!addr || size == 0)
    low = reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) - (1u << 20);
  return stack_limit_for(low, size);
}

}  // namespace

constinit thread_local uintptr_t t_stack_limit = 0;

uintptr_t stack_limit_for(uintptr_t low, size_t size) {
  uintptr_t reserve = kStackReserve;
#if defined(PTC_SANITIZER_ADDRESS)
  reserve *= 4;  // sanitizer frames are much larger
#endif
  if (size && reserve > size / 2) reserve = size / 2;
  return low + reserve;
}

constinit thread_local uintptr_t t_thread_stack_limit = 0;

uintptr_t thread_stack_limit() {
  if (!t_thread_stack_limit) t_thread_stack_limit = compute_limit();
  return t_thread_stack_limit;
}

uintptr_t exchange_native_stack_limit(uintptr_t limit) {
  uintptr_t old = t_stack_limit;
  t_stack_limit = limit;
  return old;
}

void throw_stack_exhausted(const char* what) {
  throw_error(ErrorKind::CallDepthExceeded, std::string("nesting too deep while ") + what,
              "flatten deeply nested data or recursion; PTC-Lisp bounds native recursion depth");
}

}  // namespace ptc
