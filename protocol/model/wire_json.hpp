// Small pieces of JSON building and reading that both wire formats use.
#pragma once

#include <string>
#include <string_view>

#include "include/ptc/host_value.hpp"

namespace ptc::model::wire_json {

inline HostValue str(std::string_view s) {
  return HostValue::string(std::string(s));
}

inline bool is_string(const HostValue* v) {
  return v && v->kind() == HostValue::Kind::String;
}

inline bool is_absent(const HostValue* v) {
  return !v || v->is_nil();
}

}  // namespace ptc::model::wire_json
