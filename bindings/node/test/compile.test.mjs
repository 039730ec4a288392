// compile(): once, for many runs (run and runSync).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { compile, run, runSync, Program, PtcError } from 'ptc-lisp';

test('a compiled program is reused with different contexts', async () => {
  const program = compile('(->> data/orders (filter #(> (:total %) 20)) count)');
  assert.ok(program instanceof Program);
  assert.equal(program.source, '(->> data/orders (filter #(> (:total %) 20)) count)');
  const orders = (totals) => ({ orders: totals.map((total) => ({ total })) });
  assert.equal((await run(program, { context: orders([10, 30, 50]) })).value, 2);
  assert.equal(runSync(program, { context: orders([25]) }).value, 1);
  const again = await Promise.all([1, 2, 3].map((n) =>
    run(program, { context: orders(Array(n).fill(99)) })));
  assert.deepEqual(again.map((r) => r.value), [1, 2, 3]);
});

test('a compiled program calls the tools its runs give', async () => {
  const program = compile('(tool/double {:x data/x})', { tools: { double: () => 0 } });
  const tools = { double: async ({ x }) => x * 2 };
  assert.equal((await run(program, { context: { x: 21 }, tools })).value, 42);
  assert.equal(runSync(program, { context: { x: 2 }, tools: { double: ({ x }) => x * 2 } }).value, 4);
});

test('a program that does not compile throws a PtcError', () => {
  assert.throws(() => compile('(+ 1'), (e) => e instanceof PtcError && e.reason === 'parse_error');
  assert.throws(() => compile('(tool/x {})'), (e) => e.reason === 'unknown_tool');
});

test('compile refuses what is not a program', () => {
  assert.throws(() => compile(42), TypeError);
  assert.throws(() => compile('1', { nope: 1 }), TypeError);
  assert.throws(() => new Program(), TypeError);
});
