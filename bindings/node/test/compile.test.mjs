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

// prepareContext(): a context imported once, read in place by many runs.
test('a prepared context serves many runs, compiled or not, with tools and from lispEvalTool', async () => {
  const { prepareContext, PreparedContext, lispEvalTool } = await import('ptc-lisp');
  const orders = { orders: [{ total: 10 }, { total: 30 }, { total: 50 }] };
  const prepared = prepareContext(orders);
  assert.ok(prepared instanceof PreparedContext);
  assert.ok(prepared.bytes > 0, 'its values take memory of their own');
  const program = compile('(->> data/orders (map :total) (reduce +))');
  assert.equal((await run(program, { context: prepared })).value, 90);
  assert.equal(runSync('(count data/orders)', { context: prepared }).value, 3);
  const many = await Promise.all([1, 2, 3].map(() => run(program, { context: prepared })));
  assert.deepEqual(many.map((r) => r.value), [90, 90, 90]);
  const tools = { half: async ({ x }) => x / 2 };
  assert.equal((await run('(tool/half {:x (:total (first data/orders))})', { context: prepared, tools })).value, 5);
  // From JSON text too; and as the tool's default context.
  const fromText = prepareContext('{"n": 7}');
  assert.equal(runSync('data/n', { context: fromText }).value, 7);
  const tool = lispEvalTool({ context: fromText });
  const payload = await tool.execute({ program: '(* 6 data/n)' });
  assert.equal(payload.status, 'ok', JSON.stringify(payload));
  assert.match(payload.result, /42/);
});

test('prepareContext refuses what is no context, malformed JSON and what is over maxBytes', async () => {
  const { prepareContext } = await import('ptc-lisp');
  assert.throws(() => prepareContext([1, 2]), TypeError);
  assert.throws(() => prepareContext(5), TypeError);
  assert.throws(() => prepareContext('{"a": '), (e) => e instanceof PtcError && e.reason === 'parse_error' && e.line === 1);
  assert.throws(() => prepareContext('[1]'), (e) => e instanceof PtcError);
  const big = { xs: Array.from({ length: 5000 }, (_, i) => `item ${i}`) };
  assert.throws(() => prepareContext(big, { maxBytes: 1024 }), (e) => e instanceof PtcError && e.reason === 'memory_limit');
  assert.throws(() => prepareContext({}, { maxBytes: -1 }), RangeError);
});
