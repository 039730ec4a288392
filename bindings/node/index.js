'use strict';
// ptc-lisp for Node.js: run PTC-Lisp programs (the sandboxed Clojure subset
// LLMs write to call tools and transform data) with a context, tools and
// limits. The engine is the Node-API addon ptc_lisp.node beside this file
// (libptc linked in statically). See README.md and index.d.ts.
//
// run(): the program runs on a thread of node's pool, never on the event
// loop. Its tool calls are deferred: the run suspends with every call it
// waits on (all the calls of a pmap together), this file calls the JS tools
// on the main thread, awaits their promises together, and resumes the run
// with the answers on the pool again, until it ends.

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
}

/** Imports `context` (an object, or its JSON text) once. Throws a PtcError
 * for malformed JSON or past `maxBytes`, a TypeError for what is no object. */
function prepareContext(context, options) {
  const maxBytes = options !== null && typeof options === 'object' ? options.maxBytes : undefined;
  const [handle, error] = native.prepareContext(context, maxBytes);
  if (error) throw new PtcError(error);
  return new PreparedContext(kToken, handle);
}

// The options as the addon takes them: a PreparedContext as its handle.
function optionsArg(options) {
  return options !== null && typeof options === 'object' && options.context instanceof PreparedContext
    ? { ...options, context: options.context[kHandle] }
    : options;
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

function finish(result) {
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
function callTools(tools, pending) {
  const n = pending.length;
  const oks = new Array(n);
  const values = new Array(n);
  let left = n;
  return new Promise((resolve) => {
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

// run() and lispEvalTool's execute: `profile` asks for the lisp_eval payload.
function startRun(program, options, profile) {
  return new Promise((resolve, reject) => {
    let job;
    let signal;
    const tools = toolsOf(options);
    try {
      signal = signalOf(options);
      job = native.createJob(programArg(program), optionsArg(options), profile);
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
        callTools(tools, pending).then(([oks, values]) => {
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
  return startRun(program, options, undefined);
}

/** Runs a program on the calling thread; tools must answer synchronously. */
function runSync(program, options) {
  if (signalOf(options) !== undefined)
    throw new TypeError('runSync takes no signal: it blocks its thread (use run)');
  const tools = toolsOf(options);
  const job = native.createJob(programArg(program), optionsArg(options));
  let out = native.startSync(job);
  while (Array.isArray(out)) {
    const n = out.length;
    const oks = new Array(n);
    const values = new Array(n);
    for (let i = 0; i < n; i++) {
      try {
        const v = tools[out[i].tool](out[i].args);
        if (isThenable(v)) {
          Promise.resolve(v).catch(() => {}); // never an unhandled rejection
          oks[i] = false;
          values[i] = `tool ${out[i].tool} returned a Promise: runSync needs synchronous tools ` +
            '(use run for async ones)';
        } else {
          oks[i] = true;
          values[i] = v;
        }
      } catch (e) {
        oks[i] = false;
        values[i] = messageOf(e);
      }
    }
    out = native.resumeSync(job, oks, values);
  }
  return finish(out);
}

/** Reads, analyzes and compiles a program once; throws a PtcError when it
 * does not compile. `options` gives what compilation depends on: the tools
 * (by name), the memory's names and the compile limits. */
function compile(program, options) {
  if (typeof program !== 'string') throw new TypeError('program must be a string');
  if (options !== undefined && options !== null && typeof options === 'object' &&
      options.signal !== undefined)
    throw new TypeError('compile takes no signal');
  const [handle, error] = native.compile(program, options);
  if (error) throw new PtcError(error);
  return new Program(kToken, handle);
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
  const { tools, profile, context, limits } = config;
  for (const key of Object.keys(config)) {
    if (!['tools', 'profile', 'context', 'limits'].includes(key))
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
    const result = await startRun(args.program, options, profileName);
    return JSON.parse(result.payload);
  };
  return {
    name: schema.name,
    description: schema.description,
    inputSchema: schema.inputSchema,
    parameters: schema.inputSchema,
    execute,
  };
}

const version = native.version;

module.exports = {
  run,
  runSync,
  compile,
  prepareContext,
  toolSchema,
  lispEvalTool,
  Program,
  PreparedContext,
  PtcError,
  version,
};
