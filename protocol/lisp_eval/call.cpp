#include "protocol/lisp_eval/call.hpp"

#include <utility>

#include "runtime/error.hpp"

namespace ptc::protocol {

namespace {

LispEvalAnswer error_answer(Reason reason, const std::string& message) {
  return {false, render_error(reason, message)};
}

}  // namespace

LispEvalAnswer answer_lisp_eval(std::string_view arguments, Profile p, RunOptions run,
                                bool include_memory) {
  tag_run(p, run);
  HostValue call;
  try {
    call = parse_json(arguments);
  } catch (LispError& e) {
    return error_answer(Reason::ArgsError, extract_program({}, e.error().message).message);
  }
  if (call.kind() != HostValue::Kind::Map)
    return error_answer(
        Reason::ArgsError,
        extract_program({}, "the arguments must be a JSON object {\"program\": ...}").message);
  ProgramArg program = extract_program(call);
  if (!program.ok) return error_answer(Reason::ArgsError, program.message);
  const HostValue* context = call.get("context");
  if (std::string err = check_context(context); !err.empty())
    return error_answer(Reason::ArgsError, err);
  if (context && !context->is_nil()) {
    run.context = *context;
    run.context_json = {};
    run.prepared_context.reset();
  }

  Step step = ptc::run(program.program, run);
  if (!step.ok) return {false, render_step_error(step)};
  SuccessOptions success{include_memory, {}};
  if (!run.signature.empty()) {  // the result as typed JSON
    JsonValue typed = to_json_value(step.value);
    if (!typed.ok) return error_answer(Reason::ValidationError, "validated value: " + typed.error);
    success.validated = std::move(typed.value);
  }
  if (!include_memory) return {true, render_success_from_step(step, success)};
  ExecutionFeedback execution = execution_feedback(step, run.memory, 2);
  return {true, render_success(step, execution, success)};
}

}  // namespace ptc::protocol
