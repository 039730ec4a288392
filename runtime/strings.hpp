// UTF-8 strings: construction, validation and grapheme-cluster indexing.
// PTC-Lisp counts and indexes strings by grapheme (spec §3.4, §8.3), so
// "é" written as e + combining accent is one character.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/objects.hpp"

namespace ptc {

class Arena;

// The string must be valid UTF-8 (checked where text enters the engine).
const StrObj* new_string(Arena& arena, std::string_view bytes);
// Uninitialised string of `len` bytes to be filled by the caller.
StrObj* new_string_uninit(Arena& arena, size_t len);

// Returns true when `s` is well-formed UTF-8; otherwise sets *bad_offset to
// the byte offset of the first invalid sequence.
bool is_valid_utf8(std::string_view s, size_t* bad_offset = nullptr);

bool is_ascii(const StrObj* s);

// Byte length of the grapheme cluster starting at byte `pos` of `s`.
size_t grapheme_length(std::string_view s, size_t pos);
size_t grapheme_count(const StrObj* s);
size_t grapheme_count(std::string_view s);
// Byte offset of grapheme number `index` (index == count gives s.size()).
size_t grapheme_offset(std::string_view s, size_t index);
void split_graphemes(std::string_view s, std::vector<std::string_view>& out);

// Appends `s` quoted and escaped as a string literal ("a\"b").
// A byte count for people: "512 bytes", "14.0 KB", "10.0 MB".
std::string human_bytes(size_t n);

void append_quoted(std::string& out, std::string_view s);
// True when append_quoted would escape a character of `s`: without one, the
// literal is `s` between two quotes.
bool needs_quoting_escape(std::string_view s);

// Whether n bytes at a and b are the same. Names (map keys, symbols, builtin
// names) are short: up to 16 bytes they are compared without the call to
// memcmp, in two overlapping loads each from 4 bytes up.
inline bool same_bytes(const char* a, const char* b, size_t n) {
  if (n < 4) {
    for (size_t i = 0; i < n; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  if (n < 8) {
    uint32_t a0, a1, b0, b1;
    std::memcpy(&a0, a, 4), std::memcpy(&a1, a + n - 4, 4);
    std::memcpy(&b0, b, 4), std::memcpy(&b1, b + n - 4, 4);
    return a0 == b0 && a1 == b1;
  }
  if (n <= 16) {
    uint64_t a0, a1, b0, b1;
    std::memcpy(&a0, a, 8), std::memcpy(&a1, a + n - 8, 8);
    std::memcpy(&b0, b, 8), std::memcpy(&b1, b + n - 8, 8);
    return a0 == b0 && a1 == b1;
  }
  return std::memcmp(a, b, n) == 0;
}

// a == b for the short names of programs, which the analyzer compares for
// every symbol (same_bytes: no memcmp call for the usual lengths).
inline bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && same_bytes(a.data(), b.data(), a.size());
}

// Decodes one code point; returns its byte length (0 at end or on bad input).
size_t decode_utf8(std::string_view s, size_t pos, int32_t* cp);
void append_utf8(std::string& out, int32_t cp);

}  // namespace ptc
