// The event loop stays free while programs run; AbortSignal cancels them.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';

import { run } from 'ptc-lisp';

const FIB = '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))';
// 200 to 600 ms of computing (18M calls, no allocation), depending on the machine.
const LONG = `${FIB} (fib 34)`;
// Hours: only a cancel or a timeout ends it.
const ENDLESS = `${FIB} (fib 60)`;

test('a long program runs off the main thread: timers keep firing', async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const t0 = performance.now();
  const r = await run(LONG, { timeout: 10000 });
  const elapsed = performance.now() - t0;
  clearInterval(timer);
  assert.equal(r.ok, true, r.error?.text);
  assert.equal(r.value, 5702887);
  assert.ok(elapsed > 100, `the program took only ${elapsed} ms`);
  // A blocked loop would tick at most once; a free one about elapsed/10 times.
  assert.ok(ticks >= Math.floor(elapsed / 10 / 3), `${ticks} ticks in ${elapsed} ms`);
});

test('a short run without tools is done in place: no trip through the pool', async () => {
  // A run on the pool resolves after node's poll phase, so after this immediate.
  let immediate = false;
  setImmediate(() => { immediate = true; });
  const r = await run('(reduce + (range 100))', { context: { unused: 1 } });
  assert.equal(r.value, 4950);
  assert.equal(immediate, false, 'the run went through the pool');
  // One past the in-place try runs again on the pool, under its own timeout.
  const slow = await run(LONG, { timeout: 5 });
  assert.equal(slow.error?.reason, 'timeout');
  assert.match(slow.error.message, /after 5 ms/);
});

test('runs proceed side by side', async () => {
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      run('(+ data/i (tool/one {}))', { context: { i }, tools: { one: async () => 1 } })));
  assert.deepEqual(results.map((r) => r.value), [1, 2, 3, 4, 5, 6, 7, 8]);
});

test('an AbortSignal stops a running program: cancelled', async () => {
  const controller = new AbortController();
  // The tool aborts once the program is running again after it answered.
  const go = () => { setImmediate(() => controller.abort()); return 1; };
  const t0 = performance.now();
  const r = await run(`(tool/go {}) ${ENDLESS}`,
                      { tools: { go }, signal: controller.signal, timeout: 20000 });
  assert.equal(r.ok, false);
  assert.equal(r.error.reason, 'cancelled');
  assert.ok(performance.now() - t0 < 5000);
});

test('an AbortSignal ends a program waiting on a tool that never answers', async () => {
  const controller = new AbortController();
  const never = () => { setImmediate(() => controller.abort()); return new Promise(() => {}); };
  const r = await run('(tool/never {})', { tools: { never }, signal: controller.signal });
  assert.equal(r.error.reason, 'cancelled');
});

test('an AbortSignal aborted before the run: cancelled at once', async () => {
  const r = await run(ENDLESS, { signal: AbortSignal.abort(), timeout: 20000 });
  assert.equal(r.error.reason, 'cancelled');
});

test('the signal is let go of when the run ends', async () => {
  const controller = new AbortController();
  const { signal } = controller;
  const listening = () => getEventListeners(signal, 'abort').length;
  // A run with tools goes through the pool, where it listens to its signal.
  let whileRunning = 0;
  const tools = { look: () => { whileRunning = listening(); return 1; } };
  const ok = await run('(tool/look {})', { tools, signal });
  assert.equal(ok.value, 1, ok.error?.text);
  assert.equal(whileRunning, 1, 'the run did not listen to its signal');
  assert.equal(listening(), 0, 'the run kept listening to its signal once it ended');
  // A run that fails lets go of it too.
  whileRunning = 0;
  const failed = await run('(tool/look {}) (/ 1 0)', { tools, signal });
  assert.equal(failed.ok, false);
  assert.equal(whileRunning, 1);
  assert.equal(listening(), 0, 'a failed run kept listening to its signal');
  controller.abort(); // nothing left to cancel, nothing thrown
});

test('timeout counts running time, not the time tools take', async () => {
  const slow = () => new Promise((resolve) => setTimeout(() => resolve(1), 150));
  const r = await run('(tool/slow {})', { tools: { slow }, timeout: 100 });
  assert.equal(r.ok, true, r.error?.text);
});
