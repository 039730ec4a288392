// workers.test.mjs's worker: what workerData.task says, with Programs and
// PreparedContexts the main thread shared by token.
import { parentPort, workerData } from 'node:worker_threads';

import { PreparedContext, Program, compile, prepareContext, run, runSync } from 'ptc-lisp';

const { task } = workerData;

// Waits until every worker has arrived at barrier `slot`.
function arrive(flags, slot, workers) {
  Atomics.add(flags, slot, 1);
  Atomics.notify(flags, slot);
  const deadline = Date.now() + 20000;
  for (let seen; (seen = Atomics.load(flags, slot)) < workers;) {
    if (Date.now() > deadline) throw new Error(`barrier ${slot}: ${seen} of ${workers} workers came`);
    Atomics.wait(flags, slot, seen, 1000);
  }
}

if (task === 'run') {
  // Adopt; once every worker has, run: each runs its first half, waits for
  // the others to have run theirs, and runs the second half. So the shared
  // Program runs on all the threads over the same span of time.
  const { token, contextToken, ready, workers, offset, count } = workerData;
  const program = Program.from(token);
  const context = PreparedContext.from(contextToken);
  const flags = new Int32Array(ready);
  arrive(flags, 0, workers);
  const values = [];
  for (let i = 0; i < count; i++) {
    if (i === count / 2) arrive(flags, 1, workers);
    const n = offset + i;
    const r = i % 2 === 0
      ? runSync(program, { context: { n }, tools: { scale: ({ x }) => x * 3 } })
      : await run(program, { context: { n }, tools: { scale: async ({ x }) => x * 3 } });
    if (!r.ok) throw new Error(r.error.text);
    values.push(r.value);
  }
  const shared = runSync('(reduce + data/xs)', { context });
  parentPort.postMessage({ source: program.source, values, sum: shared.value });
} else if (task === 'share') {
  // Share a Program made here, hand the token over, and end: the token's
  // Program goes with this thread.
  const program = compile('(* 6 7)');
  parentPort.postMessage({ token: program.share(), contextToken: prepareContext({ a: 1 }).share() });
} else if (task === 'adopt') {
  try {
    Program.from(workerData.token);
    parentPort.postMessage({ ok: true });
  } catch (e) {
    parentPort.postMessage({ ok: false, name: e.name, message: e.message });
  }
}
