// Type declarations of ptc-lisp (index.js). Values cross as JSON data:
// objects, arrays, strings, numbers, booleans and null (and BigInt for
// integers beyond 2^53).

/** A value a program receives (context, memory, tool results) or returns. */
export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** What a tool gets: the map the program passed, keyword keys as strings. */
export type ToolArgs = { [key: string]: JsonValue };

/**
 * A tool programs call as `(tool/<name> {...})`. It may return a value or a
 * Promise of one (run only; runSync needs a value). A throw or a rejection
 * fails the call: the program ends with a `tool_error` carrying its message.
 */
export type ToolFunction = (args: ToolArgs) => unknown;

/** The resource limits of a run (ptc::Limits); every one is optional. */
export interface Limits {
  /** Wall clock the program may run, in ms (waiting for tools not counted). Default 1000. */
  timeout?: number;
  /** Bytes of heap the run may allocate. Default 10 MiB. */
  maxHeap?: number;
  /** loop/recur jumps per loop activation. Default 1000. */
  loopLimit?: number;
  /** Nested function calls. Default 10000. */
  maxCallDepth?: number;
  /** Distinct keywords and symbols. Default 10000. */
  maxSymbols?: number;
  /** Bytes of source. Default 1000000. */
  maxProgramBytes?: number;
  /** Characters kept per println. Default 2000. */
  maxPrintLength?: number;
  /** Reader nesting of forms. Default 1000. */
  maxNestingDepth?: number;
  /** Reading, analysis and compilation, in ms. Default 5000. */
  compileTimeout?: number;
  /** Tool calls per run; null = unlimited (the default). */
  maxToolCalls?: number | null;
  /** Bytes of a tool call's arguments or result kept in the ledger. Default 16384. */
  maxToolCallResultBytes?: number;
  /** One deadline for all branches of a pmap or pcalls, in ms. Default 5000. */
  pmapTimeout?: number;
  /** Branches in flight per pmap call; 0 = twice the hardware threads. */
  pmapMaxConcurrency?: number;
  /** Branches alive at once across the run. Default 8. */
  maxParallelWorkers?: number;
  /** Heap bytes of each branch; 0 = maxHeap. */
  workerMaxHeap?: number;
}

/** Options of compile(): what compilation depends on. */
export interface CompileOptions extends Limits {
  /** The tools runs will give (only their names matter here). */
  tools?: Record<string, ToolFunction>;
  /** The memory runs will give (its names are the globals programs may read). */
  memory?: Record<string, JsonValue>;
}

/** Options of run() and runSync(). */
export interface RunOptions extends CompileOptions {
  /** The program's `data/` names: an object, or its JSON text (parsed straight into the run). */
  context?: Record<string, JsonValue> | string | PreparedContext;
  /** Names bound by earlier runs' def/defn (Result.memory). */
  memory?: Record<string, JsonValue>;
  /** Earlier results, oldest first: `*1` is the last. */
  history?: JsonValue[];
  /** A signature the result must match (and is coerced to), e.g. "{:total :float}". */
  signature?: string;
  /** Rounds floats in the result to this many decimals. */
  floatPrecision?: number;
  /** Import only the `data/` keys the program reads (default true). */
  filterContext?: boolean;
  /** Items shown per collection in `printed`; 0 = all. */
  displayLimit?: number;
  /** What `(budget/remaining)` returns. */
  budget?: Record<string, JsonValue>;
  /** Cancels the run (run only): it ends with reason "cancelled". */
  signal?: AbortSignal;
  /** run/runSync: the Result also carries the lisp_eval payload of the run
   * (Result.payload), under this profile (true: in_process_with_app_tools). */
  payload?: true | LispEvalProfile;
  /**
   * run/runSync: run the program in a jailed worker process of this pool
   * (true: WorkerPool.default(); false or absent: in this process). The
   * tools are still called here, on the main thread; the Result is the one
   * an in-process run gives.
   */
  isolate?: WorkerPool | boolean;
  /**
   * Tools of `tools` whose every call a person approves before it runs. A
   * call of one waits for `approver`; start() without an approver suspends
   * with it pending (kind "approval"), answered approve() or
   * reject(reason). Rejected, the call fails with a tool_error "tool/<name>
   * was rejected: <reason>". An isolated run takes no approver here: such a
   * call fails closed.
   */
  approval?: string[];
  /**
   * Decides approvals: true or approve() runs the tool, false or
   * reject(reason) fails the call (what it throws rejects it). run() and
   * start() await it; runSync() and startSync() need a synchronous one.
   * run() without one rejects every such call.
   */
  approver?: (call: PendingCall) => Decision | boolean | Promise<Decision | boolean>;
}

/** A person's decision on a call pending with kind "approval". */
export interface Decision {
  readonly [decision: symbol]: 'approve' | 'reject';
}
/** The answer "approved": the tool runs. */
export function approve(): Decision;
/** The answer "rejected, because `reason`": the call fails with a tool_error that says so. */
export function reject(reason?: string): Decision & { readonly reason: string };

/** Options of new WorkerPool(); every one is optional. */
export interface WorkerPoolOptions {
  /** Worker processes kept ready; runs beyond them wait for one. Default 4. */
  workers?: number;
  /** Runs a worker takes before it is replaced; 0 = no limit. Default 1000. */
  maxRuns?: number;
  /** The largest maxHeap runs will ask for: it sizes each worker's address-space cap. Default 64 MiB. */
  maxHeap?: number;
  /** Past a run's compileTimeout + timeout + pmapTimeout by this many ms, its worker is killed. Default 1000. */
  killMargin?: number;
  /** The largest result a worker may send; 0 = 64 MiB plus 16 times maxHeap. */
  maxFrameBytes?: number;
  /** The ptc-worker executable. Default: $PTC_WORKER, else the one beside ptc_lisp.node. */
  workerPath?: string;
  /** New user, pid, network and IPC namespaces where the kernel allows them. Default true. */
  namespaces?: boolean;
  /** The workers' stderr goes to this process's (default: /dev/null). */
  workerStderr?: boolean;
  /** A run alone in the pool runs its worker on the caller's CPU, both bound to it for the run. Default true. */
  cpuHandoff?: boolean;
}

/** A WorkerPool's figures. */
export interface WorkerPoolStats {
  /** Live worker processes (ready or running a program). */
  workers: number;
  /** Running a program. */
  busy: number;
  /** Workers started since the pool was made. */
  started: number;
  /** Programs run. */
  runs: number;
  /** Workers retired after maxRuns. */
  recycled: number;
  /** Workers that died (a crash, their jail, out of memory). */
  died: number;
  /** Workers killed: past their deadline, or sending a malformed frame. */
  killed: number;
  /** Prepared contexts sent to a worker along with a run (it did not hold them). */
  contextsSent: number;
  /** Prepared contexts sent ahead of any run, to a recycled worker's successor. */
  contextsHandedOver: number;
  /** The workers run in namespaces of their own. */
  namespaces: boolean;
  workerPath: string;
}

/**
 * Jailed worker processes for isolated runs (the isolate option of run and
 * runSync): no new privileges, rlimits on memory, CPU time and files, a
 * seccomp-bpf allowlist and, where the kernel allows, namespaces of their
 * own. A worker that dies ends only its run (reason internal_error); one
 * past its deadline by killMargin is killed (reason timeout). The
 * constructor throws an Error with code ERR_PTC_UNAVAILABLE when no
 * ptc-worker is found or it does not start. A pool object belongs to the
 * thread that made it; WorkerPool.default() is one pool for the whole
 * process.
 */
export class WorkerPool {
  constructor(options?: WorkerPoolOptions);
  /** The pool `isolate: true` uses: one per process, made on first use. */
  static default(): WorkerPool;
  readonly stats: WorkerPoolStats;
  /** The ptc-worker executable the pool runs. */
  readonly workerPath: string;
  /** Lets go of this object's reference (runs in flight keep theirs); it cannot be used again. */
  close(): void;
}

/** The closed set of reasons a run fails with. */
export type ErrorReason =
  | 'parse_error'
  | 'invalid_form'
  | 'invalid_arity'
  | 'unbound_var'
  | 'invalid_placeholder'
  | 'unsupported_pattern'
  | 'type_error'
  | 'arithmetic_error'
  | 'arity_error'
  | 'not_callable'
  | 'destructure_error'
  | 'runtime_error'
  | 'unknown_tool'
  | 'tool_error'
  | 'unsupported_method'
  | 'loop_limit_exceeded'
  | 'call_depth_exceeded'
  | 'timeout'
  | 'cancelled'
  | 'memory_limit'
  | 'symbol_limit_exceeded'
  | 'program_too_large'
  | 'tool_call_limit_exceeded'
  | 'parallel_capacity_exceeded'
  | 'args_error'
  | 'validation_error'
  | 'fail'
  | 'snapshot_error'
  | 'snapshot_divergence'
  | 'internal_error';

/** Why a program failed (Result.error), or why compile() refused it (thrown). */
export class PtcError extends Error {
  readonly name: 'PtcError';
  readonly reason: ErrorReason;
  /** A suggestion (did-you-mean, the right form), or null. */
  readonly hint: string | null;
  /** 1-based line, or null when unknown. */
  readonly line: number | null;
  /** 1-based column (code points), or null when unknown. */
  readonly column: number | null;
  /** "type_error at 3:7: message" with the hint: what an LLM gets to retry with. */
  readonly text: string;
  /** v of `(fail v)` (reason "fail" only). */
  readonly failValue?: JsonValue;
  private constructor();
}

/** One tool call of the run's ledger. */
export interface ToolCall {
  name: string;
  /** The arguments (a string preview when longer than maxToolCallResultBytes). */
  args: JsonValue;
  argsTruncated: boolean;
  result: JsonValue;
  resultTruncated: boolean;
  /** The error message when the call failed, else null. */
  error: string | null;
  durationMs: number;
  cached: boolean;
}

/** One pmap or pcalls call. */
export interface ParallelCall {
  kind: 'pmap' | 'pcalls';
  count: number;
  successCount: number;
  errorCount: number;
  durationMs: number;
}

export interface Usage {
  durationMs: number;
  /** Heap bytes the run allocated (allocatedBytes), with the bytes charged to it. */
  memoryBytes: number;
  evalReductions: number;
  /** The most a collection found live (max_heap bounds this, not what was
   * allocated); what the run allocated after its last collection counts as
   * live here. */
  peakLiveBytes: number;
  /** Every heap byte the program allocated. */
  allocatedBytes: number;
  /** How many times the run's heap was collected. */
  collections: number;
  /** Time spent collecting. */
  collectMs: number;
}

/** The outcome of a run. */
export interface Result {
  ok: boolean;
  /** The program's value as JSON data (keywords become strings, sets arrays,
   * functions their printed form); null when the run failed. */
  value: JsonValue;
  /** The value in Clojure syntax. */
  printed: string;
  /** `printed` was cut by displayLimit. */
  truncated: boolean;
  /** It ended with (return v). */
  returned: boolean;
  /** println/print/prn output, in order. */
  prints: string[];
  /** Memory after the run: the memory given plus every def (unchanged when the run failed). */
  memory: Record<string, JsonValue>;
  toolCalls: ToolCall[];
  pmapCalls: ParallelCall[];
  usage: Usage;
  /** Why it failed; null when ok. */
  error: PtcError | null;
  /** The lisp_eval payload of the run, when the `payload` option asked for it. */
  payload?: LispEvalPayload;
}

/**
 * A program compiled once by compile(), for many runs. Its handle belongs to
 * the thread that made it; share() gives a token another thread (a
 * worker_thread) turns into a Program over the same compiled code.
 */
export class Program {
  /** The source it was compiled from. */
  readonly source: string;
  /**
   * A token to post to another thread (structured-clonable data) for
   * Program.from(). It is valid while this Program is alive (not garbage
   * collected, its thread not ended); the same token each call.
   */
  share(): SharedProgram;
  /**
   * A Program over the same compiled code as the one `token` came from, on
   * any thread; independent of that one from then on. Throws an Error when
   * that Program is gone, a TypeError for what is no token.
   */
  static from(token: SharedProgram): Program;
  private constructor();
}

/** What Program.share() gives: plain data, for postMessage. */
export interface SharedProgram {
  readonly ptcLisp: 'Program';
  readonly id: number;
}

/**
 * Runs a program on a thread of node's pool (the event loop keeps turning;
 * a run without tools is first tried in place for at most 0.2 ms); tools
 * are called on the main thread, all the calls of a pmap at once.
 * Resolves with the Result, also when the program fails (ok false, error a
 * PtcError); rejects with a TypeError for bad arguments (RangeError for a
 * number out of range).
 */
export function run(program: string | Program, options?: RunOptions): Promise<Result>;

/**
 * Runs a program on the calling thread. Tools must return values: one that
 * returns a Promise fails its call. Throws a TypeError for bad arguments.
 */
export function runSync(program: string | Program, options?: Omit<RunOptions, 'signal'>): Result;

/** Reads, analyzes and compiles once; throws a PtcError when it does not compile. */
export function compile(program: string, options?: CompileOptions): Program;

/** A context imported once by prepareContext(), for many runs; shared with
 * other threads as a Program is (share(), PreparedContext.from()). */
export class PreparedContext {
  /** Bytes of memory the prepared values occupy. */
  readonly bytes: number;
  /** A token for PreparedContext.from() on another thread, valid while this one is alive. */
  share(): SharedPreparedContext;
  /** A PreparedContext over the same values; an Error when the one shared is gone. */
  static from(token: SharedPreparedContext): PreparedContext;
  private constructor();
}

/** What PreparedContext.share() gives: plain data, for postMessage. */
export interface SharedPreparedContext {
  readonly ptcLisp: 'PreparedContext';
  readonly id: number;
}

/**
 * Imports a context (an object, or its JSON text) once, for runs that read
 * it in place (`context: prepared`). Throws a PtcError for malformed JSON or
 * past maxBytes, a TypeError for a value that is no object.
 */
export function prepareContext(
  context: Record<string, JsonValue> | string,
  options?: { maxBytes?: number },
): PreparedContext;

/** The profiles of the lisp_eval tool: what its description promises. */
export type LispEvalProfile = 'in_process_with_app_tools' | 'in_process_text_mode' | 'mcp_no_tools';

/** A JSON Schema object. */
export type JsonSchema = { [key: string]: JsonValue };

/** The lisp_eval tool's canonical name, description and input JSON Schema. */
/** The JSON Schema of lisp_eval's arguments: a closed object (what the
 * OpenAI Agents SDK's strict tools ask for). */
export interface LispEvalInputSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required: string[];
  additionalProperties: false;
}

export interface LispEvalSchema {
  name: 'lisp_eval';
  description: string;
  inputSchema: LispEvalInputSchema;
}

/** The arguments of a lisp_eval call. */
export interface LispEvalArgs {
  program: string;
  /** mcp_no_tools only: the data/ names of this call. */
  context?: Record<string, JsonValue>;
}

/** What a lisp_eval call answers: the protocol's payload. */
export type LispEvalPayload =
  | {
      status: 'ok';
      result?: string | null;
      prints: string[];
      feedback: string;
      truncated: boolean;
      [key: string]: JsonValue | undefined;
    }
  | {
      status: 'error';
      reason:
        | 'parse_error'
        | 'runtime_error'
        | 'timeout'
        | 'memory_limit'
        | 'args_error'
        | 'fail'
        | 'validation_error';
      message: string;
      feedback: string;
      result?: string | null;
      [key: string]: JsonValue | undefined;
    };

export interface LispEvalToolConfig {
  /** Tools programs may call (not with mcp_no_tools). */
  tools?: Record<string, ToolFunction>;
  /** Default "in_process_with_app_tools". */
  profile?: LispEvalProfile;
  /** The data/ names every call sees (a call's own context wins under mcp_no_tools). */
  context?: Record<string, JsonValue> | string | PreparedContext;
  limits?: Limits;
  /** Run every call's program in a jailed worker process (see RunOptions.isolate). */
  isolate?: WorkerPool | boolean;
}

/** The lisp_eval tool, shaped for the Vercel AI SDK's and OpenAI Agents SDK's tool() helpers. */
export interface LispEvalTool extends LispEvalSchema {
  /** The same schema as inputSchema, under the name the OpenAI Agents SDK uses. */
  parameters: LispEvalInputSchema;
  /** Runs args.program; resolves with the payload (never rejects for a failing program). */
  execute(args: LispEvalArgs, options?: { abortSignal?: AbortSignal }): Promise<LispEvalPayload>;
}

export function toolSchema(profile?: LispEvalProfile): LispEvalSchema;

/** The reasons a lisp_eval error payload carries. */
export type LispEvalErrorReason = Extract<LispEvalPayload, { status: 'error' }>['reason'];

/**
 * The lisp_eval error payload for a reason and message, as lisp_eval
 * answers: `feedback` is what the model reads (default: the message);
 * `result`, for reason fail only, the printed value of (fail v). A run's own
 * payload (success or error) is Result.payload, with the `payload` option.
 */
export function renderError(
  reason: LispEvalErrorReason,
  message: string,
  options?: { feedback?: string; result?: string },
): LispEvalPayload;

export function lispEvalTool(config?: LispEvalToolConfig): LispEvalTool;

/** A tool call an execution waits on. */
export interface PendingCall {
  /** Stable across dump() and load(): "c2" is the program's third tool call,
   * "p0.3/c0" the first of branch 3 of its first pmap or pcalls. */
  readonly id: string;
  /** The tool's name (after tool/). */
  readonly tool: string;
  /** The map the program passed, as a tool would get it. */
  readonly args: ToolArgs;
  /** Present when the call waits for a person's decision, not for the tool's answer. */
  readonly kind?: 'approval';
  /** An approval's place in the program (1-based). */
  readonly line?: number;
  readonly column?: number;
}

/**
 * Answers to pending calls by id, any non-empty subset of them: a value (as
 * a tool returns one), or an Error, which fails the call as its tool's
 * error (the program sees a tool_error with its message); for a call of
 * kind "approval", approve() or reject(reason).
 */
export type Answers = { [callId: string]: unknown };

/** Options of start() and startSync() (executions cannot run isolated). */
export interface StartOptions extends Omit<RunOptions, 'isolate'> {
  /**
   * Tools the host answers itself, by name (they need no function), or true
   * for every tool `tools` does not give: a call of one suspends the
   * execution with it in `pending`. Calls of the `tools` functions are made
   * as run() makes them.
   */
  defer?: string[] | true;
}

/** A snapshot's HMAC key (UTF-8 when a string). */
export type SnapshotKey = string | Uint8Array;

/**
 * Options of load() and loadSync(): the limits and tools of the loaded
 * execution. The program, context, memory, history, signature, float
 * precision and budget come from the snapshot (giving one is a TypeError);
 * every tool `tools` does not give is deferred.
 */
export interface LoadOptions extends Limits {
  tools?: Record<string, ToolFunction>;
  /** As RunOptions.approval and approver (a call that waited for approval still does). */
  approval?: string[];
  approver?: RunOptions['approver'];
  /** The key the snapshot was signed with (dump(key)); required when it was signed. */
  key?: SnapshotKey;
  displayLimit?: number;
  /** Cancels the execution (load only), as execution.cancel(). */
  signal?: AbortSignal;
}

/**
 * A run that waits on the host (ptc::Execution): made by start() or load().
 * While it is suspended its `pending` calls wait for resume(); it holds no
 * thread, only its memory. Between resume() and its promise settling it is
 * running: only cancel() may be called then.
 */
export class Execution {
  /** The program has ended; `result` holds its outcome. */
  readonly done: boolean;
  /** The calls it waits on, in program order; [] once done. */
  readonly pending: readonly PendingCall[];
  /** The outcome once done (the Result run() would give), else null. */
  readonly result: Result | null;
  /** Bytes of memory it holds (its heaps and journal); 0 once done. */
  readonly heapBytes: number;
  /**
   * Answers pending calls and runs the program on node's pool until it ends
   * or waits again; resolves with this execution. Rejects with a PtcError
   * (args_error, the engine's message) for no answers, an id that is not
   * pending or an execution that is done, leaving it unchanged; with a
   * TypeError for a value with no JSON form.
   */
  resume(answers: Answers): Promise<Execution>;
  /** resume() on the calling thread (it blocks it); `tools` must be synchronous. */
  resumeSync(answers: Answers): Execution;
  /**
   * The suspended execution as bytes for load(), in this process or
   * another: its inputs and the journal of what tools answered. Signed with
   * HMAC-SHA256 when `key` is given. Throws a PtcError (args_error) once done.
   * (A Buffer.)
   */
  dump(key?: SnapshotKey): Uint8Array;
  /**
   * Ends it with reason "cancelled": at once when suspended, else the phase
   * in flight stops and its promise resolves done. No-op once done.
   */
  cancel(): void;
  private constructor();
}

/**
 * Starts `program` as an execution, on node's pool: it runs until it ends or
 * waits on calls of deferred tools (`defer`); resolves with the Execution
 * (done, or with `pending` calls). Rejects with a TypeError for bad arguments.
 */
export function start(program: string | Program, options?: StartOptions): Promise<Execution>;

/** start() on the calling thread; `tools` must be synchronous. */
export function startSync(program: string | Program, options?: Omit<StartOptions, 'signal'>): Execution;

/**
 * An execution from dump()'s bytes, in any process: the program replays
 * against the snapshot's journal, on node's pool, to the calls it waited on.
 * Rejects with a PtcError: snapshot_error (not a snapshot, truncated,
 * corrupt, a bad or missing HMAC, or signed when no key is given),
 * snapshot_divergence (another engine version, a changed program).
 */
export function load(snapshot: Uint8Array | ArrayBuffer, options?: LoadOptions): Promise<Execution>;

/** load() on the calling thread. */
export function loadSync(snapshot: Uint8Array | ArrayBuffer, options?: Omit<LoadOptions, 'signal'>): Execution;

/** The limits a snapshot ran with (load() takes the host's). */
export type SnapshotLimits = { [K in keyof Limits]-?: K extends 'maxToolCalls' ? number | null : number };

/** What a snapshot holds (inspectSnapshot). */
export interface SnapshotInfo {
  /** What wrote it: "ptc 0.1.0 (git <revision>)". */
  engine: string;
  /** The program. */
  source: string;
  limits: SnapshotLimits;
  /** The tools the program was compiled against. */
  tools: string[];
  /** The ids of the calls it waits on. */
  pending: string[];
}

/**
 * Reads and checks a snapshot as load() does, without running it. Throws a
 * PtcError (snapshot_error) for what load() would refuse so.
 */
export function inspectSnapshot(snapshot: Uint8Array | ArrayBuffer, key?: SnapshotKey): SnapshotInfo;

/** Options of a Session: every eval's run options, and how many values *1 *2 *3 keep. */
export interface SessionOptions extends Omit<RunOptions, 'signal' | 'isolate'> {
  /** Values kept as *1, *2, ... (default 3). */
  historyDepth?: number;
}

/**
 * A REPL over runs (ptc::Session): memory carries from one eval to the next
 * (functions a program defines too), and *1 *2 *3 are the values of the
 * last successful evals. A failed eval changes neither. Evals run one at a
 * time, in the order they were called.
 */
export class Session {
  constructor(options?: SessionOptions);
  /** Runs `program` as run() does, with the session's options, memory and history. */
  eval(program: string | Program, options?: { signal?: AbortSignal }): Promise<Result>;
  /** eval() on the calling thread; tools must be synchronous. Throws while an eval is in flight. */
  evalSync(program: string | Program): Result;
  /** The memory (functions as their printed form). */
  readonly memory: Record<string, JsonValue>;
  /** The values of the last successful evals, oldest first (*1 is the last). */
  readonly history: JsonValue[];
  /** Forgets the memory and the history. Throws while an eval is in flight. */
  reset(): void;
}

/** The engine's version, e.g. "0.1.0". */
export const version: string;
