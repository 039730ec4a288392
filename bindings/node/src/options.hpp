// The options object of run/runSync/compile as ptc::RunOptions: context,
// memory, history, signature, the other run options and every limit, by
// camelCase name (see index.d.ts). `tools` gives the names of the tools,
// which the run defers (the JS functions are called by index.js); `signal`
// is index.js's; `isolate` is a WorkerPool's handle (isolated.cpp).
// Anything else, or a value of the wrong type, is a TypeError (RangeError
// for a number out of range).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "include/ptc/ptc.hpp"
#include "napi_util.hpp"

namespace ptc::node {

struct ParsedOptions {
  RunOptions run;
  // The context as JSON text, when given as a string (run.context_json
  // points into it).
  std::shared_ptr<const std::string> context_json;
  std::vector<std::string> tools;     // names, deferred in run.deferred_tools too
  std::vector<std::string> approval;  // of those, the ones a person approves each call of
};

// `options` may be undefined or null (no options).
void parse_options(napi_env env, napi_value options, ParsedOptions& out);

}  // namespace ptc::node
