// Executions: start() suspends on the calls of deferred tools, resume()
// answers them (values or errors), dump() writes the execution to bytes that
// load() continues from (in another process too), cancel() ends it. The
// outcome is the Result run() gives with synchronous tools that answer the
// same.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  Execution, PtcError, compile, inspectSnapshot, load, loadSync, run, runSync, start, startSync,
} from 'ptc-lisp';

const here = dirname(fileURLToPath(import.meta.url));

// The parts of a Result that do not depend on timing.
function stable(r) {
  return {
    ok: r.ok,
    value: r.value,
    printed: r.printed,
    prints: r.prints,
    memory: r.memory,
    returned: r.returned,
    error: r.error && { reason: r.error.reason, message: r.error.message },
    toolCalls: r.toolCalls.map(({ durationMs, ...c }) => c),
    pmapCalls: r.pmapCalls.map(({ durationMs, ...c }) => c),
  };
}

const ORDER = `
(def user (tool/get-user {:id data/id}))
(println "user" (:name user))
(def ok (tool/approve {:user (:name user) :amount 30}))
(if ok {:user (:name user) :total (+ 30 (tool/fee {:amount 30}))} :refused)`;

const users = { 7: { name: 'Ada' } };
const getUser = ({ id }) => users[id];
const fee = ({ amount }) => amount / 10;

test('start suspends on a deferred call; resume answers it; the result is run\'s', async () => {
  const ex = await start(ORDER, { context: { id: 7 }, tools: { 'get-user': getUser, fee }, defer: ['approve'] });
  assert.ok(ex instanceof Execution);
  assert.equal(ex.done, false);
  assert.equal(ex.result, null);
  assert.deepEqual(ex.pending, [{ id: 'c1', tool: 'approve', args: { user: 'Ada', amount: 30 } }]);
  assert.ok(ex.heapBytes > 0);
  assert.equal(await ex.resume({ c1: true }), ex);
  assert.equal(ex.done, true);
  assert.deepEqual(ex.pending, []);
  assert.equal(ex.heapBytes, 0);
  assert.equal(ex.result.ok, true, ex.result.error?.text);
  assert.deepEqual(ex.result.value, { user: 'Ada', total: 33 });

  const expected = runSync(ORDER, { context: { id: 7 }, tools: { 'get-user': getUser, fee, approve: () => true } });
  assert.deepEqual(stable(ex.result), stable(expected));
  assert.deepEqual(stable(ex.result), stable(await run(ORDER, {
    context: { id: 7 }, tools: { 'get-user': getUser, fee, approve: async () => true },
  })));
});

test('an Error answer fails the call as a throwing tool does', async () => {
  const ex = await start(ORDER, { context: { id: 7 }, tools: { 'get-user': getUser, fee }, defer: ['approve'] });
  await ex.resume({ c1: new Error('over the limit') });
  assert.equal(ex.done, true);
  assert.equal(ex.result.ok, false);
  assert.ok(ex.result.error instanceof PtcError);
  assert.equal(ex.result.error.reason, 'tool_error');
  assert.match(ex.result.error.message, /over the limit/);
  const expected = runSync(ORDER, {
    context: { id: 7 },
    tools: { 'get-user': getUser, fee, approve: () => { throw new Error('over the limit'); } },
  });
  assert.deepEqual(stable(ex.result), stable(expected));
});

test('an answer that is a map with an error key is data, not a failure', () => {
  const ex = startSync('(tool/lookup {})', { defer: ['lookup'] });
  ex.resumeSync({ c0: { error: 'not found' } });
  assert.equal(ex.result.ok, true);
  assert.deepEqual(ex.result.value, { error: 'not found' });
});

test('the calls of a pmap are pending together; any subset may be answered', async () => {
  const program = '(pmap #(tool/price {:sku %}) ["a" "b" "c"])';
  const ex = await start(program, { defer: ['price'] });
  assert.deepEqual(ex.pending.map((c) => c.tool), ['price', 'price', 'price']);
  assert.deepEqual(ex.pending.map((c) => c.args.sku), ['a', 'b', 'c']);
  assert.equal(new Set(ex.pending.map((c) => c.id)).size, 3);
  const [a, b, c] = ex.pending.map((call) => call.id);
  await ex.resume({ [b]: 20 });
  assert.deepEqual(ex.pending.map((call) => call.id), [a, c]);
  await ex.resume({ [a]: 10, [c]: 30 });
  assert.deepEqual(ex.result.value, [10, 20, 30]);
  const expected = runSync(program, { tools: { price: ({ sku }) => ({ a: 10, b: 20, c: 30 })[sku] } });
  // The ledger lists parallel calls as they end (here b first).
  const bySku = (r) => ({ ...stable(r), toolCalls: stable(r).toolCalls.sort((x, y) => x.args.sku.localeCompare(y.args.sku)) });
  assert.deepEqual(bySku(ex.result), bySku(expected));
  assert.equal(ex.result.toolCalls[0].args.sku, 'b');
});

test('in a pmap, JS tools are called and only deferred calls reach the host', async () => {
  const called = [];
  const double = async ({ n }) => { called.push(n); return n * 2; };
  const ex = await start('(pmap #(if (odd? %) (tool/double {:n %}) (tool/ask {:n %})) [1 2 3 4])', {
    tools: { double }, defer: ['ask'],
  });
  assert.deepEqual(called.sort(), [1, 3]);
  assert.deepEqual(ex.pending.map((c) => [c.tool, c.args.n]), [['ask', 2], ['ask', 4]]);
  await ex.resume(Object.fromEntries(ex.pending.map((c) => [c.id, -c.args.n])));
  assert.deepEqual(ex.result.value, [2, -2, 6, -4]);
});

test('defer: true defers every tool that tools does not give', () => {
  const ex = startSync('(+ (tool/one {}) (tool/two {}))', { defer: true, tools: { one: () => 1 } });
  assert.deepEqual(ex.pending.map((c) => c.tool), ['two']);
  ex.resumeSync({ [ex.pending[0].id]: 41 });
  assert.equal(ex.result.value, 42);
});

test('a program with no deferred call is done at once', async () => {
  const ex = await start('(+ 1 2)');
  assert.equal(ex.done, true);
  assert.equal(ex.result.value, 3);
  assert.deepEqual(ex.pending, []);
  const sync = startSync('(tool/x {})', { tools: { x: () => 5 } });
  assert.equal(sync.done, true);
  assert.equal(sync.result.value, 5);
});

test('a compiled Program starts (its deferred tools named at compile time)', async () => {
  const program = compile('(* 2 (tool/ask {}))', { tools: { ask: () => {} } });
  for (let i = 1; i <= 2; i++) {
    const ex = await start(program, { defer: ['ask'] });
    await ex.resume({ c0: i });
    assert.equal(ex.result.value, 2 * i);
  }
});

test('refused resumes throw the engine\'s error and change nothing', async () => {
  const ex = await start('(+ (tool/a {}) (tool/a {}))', { defer: ['a'] });
  await assert.rejects(ex.resume({ nope: 1 }),
                       (e) => e instanceof PtcError && e.reason === 'args_error' &&
                         /no pending call has the id "nope"/.test(e.message) && /c0/.test(e.hint));
  await assert.rejects(ex.resume({}), (e) => e instanceof PtcError && /at least one answer/.test(e.message));
  assert.throws(() => ex.resumeSync({ c0: 1, c9: 2 }), /no pending call has the id "c9"/);
  assert.throws(() => ex.resumeSync({ c0: () => 1 }), TypeError); // no JSON form: the host's mistake
  assert.deepEqual(ex.pending.map((c) => c.id), ['c0']); // unchanged
  await ex.resume({ c0: 1 });
  await assert.rejects(ex.resume({ c0: 1 }), (e) => e instanceof PtcError && /answered before/.test(e.message));
  await ex.resume({ c1: 2 });
  assert.equal(ex.result.value, 3);
  await assert.rejects(ex.resume({ c1: 1 }),
                       (e) => e instanceof PtcError && e.reason === 'args_error' && /is done/.test(e.message));
  assert.throws(() => ex.dump(), (e) => e instanceof PtcError && /nothing to dump/.test(e.message));
  assert.throws(() => ex.resumeSync([1]), TypeError);
});

test('a running execution takes nothing but cancel()', async () => {
  const ex = await start('(tool/a {})', { defer: ['a'] });
  const resumed = ex.resume({ c0: 1 });
  assert.throws(() => ex.dump(), /running/);
  assert.throws(() => ex.resumeSync({ c0: 1 }), /running/);
  await resumed;
  assert.equal(ex.result.value, 1);
});

test('bad options are TypeErrors', async () => {
  await assert.rejects(start('1', { defer: 'a' }), TypeError);
  await assert.rejects(start('1', { defer: [1] }), TypeError);
  await assert.rejects(start('(tool/a {})', { defer: ['a'], tools: { a: () => 1 } }), /is in both tools and defer/);
  await assert.rejects(start('1', { nope: 1 }), /unknown option 'nope'/);
  await assert.rejects(start(42), TypeError);
  assert.throws(() => startSync('1', { signal: new AbortController().signal }), TypeError);
  const bytes = startSync('(tool/a {})', { defer: ['a'] }).dump();
  await assert.rejects(load(bytes, { context: { a: 1 } }), /takes context from the snapshot/);
  await assert.rejects(load(bytes, { defer: ['a'] }), TypeError);
  await assert.rejects(load('not bytes'), TypeError);
});

test('dump and load in this process: the same pending calls, the same result', async () => {
  const tools = { 'get-user': getUser, fee };
  const ex = await start(ORDER, { context: { id: 7 }, tools, defer: ['approve'] });
  const bytes = ex.dump();
  assert.ok(bytes instanceof Uint8Array && bytes.length > 0);
  const info = inspectSnapshot(bytes);
  assert.equal(info.source, ORDER);
  assert.deepEqual(info.pending, ['c1']);
  assert.deepEqual([...info.tools].sort(), ['approve', 'fee', 'get-user']);
  assert.match(info.engine, /^ptc /);
  assert.equal(info.limits.timeout, 1000);
  assert.equal(info.limits.maxToolCalls, null);

  const loaded = await load(bytes, { tools: { fee } }); // get-user answered already: the journal has it
  assert.deepEqual(loaded.pending, ex.pending);
  await loaded.resume({ c1: true });
  await ex.resume({ c1: true });
  assert.deepEqual(stable(loaded.result), stable(ex.result));

  const again = loadSync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), { tools: { fee } });
  again.resumeSync({ c1: false });
  assert.equal(again.result.value, 'refused');
});

test('after load, a tool not given is the host\'s', async () => {
  const ex = await start(ORDER, { context: { id: 7 }, tools: { 'get-user': getUser, fee }, defer: ['approve'] });
  const loaded = await load(ex.dump()); // fee has no function now
  await loaded.resume({ c1: true });
  assert.deepEqual(loaded.pending, [{ id: 'c2', tool: 'fee', args: { amount: 30 } }]);
  await loaded.resume({ c2: 1 });
  assert.deepEqual(loaded.result.value, { user: 'Ada', total: 31 });
});

function runNode(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
  });
}

test('dump, load in another process, resume: the same result', async () => {
  const program = `
(def xs (pmap #(tool/ask {:n %}) [1 2]))
(println "asked" xs)
(def d (tool/double {:n (reduce + xs)}))
{:xs xs :d d :t (tool/tell {:d d})}`;
  const key = 'the key';
  const ex = await start(program, { tools: { double: ({ n }) => n * 2 }, defer: ['ask', 'tell'] });
  assert.equal(ex.pending.length, 2);
  const dir = mkdtempSync(join(tmpdir(), 'ptc-lisp-snapshot-'));
  try {
    const file = join(dir, 'execution.snapshot');
    writeFileSync(file, ex.dump(key));
    const answers = { ask: 5, tell: 'told' };
    const other = JSON.parse(await runNode([join(here, 'helpers/load-and-resume.mjs'), file, key,
                                            JSON.stringify(answers)]));
    assert.notEqual(other.pid, process.pid);
    // Here: the same answers to the same calls.
    const seen = [];
    while (!ex.done) {
      seen.push(ex.pending.map((c) => ({ ...c })));
      await ex.resume(Object.fromEntries(ex.pending.map((c) => [c.id, answers[c.tool]])));
    }
    assert.deepEqual(other.seen, seen);
    assert.deepEqual(other.result, JSON.parse(JSON.stringify({
      ok: ex.result.ok, value: ex.result.value, printed: ex.result.printed, prints: ex.result.prints,
      memory: ex.result.memory, toolCalls: ex.result.toolCalls.map(({ durationMs, ...c }) => c),
    })));
    assert.deepEqual(other.result.value, { xs: [5, 5], d: 20, t: 'told' });
    assert.deepEqual(other.result.prints, ['asked [5 5]']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a snapshot is refused with snapshot_error for a wrong, missing or unexpected key', async () => {
  const ex = await start('(tool/a {})', { defer: ['a'] });
  const signed = ex.dump('right');
  const isSnapshotError = (e) => e instanceof PtcError && e.reason === 'snapshot_error';
  await assert.rejects(load(signed, { key: 'wrong' }), isSnapshotError);
  await assert.rejects(load(signed), isSnapshotError);
  assert.throws(() => loadSync(signed, { key: Buffer.from('wrong') }), isSnapshotError);
  assert.throws(() => inspectSnapshot(signed, 'wrong'), isSnapshotError);
  await assert.rejects(load(ex.dump(), { key: 'right' }), isSnapshotError); // unsigned, a key expected
  const corrupt = Buffer.from(signed);
  corrupt[corrupt.length >> 1] ^= 0xff;
  await assert.rejects(load(corrupt, { key: 'right' }), isSnapshotError);
  await assert.rejects(load(Buffer.from('no snapshot at all')), isSnapshotError);
  assert.throws(() => inspectSnapshot(signed.subarray(0, 10), 'right'), isSnapshotError);
  // The right key, as a string or as its bytes.
  const loaded = await load(signed, { key: Buffer.from('right') });
  await loaded.resume({ c0: 'fine' });
  assert.equal(loaded.result.value, 'fine');
  assert.deepEqual(inspectSnapshot(signed, 'right').pending, ['c0']);
});

test('cancel() ends a suspended execution at once', () => {
  const ex = startSync('(+ (tool/a {}) 1)', { defer: ['a'] });
  ex.cancel();
  assert.equal(ex.done, true);
  assert.equal(ex.result.ok, false);
  assert.equal(ex.result.error.reason, 'cancelled');
  assert.deepEqual(ex.pending, []);
  ex.cancel(); // done: nothing happens
  assert.throws(() => ex.resumeSync({ c0: 1 }), /is done/);
});

const FIB = '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))';

test('cancel() stops a phase in flight; its promise resolves cancelled', async () => {
  const ex = await start(`(tool/a {}) ${FIB} (fib 60)`, { defer: ['a'], timeout: 20000 });
  const t0 = performance.now();
  const resumed = ex.resume({ c0: 1 });
  setImmediate(() => ex.cancel());
  assert.equal(await resumed, ex);
  assert.equal(ex.result.error.reason, 'cancelled');
  assert.ok(performance.now() - t0 < 5000);
});

test('cancel() while JS tools are in flight drops their answers', async () => {
  let ex;
  let late;
  const never = () => {
    setImmediate(() => ex.cancel());
    return new Promise((resolve) => { late = resolve; });
  };
  ex = await start('(+ (tool/a {}) (tool/never {}))', { defer: ['a'], tools: { never } });
  assert.equal(await ex.resume({ c0: 1 }), ex);
  assert.equal(ex.result.error.reason, 'cancelled');
  late(5); // the answer comes too late: dropped
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(ex.result.error.reason, 'cancelled');

  // The same through a signal while start() itself waits on the tool.
  const controller = new AbortController();
  const hang = () => { setImmediate(() => controller.abort()); return new Promise(() => {}); };
  const started = await start('(tool/hang {})', { tools: { hang }, signal: controller.signal });
  assert.equal(started.result.error.reason, 'cancelled');
});

test('an AbortSignal cancels an execution', async () => {
  const controller = new AbortController();
  const ex = await start('(tool/a {})', { defer: ['a'], signal: controller.signal });
  controller.abort();
  assert.equal(ex.done, true);
  assert.equal(ex.result.error.reason, 'cancelled');
  const aborted = await start('(tool/a {})', { defer: ['a'], signal: AbortSignal.abort() });
  assert.equal(aborted.result.error.reason, 'cancelled');
});

test('resumeSync calls JS tools synchronously; an async one fails its call', () => {
  const ex = startSync('[(tool/ask {}) (tool/sync {}) (tool/async {})]', {
    defer: ['ask'], tools: { sync: () => 's', async: async () => 'a' },
  });
  ex.resumeSync({ c0: 'asked' });
  assert.equal(ex.result.ok, false);
  assert.equal(ex.result.error.reason, 'tool_error');
  assert.match(ex.result.error.message, /returned a Promise/);
  assert.deepEqual(ex.result.toolCalls.map((c) => c.result), ['asked', 's', null]);
});
