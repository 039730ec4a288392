// `ptc mcp --isolate N`: programs run in jailed worker processes. The server
// is pointed at ptc-worker-test ($PTC_WORKER), whose ";;hook:NAME" programs
// crash their worker or probe its jail, to show through the official SDK
// client that such a call ends alone and the server goes on.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { LogReader, figure, now, passEnv, ptcBin, textOf, track } from './lib/harness.mjs';

const testWorker = process.env.PTC_TEST_WORKER;

async function isolatedServer(flags = []) {
  const transport = new StdioClientTransport({
    command: ptcBin(),
    args: ['mcp', '--isolate', '2', '--response-profile', 'structured', ...flags],
    stderr: 'pipe',
    env: passEnv({ PTC_WORKER: testWorker }),
  });
  const logs = new LogReader(transport.stderr);
  const client = new Client({ name: 'isolate-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  if (transport._process) track(transport._process);
  const call = (name, args) => client.callTool({ name, arguments: args }, CallToolResultSchema);
  const evalProgram = (program) => call('lisp_eval', { program });
  return { client, transport, logs, call, evalProgram, pid: transport.pid, close: () => client.close() };
}

// The live `ptc-worker` processes under a pid.
function workersUnder(root) {
  const parent = new Map();
  const name = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      if (fields[0] === 'Z') continue;
      parent.set(Number(entry), Number(fields[1]));
      name.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
    } catch {
      // gone meanwhile
    }
  }
  const under = (pid) => {
    for (let p = parent.get(pid); p; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  return [...name].filter(([pid, n]) => n === 'ptc-worker' && under(pid)).map(([pid]) => pid);
}

describe('ptc mcp --isolate', { skip: testWorker ? false : 'PTC_TEST_WORKER is not set' }, () => {
  let s;
  after(async () => s && (await s.close()));

  test('starts its workers and answers programs from them', async () => {
    s = await isolatedServer(['--sessions']);
    const r = await s.evalProgram('(reduce + (map inc (range 10)))');
    assert.equal(r.isError, false, textOf(r));
    assert.equal(r.structuredContent.result, 'user=> 55');
    const started = s.logs.events('isolation');
    assert.equal(started.length, 1);
    assert.equal(started[0].workers, 2);
    assert.equal(workersUnder(s.pid).length, 2);
  });

  test('a crash ends only its own call: internal_error, the next call answered, the pool back to 2', async () => {
    for (const hook of ['segv', 'abort', 'open', 'socket', 'execve']) {
      const crashed = await s.evalProgram(`;;hook:${hook}\n(+ 1 2)`);
      assert.equal(crashed.isError, true, hook);
      assert.match(textOf(crashed), /internal_error: the worker process running this program died/, hook);
      const next = await s.evalProgram('(+ 1 2)');
      assert.equal(next.isError, false, textOf(next));
      assert.equal(next.structuredContent.result, 'user=> 3');
    }
    const t0 = now();
    while (workersUnder(s.pid).length !== 2 && now() - t0 < 10000) await new Promise((r) => setImmediate(r));
    assert.equal(workersUnder(s.pid).length, 2);
  });

  test('calls at once share the pool (8 calls, 2 workers) and all get their own answers', async () => {
    await s.close();
    s = await isolatedServer(['--sessions', '--max-concurrent-calls', '8']);
    for (let wave = 0; wave < 5; wave++) {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          s.evalProgram(i === 3 ? ';;hook:segv\n1' : `(* ${wave} ${i})`),
        ),
      );
      results.forEach((r, i) => {
        if (i === 3) assert.match(textOf(r), /internal_error/);
        else assert.equal(r.structuredContent?.result, `user=> ${wave * i}`, textOf(r));
      });
    }
  });

  test('sessions keep their memory across isolated evals', async () => {
    const started = await s.call('lisp_session_start', { title: 'isolated' });
    const id = started.structuredContent.session_id;
    await s.call('lisp_session_eval', { session_id: id, program: '(defn twice [x] (* 2 x)) (def y 21)' });
    const e = await s.call('lisp_session_eval', { session_id: id, program: '(twice y)' });
    assert.equal(e.isError, false, textOf(e));
    assert.equal(e.structuredContent.result, 'user=> 42');
  });

  test('a native infinite loop is killed at its deadline and the server goes on', async () => {
    await s.close();
    s = await isolatedServer(['--program-timeout-ms', '200']);
    const t0 = now();
    const r = await s.evalProgram(';;hook:spin\n1');
    const ms = now() - t0;
    figure('isolated native loop, timeout 200 ms -> answered (ms)', ms.toFixed(0));
    assert.equal(r.isError, true);
    assert.match(textOf(r), /timeout/);
    assert.match(textOf(r), /was killed/);
    const next = await s.evalProgram('(+ 1 2)');
    assert.equal(next.structuredContent.result, 'user=> 3');
  });
});
