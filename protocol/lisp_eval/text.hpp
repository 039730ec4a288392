// Text helpers of the protocol layer: payload strings are valid UTF-8, cuts
// count characters (grapheme clusters, as PTC-Lisp counts them), and values
// quoted in messages are short.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/host_value.hpp"

namespace ptc::protocol {

// `s` with every invalid UTF-8 sequence replaced by U+FFFD (JSON needs text).
std::string utf8_text(std::string_view s);

// The first `max_chars` characters of `s` (all of it when shorter); *cut
// says whether anything was left out.
std::string cut_text(std::string_view s, size_t max_chars, bool* cut);

// " ... (truncated at N chars; use println on specific fields)": what ends a
// preview that was cut.
std::string truncation_marker(size_t max_chars);

// A value in Clojure syntax for a message, at most about `max_chars`
// characters ("..." when cut).
std::string short_form(const HostValue& v, size_t max_chars);

}  // namespace ptc::protocol
