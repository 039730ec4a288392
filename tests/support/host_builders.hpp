// Short builders for host values in tests: vec, map, set, str, kw, num.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/host_value.hpp"

namespace ptc::testing::host {

using H = HostValue;

inline H vec(std::vector<H> items) {
  return H::vector(std::move(items));
}
inline H map(std::vector<std::pair<H, H>> entries) {
  return H::map(std::move(entries));
}
inline H set(std::vector<H> items) {
  return H::set(std::move(items));
}
inline H str(const char* s) {
  return H::string(s);
}
inline H kw(const char* s) {
  return H::keyword(s);
}
inline H num(int64_t i) {
  return H::integer(i);
}

}  // namespace ptc::testing::host
