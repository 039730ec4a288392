// Short builders for host values in tests: vec, map, set, str, kw, num (the
// runtime's, runtime/host_builders.hpp).
#pragma once

#include "runtime/host_builders.hpp"

namespace ptc::testing::host {

using H = HostValue;
using ptc::host::kw;
using ptc::host::map;
using ptc::host::num;
using ptc::host::set;
using ptc::host::str;
using ptc::host::vec;

}  // namespace ptc::testing::host
