// A model client's settings as JSON, for hosts that drive the agent loop
// from outside C++ (the C API's "model" object, Python's Agent(model=...)):
//   {"spec": "openai:gpt-4.1-mini", "base_url", "api_key_env", "api_key_file",
//    "temperature", "max_tokens", "seed", "request_timeout_ms", "retries",
//    "price_in", "price_out", "record", "replay", "ca_file",
//    "max_response_bytes"}
// and what a run used: {"calls", "retries", "input", "output", "cached",
// "per_call": [{"input", "output", "cached"}], "cost"}.
#pragma once

#include <string>

#include "include/ptc/host_value.hpp"
#include "protocol/agent/model/model_client.hpp"

namespace ptc::model {

// Throws std::invalid_argument naming the field ("model.retries: expected an
// integer from 0 to 20").
ModelOptions model_options_from_json(const HostValue& json, const std::string& at,
                                     std::string* spec);

HostValue usage_json(const ModelUsage& u);

}  // namespace ptc::model
