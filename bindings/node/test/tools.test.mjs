// Tools: sync and async, called on the main thread while the program waits;
// the calls of a pmap in flight together; failures become tool_error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isMainThread } from 'node:worker_threads';

import { run, runSync } from 'ptc-lisp';

test('a sync tool gets the program\'s map and answers it', async () => {
  const seen = [];
  const r = await run('(:name (tool/get-user {:id 7 :tags [:a "b"]}))', {
    tools: { 'get-user': (args) => { seen.push(args); return { name: 'Ada' }; } },
  });
  assert.equal(r.ok, true, r.error?.text);
  assert.equal(r.value, 'Ada');
  assert.deepEqual(seen, [{ id: 7, tags: ['a', 'b'] }]);
  assert.equal(r.toolCalls.length, 1);
  assert.equal(r.toolCalls[0].name, 'get-user');
  assert.deepEqual(r.toolCalls[0].result, { name: 'Ada' });
  assert.equal(r.toolCalls[0].error, null);
});

test('async tools run on the main thread and their promises are awaited', async () => {
  let onMain = true;
  const r = await run('(+ (tool/a {}) (tool/b {:x 2}))', {
    tools: {
      a: async () => { onMain &&= isMainThread; return 40; },
      b: ({ x }) => new Promise((resolve) => setImmediate(() => resolve(x))),
    },
  });
  assert.equal(r.value, 42);
  assert.equal(onMain, true);
});

test('pmap calls are in flight together', async () => {
  const spans = [];
  const slow = async ({ n }) => {
    const start = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 150)); // the tool's own latency
    spans.push({ n, start, end: performance.now() });
    return n * 10;
  };
  const t0 = performance.now();
  const r = await run('(pmap #(tool/slow {:n %}) [1 2])', { tools: { slow } });
  const elapsed = performance.now() - t0;
  assert.equal(r.ok, true, r.error?.text);
  assert.deepEqual(r.value, [10, 20]);
  assert.equal(spans.length, 2);
  // Each call started before the other ended: they overlapped.
  const [a, b] = spans;
  assert.ok(a.start < b.end && b.start < a.end, JSON.stringify(spans));
  assert.ok(elapsed < 290, `two 150 ms calls took ${elapsed} ms together`);
  assert.equal(r.pmapCalls[0].kind, 'pmap');
  assert.equal(r.pmapCalls[0].count, 2);
});

test('pcalls of two different async tools overlap', async () => {
  let inFlight = 0;
  let most = 0;
  const tool = (value) => async () => {
    most = Math.max(most, ++inFlight);
    await new Promise((resolve) => setTimeout(resolve, 50));
    inFlight--;
    return value;
  };
  const r = await run('(pcalls #(tool/a {}) #(tool/b {}))', { tools: { a: tool('A'), b: tool('B') } });
  assert.deepEqual(r.value, ['A', 'B']);
  assert.equal(most, 2);
});

test('a tool that throws ends the program with tool_error and its message', async () => {
  const r = await run('(tool/boom {})', { tools: { boom: () => { throw new Error('no such user'); } } });
  assert.equal(r.ok, false);
  assert.equal(r.error.reason, 'tool_error');
  assert.match(r.error.message, /no such user/);
  assert.equal(r.toolCalls[0].error.includes('no such user'), true);
});

test('a tool that rejects is a tool_error too', async () => {
  const r = await run('(tool/boom {})', { tools: { boom: async () => { throw new TypeError('bad id'); } } });
  assert.equal(r.error.reason, 'tool_error');
  assert.match(r.error.message, /bad id/);
});

test('a tool value with no JSON form is a tool_error', async () => {
  const r = await run('(tool/f {})', { tools: { f: () => ({ fn() {} }) } });
  assert.equal(r.error.reason, 'tool_error');
  assert.match(r.error.message, /no JSON form: at \.fn: a function/);
});

test('tools may call the engine again', async () => {
  const r = await run('(tool/inner {:src "(* 6 7)"})', {
    tools: { inner: async ({ src }) => (await run(src)).value },
  });
  assert.equal(r.value, 42);
});

test('runSync calls sync tools on the calling thread, pmap calls too', () => {
  const calls = [];
  const r = runSync('(pmap #(tool/sq {:x %}) [1 2 3])', {
    tools: { sq: ({ x }) => { calls.push(x); return x * x; } },
  });
  assert.deepEqual(r.value, [1, 4, 9]);
  assert.deepEqual(calls.sort(), [1, 2, 3]);
});

test('runSync: a tool returning a Promise fails its call', () => {
  const r = runSync('(tool/later {})', { tools: { later: async () => 1 } });
  assert.equal(r.ok, false);
  assert.equal(r.error.reason, 'tool_error');
  assert.match(r.error.message, /runSync needs synchronous tools/);
});

test('runSync: a throwing tool is a tool_error', () => {
  const r = runSync('(tool/boom {})', { tools: { boom: () => { throw 'plain string'; } } });
  assert.equal(r.error.reason, 'tool_error');
  assert.match(r.error.message, /plain string/);
});

test('maxToolCalls caps the calls', async () => {
  const r = await run('(mapv #(tool/f {:x %}) [1 2 3])', { tools: { f: ({ x }) => x }, maxToolCalls: 2 });
  assert.equal(r.error.reason, 'tool_call_limit_exceeded');
});

test('a program calling a tool it was not given fails with unknown_tool', async () => {
  const r = await run('(tool/missing {})', { tools: { other: () => 1 } });
  assert.equal(r.error.reason, 'unknown_tool');
});
