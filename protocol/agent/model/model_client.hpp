// A model the agent loop can talk to: `model_client("openai:gpt-4.1-mini",
// options)` gives a ModelClient whose callable() is the loop's LlmCallable.
// Providers: openai (Chat Completions), openai-compat (the same wire format
// at any --base-url: llama.cpp, vLLM, Ollama, OpenRouter, Groq, ...) and
// anthropic (Messages). A failed call is one of a closed set of failures
// (model::Failure); timeouts, 429 and 5xx and dropped connections are tried
// again after an exponential, jittered pause (Retry-After wins when the
// provider sends it), a bounded number of times. Calls can be recorded to a
// JSONL file and answered from it later (recording.hpp). The API key never
// appears in errors, recordings or reports.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/agent/messages.hpp"
#include "protocol/agent/model/wire.hpp"

namespace ptc {

// One attempt at a model call, as it ends: what hosts show as progress.
struct ModelCallReport {
  int turn = 0;     // the agent's turn (LlmRequest::turn)
  int attempt = 1;  // 1, then 2, 3, ... for the retries
  double ms = 0;    // the provider's time for this attempt
  model::Failure failure = model::Failure::None;
  std::string message;                                // when failed
  std::optional<std::chrono::milliseconds> retry_in;  // set when another attempt follows
  protocol::TokenCounts tokens;                       // when it succeeded
  bool replayed = false;                              // answered from --replay
};

// Tokens over the run, and what they cost when prices were given.
struct ModelUsage {
  int64_t calls = 0;    // successful calls
  int64_t retries = 0;  // attempts beyond the first
  protocol::TokenCounts tokens;
  std::vector<protocol::TokenCounts> per_call;  // in order
  std::optional<double> cost;                   // with price_in and price_out
};

struct ModelOptions {
  std::string base_url;  // replaces the provider's (openai: the base before /chat/completions)
  // The key: given here, else read from api_key_file (surrounding whitespace
  // dropped), else from the environment variable api_key_env, else (openai,
  // anthropic only) from OPENAI_API_KEY / ANTHROPIC_API_KEY. openai-compat
  // sends a key only when one is given by the first three: another
  // provider's key must not reach a third-party server.
  std::string api_key;
  std::string api_key_file;
  std::string api_key_env;
  std::optional<double> temperature;
  int64_t max_tokens = 4096;
  std::optional<int64_t> seed;
  std::chrono::milliseconds timeout{120000};         // per attempt, the whole exchange
  std::chrono::milliseconds connect_timeout{10000};  // within timeout
  int max_retries = 3;                               // attempts beyond the first
  std::chrono::milliseconds backoff_base{500};       // doubled per retry, with jitter
  std::chrono::milliseconds max_wait{60000};         // a longer Retry-After fails the call instead
  size_t max_response_bytes = size_t{8} << 20;
  std::string ca_file;             // https: the CA certificates to trust instead of the system's
  bool allow_remote_http = false;  // plain http beyond loopback
  std::optional<double> price_in, price_out;  // per million tokens (input, output)
  std::string record_path;                    // append every exchange to this JSONL file
  std::string replay_path;  // answer every request from this JSONL file; no network
  std::function<void(const ModelCallReport&)> on_attempt;
  // How a retry waits (tests replace it); default: sleep.
  std::function<void(std::chrono::milliseconds)> wait;
};

class ModelClient {
 public:
  virtual ~ModelClient() = default;
  // One model call with its retries. Never throws: a failure is a response
  // with ok false, error "<failure>: <message>", error_kind and retryable.
  virtual protocol::LlmResponse call(const protocol::LlmRequest& request) = 0;
  // call() as the agent loop's model.
  protocol::LlmCallable callable() {
    return [this](const protocol::LlmRequest& r) { return call(r); };
  }
  virtual const ModelUsage& usage() const = 0;
  virtual const std::string& spec() const = 0;
};

// "openai:MODEL", "openai-compat:MODEL" (needs options.base_url),
// "anthropic:MODEL". Throws std::invalid_argument saying what is wrong: an
// unknown provider, no model, no key where one is needed, a base URL that
// cannot work, an unreadable key file or recording.
std::unique_ptr<ModelClient> model_client(std::string_view spec, ModelOptions options);

}  // namespace ptc
