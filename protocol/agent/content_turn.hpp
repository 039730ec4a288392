// Content mode (output ptc_lisp, transport content): the model has no native
// tools and writes its PTC-Lisp program as one fenced block in its reply.
// The loop finds the program in the text, runs it as a lisp_eval program of
// the tool-call transport runs (same memory, *1 *2 *3, signature check of
// (return v), retry turns, memory limit), and sends the outcome back as the
// next user message: the execution feedback of feedback.hpp and the turn
// line, or the error feedback. (return v) and (fail v) end the run; a reply
// without a program is answered with feedback asking for one.
#pragma once

#include <string>
#include <string_view>

namespace ptc::protocol {

// The program of an assistant reply.
struct ContentProgram {
  enum class Kind {
    Program,   // `source` holds it
    None,      // no program in the text
    Multiple,  // `count` candidate blocks, where exactly one is wanted
  };
  Kind kind = Kind::None;
  std::string source;
  size_t count = 0;
};

// Finds the program of a reply (line endings normalized first). Fences are
// read line by line: a line whose trimmed text is ``` plus a tag without
// spaces opens a block, a line that is ``` (or </clojure>, </lisp>) closes
// it, a block never closed is dropped. In order:
//  1. blocks tagged clojure or lisp that hold more than whitespace and
//     invisible characters: one is the program, several are Multiple;
//  2. otherwise the other fenced blocks whose trimmed body starts with "(";
//  3. otherwise <clojure>...</clojure> / <lisp>...</lisp> blocks whose body
//     starts with "(";
//  4. otherwise the whole trimmed text when it starts with "(".
// The source is trimmed, with invisible characters (zero-width and no-break
// spaces, BOM, soft hyphen) removed and curly quotes made ASCII.
ContentProgram extract_content_program(std::string_view text);

// The reply as kept in the conversation: just the block when it has exactly
// one block tagged clojure or lisp (reasoning before it is dropped), else the
// reply unchanged.
std::string strip_to_program(std::string_view text);

// The output-format part of the system prompt in content mode.
std::string_view content_mode_instructions();

// The reference card and tool inventory (reference_card.hpp), which speak of
// lisp_eval calls, reworded for content mode: a program is written as a
// ```clojure block.
std::string for_content_mode(std::string text);

}  // namespace ptc::protocol
