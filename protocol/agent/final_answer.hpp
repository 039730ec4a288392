// A model's plain-text answer, read as the agent's result: raw text when the
// signature is absent, :string or :any; otherwise JSON, coerced and checked
// against the signature's output type.
#pragma once

#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "runtime/signature.hpp"

namespace ptc::protocol {

struct FinalAnswer {
  bool ok = false;
  HostValue value;
  std::string error;  // what is wrong, for the model's next turn
};

// How JSON is found in the text.
enum class JsonExtraction {
  Strict,   // the whole (trimmed) text must be one JSON value
  Lenient,  // also a ```json fenced block or the first {...}/[...] in the text;
            // for a list type, {"items": [...]} is accepted too
};

// Scalars (:int :float :bool :keyword) decode strictly; :datetime also takes
// bare ISO-8601 text (the value is its UTC text, "2026-05-05T00:00:00Z").
// Lenient extraction applies to map and list types only. The value is
// checked (strictly) by the signature checker, which finds a field under its
// string key; map keys come back as strings with - as _, as a program's
// returned value. Errors: "Could not parse JSON from response.", "Could not
// parse datetime from response: \"<text>\"", "Return validation failed:
// <path, or root>: <message>".
FinalAnswer parse_final_answer(std::string_view content, const Signature* signature,
                               JsonExtraction extraction);

// True when the text holds a fenced code block tagged clojure or lisp, or an
// untagged one (any other tag counts as none) whose body starts with "(": a
// program written as text instead of being sent to lisp_eval. A block opens
// at a line starting with ``` and closes at a line that is ``` (or
// </clojure>, </lisp>); a block never closed does not count.
bool has_fenced_program(std::string_view content);

}  // namespace ptc::protocol
