// Small pieces of JSON building and reading that both wire formats use.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>

#include "include/ptc/host_value.hpp"
#include "protocol/agent/model/wire.hpp"
#include "runtime/host_value.hpp"

namespace ptc::model::wire_json {

inline bool is_string(const HostValue* v) {
  return v && v->kind() == HostValue::Kind::String;
}

inline bool is_absent(const HostValue* v) {
  return !v || v->is_nil();
}

// A reply that is not the answer's shape: what was expected where.
struct Malformed {
  std::string message;
};

[[noreturn]] inline void malformed(const std::string& at, std::string_view expected,
                                   const HostValue* got) {
  throw Malformed{fmt::format("{}: expected {}, got {}", at, expected,
                              got ? json_kind_name(got->kind()) : "nothing")};
}

// A failed answer: the failure, and its message also as the response's error
// (so that a failure read without its kind still is no success).
inline WireAnswer failed(Failure failure, std::string message) {
  WireAnswer a;
  a.failure = failure;
  a.message = std::move(message);
  a.response.ok = false;
  a.response.error = a.message;
  return a;
}

}  // namespace ptc::model::wire_json
