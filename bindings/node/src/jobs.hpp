// The run machinery of jobs.cpp that executions.cpp and sessions.cpp share:
// a Job is one run (or one execution from JS, or one eval of a Session),
// its phases run by execute() on a thread of node's pool (queue()) or in
// place, and outcome() turns what a phase gave into JS on the main thread.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exports.hpp"
#include "include/ptc/ptc.hpp"
#include "napi_util.hpp"
#include "options.hpp"
#include "protocol/lisp_eval/tool.hpp"

namespace ptc::node {

struct Job {
  std::string source;
  std::shared_ptr<const Program> program;
  ParsedOptions options;
  std::atomic<bool> cancel{false};  // before `execution`: it must outlive it
  std::optional<protocol::Profile> payload_profile;

  enum class Phase { Start, Resume, Cancel, Load } phase = Phase::Start;
  Answers answers;
  std::optional<Execution> execution;
  std::optional<Step> step;  // a run without tools, or an error before the execution
  std::vector<PendingCall> pending;
  std::string payload;
  std::string failure;  // an unexpected C++ exception: the promise rejects with it
  bool started = false;
  bool busy = false;
  bool finished = false;

  // Phase::Load (executions.cpp): the snapshot and its HMAC key; `refused`
  // is load()'s LispError (snapshot_error, ...), which outcome() throws.
  std::string snapshot;
  std::string key;
  std::optional<Error> refused;
  // Called by outcome() on the main thread with the run's outcome, before
  // it is converted (a Session keeps its memory and history so).
  std::function<void(const Step&)> on_finish;

  // In flight on the pool (run()).
  napi_async_work work = nullptr;
  napi_ref self = nullptr;
  napi_ref callback = nullptr;
};

// A run's program, options and payload profile from (program: string |
// ProgramHandle, options, payloadProfile?): a Job's, a run in place's, or an
// isolated run's (isolated.cpp): anything with those members and `cancel`.
template <class Run>
void set_up(napi_env env, const napi_value* argv, Run& job) {
  napi_valuetype t = type_of(env, argv[0]);
  if (t == napi_string) {
    job.source = string_of(env, argv[0]);
  } else if (!(job.program = program_of(env, argv[0]))) {
    throw_type_error(env, "program must be a string or a Program from compile(), got " +
                              std::string(type_name(t)));
  }
  parse_options(env, argv[1], job.options);
  job.options.run.cancel = &job.cancel;
  if (type_of(env, argv[2]) == napi_string) {
    job.payload_profile = protocol::profile_from_name(string_of(env, argv[2]));
    if (!job.payload_profile) throw_type_error(env, "unknown lisp_eval profile");
    protocol::tag_run(*job.payload_profile, job.options.run);
  }
}

// A failed Step for an error raised before or around a run (a failed run
// changes no memory).
Step error_step(const Error& error, const RunOptions& options);
// The lisp_eval payload of a run (the profile only tags the run).
std::string payload_of(const Step& step);

// One phase (job.phase); any thread; no Node-API.
void execute(Job& job);
// What a phase gave, on the main thread: the pending calls as an array of
// {id, tool, args} (an approval also {kind, line, column}), or the Result
// object (and the job lets go of its run).
napi_value outcome(napi_env env, Job& job);
// An answer index.js encoded as a decision: `ok` "approve", or "reject" with
// the reason in `value`; nullopt when `ok` is a boolean (a tool's answer).
std::optional<Decision> decision_of(napi_env env, napi_value ok, napi_value value);
// The tagged external that owns `job` (collected with it).
napi_value wrap_job(napi_env env, std::unique_ptr<Job> job);
// The job behind such an external; a TypeError for anything else.
Job& job_of(napi_env env, napi_value value);
// Runs job.phase on node's pool; onStep(error, pending, result) gets the
// outcome on the main thread. `job_value` is kept alive until then.
void queue(napi_env env, napi_value job_value, Job& job, napi_value callback);

}  // namespace ptc::node
