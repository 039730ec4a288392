// Failures: every reason a program can end with, where it happened, and bad
// arguments (TypeError, RangeError), which are the caller's mistakes.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { run, runSync, PtcError } from 'ptc-lisp';

const cases = [
  ['parse_error', '(+ 1'],
  ['invalid_form', '(let [x] x)'],
  ['invalid_arity', '(if)'],
  ['unbound_var', 'foo'],
  ['invalid_placeholder', '#(%0)'],
  ['type_error', '(+ 1 "a")'],
  ['arithmetic_error', '(/ 1 0)'],
  ['arity_error', '((fn [x] x))'],
  ['not_callable', '(1 2)'],
  ['destructure_error', '(let [{:keys [a]} 5] a)'],
  ['unknown_tool', '(tool/nope {})'],
  ['loop_limit_exceeded', '(loop [i 0] (recur (inc i)))'],
  ['call_depth_exceeded', '(defn f [x] (f x)) (f 1)'],
  ['timeout', '(do (defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 40))', { timeout: 30 }],
  ['memory_limit', '(vec (range 100000))', { maxHeap: 100000 }],
  ['symbol_limit_exceeded', '[:a :b :c :d :e]', { maxSymbols: 2 }],
  ['program_too_large', '(+ 1 2)', { maxProgramBytes: 3 }],
  ['validation_error', '"a"', { signature: ':int' }],
  ['fail', '(fail {:a 1})'],
];

for (const [reason, program, options] of cases) {
  test(`${reason}: ${program}`, async () => {
    const r = await run(program, options);
    assert.equal(r.ok, false);
    assert.equal(r.value, null);
    assert.ok(r.error instanceof PtcError);
    assert.ok(r.error instanceof Error);
    assert.equal(r.error.reason, reason, r.error.text);
    assert.equal(typeof r.error.message, 'string');
    assert.match(r.error.text, new RegExp(`^${reason}`));
    // The same outcome from runSync.
    assert.equal(runSync(program, options).error.reason, reason);
  });
}

test('errors carry line, column and hint', () => {
  const { error } = runSync('(let [x 1]\n  (+ x "a"))');
  assert.equal(error.reason, 'type_error');
  assert.equal(error.line, 2);
  assert.equal(error.column, 3);
  assert.equal(typeof error.hint, 'string');
  assert.equal(error.name, 'PtcError');
});

test('(fail v) gives v as failValue', () => {
  const { error } = runSync('(fail {:code 7 :why "no"})');
  assert.deepEqual(error.failValue, { code: 7, why: 'no' });
});

test('a failed run leaves memory as it was given', () => {
  const r = runSync('(def y 2) (/ 1 0)', { memory: { x: 1 } });
  assert.deepEqual(r.memory, { x: 1 });
});

const badArguments = [
  ['a program that is not a string', [42]],
  ['no program', []],
  ['options that are not an object', ['1', 5]],
  ['options that are an array', ['1', []]],
  ['an unknown option', ['1', { tiemout: 5 }]],
  ['a limit of the wrong type', ['1', { timeout: '5' }]],
  ['a context that is an array', ['1', { context: [1] }]],
  ['a context value with no JSON form', ['1', { context: { f() {} } }]],
  ['a context with a symbol', ['1', { context: { s: Symbol('x') } }]],
  ['a cyclic context', ['1', { context: (() => { const o = {}; o.self = o; return o; })() }]],
  ['a tool that is not a function', ['1', { tools: { f: 1 } }]],
  ['tools that are not an object', ['1', { tools: 'f' }]],
  ['a signature that is not a string', ['1', { signature: 1 }]],
  ['a signal that is not an AbortSignal', ['1', { signal: {} }]],
  ['filterContext not a boolean', ['1', { filterContext: 1 }]],
];

for (const [what, args] of badArguments) {
  test(`run rejects ${what} with a TypeError`, async () => {
    await assert.rejects(run(...args), TypeError);
  });
  if (what.includes('signal')) continue;
  test(`runSync throws for ${what}`, () => {
    assert.throws(() => runSync(...args), TypeError);
  });
}

test('the TypeError says where the value is wrong', async () => {
  await assert.rejects(run('1', { context: { users: [{ at: () => 1 }] } }),
                       { name: 'TypeError', message: /context\.users\[0\]\.at: a function/ });
  await assert.rejects(run('1', { bogus: 1 }), { message: /unknown option 'bogus'/ });
});

test('a number out of range is a RangeError', async () => {
  await assert.rejects(run('1', { timeout: -1 }), RangeError);
  await assert.rejects(run('1', { maxHeap: 1.5 }), RangeError);
  assert.throws(() => runSync('1', { loopLimit: 2 ** 40 }), RangeError);
  // 2^64 is past a 64-bit limit (the largest double below it is not).
  assert.throws(() => runSync('1', { maxHeap: 2 ** 64 }),
                { name: 'RangeError', message: /from 0 to 18446744073709551615, got/ });
  assert.equal(runSync('1', { maxHeap: 2 ** 63 }).ok, true);
});

test('runSync refuses a signal', () => {
  assert.throws(() => runSync('1', { signal: new AbortController().signal }), TypeError);
});
