// executions.test.mjs's other process: loads the snapshot in the file
// argv[2] (signed with the key argv[3]), answers its pending calls from the
// JSON argv[4] ({tool: answer}, by the pending call's tool; the `double` tool
// is a JS function here), until it is done, and prints what it saw as JSON.
import { readFileSync } from 'node:fs';

import { load } from 'ptc-lisp';

const [file, key, answersJson] = process.argv.slice(2);
const answers = JSON.parse(answersJson);
const execution = await load(readFileSync(file), { key, tools: { double: ({ n }) => n * 2 } });
const seen = [];
while (!execution.done) {
  seen.push(execution.pending.map((c) => ({ ...c })));
  await execution.resume(Object.fromEntries(execution.pending.map((c) => [c.id, answers[c.tool]])));
}
const { value, printed, prints, memory, toolCalls, ok } = execution.result;
process.stdout.write(JSON.stringify({
  pid: process.pid,
  seen,
  result: { ok, value, printed, prints, memory, toolCalls: toolCalls.map(({ durationMs, ...c }) => c) },
}));
