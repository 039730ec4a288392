// A Program compiled (and a PreparedContext prepared) on one thread, run on
// others: share() gives a token for postMessage, Program.from(token) a
// Program over the same compiled code there. A token is valid while the
// object it was shared from is alive; after that it is refused clearly.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

import { PreparedContext, Program, compile, prepareContext, runSync } from 'ptc-lisp';

const here = dirname(fileURLToPath(import.meta.url));
const workerFile = join(here, 'helpers/shared-worker.mjs');

// The worker's one message, once it has ended.
async function result(worker) {
  const exited = once(worker, 'exit'); // listened to first: it may follow the message at once
  const [message] = await Promise.race([
    once(worker, 'message'),
    once(worker, 'error').then(([e]) => { throw e; }),
  ]);
  await exited;
  return message;
}

const SOURCE = '(+ (* data/n data/n) (tool/scale {:x data/n}))';

test('a Program compiled here runs in two workers at once, with correct results', async () => {
  const program = compile(SOURCE, { tools: { scale: () => 0 } });
  const context = prepareContext({ xs: [1, 2, 3, 4] });
  const token = program.share();
  assert.deepEqual(token, { ptcLisp: 'Program', id: token.id });
  assert.deepEqual(program.share(), token); // the same token each time
  assert.deepEqual(structuredClone(token), token);
  const ready = new SharedArrayBuffer(8); // two barriers
  const count = 40;
  const workers = [0, 1000].map((offset) => new Worker(workerFile, {
    workerData: { task: 'run', token, contextToken: context.share(), ready, workers: 2, offset, count },
  }));
  const outs = await Promise.all(workers.map(result));
  for (const [w, offset] of [[0, 0], [1, 1000]]) {
    assert.equal(outs[w].source, SOURCE);
    assert.deepEqual(outs[w].values,
                     Array.from({ length: count }, (_, i) => (offset + i) ** 2 + 3 * (offset + i)));
    assert.equal(outs[w].sum, 10);
  }
  // Still ours, and still running here.
  assert.equal(runSync(program, { context: { n: 2 }, tools: { scale: ({ x }) => x } }).value, 6);
  assert.equal(runSync('(count data/xs)', { context }).value, 4);
});

test('Program.from on the same thread gives an equal Program', () => {
  const program = compile('(inc data/n)');
  const again = Program.from(program.share());
  assert.notEqual(again, program);
  assert.equal(again.source, program.source);
  assert.equal(runSync(again, { context: { n: 1 } }).value, 2);
  const context = prepareContext({ a: 1 });
  const adopted = PreparedContext.from(context.share());
  assert.equal(adopted.bytes, context.bytes);
});

test('a token whose Program is gone is refused with a clear error', async () => {
  const { token, contextToken } = await result(new Worker(workerFile, { workerData: { task: 'share' } }));
  // The worker that shared them has ended: so have its Program and context.
  assert.throws(() => Program.from(token), (e) => e instanceof Error && !(e instanceof TypeError) &&
                  /the Program of this token is gone/.test(e.message));
  assert.throws(() => PreparedContext.from(contextToken), /the PreparedContext of this token is gone/);
  // The same in another worker.
  const there = await result(new Worker(workerFile, { workerData: { task: 'adopt', token } }));
  assert.equal(there.ok, false);
  assert.match(there.message, /gone/);
});

test('an adopted Program outlives the thread that shared it', async () => {
  const program = compile('(* 6 data/k)');
  const token = program.share();
  const there = await result(new Worker(workerFile, { workerData: { task: 'adopt', token } }));
  assert.equal(there.ok, true);
  // Adopted here too, then handed across and back: each copy keeps it alive on its own.
  const adopted = Program.from(token);
  assert.equal(runSync(adopted, { context: { k: 7 } }).value, 42);
});

test('what is not a token is a TypeError', () => {
  const program = compile('1');
  const context = prepareContext({});
  for (const bad of [undefined, null, 1, 'p', {}, { ptcLisp: 'Program' }, { ptcLisp: 'Program', id: -1 },
                     { ptcLisp: 'Program', id: 1.5 }, context.share()])
    assert.throws(() => Program.from(bad), TypeError, JSON.stringify(bad));
  assert.throws(() => PreparedContext.from(program.share()), TypeError);
  // A well-formed token no share() gave.
  assert.throws(() => Program.from({ ptcLisp: 'Program', id: 2 ** 52 }), /gone/);
});
