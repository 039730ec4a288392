// An error shown next to the source it points at, for people at a terminal:
//
//   error: type_error at 1:4: + expects a number, got string "a"
//     (+ 1 "a")
//        ^
//     hint: ...
#pragma once

#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"

namespace ptc::cli {

// The lines above, ending with a line break. Without a known location (or
// when it lies outside `source`) there is no source line and no caret.
std::string describe_error_at_source(const Error& error, std::string_view source);

}  // namespace ptc::cli
