'use strict';
// ptc-lisp for Node.js: run PTC-Lisp programs (the sandboxed Clojure subset
// LLMs write to call tools and transform data) with a context, tools and
// limits. The engine is the Node-API addon ptc_lisp.node beside this file
// (libptc linked in statically). See README.md and index.d.ts.
//
// run(): the program runs on a thread of node's pool, not on the event loop
// (a run without tools is first tried in place for at most 0.2 ms: most
// finish sooner than a trip to the pool). Its tool calls are deferred: the run suspends with every call it
// waits on (all the calls of a pmap together), this file calls the JS tools
// on the main thread, awaits their promises together, and resumes the run
// with the answers on the pool again, until it ends.
//
// run()/runSync() with `isolate` (src/isolated.cpp): the program runs in a
// jailed worker process of a WorkerPool, ptc::run on a thread of its own;
// its tool calls come back one by one, this file calls the JS tools on the
// main thread and answers each as it settles.
//
// start()/load() make an Execution over the same jobs (src/executions.cpp)
// whose calls of deferred tools the host answers; a Session's evals are
// such jobs too (src/sessions.cpp); share()/from() post a Program or a
// PreparedContext to another thread by token (src/sharing.cpp).

const native = require('./ptc_lisp.node');

/** Why a program failed: reason (parse_error, type_error, timeout, tool_error,
 * fail, ...), message, hint, line and column (1-based, null when unknown). */
class PtcError extends Error {
  constructor(e) {
    super(e.message);
    this.name = 'PtcError';
    this.reason = e.reason;
    this.hint = e.hint;
    this.line = e.line;
    this.column = e.column;
    this.text = e.text;
    if ('failValue' in e) this.failValue = e.failValue;
  }
}

const kHandle = Symbol('ptc-lisp.program');
const kToken = Symbol('ptc-lisp.construct');

/** A program compiled once by compile(), for any number of runs. */
class Program {
  constructor(token, handle) {
    if (token !== kToken) throw new TypeError('Program objects come from compile()');
    this[kHandle] = handle;
  }

  /** The source it was compiled from. */
  get source() {
    return native.programSource(this[kHandle]);
  }

  /** A token for Program.from() on another thread (post it to a worker):
   * valid while this Program is alive. */
  share() {
    return shareToken(this, 'Program', native.shareProgram);
  }

  /** A Program over the same compiled code as the one `token` was shared
   * from (on any thread); an Error when that Program is gone. */
  static from(token) {
    return new Program(kToken, native.adoptProgram(tokenId(token, 'Program')));
  }
}

// Sharing across threads (src/sharing.cpp): share() registers the object in
// the process-wide registry until this JS object is collected (the ticket it
// keeps); the token is plain data, so postMessage clones it.
const kShared = Symbol('ptc-lisp.shared');

function shareToken(object, kind, share) {
  if (object[kShared] === undefined) {
    const [id, ticket] = share(object[kHandle]);
    object[kShared] = { id, ticket };
  }
  return { ptcLisp: kind, id: object[kShared].id };
}

function tokenId(token, kind) {
  if (token === null || typeof token !== 'object' || token.ptcLisp !== kind ||
      !Number.isSafeInteger(token.id) || token.id < 1)
    throw new TypeError(`${kind}.from takes a token from ${kind.charAt(0).toLowerCase()}${kind.slice(1)}.share()`);
  return token.id;
}

function programArg(program) {
  return program instanceof Program ? program[kHandle] : program;
}

/** A context imported once by prepareContext(), for any number of runs: they
 * read it in place instead of each converting it again. */
class PreparedContext {
  constructor(token, handle) {
    if (token !== kToken) throw new TypeError('PreparedContext objects come from prepareContext()');
    this[kHandle] = handle;
  }

  /** Bytes of memory the prepared values occupy. */
  get bytes() {
    return native.preparedBytes(this[kHandle]);
  }

  /** A token for PreparedContext.from() on another thread: valid while this
   * PreparedContext is alive. */
  share() {
    return shareToken(this, 'PreparedContext', native.sharePrepared);
  }

  /** A PreparedContext over the same values as the one `token` was shared
   * from (on any thread); an Error when that one is gone. */
  static from(token) {
    return new PreparedContext(kToken, native.adoptPrepared(tokenId(token, 'PreparedContext')));
  }
}

/** Imports `context` (an object, or its JSON text) once. Throws a PtcError
 * for malformed JSON or past `maxBytes`, a TypeError for what is no object. */
function prepareContext(context, options) {
  const maxBytes = options !== null && typeof options === 'object' ? options.maxBytes : undefined;
  const [handle, error] = native.prepareContext(plainJsonText(context) ?? context, maxBytes);
  if (error) throw new PtcError(error);
  return new PreparedContext(kToken, handle);
}

// The options as the addon takes them: a PreparedContext as its handle.
// Whether JSON.stringify(v) is exactly what the addon's converter makes of
// v (src/convert.cpp): plain objects and arrays of strings, booleans, null,
// finite numbers (integers within 2^53) and Dates, not too deep. Anything
// else (BigInt, a function, NaN, a class instance, a cycle, a lone
// surrogate, ...) is left to the converter, which also words the errors.
const kMaxSafe = 2 ** 53;
function plainJson(v, depth) {
  switch (typeof v) {
    case 'string':
      return v.isWellFormed();
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v) && (!Number.isInteger(v) || Math.abs(v) <= kMaxSafe);
    case 'object': {
      if (v === null) return true;
      if (depth > 64) return false;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const item = v[i];
          if (item !== undefined && !plainJson(item, depth + 1)) return false;
        }
        return true;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto === Date.prototype) return !Number.isNaN(v.getTime());
      if (proto !== Object.prototype && proto !== null) return false;
      if (typeof v.toJSON === 'function') return false;
      for (const key in v) {
        const item = v[key];
        if (item !== undefined && !plainJson(item, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

// The options as the addon takes them: a PreparedContext as its handle, a
// WorkerPool (or true, the default one) as its handle, and a context of
// plain JSON data as its JSON text, which the engine parses straight into
// the run several times faster than the addon converts the object property
// by property (and, for run(), on the pool).
function optionsArg(options) {
  if (options === null || typeof options !== 'object') return options;
  if (options.isolate !== undefined) options = { ...options, isolate: isolateArg(options.isolate) };
  const context = options.context;
  if (context === null || typeof context !== 'object') return options;
  if (context instanceof PreparedContext) return { ...options, context: context[kHandle] };
  const text = plainJsonText(context);
  return text === undefined ? options : { ...options, context: text };
}

// A context object of plain JSON data as its JSON text; else undefined.
function plainJsonText(context) {
  if (context === null || typeof context !== 'object') return undefined;
  const proto = Object.getPrototypeOf(context);
  return (proto === Object.prototype || proto === null) && plainJson(context, 0)
    ? JSON.stringify(context)
    : undefined;
}

// ---------------------------------------------------------------- worker pools

const kPoolHandle = Symbol('ptc-lisp.pool');
let defaultPool = null;

/** Jailed worker processes for isolated runs (`isolate: pool` of run and
 * runSync): seccomp, rlimits and, where the kernel allows, namespaces of
 * their own. The tools are still called in this process. Throws an Error
 * with code ERR_PTC_UNAVAILABLE when no ptc-worker is found or it does not
 * start. */
class WorkerPool {
  constructor(options) {
    this[kPoolHandle] = native.createWorkerPool(options);
  }

  /** The pool `isolate: true` uses: one per process (every thread shares
   * it), made on first use. */
  static default() {
    if (defaultPool === null || defaultPool[kPoolHandle] === null) {
      const pool = Object.create(WorkerPool.prototype);
      pool[kPoolHandle] = native.defaultWorkerPool();
      defaultPool = pool;
    }
    return defaultPool;
  }

  /**
   * {workers, busy, started, runs, recycled, died, killed, contextsSent,
   * contextsHandedOver, namespaces, workerPath}.
   */
  get stats() {
    return native.workerPoolStats(poolHandle(this));
  }

  /** The ptc-worker executable the pool runs. */
  get workerPath() {
    return this.stats.workerPath;
  }

  /** Lets go of this object's reference: runs in flight keep theirs, and the
   * workers end with the last one. The pool cannot be used here again. */
  close() {
    const handle = this[kPoolHandle];
    this[kPoolHandle] = null;
    if (handle) native.closeWorkerPool(handle);
  }
}

function poolHandle(pool) {
  const handle = pool[kPoolHandle];
  if (!handle) throw new TypeError('the WorkerPool is closed');
  return handle;
}

// The isolate option as the addon takes it: a pool's handle, or false.
function isolateArg(isolate) {
  if (isolate === false) return false;
  if (isolate === true) return poolHandle(WorkerPool.default());
  if (isolate instanceof WorkerPool) return poolHandle(isolate);
  throw new TypeError('option isolate must be a WorkerPool, true or false');
}

function isolated(options) {
  return options !== null && typeof options === 'object' && options.isolate !== undefined &&
    options.isolate !== false;
}

function toolsOf(options) {
  return options !== null && typeof options === 'object' ? options.tools : undefined;
}

function signalOf(options) {
  const signal = options !== null && typeof options === 'object' ? options.signal : undefined;
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new TypeError('option signal must be an AbortSignal');
  return signal;
}

// The Result object the addon makes (src/addon.cpp result_object): an
// object literal, so every Result shares one shape built once.
// truncated, returned, usage's first three, a scalar value (its kind and
// number), then usage's heap figures
const plainSlots = new Float64Array(11);
native.setResultFactory((ok, value, printed, truncated, returned, prints, memory, toolCalls,
  pmapCalls, durationMs, memoryBytes, evalReductions, peakLiveBytes, allocatedBytes, collections,
  collectMs, error, payload) => {
  const result = {
    ok, value, printed, truncated, returned,
    prints: prints === undefined ? [] : prints,
    memory: memory === undefined ? {} : memory,
    toolCalls: toolCalls === undefined ? [] : toolCalls,
    pmapCalls: pmapCalls === undefined ? [] : pmapCalls,
    usage: {
      durationMs, memoryBytes, evalReductions, peakLiveBytes, allocatedBytes, collections,
      collectMs,
    },
    error,
  };
  if (payload !== undefined) result.payload = payload;
  return result;
}, makePlain, plainSlots);

// A plain outcome (runInPlace): ok, nothing printed, called or kept.
function makePlain(value, printed) {
  return {
    ok: true, value, printed, truncated: plainSlots[0] === 1, returned: plainSlots[1] === 1,
    prints: [], memory: {}, toolCalls: [], pmapCalls: [],
    usage: {
      durationMs: plainSlots[2], memoryBytes: plainSlots[3], evalReductions: plainSlots[4],
      peakLiveBytes: plainSlots[7], allocatedBytes: plainSlots[8], collections: plainSlots[9],
      collectMs: plainSlots[10],
    },
    error: null,
  };
}

// What runInPlace gives: a Result, or for a plain outcome with a scalar
// value only its printed form (src/exports.hpp, plain_result).
function fromInPlace(out) {
  if (typeof out !== 'string') return finish(out);
  const kind = plainSlots[5];
  return makePlain(kind === 1 ? plainSlots[6] : kind === 2 ? true : kind === 3 ? false : null, out);
}

// run/runSync's `payload` option ({payload: true | profile}): the profile
// of the lisp_eval payload the Result carries, and the options without it
// (the addon takes only run options).
function splitPayload(options) {
  if (options === null || typeof options !== 'object' || options.payload === undefined)
    return [options, undefined];
  const { payload, ...rest } = options;
  if (payload === true) return [rest, 'in_process_with_app_tools'];
  if (typeof payload !== 'string')
    throw new TypeError('option payload must be true or a lisp_eval profile name');
  return [rest, payload];
}

function finish(result) {
  if (result.payload !== undefined) result.payload = JSON.parse(result.payload);
  if (!result.ok) result.error = new PtcError(result.error);
  return result;
}

function messageOf(e) {
  if (e instanceof Error) return e.message || e.name;
  try {
    return String(e);
  } catch {
    return 'the tool failed';
  }
}

function isThenable(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function') &&
    typeof v.then === 'function';
}

// Calls the tools of the pending calls, all at once; resolves with their
// answers aligned with `pending` ([oks, values]: a value, or an error message).
// ---------------------------------------------------------------- approvals

const kDecision = Symbol('ptc-lisp.decision');

/** The answer "approved" to a call pending with kind "approval" (resume),
 * or what an approver returns (true does too): the tool runs. */
function approve() {
  return Object.freeze({ [kDecision]: 'approve' });
}

/** The answer "rejected, because `reason`" to a call pending with kind
 * "approval" (resume), or what an approver returns (false does too, with no
 * reason): the call fails with a tool_error "tool/<name> was rejected:
 * <reason>" and the tool does not run. */
function reject(reason = '') {
  if (typeof reason !== 'string')
    throw new TypeError(`a rejection's reason must be a string, got ${typeof reason}`);
  return Object.freeze({ [kDecision]: 'reject', reason });
}

function isDecision(v) {
  return v !== null && typeof v === 'object' && v[kDecision] !== undefined;
}

// An approver's answer as a decision; what it cannot mean rejects the call.
function decisionOf(v) {
  if (v === true) return approve();
  if (v === false) return reject();
  if (isDecision(v)) return v;
  return reject(`the approver answered ${typeof v === 'object' ? 'an object' : typeof v}, not ` +
    'true, false, approve() or reject(reason)');
}

function approverArg(approver) {
  if (approver !== undefined && typeof approver !== 'function')
    throw new TypeError('option approver must be a function');
  return approver;
}

// The (ok, value) pair of a decision as the addon takes it.
function encodeDecision(d) {
  return [d[kDecision], d[kDecision] === 'reject' ? d.reason : null];
}

// The places in `pending` of its approvals and of its other calls.
function byKind(pending) {
  const approvals = [];
  const calls = [];
  pending.forEach((c, i) => (c.kind === 'approval' ? approvals : calls).push(i));
  return [approvals, calls];
}

// The (oks, values) of every pending call, in its order, from the
// approvals' decisions and the other calls' answers.
function merged(n, approvals, decisions, calls, callOks, callValues) {
  const oks = new Array(n);
  const values = new Array(n);
  approvals.forEach((at, k) => ([oks[at], values[at]] = encodeDecision(decisions[k])));
  calls.forEach((at, k) => ([oks[at], values[at]] = [callOks[k], callValues[k]]));
  return [oks, values];
}

// Asks `approver` about each approval of `pending` (none given: each is
// rejected, failing closed); answers the other calls with `tools`.
function answerAll(tools, approver, pending, what) {
  const [approvals, calls] = byKind(pending);
  const asked = approvals.map((i) => {
    if (approver === undefined) return Promise.resolve(reject(`${what} was given no approver`));
    try {
      return Promise.resolve(approver(pending[i])).then(decisionOf,
        (e) => reject(`the approver failed: ${messageOf(e)}`));
    } catch (e) {
      return Promise.resolve(reject(`the approver failed: ${messageOf(e)}`));
    }
  });
  const answered = callTools(tools, calls.map((i) => pending[i]));
  return Promise.all([Promise.all(asked), answered]).then(([decisions, [callOks, callValues]]) =>
    merged(pending.length, approvals, decisions, calls, callOks, callValues));
}

// The same on the calling thread: the approver must answer synchronously.
function answerAllSync(tools, approver, pending, what) {
  const [approvals, calls] = byKind(pending);
  const [callOks, callValues] = callToolsSync(tools, calls.map((i) => pending[i]), what);
  const decisions = approvals.map((i) => {
    if (approver === undefined) return reject(`${what} was given no approver`);
    try {
      const v = approver(pending[i]);
      if (!isThenable(v)) return decisionOf(v);
      Promise.resolve(v).catch(() => {}); // never an unhandled rejection
      return reject(`the approver returned a Promise: ${what} needs a synchronous approver`);
    } catch (e) {
      return reject(`the approver failed: ${messageOf(e)}`);
    }
  });
  return merged(pending.length, approvals, decisions, calls, callOks, callValues);
}

function callTools(tools, pending) {
  const n = pending.length;
  const oks = new Array(n);
  const values = new Array(n);
  let left = n;
  return new Promise((resolve) => {
    if (n === 0) resolve([oks, values]); // nothing to settle
    const settle = (i, ok, value) => {
      oks[i] = ok;
      values[i] = ok ? value : messageOf(value);
      if (--left === 0) resolve([oks, values]);
    };
    for (let i = 0; i < n; i++) {
      const call = pending[i];
      let v;
      try {
        v = tools[call.tool](call.args);
        if (isThenable(v)) {
          Promise.resolve(v).then((x) => settle(i, true, x), (e) => settle(i, false, e));
          continue;
        }
      } catch (e) {
        settle(i, false, e);
        continue;
      }
      settle(i, true, v);
    }
  });
}

// How long run() may try a run without tools in place, on the calling
// thread, before it hands it to node's pool: most such runs take a few
// microseconds, less than the trip to a pool thread and back; one that
// takes longer blocks the event loop for this long at most and is run again
// on the pool from the start.
const kInPlaceAttemptUs = 200;

// Calls the JS tool of one call of an isolated run; reply(ok, value) with
// its value or error message once it settles.
function answerCall(tools, call, reply) {
  const settle = (ok, value) => {
    try {
      reply(ok, ok ? value : messageOf(value));
    } catch {
      // the run is gone (its answer is not wanted)
    }
  };
  let v;
  try {
    v = tools[call.tool](call.args);
  } catch (e) {
    settle(false, e);
    return;
  }
  if (isThenable(v)) Promise.resolve(v).then((x) => settle(true, x), (e) => settle(false, e));
  else settle(true, v);
}

// run() of an isolated run: each tool call answered as it settles.
function startIsolated(tools, signal, handle, nativeOptions, profile) {
  return new Promise((resolve, reject) => {
    let job;
    const onAbort = () => native.abortIsolated(job);
    const done = () => {
      if (signal) signal.removeEventListener('abort', onAbort);
    };
    const onEvent = (error, call, result) => {
      if (error) {
        done();
        reject(error);
      } else if (result) {
        done();
        resolve(finish(result));
      } else {
        answerCall(tools, call, (ok, value) => native.answerIsolated(job, call.id, ok, value));
      }
    };
    try {
      job = native.runIsolated(handle, nativeOptions, profile, onEvent);
    } catch (e) {
      reject(e);
      return;
    }
    if (signal) {
      if (signal.aborted) native.abortIsolated(job);
      else signal.addEventListener('abort', onAbort, { once: true });
    }
  });
}

// run() and lispEvalTool's execute: `profile` asks for the lisp_eval payload.
function startRun(program, options, profile) {
  const tools = toolsOf(options);
  let approver;
  let signal;
  let handle;
  let nativeOptions; // made once: a run in place that takes too long goes on with the same
  try {
    signal = signalOf(options);
    approver = approverArg(options?.approver);
    handle = programArg(program);
    nativeOptions = optionsArg(options);
    // Never in place: it could wait for a free worker on the event loop.
    if (isolated(nativeOptions)) return startIsolated(tools, signal, handle, nativeOptions, profile);
    if (tools === undefined && !(signal !== undefined && signal.aborted)) {
      const result = native.runInPlace(handle, nativeOptions, profile, kInPlaceAttemptUs);
      if (result !== null) return Promise.resolve(fromInPlace(result));
    }
  } catch (e) {
    return Promise.reject(e);
  }
  return new Promise((resolve, reject) => {
    let job;
    try {
      job = native.createJob(handle, nativeOptions, profile);
    } catch (e) {
      reject(e);
      return;
    }
    let waiting = false; // suspended, its tools in flight
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      native.abort(job);
      if (waiting) { // end it now; the tools' answers are dropped
        waiting = false;
        native.resume(job, null, null, onStep);
      }
    };
    const done = () => {
      if (signal) signal.removeEventListener('abort', onAbort);
    };
    function onStep(error, pending, result) {
      if (error) {
        done();
        reject(error);
      } else if (result) {
        done();
        resolve(finish(result));
      } else if (aborted) {
        native.resume(job, null, null, onStep);
      } else {
        waiting = true;
        answerAll(tools, approver, pending, 'run').then(([oks, values]) => {
          if (!waiting) return;
          waiting = false;
          native.resume(job, oks, values, onStep);
        });
      }
    }
    if (signal) {
      if (signal.aborted) aborted = true, native.abort(job);
      else signal.addEventListener('abort', onAbort, { once: true });
    }
    native.start(job, onStep);
  });
}

/** Runs a program off the main thread; resolves with its Result (a program
 * that fails resolves too, with ok false and error a PtcError); bad
 * arguments reject with a TypeError (RangeError for a limit out of range). */
function run(program, options) {
  let split;
  try {
    split = splitPayload(options);
  } catch (e) {
    return Promise.reject(e);
  }
  return startRun(program, split[0], split[1]);
}

/** Runs a program on the calling thread; tools must answer synchronously. */
function runSync(program, givenOptions) {
  if (givenOptions === undefined) return fromInPlace(native.runInPlace(programArg(program)));
  const [options, profile] = splitPayload(givenOptions);
  if (signalOf(options) !== undefined)
    throw new TypeError('runSync takes no signal: it blocks its thread (use run)');
  const tools = toolsOf(options);
  if (tools === undefined)
    return fromInPlace(native.runInPlace(programArg(program), optionsArg(options), profile));
  if (isolated(options)) {
    return finish(native.runIsolatedSync(programArg(program), optionsArg(options), profile,
      (tool, args) => {
        const [oks, values] = callToolsSync(tools, [{ tool, args }], 'runSync');
        return [oks[0], values[0]];
      }));
  }
  const approver = approverArg(options.approver);
  const job = native.createJob(programArg(program), optionsArg(options), profile);
  let out = native.startSync(job);
  while (Array.isArray(out)) {
    const [oks, values] = answerAllSync(tools, approver, out, 'runSync');
    out = native.resumeSync(job, oks, values);
  }
  return finish(out);
}

/** Reads, analyzes and compiles a program once; throws a PtcError when it
 * does not compile. `options` gives what compilation depends on: the tools
 * (by name), the memory's names and the compile limits. */
function compile(program, options) {
  if (typeof program !== 'string') throw new TypeError('program must be a string');
  if (options !== undefined && options !== null && typeof options === 'object') {
    if (options.signal !== undefined) throw new TypeError('compile takes no signal');
    if (options.isolate !== undefined)
      throw new TypeError('compile takes no isolate: give it to the runs (run, runSync)');
  }
  const [handle, error] = native.compile(program, options);
  if (error) throw new PtcError(error);
  return new Program(kToken, handle);
}

/** The lisp_eval error payload for `reason` and `message` (feedback: what
 * the model reads, default the message; result: fail only, the printed value
 * of (fail v)). The success payload of a run is Result.payload (the run's
 * `payload` option). */
function renderError(reason, message, options) {
  return native.renderError(reason, message, options);
}

/** The lisp_eval tool's canonical name, description and JSON Schema. */
function toolSchema(profile) {
  return native.toolSchema(profile);
}

const kLimitNames = new Set([
  'timeout', 'maxHeap', 'loopLimit', 'maxCallDepth', 'maxSymbols', 'maxProgramBytes',
  'maxPrintLength', 'maxNestingDepth', 'compileTimeout', 'maxToolCalls',
  'maxToolCallResultBytes', 'pmapTimeout', 'pmapMaxConcurrency', 'maxParallelWorkers',
  'workerMaxHeap',
]);

/** The lisp_eval tool for an LLM SDK: {name, description, inputSchema,
 * parameters, execute}; execute(args) runs args.program and resolves with
 * the lisp_eval payload ({status: "ok", result, ...} or {status: "error",
 * reason, message, ...}). */
function lispEvalTool(config) {
  if (config === undefined) config = {};
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new TypeError('lispEvalTool takes an object {tools, profile, context, limits}');
  const { tools, profile, context, limits, isolate } = config;
  for (const key of Object.keys(config)) {
    if (!['tools', 'profile', 'context', 'limits', 'isolate'].includes(key))
      throw new TypeError(`unknown lispEvalTool option '${key}'`);
  }
  const schema = native.toolSchema(profile);
  const profileName = profile === undefined ? 'in_process_with_app_tools' : profile;
  if (profileName === 'mcp_no_tools' && tools !== undefined && Object.keys(tools).length > 0)
    throw new TypeError('the mcp_no_tools profile has no tools inside programs');
  const base = {};
  if (limits !== undefined) {
    if (limits === null || typeof limits !== 'object' || Array.isArray(limits))
      throw new TypeError('limits must be an object');
    for (const [key, value] of Object.entries(limits)) {
      if (!kLimitNames.has(key)) throw new TypeError(`unknown limit '${key}'`);
      base[key] = value;
    }
  }
  if (tools !== undefined) base.tools = tools;
  if (isolate !== undefined) base.isolate = isolate;
  // Checked now, so a mistake shows when the tool is made, not at its first call.
  native.createJob('nil', optionsArg({ ...base, context }));
  const execute = async (args, callOptions) => {
    const bad = native.checkLispEvalArgs(args);
    if (bad !== null) return JSON.parse(bad);
    const options = { ...base };
    const given = args.context;
    if (given !== undefined && given !== null) options.context = given;
    else if (context !== undefined) options.context = context;
    const signal = callOptions && callOptions.abortSignal;
    if (signal instanceof AbortSignal) options.signal = signal;
    return (await startRun(args.program, options, profileName)).payload;
  };
  return {
    name: schema.name,
    description: schema.description,
    inputSchema: schema.inputSchema,
    parameters: schema.inputSchema,
    execute,
  };
}

// ---------------------------------------------------------------- executions

// Executions (start, load; src/executions.cpp): runs the host answers part
// of. The JS `tools` are called as run() calls them; a call of any other
// tool (`defer`, or after load() every tool `tools` does not give) is the
// host's: the execution suspends with it in `pending` and resume() answers.

// An error object the addon threw (a LispError) as a PtcError.
function asPtcError(e) {
  return e !== null && typeof e === 'object' && !(e instanceof Error) && typeof e.reason === 'string'
    ? new PtcError(e)
    : e;
}

function callNative(f, ...args) {
  try {
    return f(...args);
  } catch (e) {
    throw asPtcError(e);
  }
}

// The JS tools of `calls`, called synchronously: [oks, values] as callTools.
function callToolsSync(tools, calls, what) {
  const n = calls.length;
  const oks = new Array(n);
  const values = new Array(n);
  for (let i = 0; i < n; i++) {
    try {
      const v = tools[calls[i].tool](calls[i].args);
      if (isThenable(v)) {
        Promise.resolve(v).catch(() => {}); // never an unhandled rejection
        oks[i] = false;
        values[i] = `tool ${calls[i].tool} returned a Promise: ${what} needs synchronous tools ` +
          '(use the async form for async ones)';
      } else {
        oks[i] = true;
        values[i] = v;
      }
    } catch (e) {
      oks[i] = false;
      values[i] = messageOf(e);
    }
  }
  return [oks, values];
}

// The host's answers {id: value | Error} as the addon takes them.
function answersArg(answers) {
  if (answers === null || typeof answers !== 'object' || Array.isArray(answers))
    throw new TypeError('resume takes an object {callId: value | Error}');
  const ids = Object.keys(answers);
  const oks = new Array(ids.length);
  const values = new Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const v = answers[ids[i]];
    if (isDecision(v)) {
      [oks[i], values[i]] = encodeDecision(v);
      continue;
    }
    oks[i] = !(v instanceof Error);
    values[i] = oks[i] ? v : messageOf(v);
  }
  return [ids, oks, values];
}

// Splits the options of start/load/Session: what the addon parses, and what
// index.js keeps (tools, signal and the option names in `own`).
function splitOptions(options, own, what) {
  if (options === undefined || options === null) return { rest: options, tools: {}, signal: undefined };
  if (typeof options !== 'object' || Array.isArray(options))
    throw new TypeError(`${what} options must be an object`);
  if (isolated(options)) {
    throw new TypeError(`${what} cannot run isolated: its runs are executions, which wait in ` +
      "this process's memory (use run or runSync with isolate)");
  }
  const rest = { ...options };
  if (rest.isolate === false) delete rest.isolate;
  const taken = {};
  for (const name of own) {
    taken[name] = rest[name];
    delete rest[name];
  }
  const tools = rest.tools !== null && typeof rest.tools === 'object' ? rest.tools : {};
  return { rest, tools, signal: signalOf(rest), ...taken };
}

const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

const kAdvance = Symbol('ptc-lisp.advance');
const kDriveSync = Symbol('ptc-lisp.driveSync');
const kSyncPhase = { resolve() {}, reject() {} }; // a *Sync call in progress

/** A run that waits on the host for the calls of its deferred tools: made
 * by start() or load(); resume() answers them; dump() writes it to bytes. */
class Execution {
  #job;
  #tools;
  #approver;
  #signal;
  #onAbort = null;
  #pending = [];
  #result = null;
  #phase = null; // {resolve, reject} while a phase (or a *Sync call) is in progress
  #native = false; // a phase is running on the pool
  #cancelled = false;
  #heapBytes = 0;

  constructor(token, job, tools, signal, approver) {
    if (token !== kToken) throw new TypeError('Execution objects come from start() or load()');
    this.#job = job;
    this.#tools = tools;
    this.#approver = approver;
    if (signal) {
      this.#signal = signal;
      if (signal.aborted) {
        this.#cancelled = true;
        native.abort(job);
      } else {
        this.#onAbort = () => this.cancel();
        signal.addEventListener('abort', this.#onAbort, { once: true });
      }
    }
  }

  /** The program has ended: `result` holds its outcome. */
  get done() {
    return this.#result !== null;
  }

  /** The calls it waits on, [{id, tool, args}] in program order; [] once done. */
  get pending() {
    return this.#pending;
  }

  /** The outcome once done (the Result run() gives), else null. */
  get result() {
    return this.#result;
  }

  /** Bytes of memory it holds (heaps and journal); 0 once done. */
  get heapBytes() {
    if (this.#result !== null) return 0;
    if (this.#phase !== null) return this.#heapBytes;
    return native.executionHeapBytes(this.#job);
  }

  /** Answers pending calls by id ({id: value}, or {id: Error} to fail the
   * call as its tool's error), any non-empty subset; runs on node's pool
   * until it ends or waits again; resolves with this execution. */
  async resume(answers) {
    this.#idle('resume');
    const [ids, oks, values] = answersArg(answers);
    return this[kAdvance]((job, onStep) => native.resumeExecution(job, ids, oks, values, true, onStep));
  }

  /** resume() on the calling thread (it blocks it); JS tools must be synchronous. */
  resumeSync(answers) {
    this.#idle('resumeSync');
    const [ids, oks, values] = answersArg(answers);
    return this[kDriveSync]((job) => native.resumeExecutionSync(job, ids, oks, values, true));
  }

  /** The suspended execution as bytes for load() (in another process too),
   * signed with HMAC-SHA256 when `key` (a string or bytes) is given. */
  dump(key) {
    this.#idle('dump');
    return callNative(native.dumpExecution, this.#job, key);
  }

  /** Ends it: a suspended execution is done at once with reason
   * "cancelled"; a phase in flight ends so (its promise resolves). */
  cancel() {
    if (this.#result !== null) return;
    this.#cancelled = true;
    native.abort(this.#job);
    if (this.#native) return; // the phase in flight ends cancelled
    const out = callNative(native.cancelExecution, this.#job);
    if (out !== undefined) this.#finish(out);
    const phase = this.#phase;
    if (phase !== null && phase !== kSyncPhase) {
      this.#phase = null;
      phase.resolve(this);
    }
  }

  // Whether this side answers the call: a JS tool's, or an approval when
  // an approver was given; the rest wait for resume().
  #answers(call) {
    return call.kind === 'approval' ? this.#approver !== undefined : hasOwn(this.#tools, call.tool);
  }

  #idle(what) {
    if (this.#phase !== null)
      throw new Error(`ptc-lisp: the execution is running: await it before ${what}()`);
  }

  #finish(result) {
    this.#result = finish(result);
    this.#pending = [];
    this.#heapBytes = 0;
    this.#detach();
  }

  #detach() {
    if (this.#onAbort) this.#signal.removeEventListener('abort', this.#onAbort);
    this.#onAbort = null;
  }

  #suspend(pending) {
    this.#pending = pending;
    this.#heapBytes = native.executionHeapBytes(this.#job);
  }

  // Runs phases on the pool from begin(job, onStep) on, answering the calls of
  // JS tools, until the execution ends or waits on the host's calls.
  [kAdvance](begin) {
    return new Promise((resolve, reject) => {
      const phase = { resolve, reject };
      const job = this.#job;
      const fail = (e) => {
        this.#native = false;
        if (this.#phase !== phase) return;
        this.#phase = null;
        this.#detach();
        reject(asPtcError(e));
      };
      const onStep = (error, pending, result) => {
        this.#native = false;
        if (this.#phase !== phase) return;
        try {
          if (error) return fail(error);
          if (!result && this.#cancelled) result = native.cancelExecution(job);
          if (result) {
            this.#finish(result);
          } else {
            const calls = pending.filter((c) => this.#answers(c));
            if (calls.length > 0) {
              answerAll(this.#tools, this.#approver, calls, 'start').then(([oks, values]) => {
                if (this.#phase !== phase) return; // cancelled meanwhile: the answers are dropped
                try {
                  this.#native = true;
                  native.resumeExecution(job, calls.map((c) => c.id), oks, values, false, onStep);
                } catch (e) {
                  fail(e);
                }
              });
              return;
            }
            this.#suspend(pending);
          }
          this.#phase = null;
          resolve(this);
        } catch (e) {
          fail(e);
        }
      };
      this.#phase = phase;
      try {
        this.#native = true;
        begin(job, onStep);
      } catch (e) {
        fail(e);
      }
    });
  }

  // The same on the calling thread: first(job) is the first phase's outcome.
  [kDriveSync](first) {
    this.#phase = kSyncPhase;
    try {
      let out = callNative(first, this.#job);
      for (;;) {
        if (!Array.isArray(out)) {
          this.#finish(out);
          break;
        }
        if (this.#cancelled) {
          this.#finish(callNative(native.cancelExecution, this.#job));
          break;
        }
        const calls = out.filter((c) => this.#answers(c));
        if (calls.length === 0) {
          this.#suspend(out);
          break;
        }
        const [oks, values] = answerAllSync(this.#tools, this.#approver, calls, 'a sync execution');
        if (this.#result !== null) break; // a tool cancelled it
        out = callNative(native.resumeExecutionSync, this.#job, calls.map((c) => c.id), oks, values,
                         false);
      }
    } finally {
      this.#phase = null;
    }
    return this;
  }
}

// Options of start(): defer is index.js's.
function startArgs(program, options) {
  const o = splitOptions(options, ['defer', 'approver'], 'start');
  const job = native.createExecution(programArg(program), optionsArg(o.rest), o.defer);
  return new Execution(kToken, job, o.tools, o.signal, approverArg(o.approver));
}

/** Starts a program as an execution: it runs on node's pool until it ends
 * or waits on calls of the tools in `defer` (names, or true for every tool
 * `tools` does not give); resolves with the Execution. */
async function start(program, options) {
  const execution = startArgs(program, options);
  return execution[kAdvance](native.start);
}

/** start() on the calling thread; JS tools must be synchronous. */
function startSync(program, options) {
  if (signalOf(options) !== undefined)
    throw new TypeError('startSync takes no signal: it blocks its thread (use start)');
  const execution = startArgs(program, options);
  return execution[kDriveSync](native.startSync);
}

// What load() takes from the snapshot, never from its options.
const kFromSnapshot = ['context', 'memory', 'history', 'signature', 'floatPrecision',
  'filterContext', 'budget', 'defer'];

function loadArgs(snapshot, options) {
  const o = splitOptions(options, ['key', 'approver'], 'load');
  if (o.rest) {
    for (const name of kFromSnapshot) {
      if (o.rest[name] !== undefined)
        throw new TypeError(`load takes ${name} from the snapshot, not from its options` +
          (name === 'defer' ? ' (every tool `tools` does not give is deferred)' : ''));
    }
  }
  const job = callNative(native.createLoad, snapshot, o.rest, o.key);
  return new Execution(kToken, job, o.tools, o.signal, approverArg(o.approver));
}

/** An execution from dump()'s bytes (in any process): the program replays
 * against its journal to the same pending calls, on node's pool. Rejects
 * with a PtcError: snapshot_error (not a snapshot, corrupt, a bad or missing
 * HMAC), snapshot_divergence (another engine, a changed program). */
async function load(snapshot, options) {
  const execution = loadArgs(snapshot, options);
  return execution[kAdvance](native.loadExecution);
}

/** load() on the calling thread. */
function loadSync(snapshot, options) {
  if (signalOf(options) !== undefined)
    throw new TypeError('loadSync takes no signal: it blocks its thread (use load)');
  const execution = loadArgs(snapshot, options);
  return execution[kDriveSync](native.loadExecutionSync);
}

/** What a snapshot holds, checked as load() checks it, without running it:
 * {engine, source, limits, tools, pending}. Throws a PtcError (snapshot_error). */
function inspectSnapshot(snapshot, key) {
  return callNative(native.inspectSnapshot, snapshot, key);
}

// ---------------------------------------------------------------- session

/** A REPL over runs (ptc::Session): memory carries from one eval to the
 * next (functions too), and *1 *2 *3 are the values of the last successful
 * evals; a failed eval changes neither. Evals run one at a time, in order. */
class Session {
  #handle;
  #tools;
  #inFlight = 0;
  #tail = Promise.resolve();

  constructor(options) {
    const o = splitOptions(options, ['historyDepth'], 'Session');
    if (o.signal !== undefined) throw new TypeError('a Session takes no signal: give one to eval()');
    this.#handle = native.createSession(optionsArg(o.rest), o.historyDepth);
    this.#tools = o.tools;
  }

  /** Runs `program` (a string or a Program) as run() does, with the
   * session's options, memory and history; resolves with its Result. */
  eval(program, options) {
    let signal;
    try {
      signal = this.#evalSignal(options);
    } catch (e) {
      return Promise.reject(e);
    }
    this.#inFlight++;
    const next = this.#tail.then(() => {
      const execution = this.#execution(program, signal);
      return execution[kAdvance](native.start);
    }).then((execution) => execution.result);
    const settled = () => {
      this.#inFlight--;
    };
    this.#tail = next.then(settled, settled);
    return next;
  }

  /** eval() on the calling thread; tools must be synchronous. */
  evalSync(program) {
    this.#idle('evalSync');
    const execution = this.#execution(program, undefined);
    return execution[kDriveSync](native.startSync).result;
  }

  /** The memory: what the evals' def/defn bound (functions as their printed form). */
  get memory() {
    return native.sessionMemory(this.#handle);
  }

  /** The values of the last successful evals, oldest first (*1 is the last). */
  get history() {
    return native.sessionHistory(this.#handle);
  }

  /** Forgets the memory and the history. */
  reset() {
    this.#idle('reset');
    native.sessionReset(this.#handle);
  }

  #evalSignal(options) {
    if (options === undefined || options === null) return undefined;
    if (typeof options !== 'object') throw new TypeError('eval options must be an object');
    for (const key of Object.keys(options))
      if (key !== 'signal') throw new TypeError(`eval takes only a signal, not '${key}' (give options to the Session)`);
    return signalOf(options);
  }

  #execution(program, signal) {
    const job = native.sessionJob(this.#handle, programArg(program));
    return new Execution(kToken, job, this.#tools, signal);
  }

  #idle(what) {
    if (this.#inFlight > 0) throw new Error(`ptc-lisp: an eval is in flight: await it before ${what}()`);
  }
}

const version = native.version;

module.exports = {
  WorkerPool,
  run,
  runSync,
  compile,
  prepareContext,
  toolSchema,
  renderError,
  lispEvalTool,
  Program,
  PreparedContext,
  PtcError,
  version,
  start,
  startSync,
  load,
  loadSync,
  inspectSnapshot,
  Execution,
  Session,
  approve,
  reject,
};
