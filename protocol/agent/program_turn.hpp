// What a program that ran means for the agent's run. The decision is made
// here once, in this order: (fail v), another error, (return v) (or a
// single-shot run) against the signature, the memory limit, else the program
// is kept. The three turn shapes (tool_call_turn, content_turn,
// combined_turn) only render it as messages.
#pragma once

#include <string>

#include "protocol/agent/run_state.hpp"

namespace ptc::protocol {

enum class ProgramVerdict {
  Failed,            // (fail v): the run ends as failed
  Error,             // the program failed: the model is told, and tries again
  ReturnMismatch,    // (return v) outside the signature's shape: it tries again
  Answered,          // (return v), or a single-shot run, gives the answer
  MemoryRolledBack,  // memory past memory_limit (rollback): the turn is undone
  MemoryExceeded,    // memory past memory_limit (strict): the run ends
  Kept,              // the program's memory and value carry on
};

struct ProgramTurn {
  ProgramVerdict verdict = ProgramVerdict::Kept;
  HostValue record;      // the turn's result: the value, (fail v)'s value, or {reason, message}
  std::string message;   // ReturnMismatch and Memory*: what the model is told
  HostValue answer;      // Answered: the value as the signature reads it
  bool success = false;  // Answered and Kept
};

// Whether a program's (return v) and (fail v) end the run (tool-call and
// content turns), or are results the model reads on (combined mode, where
// the model's final text is the answer).
enum class ProgramEnds { Run, Turn };

// Decides, and records the program, its prints and tool calls and the
// decision (result, success) in the turn's record.
ProgramTurn decide_program_turn(const RunState& s, std::string program, const Step& step,
                                ProgramEnds ends, AgentTurn& record);

// The lisp_eval payload that answers the call of a decided program (the
// tool-call and combined turns).
std::string program_payload(const RunState& s, const Step& step, const ProgramTurn& turn);

// Applies the decision once the turn is rendered and recorded: the error
// kept for data/fail, the memory and *1, then the run's end or next turn.
void settle_program_turn(RunState& s, const ProgramTurn& turn, const Step& step);

}  // namespace ptc::protocol
