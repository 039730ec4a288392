// A TypeScript host of ptc-lisp: a program with an async tool, a compiled
// program reused, a failure read from the Result, and the lisp_eval tool.
// Checked by the tests with tsc --noEmit (node_package_tests).
import {
  compile,
  lispEvalTool,
  run,
  runSync,
  toolSchema,
  type JsonValue,
  type LispEvalPayload,
  type Result,
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
}

main().catch((e: unknown) => console.error(e));
