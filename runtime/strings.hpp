// UTF-8 strings: construction, validation and grapheme-cluster indexing.
// PTC-Lisp counts and indexes strings by grapheme (spec §3.4, §8.3), so
// "é" written as e + combining accent is one character.
#pragma once

#include <cstddef>
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
void append_quoted(std::string& out, std::string_view s);
// True when append_quoted would escape a character of `s`: without one, the
// literal is `s` between two quotes.
bool needs_quoting_escape(std::string_view s);

// a == b for the short names of programs (symbols, builtin names), which the
// analyzer compares for every symbol: a loop costs less than the call to
// memcmp that == makes.
inline bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// Decodes one code point; returns its byte length (0 at end or on bad input).
size_t decode_utf8(std::string_view s, size_t pos, int32_t* cp);
void append_utf8(std::string& out, int32_t cp);

}  // namespace ptc
