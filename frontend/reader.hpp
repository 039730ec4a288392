// The reader: PTC-Lisp source text to forms (spec §2, §3, §14).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "frontend/form.hpp"

namespace ptc {

class Arena;

struct ReaderOptions {
  uint32_t max_nesting_depth = 1000;  // deeper nesting is a parse_error, never a stack overflow
  uint32_t max_integer_digits = 100;  // spec §3.3: integer literals are limited to 100 digits
};

// The top-level forms of a program, in the arena with them.
using FormList = std::span<const Form* const>;

// Reads every top-level form of `source`. Throws LispError(ParseError) with the
// line:column of the problem and a hint. Forms and their strings (and the list
// itself) are allocated in `arena`.
FormList read_program(Arena& arena, std::string_view source, const ReaderOptions& options = {});

// What a REPL does with the text typed so far.
enum class InputStatus {
  Blank,       // only whitespace and comments: nothing to run
  Complete,    // whole forms, or a parse error before the end (running it reports it)
  Incomplete,  // the text ends inside a form (an open bracket, string or regex, a ' or
               // #_ still waiting for its form): read another line
};
InputStatus input_status(std::string_view source, const ReaderOptions& options = {});

// Reads exactly one form (surrounding whitespace and comments allowed).
const Form* read_one(Arena& arena, std::string_view source, const ReaderOptions& options = {});

}  // namespace ptc
