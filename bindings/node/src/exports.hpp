// The functions the addon gives index.js, by the file that owns them.
#pragma once

#include <memory>
#include <string>

#include "include/ptc/ptc.hpp"
#include "napi_util.hpp"

namespace ptc::node {

// jobs.cpp: createJob, runInPlace, start, resume, abort, startSync, resumeSync.
void register_jobs(napi_env env, napi_value exports);
// programs.cpp: compile, programSource, prepareContext, preparedBytes; and
// the handles run() accepts.
void register_programs(napi_env env, napi_value exports);
// lisp_eval.cpp: toolSchema, checkLispEvalArgs (the protocol layer).
void register_lisp_eval(napi_env env, napi_value exports);
// executions.cpp: createExecution, createLoad, loadExecution,
// loadExecutionSync, resumeExecution, resumeExecutionSync, cancelExecution,
// dumpExecution, executionHeapBytes, inspectSnapshot (start, load and
// Execution of index.js; they start with jobs.cpp's start/startSync).
void register_executions(napi_env env, napi_value exports);
// sessions.cpp: createSession, sessionJob, sessionMemory, sessionHistory,
// sessionReset (Session of index.js).
void register_sessions(napi_env env, napi_value exports);
// sharing.cpp: shareProgram, adoptProgram, sharePrepared, adoptPrepared,
// handles posted to other threads (worker_threads) by token.
void register_sharing(napi_env env, napi_value exports);
// isolated.cpp: createWorkerPool, defaultWorkerPool, workerPoolStats,
// closeWorkerPool, runIsolated, answerIsolated, abortIsolated,
// runIsolatedSync (WorkerPool and the isolate option of index.js).
void register_isolation(napi_env env, napi_value exports);

// The compiled program behind a handle made by compile(); nullptr when
// `value` is no such handle.
std::shared_ptr<const Program> program_of(napi_env env, napi_value value);
// The same without a reference of its own, for a call that ends before
// `value` can be collected.
const Program* program_in(napi_env env, napi_value value);
// The same for a context made by prepareContext().
std::shared_ptr<const PreparedContext> prepared_context_of(napi_env env, napi_value value);
// The pool behind a handle made by createWorkerPool() or
// defaultWorkerPool() (isolated.cpp); nullptr when `value` is no such
// handle; a TypeError (pending) when it was closed.
std::shared_ptr<WorkerPool> worker_pool_of(napi_env env, napi_value value);
// New handles over an existing program or context (programs.cpp).
napi_value program_handle(napi_env env, std::shared_ptr<const Program> program);
napi_value prepared_context_handle(napi_env env, std::shared_ptr<const PreparedContext> context);

// A run's outcome as the plain object index.js turns into a Result;
// `payload`, when not null, is added as the lisp_eval payload text.
napi_value result_object(napi_env env, const Step& step, const std::string* payload);
// The same, cheaper for the common plain outcome (ok, no prints, tool
// calls, pmaps or memory): index.js's makePlain(value, printed) with the
// other fields in its slots (truncated, returned, durationMs, memoryBytes,
// evalReductions), fewer values to make and pass; for a scalar value
// (number, boolean, nil) only `printed`, a string, with the value in the
// slots too (slot 5: 1 a number in slot 6, 2 true, 3 false, 4 nil), for
// index.js to build the Result without a call into JS from here; slots 7-10
// are usage's heap figures (peakLiveBytes, allocatedBytes, collections,
// collectMs).
inline constexpr size_t kPlainSlots = 11;
napi_value plain_result(napi_env env, const Step& step);
// An error as {reason, message, hint, line, column, text, failValue}.
napi_value error_object(napi_env env, const Error& error, const HostValue* fail_value);

// Registers `fn` under `name` on `exports`.
void export_function(napi_env env, napi_value exports, const char* name, napi_callback fn);

}  // namespace ptc::node
