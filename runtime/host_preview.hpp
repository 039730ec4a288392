// Host values in PTC-Lisp syntax for the text of messages and hints: what a
// signature mismatch got, and the canonical arguments of a cached tool call.
// (Results shown to users go through format_value, which counts what it cuts.)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/host_value.hpp"

namespace ptc {

// As given (map entries separated by ", "), cut near `limit` bytes: a string
// keeps the graphemes that fit and ends in ...", a collection shows ... for
// the elements past the limit.
void append_host_preview(std::string& out, const HostValue& v, size_t limit);
// The same, cut back to `limit` bytes and ... when nesting ran 16 past it.
std::string host_preview(const HostValue& v, size_t limit);

// Tool arguments as their cache key sees them, never cut: map keys with - as
// _, once each, keywords where the name is one; maps and sets sorted;
// integral floats as integers; entries separated by spaces.
void append_canonical_host_value(std::string& out, const HostValue& v);

// PtcRunner's keyword-name grammar: letters, digits and + - * < > = ? ! _.
bool is_keyword_name(std::string_view name);

}  // namespace ptc
