// The agent loop: drives a model given by the host (an LlmCallable) through
// turns until it has an answer. Three shapes:
//  - output ptc_lisp, transport tool_call: the model's one native tool is
//    lisp_eval; a program's (return v) is the answer (checked against the
//    signature), (fail v) ends the run, or the model answers directly in the
//    signature's shape;
//  - output ptc_lisp, transport content (content_turn.cpp): no native tools;
//    the model writes its program as one fenced block in its reply, and the
//    outcome comes back as the next user message; (return v) / (fail v) end
//    the run;
//  - output text (combined mode): native app tools beside lisp_eval, one
//    tool cache shared by both layers, and the model's final text is the
//    answer.
// Memory (def/defn) carries across turns, *1 *2 *3 are the values of earlier
// successful programs, and every tool-call id the model sends is answered by
// exactly one tool message on every path. Nothing here calls a model itself.
#pragma once

#include <memory>

#include "protocol/agent/agent_options.hpp"
#include "protocol/agent/messages.hpp"

namespace ptc {
struct Signature;
}

namespace ptc::protocol {

class Agent {
 public:
  // Throws std::invalid_argument when the options cannot work (a tool
  // configuration check_tool rejects, a tool named lisp_eval, a bad
  // signature, max_turns < 1, output text with transport content).
  Agent(AgentOptions options, LlmCallable llm);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // One run from the first turn; never throws (a model that throws or
  // answers with an error ends the run with llm_error).
  AgentResult run();

  // The pieces of a request, for hosts and tests.
  std::string system_prompt() const;
  std::vector<HostValue> request_tools() const;

 private:
  AgentOptions options_;
  LlmCallable llm_;
  std::unique_ptr<Signature> signature_;
};

}  // namespace ptc::protocol
