// Printing values in Clojure syntax.
//
// Two float styles exist because the spec has two: `str`, `pr-str` and
// `println` use Clojure's Double.toString (3.3000000000000003, 1.0E10), while
// results shown to users and LLMs (format_value) use the reference
// implementation's compact display of at most 10 decimals (3.3). `limit`
// truncates collections and reports it: [1 2 ...] (2/3).
#pragma once

#include <cstddef>
#include <string>

#include "runtime/value.hpp"

namespace ptc {

enum class FloatStyle { Clojure, Display };

struct PrintOptions {
  bool readable = true;  // strings quoted and escaped (pr-str); false: as in str
  FloatStyle floats = FloatStyle::Clojure;
  size_t limit = 0;         // max items shown per collection, 0 = all
  size_t string_limit = 0;  // max characters shown per string, 0 = all
  // Output cap in bytes, 0 = none. Shared structure can make a small value
  // print to gigabytes, so every printer that a program reaches is capped:
  // past the cap printing stops and the output is marked truncated, or, with
  // fail_when_full, a memory_limit LispError is thrown.
  size_t max_bytes = 0;
  bool fail_when_full = false;
};

// Appends the printed form; returns true when something was truncated.
bool print_value(std::string& out, Value v, const PrintOptions& opts = {});
std::string print_to_string(Value v, const PrintOptions& opts = {});

// How results are displayed (format_value): display floats, optional limit.
std::string display_value(Value v, size_t limit = 0, bool* truncated = nullptr,
                          size_t max_bytes = 0);

// `str` of one value: nil is "", strings are raw, everything else printed.
// With max_bytes, a longer result is a memory_limit error (see PrintOptions).
void str_append(std::string& out, Value v, size_t max_bytes = 0);

// A short rendering for error messages (at most about `max_chars`).
std::string preview(Value v, size_t max_chars = 60);

void format_double(std::string& out, double d, FloatStyle style);

}  // namespace ptc
