// One lisp_eval call answered whole, as a one-shot tool answers it: the
// call's arguments as JSON text in, the payload out. What `ptc lisp-eval`
// prints and what the C API of libptc_protocol (protocol/libptc_protocol/) and the
// language packages over it hand back, from one definition.
#pragma once

#include <string>
#include <string_view>

#include "include/ptc/ptc.hpp"
#include "protocol/lisp_eval/tool.hpp"

namespace ptc::protocol {

struct LispEvalAnswer {
  bool ok = false;      // a success payload; else an error payload
  std::string payload;  // compact JSON, keys sorted
};

// Answers a call whose arguments are `arguments` (JSON text of an object
// {"program", "context"}; other keys are ignored). Malformed JSON, JSON that
// is not an object, a missing, blank or non-string program and a bad context
// give an args_error payload; a program that fails its error payload
// (render_step_error). The call's context, when given, replaces the one of
// `run` (context, context_json and prepared_context). The run is tagged for
// profile `p` (tag_run). With a signature in `run`, a success payload
// carries the typed value as `validated` (a value with no JSON form is a
// validation_error payload). With include_memory, a success payload has the
// memory block (names bound against run.memory), as a turn of a
// conversation does.
LispEvalAnswer answer_lisp_eval(std::string_view arguments, Profile p, RunOptions run,
                                bool include_memory = false);

}  // namespace ptc::protocol
