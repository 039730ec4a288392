// Isolated runs: WorkerPool and the isolate option of run() and runSync().
// The program runs in a jailed worker process; its tool calls come back to
// the main thread, where the JS tools run (sync or async, each answered as
// it settles); the Result is the one an in-process run gives. The pool
// finds the ptc-worker the package carries beside ptc_lisp.node.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { after, test } from 'node:test';
import { Worker, isMainThread } from 'node:worker_threads';

import {
  PtcError, Session, WorkerPool, compile, lispEvalTool, load, run, runSync, start, startSync,
} from 'ptc-lisp';

const pool = new WorkerPool({ workers: 2 });
after(() => pool.close());

// A Result without what differs from run to run (timings).
function stable(result) {
  const { usage, error, ...rest } = result;
  return {
    ...rest,
    toolCalls: result.toolCalls.map(({ durationMs, ...call }) => call),
    pmapCalls: result.pmapCalls.map(({ durationMs, ...call }) => call),
    error: error && {
      reason: error.reason, message: error.message, hint: error.hint, line: error.line,
      column: error.column, text: error.text, failValue: error.failValue,
    },
  };
}

const USERS = { 7: 'Ada', 8: 'Bo' };
const options = {
  context: { orders: [{ user: 7, total: 30 }, { user: 8, total: 12 }] },
  memory: { base: 100 },
  tools: {
    'get-user': ({ id }) => {
      if (!(id in USERS)) throw new Error(`no user ${id}`);
      return { name: USERS[id], id };
    },
    'get-later': async ({ id }) => ({ id }),
  },
};

const programs = [
  '(+ 1 2)',
  '{:a [1 2.5 nil] :b #{"x"} "k" :v}',
  '(println "hi") (prn [1 2]) :done',
  '(def x 10) (defn times-x [n] (* n x base)) (times-x 4)',
  '(do\n  (+ 1 :a))',
  '(fail {:reason "x" :n 1})',
  '(return 5)',
  '(loop [i 0] (recur (inc i)))',
  '(mapv #(:name (tool/get-user {:id (:user %)})) (filter #(> (:total %) 20) data/orders))',
  '(tool/get-user {:id 3})',
  '[(tool/get-later {:id 1}) (tool/get-later {:id 2})]',
  '(pmap inc (range 8))',
];

test('an isolated run gives the in-process Result, async and sync', async () => {
  for (const program of programs) {
    const here = await run(program, options);
    const there = await run(program, { ...options, isolate: pool });
    assert.deepEqual(stable(there), stable(here), program);
    const syncOptions = { ...options, tools: { 'get-user': options.tools['get-user'] } };
    if (program.includes('get-later')) continue; // runSync needs synchronous tools
    assert.deepEqual(stable(runSync(program, { ...syncOptions, isolate: pool })),
                     stable(runSync(program, syncOptions)), program);
  }
});

test('an unknown tool fails as in-process, its hint naming the tools', async () => {
  // (In process, run()'s tools are deferred and the hint says the run has
  // none; isolated, they are the run's tools.)
  const r = await run('(tool/no-such-tool {})', { ...options, isolate: pool });
  assert.equal(r.error.reason, 'unknown_tool');
  assert.equal(r.error.message, (await run('(tool/no-such-tool {})', options)).error.message);
  assert.equal(r.error.hint, 'available tools: tool/get-later, tool/get-user');
});

test('tools run on the main thread, each answered as it settles', async () => {
  let onMain = true;
  const spans = [];
  const slow = async ({ n }) => {
    onMain &&= isMainThread;
    const start = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 150)); // the tool's own latency
    spans.push({ n, start, end: performance.now() });
    return n * 10;
  };
  const r = await run('(pmap #(tool/slow {:n %}) [1 2 3])', { tools: { slow }, isolate: pool });
  assert.equal(r.ok, true, r.error?.text);
  assert.deepEqual(r.value, [10, 20, 30]);
  assert.equal(onMain, true);
  assert.equal(spans.length, 3);
  // All three were in flight together: each started before the first ended.
  const firstEnd = Math.min(...spans.map((s) => s.end));
  assert.ok(spans.every((s) => s.start < firstEnd), JSON.stringify(spans));
});

test('a tool that throws or rejects is a tool_error; a Promise in runSync too', async () => {
  const tools = {
    bad: () => { throw new Error('broken'); },
    rejects: async () => { throw new Error('rejected'); },
    later: async () => 1,
  };
  let r = await run('(tool/bad {})', { tools, isolate: pool });
  assert.equal(r.error.reason, 'tool_error');
  assert.match(r.error.message, /broken/);
  r = await run('(tool/rejects {})', { tools, isolate: pool });
  assert.match(r.error.message, /rejected/);
  r = runSync('(tool/later {})', { tools, isolate: pool });
  assert.equal(r.error.reason, 'tool_error');
  assert.match(r.error.message, /returned a Promise: runSync needs synchronous tools/);
});

test('an abort signal stops an isolated run waiting on its tool', async () => {
  const controller = new AbortController();
  const never = () => new Promise(() => {});
  const options = { tools: { never }, memory: { a: 1 }, signal: controller.signal };
  const pending = run('(do\n (tool/never {}))', { ...options, isolate: pool });
  setTimeout(() => controller.abort(), 50);
  const r = await pending;
  assert.equal(r.ok, false);
  assert.equal(r.error.reason, 'cancelled');
  // As in process.
  const again = new AbortController();
  const inProcess = run('(do\n (tool/never {}))', { ...options, signal: again.signal });
  setTimeout(() => again.abort(), 20);
  assert.deepEqual(stable(r), stable(await inProcess));
  // The pool is not left busy.
  for (let i = 0; i < 50 && pool.stats.busy > 0; i++) await new Promise((s) => setTimeout(s, 10));
  assert.equal(pool.stats.busy, 0);
});

test('limits, signatures, compiled programs and payloads reach the worker', async () => {
  const spin = '(loop [i 0] (if (< i 10000) (do (loop [j 0] (if (< j 10000) (recur (inc j)))) ' +
    '(recur (inc i)))))';
  let r = await run(spin, { isolate: pool, timeout: 50, loopLimit: 10000 });
  assert.equal(r.error.reason, 'timeout');
  r = await run('{:total "x"}', { isolate: pool, signature: '{total :int}' });
  assert.equal(r.error.reason, 'validation_error');
  const program = compile('(* 6 data/n)');
  const runs = pool.stats.runs;
  assert.equal((await run(program, { context: { n: 7 }, isolate: pool })).value, 42);
  assert.equal(runSync(program, { context: { n: 7 }, isolate: pool }).value, 42);
  assert.equal(pool.stats.runs, runs + 2);
  r = await run('(+ 1 2)', { isolate: pool, payload: true });
  assert.equal(r.payload.status, 'ok');
  assert.equal(r.payload.result, 'user=> 3');
});

test('isolate: true is the default pool, shared by the process', async () => {
  const shared = WorkerPool.default();
  assert.equal(WorkerPool.default(), shared);
  const runs = shared.stats.runs;
  assert.equal((await run('(* 6 7)', { isolate: true })).value, 42);
  assert.equal(runSync('(* 6 7)', { isolate: true }).value, 42);
  assert.equal((await run('(* 6 7)', { isolate: false })).value, 42);
  assert.equal(shared.stats.runs, runs + 2);
  // A worker thread's default pool is the same one.
  const worker = new Worker(`
    const { parentPort } = require('node:worker_threads');
    const { run } = require('ptc-lisp');
    run('(+ 40 2)', { isolate: true, tools: { t: async () => 1 } }).then((r) => parentPort.postMessage(r.value));
  `, { eval: true });
  const [value] = await once(worker, 'message');
  assert.equal(value, 42);
  await once(worker, 'exit');
  assert.equal(shared.stats.runs, runs + 3);
});

test('stats and recycling', async () => {
  const stats = pool.stats;
  assert.deepEqual(Object.keys(stats).sort(),
                   ['busy', 'contextsHandedOver', 'contextsSent', 'died', 'killed', 'namespaces',
                    'recycled', 'runs', 'started', 'workerPath', 'workers']);
  assert.equal(stats.workers, 2);
  assert.equal(stats.died, 0);
  assert.equal(basename(stats.workerPath), 'ptc-worker');
  assert.ok(existsSync(stats.workerPath));
  assert.equal(pool.workerPath, stats.workerPath);
  const small = new WorkerPool({ workers: 1, maxRuns: 2, cpuHandoff: false });
  for (let i = 0; i < 5; i++) assert.equal((await run('(+ 1 2)', { isolate: small })).value, 3);
  assert.equal(small.stats.runs, 5);
  assert.equal(small.stats.recycled, 2);
  small.close();
  assert.throws(() => small.stats, /closed/);
  assert.throws(() => runSync('1', { isolate: small }), /closed/);
});

test('the lisp_eval tool runs isolated', async () => {
  const tool = lispEvalTool({ tools: options.tools, isolate: pool });
  const runs = pool.stats.runs;
  const payload = await tool.execute({ program: '(:name (tool/get-user {:id 7}))' });
  assert.equal(payload.status, 'ok');
  assert.equal(payload.result, 'user=> "Ada"');
  assert.equal(pool.stats.runs, runs + 1);
});

test('executions, sessions and compile refuse isolate', async () => {
  await assert.rejects(start('(+ 1 2)', { isolate: pool }), /start cannot run isolated/);
  assert.throws(() => startSync('(+ 1 2)', { isolate: true }), /start cannot run isolated/);
  await assert.rejects(load(new Uint8Array(4), { isolate: pool }), /load cannot run isolated/);
  assert.throws(() => new Session({ isolate: pool }), /Session cannot run isolated/);
  assert.throws(() => compile('1', { isolate: pool }), /compile takes no isolate/);
  assert.equal(startSync('(+ 1 2)', { isolate: false }).result.value, 3);
});

test('bad pools and options are refused clearly', () => {
  assert.throws(() => new WorkerPool({ workerPath: '/nonexistent/ptc-worker' }), (e) => {
    assert.equal(e.code, 'ERR_PTC_UNAVAILABLE');
    assert.match(e.message, /\/nonexistent\/ptc-worker could not be started/);
    return true;
  });
  assert.throws(() => new WorkerPool({ threads: 2 }), /unknown WorkerPool option 'threads'/);
  assert.throws(() => new WorkerPool({ workers: -1 }), RangeError);
  assert.throws(() => new WorkerPool({ namespaces: 1 }), TypeError);
  assert.throws(() => new WorkerPool({ cpuHandoff: 'yes' }), TypeError);
  assert.throws(() => runSync('1', { isolate: 'yes' }), /option isolate must be a WorkerPool/);
  assert.ok(PtcError);
});
