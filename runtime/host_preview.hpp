// Host values in PTC-Lisp syntax for the text of messages and hints: what a
// signature mismatch got, and the canonical arguments of a cached tool call.
// (Results shown to users go through format_value, whose truncation counts
// items: "[1 2 ...] (2/3)".)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/host_value.hpp"

namespace ptc {

// As given (insertion order, map entries separated by ", "), cut near
// `limit` bytes: a string keeps the graphemes that fit before its closing
// "...\"", a collection shows "..." for the elements past the limit.
void append_host_preview(std::string& out, const HostValue& v, size_t limit);
// The same, then cut back to `limit` bytes (with "...") when nesting ran more
// than 16 bytes past it.
std::string host_preview(const HostValue& v, size_t limit);

// The canonical text of tool arguments, never cut: map keys with - as _,
// sorted, once each, and keywords where the name is one (else strings); sets
// sorted; integral floats as integers; entries separated by spaces. String
// and keyword keys, and 2 and 2.0, give the same text, as in the cache key.
void append_canonical_host_value(std::string& out, const HostValue& v);

// PtcRunner's keyword-name grammar: letters, digits and + - * < > = ? ! _.
bool is_keyword_name(std::string_view name);

}  // namespace ptc
