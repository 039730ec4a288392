/* The C API of ptc-lisp: run PTC-Lisp programs from any language with a C
 * foreign-function interface (Python ctypes, Go cgo, Rust, C). Plain C99/C11,
 * opaque handles, UTF-8 JSON text in and out. include/ptc/README.md is the
 * guide (build, a complete example, the JSON shapes); this header is the
 * reference.
 *
 * It wraps the C++ embedding API of ptc.hpp; no C++ exception ever crosses
 * it: every entry point catches everything and reports a ptc_status.
 *
 * ---------------------------------------------------------------- conventions
 *
 * Status and errors. Functions that can fail return a ptc_status, or NULL
 * when they return a pointer (a new handle, a text of a result, program or
 * session). The message of the last failure is kept per thread:
 * ptc_last_error() / ptc_last_status(). Every function that can fail sets
 * them, cleared to "" / PTC_OK when it succeeds. The functions that cannot
 * fail leave them alone: ptc_version, ptc_status_name, ptc_limit_name,
 * ptc_result_error_reason, the *_free functions (ptc_bytes_free too), the
 * cancel token's and the tool reply's queries, and those returning numbers
 * (ptc_result_ok, ptc_execution_done, the error's line and column, counts
 * and sizes). Read them on the same thread,
 * before the next ptc_ call (Go: from one cgo call, or with
 * runtime.LockOSThread). A program that fails is not an API failure: ptc_run
 * then returns PTC_PROGRAM_ERROR and hands back a result describing the
 * error (reason, message, hint, line, column).
 *
 * Text in. Program source and JSON are (pointer, length) pairs of UTF-8 that
 * need not end with NUL; PTC_NTS as the length means "NUL-terminated, measure
 * it". Names (tools, limits, signature, error messages) are NUL-terminated.
 * The library copies what it keeps: the caller's buffers may be reused as
 * soon as the call returns.
 *
 * Text out. Every `const char*` returned is UTF-8, NUL-terminated, owned by
 * the handle it came from and valid until that handle is freed (or, where
 * said, until the next call that changes it). Functions with a `size_t* len`
 * out-parameter store the length in bytes there (when `len` is not NULL):
 * printed values and prints may contain NUL bytes; JSON text never does.
 * Never free these pointers.
 *
 * Handles. Each `ptc_*_new`, ptc_run, ptc_compile, ... hands out a handle the
 * caller owns and frees with the matching `ptc_*_free` (free(NULL) does
 * nothing). Handles a function takes as arguments are borrowed: the callee
 * keeps its own reference where it needs one (options keep their prepared
 * context, cancel token and worker pool alive; a session copies its
 * options), so handles may be freed in any order.
 *
 * Thread safety.
 *   - ptc_program, ptc_prepared_context, ptc_cancel_token: immutable (a
 *     token only ever goes from not cancelled to cancelled) and safe to use
 *     from any number of threads at once. So is ptc_worker_pool: any number
 *     of threads may run through one pool.
 *   - ptc_options: not thread-safe to modify. Several threads may run with
 *     the same options at once as long as no thread modifies or frees them
 *     meanwhile.
 *   - ptc_result and ptc_session: one thread at a time (a result builds its
 *     JSON texts on first request; a session changes on every eval).
 *   - ptc_execution: any thread, and calls from several threads at once are
 *     taken one after another (a resume waits for the one before it); a
 *     text it hands out (ptc_execution_pending_json) stays valid only until
 *     its next resume or cancel, so its reader and those calls must agree.
 *     ptc_execution_free must not race with another call on it.
 *   - ptc_run, ptc_program_run and ptc_compile may be called from many
 *     threads at once: every run is independent.
 *   - Tool callbacks may be called from several threads at once, also within
 *     one run (pmap/pcalls branches run on a worker pool): a callback and its
 *     user data must be thread-safe.
 *
 * JSON out (values, memory, tool arguments and results). Every value has a
 * JSON form, so converting never fails:
 *   nil -> null; true/false; integers (big ones too) -> numbers; floats ->
 *   numbers with a '.' or exponent ("1.0"), NaN/Inf/-Inf -> the strings
 *   "##NaN" "##Inf" "##-Inf"; strings -> strings; keywords -> their name
 *   without ':' (":total" -> "total"); vectors, lists and sets -> arrays;
 *   maps -> objects in the map's order, keys: strings and keywords -> their
 *   name, numbers -> their decimal text, any other key (nil, true, [1 2]) ->
 *   its printed form; keys that collide after this (:a and "a") both appear;
 *   functions, regexes, vars and other values with no data form -> the
 *   string of their printed form ("#fn[x]", "#\"a+\"", "#'f").
 * JSON in: objects -> maps with string keys (data/x and (get m "x") read
 * them; (:x m) too, keys being flexible), arrays -> vectors, integers that
 * do not fit 64 bits -> big integers, other numbers -> floats.
 */
#ifndef PTC_PTC_H
#define PTC_PTC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- basics */

/* Exported from the shared library even when it hides everything else. */
#if defined(__GNUC__) || defined(__clang__)
#define PTC_API __attribute__((visibility("default")))
#else
#define PTC_API
#endif

/* Length meaning "the text is NUL-terminated". */
#define PTC_NTS ((size_t)-1)

/* The library version, e.g. "0.1.0". Static storage; never NULL. */
PTC_API const char* ptc_version(void);

typedef enum ptc_status {
  PTC_OK = 0,
  /* The program failed (parse error, type error, timeout, memory limit,
   * (fail v), ...): the result handle says how. */
  PTC_PROGRAM_ERROR = 1,
  /* The call was wrong: NULL where a handle or text is required, malformed
   * JSON (the message gives line:column), JSON of the wrong type, a value
   * out of range, an unknown limit name. Nothing was changed. */
  PTC_INVALID_ARGUMENT = 2,
  /* The host process could not allocate memory. Nothing was changed. */
  PTC_OUT_OF_MEMORY = 3,
  /* A bug in ptc-lisp (an unexpected exception): the message says what. */
  PTC_INTERNAL = 4,
  /* Something the call needs from the system is missing or failed to start:
   * ptc_worker_pool_new found no ptc-worker executable, or it could not
   * start its worker processes. Nothing was changed; the message says what
   * and how to fix it. */
  PTC_UNAVAILABLE = 5,
  /* Not statuses: they make the enum an int of which every value is valid,
   * whatever a host passes. */
  PTC_STATUS_ENUM_MIN_ = -2147483647 - 1,
  PTC_STATUS_ENUM_MAX_ = 2147483647
} ptc_status;

/* "ok", "program_error", "invalid_argument", "out_of_memory", "internal",
 * "unavailable"; "unknown" for other values. Static storage. */
PTC_API const char* ptc_status_name(ptc_status status);

/* The message of the last failure on this thread ("" after a success).
 * Owned by the library: valid until the next ptc_ call on this thread. */
PTC_API const char* ptc_last_error(void);
/* The status of the last call on this thread that reports one. */
PTC_API ptc_status ptc_last_status(void);

/* ---------------------------------------------------------------- handles */

typedef struct ptc_options ptc_options;
typedef struct ptc_result ptc_result;
typedef struct ptc_session ptc_session;
typedef struct ptc_program ptc_program;
typedef struct ptc_prepared_context ptc_prepared_context;
typedef struct ptc_cancel_token ptc_cancel_token;
typedef struct ptc_tool_reply ptc_tool_reply;
typedef struct ptc_execution ptc_execution;
typedef struct ptc_worker_pool ptc_worker_pool;
typedef struct ptc_approval ptc_approval;

/* ---------------------------------------------------------------- cancel tokens */

/* A flag the host raises, from any thread, to stop the runs whose options
 * carry it: they end with reason "cancelled" within a few thousand
 * reductions (their pmap branches too), and running tools see
 * ptc_tool_reply_cancelled(). A token stays cancelled; use a new one for
 * the next run. NULL when out of memory (see ptc_last_error). */
PTC_API ptc_cancel_token* ptc_cancel_token_new(void);
/* Thread-safe; NULL does nothing. */
PTC_API void ptc_cancel_token_cancel(ptc_cancel_token* token);
/* 1 when cancelled, else 0 (also for NULL). Thread-safe. */
PTC_API int ptc_cancel_token_is_cancelled(const ptc_cancel_token* token);
/* Options that carry the token keep it alive: it may be freed first. */
PTC_API void ptc_cancel_token_free(ptc_cancel_token* token);

/* ---------------------------------------------------------------- prepared contexts */

/* A context (a JSON object: its keys are the program's data/ names) parsed
 * once, for any number of runs on any threads: runs read it in place instead
 * of each importing it (and a run's max_heap_bytes does not count it).
 * max_bytes caps the memory of the imported values (0 = 1 GiB).
 * PTC_INVALID_ARGUMENT for NULL, malformed JSON (line:column), JSON that
 * is not an object, or a context larger than max_bytes; *out is then NULL.
 * Free with ptc_prepared_context_free. */
PTC_API ptc_status ptc_prepare_context(const char* json, size_t len, size_t max_bytes,
                                       ptc_prepared_context** out);
/* Bytes the prepared values occupy. */
PTC_API size_t ptc_prepared_context_bytes(const ptc_prepared_context* context);
/* Options that carry the context keep it alive: it may be freed first. */
PTC_API void ptc_prepared_context_free(ptc_prepared_context* context);

/* ---------------------------------------------------------------- worker pools */

/* Isolated runs (include/ptc/worker_pool.hpp): a pool of jailed worker
 * processes, forked ahead of time from the `ptc-worker` executable. Options
 * that carry a pool (ptc_options_set_isolate) make ptc_run,
 * ptc_program_run and ptc_session_eval run the program in one of its
 * workers: no new privileges, rlimits on memory, CPU time and files, a
 * seccomp-bpf allowlist, and new user, pid, network and IPC namespaces
 * where the kernel allows them. Everything else stays in this process: the
 * tool callbacks are called here (on a thread the pool starts for each call,
 * several at once for pmap), and the result is the one ptc_run gives
 * in-process. A run whose worker dies (a crash, its jail, out of memory)
 * fails with reason "internal_error" and nothing else is affected; one that
 * overruns its deadline by kill_margin_ms is killed and fails with
 * "timeout". Executions (ptc_start, ptc_load) cannot run isolated.
 *
 * `options_json` (UTF-8, `len` bytes or PTC_NTS; NULL for all the defaults)
 * is a JSON object of any of:
 *   "workers"         worker processes kept ready (4; 0 means 1); runs
 *                     beyond them wait for one
 *   "max_runs"        runs a worker takes before it is replaced (1000; 0 =
 *                     no limit)
 *   "max_heap_bytes"  the largest max_heap_bytes limit runs will ask for: it
 *                     sizes each worker's address-space cap (67108864)
 *   "kill_margin_ms"  past a run's compile_timeout + timeout + pmap_timeout
 *                     by this much, its worker is killed (1000)
 *   "max_frame_bytes" the largest result a worker may send (0: 64 MiB plus
 *                     16 times max_heap_bytes)
 *   "worker_path"     the ptc-worker executable; absent or null: the
 *                     environment variable PTC_WORKER, else the one
 *                     installed beside libptc.so.0 or the executable that
 *                     links the library statically (the same folder, then
 *                     ../libexec/ptc/)
 *   "namespaces"      new namespaces where the kernel allows them (true)
 *   "worker_stderr"   the workers' standard error goes to this process's
 *                     (false: /dev/null)
 *   "cpu_handoff"     a run alone in the pool runs its worker on the
 *                     caller's CPU, both bound to it for the run (true)
 * The launcher process starts now and the workers are forked in the
 * background. PTC_INVALID_ARGUMENT for malformed JSON, an unknown key or a
 * value of the wrong type; PTC_UNAVAILABLE when no ptc-worker is found or it
 * does not start (the message says why and how to fix it); *out is then
 * NULL.
 * Free with ptc_worker_pool_free. */
PTC_API ptc_status ptc_worker_pool_new(const char* options_json, size_t len, ptc_worker_pool** out);
/* The pool's figures as a JSON object:
 *   {"workers": live worker processes (ready or running a program),
 *    "busy": running a program, "started": workers started since the pool
 *    was made, "runs": programs run, "recycled": workers retired after
 *    max_runs, "died": workers that died during a run or while ready,
 *    "killed": workers killed (past their deadline, or a malformed frame),
 *    "contexts_sent": prepared contexts sent to a worker along with a run
 *    (it did not hold them), "contexts_handed_over": sent ahead of any run
 *    (to a recycled worker's successor),
 *    "namespaces": whether the workers run in namespaces of their own,
 *    "worker_path": "<the ptc-worker executable used>"}
 * Owned by the library: valid until the next ptc_worker_pool_stats_json
 * call on this thread (as ptc_last_error). NULL for NULL (an invalid
 * argument). Thread-safe. */
PTC_API const char* ptc_worker_pool_stats_json(const ptc_worker_pool* pool, size_t* len);
/* Releases the caller's reference. Options (and sessions made from them)
 * that carry the pool keep it alive: it may be freed first. The worker
 * processes end with the last reference, after the runs in progress end. */
PTC_API void ptc_worker_pool_free(ptc_worker_pool* pool);

/* ---------------------------------------------------------------- tools */

/* A host function programs call as (tool/<name> {...}). `name` is the
 * tool's name (NUL-terminated); `args_json` the argument map the program
 * passed as a JSON object (NUL-terminated, `args_len` bytes; keyword keys
 * become string keys). The callback answers through `reply`:
 * ptc_tool_reply_set_result_json or ptc_tool_reply_set_error; neither means
 * a nil result. `name`, `args_json` and `reply` are valid only during the
 * call.
 *
 * Called from the thread running the program, or from pmap/pcalls worker
 * threads: several calls, of the same tool too, may run at once on
 * different threads. A callback must not unwind (longjmp, C++ exception)
 * through the library; one that throws a C++ exception anyway gets a tool
 * error. */
typedef void (*ptc_tool_fn)(void* user, const char* name, const char* args_json, size_t args_len,
                            ptc_tool_reply* reply);
/* Called once with the tool's user pointer when the last copy of the tool is
 * released (the options, and every session made from them, freed or the tool
 * replaced). */
typedef void (*ptc_free_fn)(void* user);

/* The tool's value, as JSON text (any JSON value). Malformed JSON makes
 * the call a tool error the program sees (and returns
 * PTC_INVALID_ARGUMENT). Replaces an earlier answer. */
PTC_API ptc_status ptc_tool_reply_set_result_json(ptc_tool_reply* reply, const char* json,
                                                  size_t len);
/* Fails the call: the program ends with reason "tool_error" and this
 * message (UTF-8). Replaces an earlier answer. */
PTC_API ptc_status ptc_tool_reply_set_error(ptc_tool_reply* reply, const char* message, size_t len);
/* 1 when the run serving this call was cancelled or stopped (timeout, a
 * failing sibling branch): a tool that waits should stop waiting. */
PTC_API int ptc_tool_reply_cancelled(const ptc_tool_reply* reply);
/* Milliseconds left before the call's deadline (0 when past it). */
PTC_API int64_t ptc_tool_reply_remaining_ms(const ptc_tool_reply* reply);

/* Decides a call of a tool that needs approval (ptc_options_require_approval)
 * before the tool runs. `call_json` (NUL-terminated, `call_len` bytes) is the
 * call as ptc_execution_pending_json lists it: {"id", "tool", "args",
 * "kind": "approval", "line", "column"} ("id" is "" under ptc_run). The
 * callback answers through `approval`: ptc_approval_approve, or
 * ptc_approval_reject with the person's reason. Neither rejects the call
 * (fails closed). May block; called on the thread running the call, several
 * at once under pmap. `call_json` and `approval` are valid only during the
 * call. */
typedef void (*ptc_approver_fn)(void* user, const char* call_json, size_t call_len,
                                ptc_approval* approval);
PTC_API ptc_status ptc_approval_approve(ptc_approval* approval);
/* `reason` (UTF-8, `len` bytes or PTC_NTS; may be empty) is what the
 * program's author is told: the call fails with reason "tool_error" and the
 * message "tool/<name> was rejected: <reason>". */
PTC_API ptc_status ptc_approval_reject(ptc_approval* approval, const char* reason, size_t len);

/* ---------------------------------------------------------------- run options */

/* Every resource limit of a run (ptc::Limits); defaults are the spec's. */
typedef enum ptc_limit {
  PTC_LIMIT_MAX_HEAP_BYTES = 0,              /* run heap, default 10485760 */
  PTC_LIMIT_TIMEOUT_MS = 1,                  /* wall clock of the run, default 1000 */
  PTC_LIMIT_LOOP_LIMIT = 2,                  /* loop/recur jumps per loop, 1000 (at most 10000) */
  PTC_LIMIT_MAX_CALL_DEPTH = 3,              /* nested function calls, 10000 */
  PTC_LIMIT_MAX_SYMBOLS = 4,                 /* distinct keywords and symbols, 10000 */
  PTC_LIMIT_MAX_PROGRAM_BYTES = 5,           /* source size, 1000000 */
  PTC_LIMIT_MAX_PRINT_LENGTH = 6,            /* characters kept per println, 2000 */
  PTC_LIMIT_MAX_NESTING_DEPTH = 7,           /* reader nesting of forms, 1000 */
  PTC_LIMIT_COMPILE_TIMEOUT_MS = 8,          /* reading, analysis, compilation, 5000 */
  PTC_LIMIT_MAX_TOOL_CALLS = 9,              /* tool calls per run; -1 = unlimited (default) */
  PTC_LIMIT_MAX_TOOL_CALL_RESULT_BYTES = 10, /* per tool-call ledger entry, 16384 */
  PTC_LIMIT_PMAP_TIMEOUT_MS = 11,            /* deadline shared by a pmap's branches, 5000 */
  PTC_LIMIT_PMAP_MAX_CONCURRENCY = 12,       /* branches in flight per call, 0 = 2 x cores */
  PTC_LIMIT_MAX_PARALLEL_WORKERS = 13,       /* branches alive at once per run, 8 */
  PTC_LIMIT_WORKER_MAX_HEAP_BYTES = 14,      /* heap of each branch, 0 = max_heap_bytes */
  /* Not limits: they make the enum an int of which every value is valid
   * (any other value is an unknown limit: PTC_INVALID_ARGUMENT). */
  PTC_LIMIT_ENUM_MIN_ = -2147483647 - 1,
  PTC_LIMIT_ENUM_MAX_ = 2147483647
} ptc_limit;
#define PTC_LIMIT_COUNT 15

/* The limit's name, as ptc.hpp spells the field ("max_heap_bytes",
 * "timeout_ms", ...); NULL for an unknown value. Static storage. */
PTC_API const char* ptc_limit_name(ptc_limit limit);
/* The limit of that name; PTC_INVALID_ARGUMENT for an unknown name. */
PTC_API ptc_status ptc_limit_from_name(const char* name, ptc_limit* out);

/* A new set of options with the defaults: no context, memory, history or
 * tools, the spec's limits, filter_context on. NULL when out of memory.
 * Free with ptc_options_free. */
PTC_API ptc_options* ptc_options_new(void);
PTC_API void ptc_options_free(ptc_options* options);

/* The context: a JSON object whose keys are the program's data/ names.
 * Checked here (PTC_INVALID_ARGUMENT for malformed JSON, with line:column,
 * or for JSON that is not an object) and kept as text: each run builds only
 * the keys its program reads (with filter_context). NULL clears it. A
 * prepared context, when set, is used instead. */
PTC_API ptc_status ptc_options_set_context_json(ptc_options* options, const char* json, size_t len);
/* A context prepared once (ptc_prepare_context), used instead of the JSON
 * context. The options keep it alive. NULL clears it. */
PTC_API ptc_status ptc_options_set_prepared_context(ptc_options* options,
                                                    const ptc_prepared_context* context);
/* Memory: a JSON object of the names earlier runs bound with def/defn. NULL
 * clears it. (A result's memory JSON carries functions as their printed
 * form only: use a ptc_session to keep defn'd functions across runs.) */
PTC_API ptc_status ptc_options_set_memory_json(ptc_options* options, const char* json, size_t len);
/* Turn history: a JSON array of earlier results, oldest first; the last is
 * *1, the one before *2, then *3. NULL clears it. */
PTC_API ptc_status ptc_options_set_history_json(ptc_options* options, const char* json, size_t len);
/* Sets one limit. PTC_INVALID_ARGUMENT for an unknown limit or a value out
 * of the field's range (negative, or above 4294967295 for the 32-bit ones;
 * only PTC_LIMIT_MAX_TOOL_CALLS takes -1, meaning unlimited). */
PTC_API ptc_status ptc_options_set_limit(ptc_options* options, ptc_limit limit, int64_t value);
PTC_API ptc_status ptc_options_get_limit(const ptc_options* options, ptc_limit limit, int64_t* out);
/* A signature the result must match (and is coerced to), e.g.
 * "{total :int}" or "[:string]". NULL or "" clears it. A malformed
 * signature fails the runs (reason "parse_error"). */
PTC_API ptc_status ptc_options_set_signature(ptc_options* options, const char* signature);
/* Round floats in the result to `digits` decimals (0..17); -1 = no rounding
 * (the default). */
PTC_API ptc_status ptc_options_set_float_precision(ptc_options* options, int digits);
/* Nonzero (the default): import only the data/ keys the program reads. */
PTC_API ptc_status ptc_options_set_filter_context(ptc_options* options, int filter);
/* Collection items shown per collection in the printed result; 0 = all. */
PTC_API ptc_status ptc_options_set_display_limit(ptc_options* options, size_t limit);
/* Runs with these options stop when the token is cancelled. The options keep
 * it alive. NULL detaches it. */
PTC_API ptc_status ptc_options_set_cancel_token(ptc_options* options, ptc_cancel_token* token);
/* Runs with these options (ptc_run, ptc_program_run, and the evals of a
 * session made from them) run isolated in one of the pool's worker
 * processes; see ptc_worker_pool_new. The options keep the pool alive (a
 * session copies the reference). NULL clears it: runs are in-process again.
 * ptc_start, ptc_start_compiled and ptc_load refuse options that carry a
 * pool (PTC_INVALID_ARGUMENT). */
PTC_API ptc_status ptc_options_set_isolate(ptc_options* options, ptc_worker_pool* pool);
/* Adds a tool (or replaces the one of that name): programs call it as
 * (tool/<name> {...}); names are kebab-case ("get-user"). `fn` must not be
 * NULL; `user` is passed to every call; `free_user` (may be NULL) is called
 * with `user` when the last copy of the tool goes away. With `cacheable`
 * nonzero, calls with equal arguments within a run are answered from the
 * run's cache. On failure the tool is not added and `free_user` is not
 * called. */
PTC_API ptc_status ptc_options_add_tool(ptc_options* options, const char* name, ptc_tool_fn fn,
                                        void* user, ptc_free_fn free_user, int cacheable);
/* Removes the tool of that name (a deferred one added with
 * ptc_options_add_deferred_tool too); PTC_INVALID_ARGUMENT when there is
 * none. */
PTC_API ptc_status ptc_options_remove_tool(ptc_options* options, const char* name);
/* Defers a tool: the host answers it (see executions below), so a program
 * that calls it under ptc_start suspends until ptc_resume gives the answer.
 * `name` (UTF-8, `len` bytes or PTC_NTS) need not be a tool of the options:
 * it becomes one, with no callback. A named tool is deferred even when the
 * options also give it a callback. "*" defers every tool the program calls
 * that the options do not give (so any (tool/x ...) compiles). Adding a name
 * twice is adding it once. ptc_run cannot wait: there a call to a deferred
 * tool fails the program with reason "args_error". */
PTC_API ptc_status ptc_options_defer_tool(ptc_options* options, const char* name, size_t len);
/* Adds a deferred tool (replacing a tool of that name), as
 * ptc_options_defer_tool, that may be cacheable: with `cacheable` nonzero, a
 * call whose arguments equal an earlier answered call's is answered from the
 * run's cache and never suspends (as ptc_options_add_tool's cacheable). */
PTC_API ptc_status ptc_options_add_deferred_tool(ptc_options* options, const char* name,
                                                 int cacheable);
/* A person approves each call of the tool `name` (UTF-8, `len` bytes or
 * PTC_NTS; a tool the options give, deferred or not) before it runs: under
 * ptc_start the program suspends at such a call with a pending entry of
 * "kind": "approval", answered {"approve": true} or {"reject": "reason"}
 * (ptc_resume); approved, the tool runs (a deferred one is then pending as a
 * call with the same id); rejected, the call fails with reason "tool_error"
 * and a message that says so. ptc_run asks the approver
 * (ptc_options_set_approver); without one the call fails and the tool is not
 * called. `needs` 0 lifts it. PTC_INVALID_ARGUMENT when the options give no
 * tool of that name. */
PTC_API ptc_status ptc_options_require_approval(ptc_options* options, const char* name, size_t len,
                                                int needs);
/* The approver for runs with these options (ptc_run, and executions, which
 * then do not suspend for approvals). `user` is passed to every call;
 * `free_user` (may be NULL) is called with it when the last copy of the
 * approver goes away. `fn` NULL clears it (and frees nothing more). */
PTC_API ptc_status ptc_options_set_approver(ptc_options* options, ptc_approver_fn fn, void* user,
                                            ptc_free_fn free_user);

/* ---------------------------------------------------------------- runs */

/* Runs a program. `options` may be NULL (the defaults). On PTC_OK or
 * PTC_PROGRAM_ERROR *out holds the result (free with ptc_result_free); on
 * other statuses it is NULL. */
PTC_API ptc_status ptc_run(const char* source, size_t len, const ptc_options* options,
                           ptc_result** out);

/* A program read, analyzed and compiled once, for many runs on any threads.
 * What shapes the bytecode comes from the options given here: the memory's
 * names, the tools' names and the compile limits; run it with options that
 * agree. When it does not compile: PTC_PROGRAM_ERROR, and *error_out (when
 * error_out is not NULL) receives a failed result with the error ptc_run
 * would report (free it with ptc_result_free). Free the program with
 * ptc_program_free; runs in progress keep their own reference. */
PTC_API ptc_status ptc_compile(const char* source, size_t len, const ptc_options* options,
                               ptc_program** program_out, ptc_result** error_out);
/* As ptc_run, for a compiled program. Thread-safe. */
PTC_API ptc_status ptc_program_run(const ptc_program* program, const ptc_options* options,
                                   ptc_result** out);
/* The source the program was compiled from (owned by the program). */
PTC_API const char* ptc_program_source(const ptc_program* program, size_t* len);
PTC_API void ptc_program_free(ptc_program* program);

/* ---------------------------------------------------------------- results */

/* 1 when the program succeeded, 0 when it failed (or for NULL). */
PTC_API int ptc_result_ok(const ptc_result* result);
/* The program's value as JSON ("null" when it failed). NULL only on
 * failure to build the text (out of memory): see ptc_last_error. */
PTC_API const char* ptc_result_value_json(const ptc_result* result, size_t* len);
/* The value in Clojure syntax, e.g. {:total 3 "a" [1 2]} ("" when failed). */
PTC_API const char* ptc_result_printed(const ptc_result* result, size_t* len);
/* println/print/prn output, in order: how many lines, and line i (NULL, an
 * invalid argument, when i is out of range). */
PTC_API size_t ptc_result_prints_count(const ptc_result* result);
PTC_API const char* ptc_result_print(const ptc_result* result, size_t index, size_t* len);
/* Memory after the run as a JSON object: the memory given plus every
 * def/defn (exactly the memory given when the run failed). */
PTC_API const char* ptc_result_memory_json(const ptc_result* result, size_t* len);
/* The tool calls the run made, a JSON array of the objects described at
 * ptc_result_json. */
PTC_API const char* ptc_result_tool_calls_json(const ptc_result* result, size_t* len);
/* The error of a failed run: its reason ("type_error", "timeout",
 * "tool_error", "fail", ...; NULL when the run succeeded), message, hint (""
 * when none), and where (1-based line and column in code points; 0 when
 * unknown). */
PTC_API const char* ptc_result_error_reason(const ptc_result* result);
PTC_API const char* ptc_result_error_message(const ptc_result* result, size_t* len);
PTC_API const char* ptc_result_error_hint(const ptc_result* result, size_t* len);
PTC_API uint32_t ptc_result_error_line(const ptc_result* result);
PTC_API uint32_t ptc_result_error_column(const ptc_result* result);
/* "type_error at 3:7: message\n  hint: ...": the text to show an LLM ("" when
 * the run succeeded). */
PTC_API const char* ptc_result_error_text(const ptc_result* result, size_t* len);
/* The whole result as one JSON object:
 *   {"ok": true|false,
 *    "value": <JSON value, null when failed>,
 *    "printed": "<value in Clojure syntax>",
 *    "truncated": <printed was cut by display_limit>,
 *    "returned": <the program ended with (return v)>,
 *    "prints": ["<line>", ...],
 *    "memory": {<name>: <value>, ...},
 *    "tool_calls": [{"name": "get-user", "args": <JSON>, "args_truncated": b,
 *                    "result": <JSON>, "result_truncated": b,
 *                    "error": null | "<message>", "duration_ms": 0.12,
 *                    "cached": b}, ...],
 *    "pmap_calls": [{"kind": "pmap"|"pcalls", "count": n, "success_count": n,
 *                    "error_count": n, "duration_ms": 1.5}, ...],
 *    "usage": {"duration_ms": 0.3, "memory_bytes": n, "eval_reductions": n,
 *              "peak_live_bytes": n, "allocated_bytes": n, "collections": n,
 *              "collect_ms": 0.1},
 *    "error": null | {"reason": "type_error", "message": "...",
 *                     "hint": null | "...", "line": n|null, "column": n|null,
 *                     "text": "<ptc_result_error_text>",
 *                     "fail_value": <JSON of v for (fail v); absent otherwise>}}
 * Arguments and results of tool calls are kept whole when they print within
 * max_tool_call_result_bytes, else as a string preview (with *_truncated).
 * NULL only when out of memory. */
PTC_API const char* ptc_result_json(const ptc_result* result, size_t* len);
PTC_API void ptc_result_free(ptc_result* result);

/* ---------------------------------------------------------------- sessions */

/* A REPL over runs: memory (functions too) carries from one eval to the
 * next, and the values of the last `history_depth` successful evals are *1,
 * *2, *3 (3 is the usual depth). A failed eval changes neither. The session
 * copies `options` (NULL = the defaults): later changes to them do not
 * reach it; their memory and history start it. Not thread-safe. */
PTC_API ptc_status ptc_session_new(const ptc_options* options, size_t history_depth,
                                   ptc_session** out);
/* As ptc_run, within the session. */
PTC_API ptc_status ptc_session_eval(ptc_session* session, const char* source, size_t len,
                                    ptc_result** out);
/* Forgets memory and history (back to the options the session started from
 * without their memory and history). */
PTC_API ptc_status ptc_session_reset(ptc_session* session);
/* The session's memory as a JSON object; owned by the session, valid until
 * its next eval, reset or memory_json call. NULL on failure. */
PTC_API const char* ptc_session_memory_json(ptc_session* session, size_t* len);
PTC_API void ptc_session_free(ptc_session* session);

/* ---------------------------------------------------------------- executions */

/* An execution is a run that can wait for its host: it runs until the
 * program finishes or until every live part of it waits on a deferred tool
 * (ptc_options_defer_tool), then hands back the calls it waits on; the host
 * answers any of them, when and from whatever thread it likes, and the
 * execution runs on (a pmap/pcalls suspends once, with all its branches'
 * calls pending). A suspended execution holds no thread, only its memory.
 * Everything a run has applies (limits -- timeout_ms counts the time the
 * program runs, not the time it waits --, the tool cache, the ledger,
 * signature, cancel token); tools that are not deferred are called as
 * ptc_run calls them. For any program and answers, the outcome is the
 * result ptc_run gives with callbacks returning the same answers.
 *
 * Pending calls have ids, stable across dump and load, that name where the
 * call stands: "c2" is the program's third tool call, "p0.3/c0" the first
 * call of branch 3 of its first pmap or pcalls.
 *
 * The execution copies what it needs of the options (tools, context,
 * limits; it keeps the cancel token alive): they may be changed or freed as
 * soon as ptc_start or ptc_load returns. */

/* Starts a program: runs it until it finishes or waits on the host.
 * `options` may be NULL (the defaults: then nothing is deferred). PTC_OK
 * whenever *out receives an execution, whatever became of the program (a
 * program that does not compile is a finished execution with a failed
 * result, as ptc_run reports it); PTC_INVALID_ARGUMENT or PTC_OUT_OF_MEMORY
 * otherwise, with *out NULL. Free with ptc_execution_free. */
PTC_API ptc_status ptc_start(const char* source, size_t len, const ptc_options* options,
                             ptc_execution** out);
/* As ptc_start, for a compiled program (which the execution keeps alive). */
PTC_API ptc_status ptc_start_compiled(const ptc_program* program, const ptc_options* options,
                                      ptc_execution** out);
/* 1 when the execution has finished (ptc_execution_result gives the
 * outcome), 0 while it is suspended (ptc_execution_pending_json says on
 * what); 1 for NULL, which waits on nothing. */
PTC_API int ptc_execution_done(const ptc_execution* execution);
/* The calls the execution waits on, in the order they were made, as a JSON
 * array ("[]" once done):
 *   [{"id": "c0", "tool": "get-user", "args": {"id": 7}},
 *    {"id": "c1", "tool": "refund", "args": {...}, "kind": "approval",
 *     "line": 3, "column": 9}, ...]
 * "args" is the argument map exactly as a tool callback would receive it.
 * A call that waits for a person's decision rather than for the tool's
 * answer (ptc_options_require_approval) has "kind": "approval", and "line"
 * and "column" (1-based) say where the program makes it.
 * Owned by the execution: valid until its next ptc_resume or
 * ptc_execution_cancel, or until it is freed. NULL on failure (NULL
 * execution; out of memory). */
PTC_API const char* ptc_execution_pending_json(const ptc_execution* execution, size_t* len);
/* Answers pending calls and runs the execution on until it finishes or
 * waits again. `answers_json` (UTF-8, `len` bytes or PTC_NTS) is a JSON
 * object from call id to answer, for any non-empty subset of the pending
 * calls:
 *   {"c0": {"value": {"name": "Ada"}}, "c1": {"error": "no such user"}}
 * {"value": v} is the tool's value, converted as a callback's
 * ptc_tool_reply_set_result_json text is; {"error": "message"} fails the
 * call as ptc_tool_reply_set_error does (the program sees the tool's
 * failure: reason "tool_error"). A call pending with "kind": "approval" is
 * answered {"approve": true} or {"reject": "reason"} instead
 * (ptc_options_require_approval). Calls left out stay pending.
 * PTC_OK whatever became of the program (read ptc_execution_done, then
 * ptc_execution_pending_json or ptc_execution_result). PTC_INVALID_ARGUMENT,
 * with the execution unchanged, for malformed JSON (the message gives
 * line:column), JSON that is not an object of answers of those shapes, no
 * answers, an id that is not pending (unknown, or answered before; the
 * message lists the pending ids) or an execution that is done. May be
 * called from any thread; the callbacks of the tools that are not deferred
 * run during it, and must not call into this execution. */
PTC_API ptc_status ptc_resume(ptc_execution* execution, const char* answers_json, size_t len);
/* The outcome once done: the result ptc_run gives (free it with
 * ptc_result_free); PTC_OK, or PTC_PROGRAM_ERROR when the program failed
 * (the last error is then the error's text). Each call hands out a new
 * result. PTC_INVALID_ARGUMENT, *out NULL, while the execution is
 * suspended. */
PTC_API ptc_status ptc_execution_result(const ptc_execution* execution, ptc_result** out);
/* Ends a suspended execution: it finishes with reason "cancelled" (its
 * branches unwound; no pending call is left). A finished execution is left
 * as it is (PTC_OK). To stop one while it runs, use a cancel token. */
PTC_API ptc_status ptc_execution_cancel(ptc_execution* execution);
/* Bytes of memory the execution holds (its heaps and its journal); 0 for
 * NULL. */
PTC_API size_t ptc_execution_heap_bytes(const ptc_execution* execution);
/* The suspended execution as bytes for ptc_load, in this process or another
 * (after a restart): the program's inputs (source, context, memory, turn
 * history, signature) and the journal of what the world answered (tool
 * results by call id, clock reads) -- not native stacks. With a key (`key`,
 * `key_len` bytes or PTC_NTS; NULL or empty for none) the bytes carry an
 * HMAC-SHA256 that ptc_load checks. On PTC_OK *bytes is a new buffer of
 * *len bytes (binary; it may contain NUL bytes) that the caller owns and
 * frees with ptc_bytes_free; the execution is unchanged and may still be
 * resumed. PTC_INVALID_ARGUMENT, *bytes NULL, once the execution is done. */
PTC_API ptc_status ptc_execution_dump(const ptc_execution* execution, const char* key,
                                      size_t key_len, char** bytes, size_t* len);
/* Frees a buffer of ptc_execution_dump (not with free()); NULL does
 * nothing. */
PTC_API void ptc_bytes_free(char* bytes);
/* An execution from ptc_execution_dump's bytes (`len` bytes: the length is
 * required, PTC_NTS is an invalid argument), continuing exactly where it
 * stood, with the same pending ids. The program, context, memory, turn
 * history, signature, float precision and budget come from the bytes; the
 * rest from `options` (may be NULL): the limits, the tools (a tool the
 * program knows that the options do not give is deferred), the cancel
 * token. Loading runs the program again against the journal, bounded by
 * the limits: one reached meanwhile (a timeout shorter than the time the
 * program had run) gives a finished execution failed with it. Leave
 * PTC_LIMIT_PMAP_MAX_CONCURRENCY at 0 (the snapshot's) or as it was at the
 * start: another window starts other branches, and the replay diverges.
 * `key` as for the dump (NULL or empty when it was not signed).
 * PTC_INVALID_ARGUMENT, *out NULL, when the bytes are not a snapshot
 * (truncated, corrupt, a missing or wrong HMAC, signed when no key is
 * given): the message starts "snapshot_error: "; or when the replay does
 * not reach the same pending calls (another engine version, a changed
 * program): "snapshot_divergence: ". Free with ptc_execution_free. */
PTC_API ptc_status ptc_load(const char* bytes, size_t len, const ptc_options* options,
                            const char* key, size_t key_len, ptc_execution** out);
/* Frees an execution; a suspended one is cancelled first (its branches
 * unwound, no tool called). Not while another thread is in a call on it.
 * NULL does nothing. */
PTC_API void ptc_execution_free(ptc_execution* execution);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PTC_PTC_H */
