// Values both ways: context, memory and history in; value, memory, prints out.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { run, runSync, version } from 'ptc-lisp';

test('the package loads and says its version', () => {
  assert.match(version, /^\d+\.\d+\.\d+$/);
});

test('JSON data goes in as context and comes back as the value', async () => {
  const context = {
    n: 7, f: 2.5, neg: -3, s: 'héllo ✓', t: true, no: false, nil: null,
    xs: [1, 'two', [3], { four: 4 }], deep: { a: { b: { c: [1, 2] } } },
  };
  const r = await run('[data/n data/f data/neg data/s data/t data/no data/nil data/xs data/deep]',
                      { context });
  assert.equal(r.ok, true);
  assert.deepEqual(r.value, [7, 2.5, -3, 'héllo ✓', true, false, null, context.xs, context.deep]);
  assert.equal(r.error, null);
});

test('keywords become strings, sets arrays, maps objects', () => {
  const r = runSync('{:k :v, "s" #{1}, 3 [nil]}');
  assert.equal(r.ok, true);
  assert.deepEqual(r.value, { k: 'v', s: [1], 3: [null] });
  assert.equal(r.printed, '{:k :v "s" #{1} 3 [nil]}');
});

test('integers beyond 2^53 are BigInt both ways', () => {
  const r = runSync('[(* data/big 2) (inc 9007199254740992) 9007199254740991]',
                    { context: { big: 2n ** 62n } });
  assert.equal(r.ok, true, r.error?.text);
  assert.deepEqual(r.value, [2n ** 63n, 9007199254740993n, 9007199254740991]);
});

test('a function value comes back as its printed form', () => {
  const r = runSync('(fn [x] x)');
  assert.equal(r.ok, true);
  assert.equal(typeof r.value, 'string');
});

test('the context may be JSON text', () => {
  const r = runSync('(reduce + data/xs)', { context: '{"xs": [1, 2, 3.5]}' });
  assert.equal(r.value, 6.5);
});

test('undefined properties are left out and toJSON is honoured, as JSON.stringify does', () => {
  const when = new Date(Date.UTC(2024, 0, 2));
  const r = runSync('[(contains? data/m :gone) data/when]',
                    { context: { m: { gone: undefined, here: 1 }, when } });
  assert.deepEqual(r.value, [false, when.toJSON()]);
});

test('a context of plain data (sent as JSON text) and one that is not (converted) agree', () => {
  // Plain data crosses as JSON text; a class instance, a BigInt, a lone
  // surrogate, a number past 2^53 or a toJSON object makes the whole
  // context go through the converter. The program sees the same values.
  class Box { constructor() { this.v = 1; } }
  const plain = {
    ints: [0, -0, 1, -7, 2 ** 53 - 1], floats: [2.5, -1e-7, 1e300], s: ['', 'é✓😀', 'a"b\\c\n'],
    holes: [1, undefined, 3], nested: { a: [{ b: null }], gone: undefined }, none: Object.create(null),
    when: new Date(Date.UTC(2024, 0, 2)),
  };
  const program = '[data/ints data/floats data/s data/holes data/nested data/none data/when]';
  const expected = [[0, 0, 1, -7, 2 ** 53 - 1], [2.5, -1e-7, 1e300], ['', 'é✓😀', 'a"b\\c\n'],
    [1, null, 3], { a: [{ b: null }] }, {}, '2024-01-02T00:00:00.000Z'];
  assert.deepEqual(runSync(program, { context: plain }).value, expected);
  for (const odd of [new Box(), 5n, 'x\ud800', 2 ** 60, { toJSON: () => 'j' }]) {
    const r = runSync(`[${program} data/odd]`, { context: { ...plain, odd } });
    assert.equal(r.ok, true, r.error?.text);
    assert.deepEqual(r.value[0], expected, String(odd));
  }
  assert.deepEqual(runSync('data/odd', { context: { odd: new Box() } }).value, { v: 1 });
  assert.equal(runSync('data/odd', { context: { odd: 'x\ud800' } }).value, 'x\ufffd');
  // What has no JSON form is still refused with where it is.
  assert.throws(() => runSync('1', { context: { a: [{ f: () => 1 }] } }), /context\.a\[0\]\.f/);
  assert.throws(() => runSync('1', { context: { n: NaN } }), /NaN/);
});

test('every field of a plain outcome (the addon passes it the short way) and of a full one', async () => {
  const shape = ['ok', 'value', 'printed', 'truncated', 'returned', 'prints', 'memory', 'toolCalls',
    'pmapCalls', 'usage', 'error'];
  // The vector is built at run time: a literal is a constant and takes no heap.
  const program = '(return (mapv inc [0 1 2]))';
  for (const r of [runSync(program, { displayLimit: 2 }), await run(program, { displayLimit: 2 })]) {
    assert.deepEqual(Object.keys(r), shape);
    assert.deepEqual([r.ok, r.value, r.printed, r.truncated, r.returned, r.error],
                     [true, [1, 2, 3], '[1 2 ...] (2/3)', true, true, null]);
    assert.deepEqual([r.prints, r.memory, r.toolCalls, r.pmapCalls], [[], {}, [], []]);
    assert.ok(r.usage.durationMs > 0 && r.usage.memoryBytes > 0 && r.usage.evalReductions > 0);
    assert.ok(r.usage.peakLiveBytes > 0 && r.usage.allocatedBytes > 0);
    assert.equal(r.usage.collections, 0);
  }
  const plain = runSync('7');
  assert.deepEqual([plain.truncated, plain.returned], [false, false]);
  // Scalars (the addon passes only `printed` and the value's bits).
  for (const [program, value, printed] of [['(return 5)', 5, '5'], ['2.5', 2.5, '2.5'],
    ['-0.0', -0, '-0.0'], ['true', true, 'true'], ['(= 1 2)', false, 'false'], ['nil', null, 'nil'],
    ['9007199254740991', 9007199254740991, '9007199254740991'],
    ['9007199254740992', 9007199254740992n, '9007199254740992']]) {
    for (const r of [runSync(program), await run(program), runSync(program, {})]) {
      assert.deepEqual(Object.keys(r), shape);
      assert.deepEqual([r.ok, r.value, r.printed, r.returned], [true, value, printed, program.startsWith('(return')]);
      assert.ok(r.usage.evalReductions >= 0 && r.usage.durationMs > 0);
    }
  }
  const full = runSync('(println "x") (def y 2) 7');
  assert.deepEqual(Object.keys(full), shape);
  assert.deepEqual([full.value, full.prints, full.memory], [7, ['x'], { y: 2 }]);
});

test('memory carries def across runs; history gives *1', () => {
  const first = runSync('(def total 40) (def names ["a"]) :done');
  assert.equal(first.ok, true);
  assert.deepEqual(first.memory, { total: 40, names: ['a'] });
  const second = runSync('(+ total (count names) 1)', { memory: first.memory });
  assert.equal(second.value, 42);
  assert.equal(runSync('(inc *1)', { history: [1, 41] }).value, 42);
});

test('a defn in memory comes back as its printed form (not callable in a later run)', () => {
  const r = runSync('(defn add2 [x] (+ x 2))');
  assert.equal(typeof r.memory.add2, 'string');
});

test('prints are collected in order', async () => {
  const r = await run('(println "a" 1) (prn {:b 2}) 3');
  assert.deepEqual(r.prints, ['a 1', '{:b 2}']);
  assert.equal(r.value, 3);
  assert.equal(typeof r.usage.durationMs, 'number');
  assert.ok(r.usage.evalReductions > 0);
});

test('sources of every length around the short-string buffer read whole', () => {
  // The addon reads up to 255 bytes in one call and asks for the length past
  // that; a multi-byte character may straddle the edge.
  for (const pad of ['a', 'é', '€', '😀']) {
    for (let n = 230; n < 270; n++) {
      const text = pad.repeat(Math.ceil(n / Buffer.byteLength(pad)));
      const source = `(count "${text}")`;
      assert.equal(runSync(source).value, [...text].length, `${pad} x ${text.length}`);
    }
  }
});
