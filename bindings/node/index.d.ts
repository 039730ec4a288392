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
  | 'snapshot_divergence';

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
  /** Heap bytes the run allocated. */
  memoryBytes: number;
  evalReductions: number;
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
}

/** A program compiled once by compile(), for many runs (on this thread). */
export class Program {
  /** The source it was compiled from. */
  readonly source: string;
  private constructor();
}

/**
 * Runs a program on a thread of node's pool (the event loop keeps turning);
 * tools are called on the main thread, all the calls of a pmap at once.
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

/** A context imported once by prepareContext(), for many runs (on this thread). */
export class PreparedContext {
  /** Bytes of memory the prepared values occupy. */
  readonly bytes: number;
  private constructor();
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
export interface LispEvalSchema {
  name: 'lisp_eval';
  description: string;
  inputSchema: JsonSchema;
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
}

/** The lisp_eval tool, shaped for the Vercel AI SDK's and OpenAI Agents SDK's tool() helpers. */
export interface LispEvalTool extends LispEvalSchema {
  /** The same schema as inputSchema, under the name the OpenAI Agents SDK uses. */
  parameters: JsonSchema;
  /** Runs args.program; resolves with the payload (never rejects for a failing program). */
  execute(args: LispEvalArgs, options?: { abortSignal?: AbortSignal }): Promise<LispEvalPayload>;
}

export function toolSchema(profile?: LispEvalProfile): LispEvalSchema;

export function lispEvalTool(config?: LispEvalToolConfig): LispEvalTool;

/** The engine's version, e.g. "0.1.0". */
export const version: string;
