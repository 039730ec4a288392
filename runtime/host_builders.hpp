// Short builders of host values for the code that assembles payloads and
// answers (protocol/, cli/, tests): one definition instead of one per file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/host_value.hpp"

namespace ptc::host {

inline HostValue str(std::string_view s) {
  return HostValue::string(std::string(s));
}
inline HostValue kw(std::string_view s) {
  return HostValue::keyword(std::string(s));
}
inline HostValue num(int64_t i) {
  return HostValue::integer(i);
}
inline HostValue vec(std::vector<HostValue> items) {
  return HostValue::vector(std::move(items));
}
inline HostValue map(std::vector<std::pair<HostValue, HostValue>> entries) {
  return HostValue::map(std::move(entries));
}
inline HostValue set(std::vector<HostValue> items) {
  return HostValue::set(std::move(items));
}

}  // namespace ptc::host
