// Session: ptc::Session's REPL over runs. Memory carries from one eval to
// the next (functions too, which a trip through JS would lose), *1 *2 *3 are
// the values of the last successful evals, a failed eval changes neither.
// The first test is tests/embedding/api_test.cpp's
// SessionKeepsMemoryAndHistoryAcrossThreeTurns, turn for turn.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { PtcError, Session, compile, prepareContext, run, runSync } from 'ptc-lisp';

test('memory and history across turns, as ptc::Session (api_test.cpp)', async () => {
  const session = new Session();
  const a = await session.eval('(def xs [1 2 3]) (count xs)');
  assert.equal(a.ok, true, a.error?.text);
  const b = await session.eval('(+ *1 (reduce + xs))');
  assert.equal(b.value, 9);
  const c = await session.eval('[*1 *2 *3 (count xs)]');
  assert.equal(c.printed, '[9 3 nil 3]');
  // A failed turn changes neither memory nor history.
  const bad = await session.eval('(def xs nil) (fail "no")');
  assert.equal(bad.ok, false);
  assert.equal(bad.error.reason, 'fail');
  const d = await session.eval('[*1 (count xs)]');
  assert.equal(d.printed, '[[9 3 nil 3] 3]');
  assert.equal(session.history.length, 3);
  assert.deepEqual(session.history, [9, [9, 3, null, 3], [[9, 3, null, 3], 3]]);
  assert.deepEqual(session.memory, { xs: [1, 2, 3] });
});

test('the same turns with evalSync', () => {
  const session = new Session();
  session.evalSync('(def xs [1 2 3]) (count xs)');
  session.evalSync('(+ *1 (reduce + xs))');
  assert.equal(session.evalSync('[*1 *2 *3 (count xs)]').printed, '[9 3 nil 3]');
  assert.equal(session.evalSync('(def xs nil) (fail "no")').ok, false);
  assert.equal(session.evalSync('[*1 (count xs)]').printed, '[[9 3 nil 3] 3]');
});

test('functions defined in one eval are called in the next (not so through JS memory)', async () => {
  const session = new Session();
  await session.eval('(defn double [x] (* 2 x)) (def add-n (let [n 5] (fn [x] (+ x n))))');
  const r = await session.eval('[(double 21) (add-n 1)]');
  assert.equal(r.ok, true, r.error?.text);
  assert.deepEqual(r.value, [42, 6]);
  // In JS the functions are their printed form: run() given that memory cannot call them.
  assert.equal(typeof session.memory.double, 'string');
  const through = await run('(double 21)', { memory: session.memory });
  assert.equal(through.ok, false);
});

test('a helper that calls tools, defined in one eval and used in the next', async () => {
  const calls = [];
  const session = new Session({
    tools: { 'get-user': async ({ id }) => { calls.push(id); return `user ${id}`; } },
  });
  const def = await session.eval(
    '(defn user-names [ids] (loop [ids ids out []] (if (empty? ids) out ' +
    '(recur (rest ids) (conj out (tool/get-user {:id (first ids)}))))))');
  assert.equal(def.ok, true, def.error?.text);
  const r = await session.eval('(user-names [1 2])');
  assert.deepEqual(r.value, ['user 1', 'user 2']);
  assert.deepEqual(calls, [1, 2]);
  assert.equal(r.toolCalls.length, 2);
});

test('a failed eval changes neither memory nor history', async () => {
  const session = new Session({ memory: { n: 1 } });
  await session.eval('(def n 2) :two');
  for (const program of ['(def n 3) (fail "no")', '(def n 4) (+ 1 "a")', '(+ 1', '(tool/nope {})']) {
    const r = await session.eval(program);
    assert.equal(r.ok, false, program);
    assert.deepEqual(r.memory, { n: 2 }, program); // the memory it was given
    assert.deepEqual(session.memory, { n: 2 }, program);
    assert.deepEqual(session.history, ['two'], program);
  }
});

test('historyDepth keeps that many values', () => {
  const one = new Session({ historyDepth: 1 });
  one.evalSync('1');
  one.evalSync('2');
  assert.deepEqual(one.evalSync('[*1 *2]').value, [2, null]);
  assert.deepEqual(one.history, [[2, null]]);
  const none = new Session({ historyDepth: 0 });
  none.evalSync('1');
  assert.deepEqual(none.history, []);
  assert.equal(none.evalSync('*1').value, null);
  const deep = new Session({ historyDepth: 5 });
  for (let i = 1; i <= 6; i++) deep.evalSync(String(i));
  assert.deepEqual(deep.history, [2, 3, 4, 5, 6]);
  assert.throws(() => new Session({ historyDepth: -1 }), RangeError);
  assert.throws(() => new Session({ historyDepth: 1.5 }), RangeError);
  assert.throws(() => new Session({ historyDepth: '3' }), TypeError);
});

test('the session\'s options hold for every eval: context, history, limits, a prepared context', async () => {
  const session = new Session({ context: { rate: 2 }, history: [10], timeout: 500, maxToolCalls: 1,
                                tools: { one: () => 1 } });
  assert.equal((await session.eval('(* *1 data/rate)')).value, 20);
  assert.equal((await session.eval('(+ *1 *2)')).value, 30);
  const over = await session.eval('(+ (tool/one {}) (tool/one {}))');
  assert.equal(over.error.reason, 'tool_call_limit_exceeded');
  const prepared = new Session({ context: prepareContext({ xs: [1, 2, 3] }) });
  assert.equal(prepared.evalSync('(count data/xs)').value, 3);
  assert.throws(() => new Session({ nope: 1 }), /unknown option 'nope'/);
  assert.throws(() => new Session({ signal: new AbortController().signal }), TypeError);
});

test('a compiled Program evaluates in a session; sessions are independent', async () => {
  const add = compile('(def total (+ total data/n)) total', { memory: { total: 0 } });
  const a = new Session({ memory: { total: 0 }, context: { n: 5 } });
  const b = new Session({ memory: { total: 0 }, context: { n: 1 } });
  assert.equal((await a.eval(add)).value, 5);
  assert.equal(a.evalSync(add).value, 10);
  assert.equal(b.evalSync(add).value, 1);
  assert.deepEqual(a.memory, { total: 10 });
  assert.deepEqual(b.memory, { total: 1 });
});

test('reset() forgets memory and history, the initial memory too', () => {
  const session = new Session({ memory: { a: 1 }, history: [5] });
  session.evalSync('(def b 2)');
  session.reset();
  assert.deepEqual(session.memory, {});
  assert.deepEqual(session.history, []);
  assert.equal(session.evalSync('a').error.reason, 'unbound_var');
  assert.equal(session.evalSync('*1').value, null);
});

test('evals run one at a time, in order: each sees the one before', async () => {
  const session = new Session({ tools: { slow: () => new Promise((resolve) => setImmediate(() => resolve(1))) } });
  const results = await Promise.all([
    session.eval('(def n (tool/slow {})) n'),
    session.eval('(def n (+ n (tool/slow {}))) n'),
    session.eval('(def n (+ n 10)) [n *1 *2]'),
  ]);
  assert.deepEqual(results.map((r) => r.value), [1, 2, [12, 2, 1]]);
});

test('evalSync and reset refuse while an eval is in flight', async () => {
  const session = new Session();
  const pending = session.eval('(def a 1)');
  assert.throws(() => session.evalSync('1'), /in flight/);
  assert.throws(() => session.reset(), /in flight/);
  await pending;
  assert.equal(session.evalSync('a').value, 1);
  session.reset();
});

test('a signal cancels an eval; the session is unchanged', async () => {
  const session = new Session();
  session.evalSync('(def keep 1) :kept');
  const controller = new AbortController();
  const evaluated = session.eval(
    '(def keep 2) (defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 60)',
    { signal: controller.signal });
  setImmediate(() => controller.abort());
  const r = await evaluated;
  assert.equal(r.error.reason, 'cancelled');
  assert.deepEqual(session.memory, { keep: 1 });
  assert.deepEqual(session.history, ['kept']);
  await assert.rejects(session.eval('1', { timeout: 5 }), /only a signal/);
  assert.equal((await session.eval('keep')).value, 1);
});

test('an error from a tool or a bad program is a Result, not a throw', async () => {
  const session = new Session({ tools: { boom: () => { throw new Error('kaput'); } } });
  const r = await session.eval('(tool/boom {})');
  assert.ok(r.error instanceof PtcError);
  assert.equal(r.error.reason, 'tool_error');
  assert.match(r.error.message, /kaput/);
  assert.equal(runSync('1').ok, true);
});
