#include "protocol/agent/program_turn.hpp"

#include <fmt/format.h>

#include "protocol/lisp_eval/tool.hpp"

namespace ptc::protocol {

namespace {

// The text of a (return v) whose value does not match the signature, for the
// model to fix.
std::string return_mismatch(const RunState& s, const HostValue& value,
                            const SignatureCheck& check) {
  std::string shown = format_value(value);
  if (shown.size() > 200) shown = shown.substr(0, 200) + "...";
  return fmt::format(
      "The returned value does not match the expected output.\nExpected: {}\nReceived: "
      "{}\nProblem: {}\nFix the program and call (return ...) with a value of the expected "
      "shape.",
      s.options.signature, shown, check.message);
}

ProgramTurn refused(ProgramVerdict verdict, std::string_view reason, std::string message) {
  ProgramTurn t;
  t.verdict = verdict;
  t.record = reason_record(reason, message);
  t.message = std::move(message);
  return t;
}

ProgramTurn decide(const RunState& s, const Step& step, ProgramEnds ends) {
  const AgentOptions& o = s.options;
  if (!step.ok) {
    ProgramTurn t;
    bool failed = step.error.kind == ErrorKind::Fail;
    t.verdict = failed && ends == ProgramEnds::Run ? ProgramVerdict::Failed : ProgramVerdict::Error;
    t.record = failed ? step.fail_value
                      : reason_record(ptc::reason_name(step.error.kind), step.error.message);
    return t;
  }
  bool single_shot = o.max_turns == 1 && o.retry_turns == 0;
  if (ends == ProgramEnds::Run && (step.returned || single_shot)) {
    SignatureCheck check;
    if (s.signature && step.returned) check = check_output(*s.signature, step.value);
    if (!check.ok)
      return refused(ProgramVerdict::ReturnMismatch, "return_validation_failed",
                     return_mismatch(s, step.value, check));
    ProgramTurn t;
    t.verdict = ProgramVerdict::Answered;
    t.record = step.value;
    t.answer = s.signature ? check.value : step.value;
    t.success = true;
    return t;
  }
  if (std::optional<std::string> over = s.memory_over_limit(step.memory))
    return refused(o.memory_strategy == MemoryStrategy::Rollback ? ProgramVerdict::MemoryRolledBack
                                                                 : ProgramVerdict::MemoryExceeded,
                   "memory_limit", *over);
  ProgramTurn t;
  t.record = step.value;
  t.success = true;
  return t;
}

}  // namespace

ProgramTurn decide_program_turn(const RunState& s, std::string program, const Step& step,
                                ProgramEnds ends, AgentTurn& record) {
  ProgramTurn decided = decide(s, step, ends);
  record.program = std::move(program);
  record.prints = step.prints;
  record.tool_calls = step.tool_calls;
  record.result = decided.record;
  record.success = decided.success;
  return decided;
}

std::string program_payload(const RunState& s, const Step& step, const ProgramTurn& turn) {
  const AgentOptions& o = s.options;
  switch (turn.verdict) {
    case ProgramVerdict::Failed:
    case ProgramVerdict::Error:
      return render_step_error(step, o.format);
    case ProgramVerdict::ReturnMismatch:
      return render_error(Reason::RuntimeError, turn.message);
    case ProgramVerdict::MemoryRolledBack:
      return render_error(Reason::MemoryLimit, turn.message + " Last turn rolled back.");
    case ProgramVerdict::MemoryExceeded:
      return render_error(Reason::MemoryLimit, turn.message);
    case ProgramVerdict::Answered:
    case ProgramVerdict::Kept:
      break;
  }
  return render_success(step, execution_feedback(step, s.memory, o.max_turns, o.format));
}

void settle_program_turn(RunState& s, const ProgramTurn& turn, const Step& step) {
  switch (turn.verdict) {
    case ProgramVerdict::Failed:
      s.stop_error("failed", step.error.message);
      return;
    case ProgramVerdict::Error:
      if (step.error.kind != ErrorKind::Fail) s.last_fail = step.error;
      break;
    case ProgramVerdict::ReturnMismatch:
      s.memory = step.memory;
      break;
    case ProgramVerdict::Answered:
      s.memory = step.memory;
      s.stop_ok(turn.answer);
      return;
    case ProgramVerdict::MemoryRolledBack:
      break;
    case ProgramVerdict::MemoryExceeded:
      s.stop_error("memory_limit_exceeded", turn.message);
      return;
    case ProgramVerdict::Kept:
      s.keep(step);
      break;
  }
  s.next_turn();
}

}  // namespace ptc::protocol
