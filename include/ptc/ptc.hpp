// The embedding API of ptc-lisp: run a PTC-Lisp program with a context,
// memory, turn history, tools and limits, and get back a Step. The contract is
// PtcRunner's Lisp.run/2 (options, Step, memory and limits); see README.md.
//
// Every run is independent (its own arena, VM and limits), so hosts may call
// ptc::run from many threads at once. Nothing here touches files, the network
// or the process: tools are the only way out of a program, and they are host
// callables.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "host_value.hpp"
#include "limits.hpp"
#include "tools.hpp"
#include "worker_pool.hpp"

namespace ptc {

// ---------------------------------------------------------------- telemetry

struct TelemetryEvent {
  enum class Kind { Start, Stop, Exception } kind = Kind::Start;
  // Measurements.
  double duration_ms = 0;      // stop, exception
  size_t result_bytes = 0;     // stop: bytes of the printed result
  size_t prints_count = 0;     // stop
  int64_t monotonic_ns = 0;    // all: steady clock at the event
  int64_t system_time_ns = 0;  // start: wall clock
  // Metadata.
  std::string caller;
  std::string profile;  // empty = nil
  size_t program_bytes = 0;
  bool signature_supplied = false;
  HostValue trace_context;  // RunOptions::trace_context, passed through
  std::string reason;       // exception: the error reason
};

using TelemetryObserver = std::function<void(const TelemetryEvent&)>;

// ---------------------------------------------------------------- shared inputs

// A context imported once, for any number of runs on any threads: they read
// it in place instead of each copying it into its own heap, and never write
// into it (a run's max_heap does not count it). Immutable; keep it alive with
// the shared_ptr for as long as runs use it.
class PreparedContext;
// From a JSON object (parsed straight into the context's own memory), or
// from a host map. Throws LispError: ParseError (with line:column) for
// malformed JSON, ArgsError when the context is not a map, MemoryLimit past
// `max_bytes` of imported values.
std::shared_ptr<const PreparedContext> prepare_context(std::string_view json,
                                                       size_t max_bytes = size_t{1} << 30);
std::shared_ptr<const PreparedContext> prepare_context(const HostValue& context,
                                                       size_t max_bytes = size_t{1} << 30);
// Bytes of memory the prepared values occupy.
size_t prepared_bytes(const PreparedContext& context);

// ---------------------------------------------------------------- approvals

// A call the host is asked about: a deferred tool's call waits for its
// answer, a call of a tool that needs approval waits for a person's
// decision first. The id is stable (the same after dump and load) and names
// where the call stands: "c2" is the program's third tool call, "p0.3/c0"
// the first of branch 3 of its first pmap or pcalls.
struct PendingCall {
  enum class Kind { Call, Approval };
  std::string id;
  std::string tool;  // the name after tool/
  HostValue args;    // exactly as a host tool would receive them
  Kind kind = Kind::Call;
  SourceLoc loc;  // where the program makes the call
};

// A person's decision on a call that needs approval.
struct Decision {
  bool approved = false;
  std::string reason;  // why it was rejected: the program's author is told
  static Decision approve() { return {true, {}}; }
  static Decision reject(std::string reason) { return {false, std::move(reason)}; }
};

// Decides an approval (RunOptions::approver). May block; called on the
// thread that runs the call, from several at once under pmap.
using Approver = std::function<Decision(const PendingCall& call)>;

// The host's answer to a pending call: a tool's result for a call, a
// decision for an approval.
struct Answer {
  Answer(ToolResult r) : result(std::move(r)) {}                     // NOLINT: implicit on purpose
  Answer(Decision d) : is_decision(true), decision(std::move(d)) {}  // NOLINT
  bool is_decision = false;
  ToolResult result;
  Decision decision;
};
using Answers = std::map<std::string, Answer, std::less<>>;

// ---------------------------------------------------------------- validators

// What a program uses, for a host's program validator: the tools it calls
// and the context keys it reads (data/x), each once, in source order.
struct ProgramAnalysis {
  std::vector<std::string> tools;
  std::vector<std::string> data_keys;
};
// Host policy hooks (RunOptions::validate_program, validate_tool_call):
// nullopt lets the program or the call go on; a text refuses it, and is the
// feedback the program's author (the model) reads. A validator that throws
// refuses (fails closed). Called on the run's thread (a call's, under pmap:
// several at once).
using ProgramValidator =
    std::function<std::optional<std::string>(std::string_view source, const ProgramAnalysis&)>;
using ToolCallValidator = std::function<std::optional<std::string>(const PendingCall& call)>;

// ---------------------------------------------------------------- run

// Options of one run; defaults are PtcRunner's (seed 001, spec §15.2).
struct RunOptions {
  HostValue context;  // map: its keys are the program's data/ names
  // The context as JSON text (an object), used instead of `context` when not
  // empty: parsed straight into the run, building only the keys it reads.
  // The text must stay alive during the run.
  std::string_view context_json;
  // Used instead of `context` and `context_json` when set (prepare_context).
  std::shared_ptr<const PreparedContext> prepared_context;
  HostValue memory;                     // map: names bound by earlier def/defn
  std::vector<HostValue> turn_history;  // earlier results, oldest first: *1 is the last
  Tools tools;
  // Tools the host answers itself (as Tool::deferred): a name that `tools`
  // does not hold is a tool of its own, with no function. "*" defers every
  // tool the program calls that `tools` does not give.
  std::vector<std::string> deferred_tools;
  // Tools a program may not call, with what it is told instead (e.g. "it is
  // exposed to the model natively only; set expose to both to call it from
  // programs"). Every tool/<name> a program calls is checked before it runs:
  // one that is not in `tools` fails the run with unknown_tool.
  std::map<std::string, std::string, std::less<>> unavailable_tools;
  // Decides the calls of tools that need approval (Tool::needs_approval) on
  // the thread that makes the call, so that the run need not wait for the
  // host: ptc::run needs it for such calls (without it they fail and the
  // tool is not called); an execution with it does not suspend for them.
  Approver approver;
  // Before the program runs (after it compiles): a refusal fails the run
  // with validation_error, "the host refused the program: <feedback>", and
  // nothing runs.
  ProgramValidator validate_program;
  // Before each tool call (before its approval): a refusal fails the call
  // with a tool_error "tool/<name> was refused: <feedback>"; the tool does
  // not run.
  ToolCallValidator validate_tool_call;
  // When set, cacheable tools read and write this cache instead of one of
  // the run's own (entries added by the run are charged to its heap).
  std::shared_ptr<ToolCache> tool_cache;
  // What (dir ...), (doc ...), (meta ...) and (apropos ...) also search.
  std::shared_ptr<const ToolCatalog> tool_catalog;
  std::string signature;               // validates (and coerces) the result; empty = none
  std::optional<int> float_precision;  // round floats in the result to this many decimals
  Limits limits;               // timeout, compile_timeout, max_heap, pmap_*, max_tool_calls, ...
  bool filter_context = true;  // import only the data/ keys the program reads (scalars always)
  HostValue budget;            // what (budget/remaining) returns; nil = {}
  HostValue trace_context;     // passed through to telemetry, otherwise unused
  // Closed-set telemetry tags; any other value makes the run fail with args_error.
  std::string caller = "in_process_v1";  // in_process_v1 | text_mode | mcp
  std::string profile;       // "" (nil) | mcp_no_tools | mcp_aggregator | in_process_v1 | text_mode
  size_t display_limit = 0;  // collection items shown in Step::printed, 0 = all
  TelemetryObserver telemetry;  // optional
  // Raised by the host (from any thread) to stop the run: it ends with
  // ErrorKind::Cancelled within a few thousand reductions, its parallel
  // branches too, and running tools see ToolCallContext::cancelled().
  const std::atomic<bool>* cancel = nullptr;
  // A bound on the run's wall-clock time, compilation included, in
  // microseconds (0 = none): past it the run ends with ErrorKind::Timeout as
  // if its timeout had come. For a host that tries a short run in place (no
  // thread hop) and, when it did not finish in time, runs it again where it
  // may take its full timeout: a run without tools has no effects to
  // repeat. ptc::run only; executions (ptc::start) ignore it.
  uint32_t attempt_us = 0;
  // When set, ptc::run and run(Program) run the program in a jailed worker
  // process (a WorkerPool, worker_pool.hpp) instead of on the calling thread;
  // the tools are still called here. Executions (ptc::start, ptc::load)
  // refuse it (args_error): they run in-process only.
  std::shared_ptr<Isolation> isolate;
};

// What a run used. The heap cap (limits.max_heap_bytes) bounds the live
// heap: what is still reachable when a collection runs.
struct Usage {
  double duration_ms = 0;
  size_t memory_bytes = 0;  // heap bytes the run allocated (allocated_bytes, and charged bytes)
  uint64_t eval_reductions = 0;
  // The most a collection found live (with the bytes charged to the run:
  // prints, compiled regexes, tool results kept); what the run allocated
  // after its last collection counts as live here.
  size_t peak_live_bytes = 0;
  size_t allocated_bytes = 0;  // every heap byte the program's run allocated
  uint64_t collections = 0;    // how many times its heap was collected
  double collect_ms = 0;       // time spent collecting
};

// The outcome of a run. On failure `error` holds fail.reason (error.kind),
// fail.message and, for (fail v), the printed v (and `fail_value` v itself);
// `memory` is then exactly the memory passed in (a failed run changes nothing).
struct Step {
  bool ok = false;
  HostValue value;                  // the program's return value
  bool returned = false;            // it ended with (return v), not with its last form
  HostValue memory;                 // memory after the run: passed in, plus every def
  std::string printed;              // the value in Clojure syntax (display floats)
  bool truncated = false;           // `printed` was cut by display_limit
  Error error;                      // when !ok
  HostValue fail_value;             // the value of (fail v) as data (error.kind == Fail)
  std::vector<std::string> prints;  // println/print/prn output, in order
  std::vector<ToolCall> tool_calls;
  std::vector<ParallelCall> pmap_calls;
  Usage usage;
};

Step run(std::string_view source, const RunOptions& options = {});

// ---------------------------------------------------------------- executions

// A run that can wait: it runs until it finishes or until every live part of
// it waits for a deferred tool (a pmap suspends once, with all its calls
// pending), then hands back its pending calls; resume() continues it with
// answers, from any thread. A suspended execution holds no thread, only its
// own memory. Everything a run has applies: limits (`timeout` counts the time
// the program runs, not the time it waits), the tool cache (a cached call
// never suspends), the ledger, telemetry; other tools are called as in run().
// For any program and answers, the outcome is exactly what run() gives with
// synchronous tools returning the same answers.
//
// One call at a time: the methods may be called from any thread, and calls
// from several threads at once are taken one after another.
class ExecutionState;
class Execution {
 public:
  explicit Execution(std::unique_ptr<ExecutionState> state);
  Execution(Execution&&) noexcept;
  Execution& operator=(Execution&&) noexcept;
  // A suspended execution dropped is unwound (its frames and branches end,
  // no tool is called) before the destructor returns.
  ~Execution();

  bool done() const;
  // The outcome once done(): the Step run() gives. Throws LispError
  // (args_error) before.
  const Step& step() const;
  // The calls it waits on, in program order (branch 0 before branch 1, by
  // number, whichever reached its call first); empty once done.
  std::vector<PendingCall> pending() const;
  // Answers to pending calls by id, any non-empty subset: for a call, a
  // value or an error the program sees as the tool's failure
  // (ToolResult::failure); for an approval, Decision::approve() (the tool
  // runs now: a deferred one is then pending as a call, with the same id)
  // or Decision::reject(reason). Runs until the execution finishes or every
  // live part waits again. Throws LispError (args_error), leaving the
  // execution unchanged, for no answers, an id that is not pending (unknown,
  // or answered before), an answer of the wrong kind (a result for an
  // approval, a decision for a call) or an execution that is done.
  Execution& resume(Answers answers);
  // Ends a suspended execution: it finishes with a cancelled error (a
  // finished one is left as it is).
  void cancel();
  // The suspended execution as bytes for ptc::load: its inputs (program,
  // context, memory, turn history, signature) and the journal of what the
  // world answered (tool results by call id, clock reads). With a key, the
  // bytes carry an HMAC-SHA256 that load checks. Throws LispError
  // (args_error) once done.
  std::string dump(std::string_view key = {}) const;
  // Bytes of memory the execution holds: its heaps and its journal.
  size_t heap_bytes() const;

 private:
  ExecutionState& state() const;  // throws for a moved-from Execution
  std::unique_ptr<ExecutionState> state_;
};

// Runs a program until it finishes or waits for the host: tools that are
// deferred (Tool::deferred, RunOptions::deferred_tools) suspend it. The
// options are copied; `cancel`, when set, must outlive the execution.
Execution start(std::string_view source, const RunOptions& options = {});
class Program;
Execution start(const Program& program, const RunOptions& options = {});

// An execution from dump()'s bytes, continuing exactly where it stood (in
// another process, after a restart). The program, context, memory, turn
// history, signature, float precision and budget come from the bytes; the
// rest from `options`: the limits, the tools (a tool the program knows that
// `options.tools` does not give is deferred), the cache, cancel, telemetry.
// Loading replays the program against the journal to the same pending
// calls, bounded by the limits. Throws LispError: snapshot_error (bytes that
// are not a snapshot, truncated, corrupt or with a bad or missing HMAC when
// a key is given, or signed when none is), snapshot_divergence (the replay
// asked for what the journal does not hold: another engine version, a
// changed program).
Execution load(std::string_view snapshot, const RunOptions& options = {},
               std::string_view key = {});

// What a snapshot holds, read and checked as load() checks it, without
// running anything: for a host that chooses load()'s options from it.
struct SnapshotInfo {
  std::string engine;                  // what wrote it: "ptc 0.1.0 (git <revision>)"
  std::string source;                  // the program
  Limits limits;                       // the limits it ran with (load() takes the host's)
  std::vector<std::string> tools;      // the tools the program was compiled against
  std::vector<std::string> pending;    // the ids of the calls it waits on
  std::vector<std::string> approvals;  // of those, the ones waiting for a person's decision
};
// Throws LispError (snapshot_error) as load() does.
SnapshotInfo inspect_snapshot(std::string_view snapshot, std::string_view key = {});

// ---------------------------------------------------------------- compiled programs

// A program read, analyzed and compiled once, for many runs on any threads
// (immutable). What shapes the bytecode comes from the options given to
// compile: the memory's names (the globals it may read), the tools (an
// unknown tool is a compile error) and the compile limits (compile_timeout,
// max_symbols, max_program_bytes, nesting depth). Run it with options that
// agree; a run whose memory holds functions the program reads compiles the
// source again with them, as run(source) would.
class Program;
// Throws LispError with the error run(source) would report.
std::shared_ptr<const Program> compile(std::string_view source, const RunOptions& options = {});
Step run(const Program& program, const RunOptions& options = {});
// The source a program was compiled from.
std::string_view program_source(const Program& program);

// Compiled programs by source and the options that affect compilation,
// bounded (least recently used go first). Thread-safe. A source that does
// not compile is not kept: get() throws its error each time.
class ProgramCache {
 public:
  explicit ProgramCache(size_t max_entries = 256, size_t max_bytes = size_t{64} << 20);
  ~ProgramCache();
  std::shared_ptr<const Program> get(std::string_view source, const RunOptions& options);
  // run(source, options) through the cache: a compile error is the Step's
  // error. A source is compiled into the cache on its second run; its first
  // runs without compiling apart (most programs run once), counted as a miss.
  Step run(std::string_view source, const RunOptions& options);
  size_t size() const;
  uint64_t hits() const;
  uint64_t misses() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Reads and analyzes without running: the names the program uses but nothing
// defines (memory names given in `options.memory` count as defined). Empty
// when the program is valid; a syntax error is returned as its description.
std::vector<std::string> validate(std::string_view source, const RunOptions& options = {});

// A value in Clojure syntax; `limit` caps the items shown per collection
// ("[1 2 ...] (2/3)") and sets *truncated.
std::string format_value(const HostValue& value, size_t limit = 0, bool* truncated = nullptr);
// The same, stopping early: printing ends a little past `max_bytes` bytes
// (open collections are closed with their "(shown/total)" markers) and
// strings show at most `max_bytes` characters, so a preview of a huge value
// costs about as much as its cut. 0 = no cap.
std::string format_value(const HostValue& value, size_t limit, bool* truncated, size_t max_bytes);

// "type_error at 3:7: message\n  hint: ..." — the text an LLM gets to retry with.
std::string format_error(const Error& error);

// A run's usage as data (the JSON every surface shows): duration_ms,
// memory_bytes, eval_reductions, peak_live_bytes, allocated_bytes,
// collections, collect_ms.
HostValue usage_value(const Usage& usage);

// ---------------------------------------------------------------- session

// A REPL over runs: memory carries from one run to the next, and the results
// of the last `history_depth` successful runs are *1, *2, *3. A failed run
// changes neither. Not thread-safe: one session per conversation.
class Session {
 public:
  explicit Session(RunOptions defaults = {}, size_t history_depth = 3);

  Step eval(std::string_view source);

  const HostValue& memory() const { return options_.memory; }
  const std::vector<HostValue>& history() const { return options_.turn_history; }
  RunOptions& options() { return options_; }
  void reset();

 private:
  RunOptions options_;
  size_t depth_;
};

// The bytecode listing of a program (ptc disasm); throws LispError.
std::string disassemble_source(std::string_view source, const RunOptions& options = {});

// ---------------------------------------------------------------- documentation

// A name the language documents: a special form or a builtin function that
// programs can call.
struct DocEntry {
  enum class Kind { SpecialForm, Builtin };
  Kind kind = Kind::Builtin;
  std::string name;       // as programs write it: "if", "map", "Math/log", ".indexOf"
  std::string category;   // the heading it is listed under: "Special forms", "JSON", ...
  std::string signature;  // "(map f coll) or (map f c1 c2 ...)"
  std::string doc;        // one line
};

// Everything (doc name) knows, as docs/language.md lists it (ptc doc
// --markdown): the special forms, then the builtins category by category,
// each category sorted by name.
std::vector<DocEntry> documentation();

// What (doc name) prints for a name as programs write it ("map", "str/join",
// "Math/log", "if"), or nullopt when nothing is documented under it.
std::optional<std::string> doc_text(std::string_view name);

// For a name nothing documents, the hint a program that used it would get:
// the closest known names ("did you mean: map, mapv?"), or what to write
// instead of a Clojure name PTC-Lisp leaves out; empty when there is none.
std::string unknown_name_hint(std::string_view name);

// ---------------------------------------------------------------- build

// What this library is: its version ("0.1.0"), the git revision it was built
// from ("unknown" outside a git checkout; "-dirty" when it had local changes)
// and the CMake build type ("Release").
struct BuildInfo {
  std::string_view version;
  std::string_view git_revision;
  std::string_view build_type;
};
BuildInfo build_info();

}  // namespace ptc
