// What the C API's opaque handles are. Each holds the C++ objects of
// include/ptc/ptc.hpp it stands for, plus what those point into (the
// context's text, the cancel flag), shared so that copies (a session made
// from options) keep them alive.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "include/ptc/ptc.h"
#include "include/ptc/ptc.hpp"

struct ptc_options {
  ptc::RunOptions run;
  // What run.context_json and run.cancel point into.
  std::shared_ptr<const std::string> context_text;
  std::shared_ptr<std::atomic<bool>> cancel;
};

struct ptc_cancel_token {
  std::shared_ptr<std::atomic<bool>> flag = std::make_shared<std::atomic<bool>>(false);
};

// A reference to a pool of worker processes: options that carry it hold one
// more (RunOptions::isolate), so it may be freed before them.
struct ptc_worker_pool {
  std::shared_ptr<ptc::WorkerPool> pool;
};

struct ptc_prepared_context {
  std::shared_ptr<const ptc::PreparedContext> context;
};

struct ptc_program {
  std::shared_ptr<const ptc::Program> program;
};

// A Step, and its JSON texts, each built on first request (by the const
// getters of the C API: a cache).
struct ptc_result {
  ptc::Step step;
  std::optional<std::string> value_json, memory_json, tool_calls_json, json, error_text;
};

struct ptc_session {
  // The options the session was made from: what its RunOptions point into.
  ptc_options keep;
  ptc::Session session;
  std::optional<std::string> memory_json;

  ptc_session(const ptc_options& options, size_t history_depth)
      : keep(options), session(keep.run, history_depth) {}
};

// An execution, the cancel flag its RunOptions point to (declared first so
// that it outlives the execution, whose destructor may still run the
// program to cancel it), and the pending calls' JSON, built on first request
// after each change. `mutex` takes the handle's calls one at a time, with
// the text they share.
struct ptc_execution {
  std::shared_ptr<std::atomic<bool>> cancel;
  ptc::Execution execution;
  mutable std::mutex mutex;
  mutable std::optional<std::string> pending_json;

  ptc_execution(std::shared_ptr<std::atomic<bool>> flag, ptc::Execution e)
      : cancel(std::move(flag)), execution(std::move(e)) {}
};

// A tool call's answer, filled in by the callback.
struct ptc_tool_reply {
  const ptc::ToolCallContext* call = nullptr;  // of the run serving it; may be nullptr
  ptc::ToolResult answer = ptc::ToolResult::success(ptc::HostValue());
};

namespace ptc::capi {

// Adds (or replaces) a tool calling `fn` to options.tools (capi/tools.cpp).
void add_tool(RunOptions& options, std::string name, ptc_tool_fn fn, void* user,
              ptc_free_fn free_user, bool cacheable);

// What the entry points share (capi/ptc_c.cpp).
// The RunOptions of a handle; the defaults for NULL.
const RunOptions& run_options(const ptc_options* options);
// Hands a Step out as a new result: PTC_OK, or PTC_PROGRAM_ERROR with the
// error as the thread's last error too.
ptc_status deliver(Step step, ptc_result** out);

}  // namespace ptc::capi
