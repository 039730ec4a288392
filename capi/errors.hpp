// The C API's side of errors: the thread's last status and message
// (ptc_last_error), and the guards every entry point runs its body in, so
// that no C++ exception crosses into C: an invalid argument, std::bad_alloc
// and anything else become a ptc_status and a message.
#pragma once

#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "include/ptc/ptc.h"
#include "runtime/error.hpp"
#include "runtime/host_value.hpp"

namespace ptc::capi {

// A call the caller got wrong (NULL, bad JSON, out of range): the message
// names the argument and what is wrong with it.
class InvalidArgument : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Records a failure for ptc_last_error on this thread; returns `status`.
// Never throws: when the message cannot be stored, a fixed one is kept.
ptc_status fail(ptc_status status, std::string_view message) noexcept;
// Records a success.
void succeed() noexcept;

// The status and message of whatever `body` threw.
ptc_status fail_current_exception() noexcept;

// Runs `body` (returning ptc_status) with the last error cleared first and
// every exception turned into a status.
template <class Body>
ptc_status guarded(Body&& body) noexcept {
  try {
    succeed();
    return body();
  } catch (...) {
    return fail_current_exception();
  }
}

// The same for a body returning a pointer: nullptr on failure.
template <class Body>
auto guarded_ptr(Body&& body) noexcept -> decltype(body()) {
  try {
    succeed();
    return body();
  } catch (...) {
    fail_current_exception();
    return nullptr;
  }
}

// A required pointer argument.
template <class T>
T& required(T* p, const char* name) {
  if (!p) throw InvalidArgument(std::string(name) + " must not be NULL");
  return *p;
}

// A required out-parameter, cleared (so that it is NULL on failure).
template <class T>
T** out_arg(T** out, const char* name) {
  required(out, name);
  *out = nullptr;
  return out;
}

// (pointer, length) text; PTC_NTS = NUL-terminated. NULL is only allowed
// with length 0 (the empty text).
std::string_view text_arg(const char* text, size_t len, const char* name);

// JSON text of an argument, parsed; malformed JSON is an InvalidArgument
// naming the argument and the line:column.
HostValue json_arg(std::string_view json, const char* name);
// The same, requiring a JSON object (or array).
HostValue json_object_arg(std::string_view json, const char* name);
HostValue json_array_arg(std::string_view json, const char* name);

}  // namespace ptc::capi
