// ptc agent --model SPEC: the flags that choose and tune a real model
// (protocol/agent/model), and the progress lines a person watches on stderr.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "protocol/agent/agent.hpp"
#include "protocol/agent/model/model_client.hpp"

namespace ptc::cli {

struct ModelFlags {
  std::string spec;  // --model
  ModelOptions options;
};

// Reads the model flag at args[i] (and its value, advancing i): --model,
// --base-url, --api-key-env, --api-key-file, --temperature, --max-tokens,
// --seed, --request-timeout, --retries, --price-in, --price-out, --record,
// --replay, --ca-file, --max-response-bytes. False when args[i] is none of them; *error is set
// when it is one with a bad or missing value.
bool read_model_flag(const std::vector<std::string>& args, size_t& i, ModelFlags& out,
                     std::string* error);
extern const char* const kModelFlagsHelp;
// A flag's whole value as an int64 (nothing may follow the digits), or nullopt.
std::optional<int64_t> integer(const std::string& text);

// One line per turn on `out` once the turn is over: the model's time, its
// tokens, retries, and what the turn's program did. Feed it the model's
// attempts and the agent's telemetry; finish() prints the last turn.
class AgentProgress {
 public:
  explicit AgentProgress(std::FILE* out) : out_(out) {}
  void attempt(const ModelCallReport& r);
  void event(const protocol::AgentEvent& e);
  void finish();

 private:
  void flush();
  std::FILE* out_;
  int turn_ = 0;
  double model_ms_ = 0;
  protocol::TokenCounts tokens_;
  int retries_ = 0;
  std::vector<std::string> notes_;  // retries, failures, program outcomes
};

}  // namespace ptc::cli
