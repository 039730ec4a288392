// A TypeScript host of ptc-lisp: a program with an async tool, a compiled
// program reused, a failure read from the Result, the lisp_eval tool, an
// execution dumped and loaded, a Session, and a Program shared by token.
// Checked by the tests with tsc --noEmit (node_package_tests).
import {
  compile,
  inspectSnapshot,
  lispEvalTool,
  load,
  Program,
  run,
  runSync,
  Session,
  start,
  startSync,
  toolSchema,
  type Answers,
  type Execution,
  type JsonValue,
  type LispEvalPayload,
  type PendingCall,
  type Result,
  type SharedProgram,
  type SnapshotInfo,
  type ToolArgs,
} from 'ptc-lisp';

interface User {
  id: number;
  name: string;
}

async function getUser(args: ToolArgs): Promise<User> {
  const id = Number(args.id);
  return { id, name: id === 7 ? 'Ada' : 'Grace' };
}

async function main(): Promise<void> {
  const controller = new AbortController();
  const result: Result = await run('(mapv #(:name (tool/get-user {:id %})) data/ids)', {
    context: { ids: [7, 8] },
    tools: { 'get-user': getUser },
    timeout: 500,
    maxHeap: 1 << 20,
    maxToolCalls: null,
    signal: controller.signal,
  });
  if (result.ok) {
    const names: JsonValue = result.value;
    console.log(names, result.toolCalls.map((c) => `${c.name} ${c.durationMs} ms`));
  } else if (result.error) {
    console.log(result.error.reason, result.error.line, result.error.column, result.error.hint);
  }

  const program = compile('(count data/xs)');
  for (const xs of [[1], [1, 2]]) console.log(runSync(program, { context: { xs } }).value);

  const failed = runSync('(+ 1 "a")');
  if (!failed.ok && failed.error?.reason === 'type_error') console.log(failed.error.text);

  const schema = toolSchema('in_process_with_app_tools');
  const tool = lispEvalTool({ tools: { 'get-user': getUser }, limits: { timeout: 1000 } });
  const payload: LispEvalPayload = await tool.execute({ program: '(tool/get-user {:id 7})' });
  console.log(schema.name, tool.description.length, payload.status);

  // An execution: the host answers `approve` itself, here after a dump and a
  // load (which could be in another process, days later).
  const first: Execution = await start('(if (tool/approve {:amount 5}) (tool/get-user {:id 7}) :no)', {
    defer: ['approve'],
    tools: { 'get-user': getUser },
  });
  const calls: readonly PendingCall[] = first.pending;
  const key = 'a secret';
  const bytes: Uint8Array = first.dump(key);
  const info: SnapshotInfo = inspectSnapshot(bytes, key);
  console.log(calls.map((c) => `${c.id} ${c.tool}`), info.pending, info.limits.maxToolCalls, first.heapBytes);
  const later = await load(bytes, { key, tools: { 'get-user': getUser }, timeout: 500 });
  const answers: Answers = Object.fromEntries(later.pending.map((c) => [c.id, true]));
  await later.resume(answers);
  if (later.done && later.result) console.log(later.result.value);
  const refused = startSync('(tool/approve {})', { defer: true });
  refused.resumeSync({ [refused.pending[0].id]: new Error('not approved') });
  console.log(refused.result?.error?.reason); // tool_error
  startSync('(tool/approve {})', { defer: ['approve'] }).cancel();

  // A session: memory and *1 carry from one eval to the next.
  const session = new Session({ historyDepth: 2, tools: { 'get-user': getUser } });
  await session.eval('(defn greet [id] (str "hi " (:name (tool/get-user {:id id}))))');
  const greeting: Result = await session.eval('(greet 7)');
  console.log(greeting.value, session.evalSync('(str *1 "!")').value, session.memory, session.history);
  session.reset();

  // A compiled program shared with a worker_thread: post the token, and
  // there Program.from(token) runs the same compiled code.
  const token: SharedProgram = program.share();
  console.log(runSync(Program.from(token), { context: { xs: [1, 2, 3] } }).value);
}

main().catch((e: unknown) => console.error(e));
