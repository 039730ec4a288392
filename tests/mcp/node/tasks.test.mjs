// Tasks (the extension io.modelcontextprotocol/tasks of revision 2026-07-28): a
// lisp_eval still running after --task-after-ms is answered with a task handle, followed
// with tasks/get and stopped with tasks/cancel. Driven by the official requester
// (@modelcontextprotocol/ext-tasks over the v2 client) on HTTP, and by raw frames on
// stdio and HTTP for the shapes and every error.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { RawHttpClient } from './lib/raw-http.mjs';
import { LOOP_PROGRAM, RawStdio, eventually, httpUnavailableReason, reasonOf, startHttpServer, textOf } from './lib/harness.mjs';

const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const CLIENT_INFO = { name: 'ptc-tasks-tests', version: '1.0.0' };
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
};
const META_WITHOUT_TASKS = { ...META, 'io.modelcontextprotocol/clientCapabilities': {} };
const httpUnavailable = await httpUnavailableReason();
if (httpUnavailable) console.log(`# SKIP: the HTTP transport is not in this build (${httpUnavailable})`);
const httpSuite = httpUnavailable ? describe.skip : describe;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// The fields every task carries, checked on each view.
function assertTask(task, status) {
  assert.match(task.taskId, /^[0-9a-f]{32}$/, 'a task id is 128 random bits');
  assert.equal(task.status, status, JSON.stringify(task));
  assert.match(task.createdAt, ISO);
  assert.match(task.lastUpdatedAt, ISO);
  assert.ok(task.lastUpdatedAt >= task.createdAt);
  assert.equal(task.ttlMs, 600000);
  assert.equal(task.pollIntervalMs, 250);
}

// Polls tasks/get until the task leaves `working`.
async function settled(get) {
  let task;
  await eventually(async () => {
    task = await get();
    return task.status !== 'working';
  }, 20000, 20);
  return task;
}

describe('stdio: tasks in raw frames', () => {
  let slow; // --task-after-ms 100: a long call becomes a task
  let atOnce; // --task-after-ms 0: every call of a declaring client is a task
  let next = 0;
  before(() => {
    slow = new RawStdio(['--task-after-ms', '100', '--program-timeout-ms', '60000', '--max-concurrent-calls', '1']);
    atOnce = new RawStdio(['--task-after-ms', '0', '--program-timeout-ms', '400']);
  });
  after(async () => {
    await slow?.kill();
    await atOnce?.kill();
  });
  const call = (peer, program, meta = META) =>
    peer.request(++next, 'tools/call', { name: 'lisp_eval', arguments: { program }, _meta: meta });
  const taskRequest = (peer, method, params, meta = META) => peer.request(++next, method, { ...params, _meta: meta });
  const get = async (peer, taskId) => (await taskRequest(peer, 'tasks/get', { taskId })).result;

  test('server/discover offers the extension', async () => {
    const r = await taskRequest(slow, 'server/discover', {});
    assert.deepEqual(r.result.capabilities.extensions, { [TASKS]: {} });
  });

  test('a call that ends before --task-after-ms is answered with its result', async () => {
    const r = await call(slow, '(+ 1 2)');
    assert.equal(r.result.resultType, 'complete');
    assert.equal(textOf(r.result), 'user=> 3');
  });

  test('a call still running becomes a task; tasks/cancel stops the program and frees the slot', async () => {
    const created = (await call(slow, LOOP_PROGRAM)).result;
    assert.equal(created.resultType, 'task');
    assertTask(created, 'working');
    assert.equal(created.content, undefined, 'no result yet');
    const working = await get(slow, created.taskId);
    assertTask(working, 'working');
    assert.equal(working.resultType, 'complete', 'tasks/get has the standard result kind');
    assert.equal(working.statusMessage, 'lisp_eval is running');
    const ack = await taskRequest(slow, 'tasks/cancel', { taskId: created.taskId });
    assert.deepEqual(Object.keys(ack.result).sort(), ['_meta', 'resultType']);
    // The ack comes once the program has stopped: the task is already cancelled.
    const cancelled = await get(slow, created.taskId);
    assertTask(cancelled, 'cancelled');
    assert.equal(cancelled.result, undefined);
    // One call slot: it is free again, not held by the stopped program for a minute.
    assert.equal(textOf((await call(slow, '(+ 1 1)')).result), 'user=> 2');
    const again = await taskRequest(slow, 'tasks/cancel', { taskId: created.taskId });
    assert.equal(again.result.resultType, 'complete', 'cancelling a finished task is acknowledged');
    assertTask(await get(slow, created.taskId), 'cancelled');
  });

  test('a task completes with the result the call would have had, errors included', async () => {
    const ok = (await call(atOnce, '(+ 40 2)')).result;
    assert.equal(ok.resultType, 'task');
    const done = await settled(() => get(atOnce, ok.taskId));
    assertTask(done, 'completed');
    assert.equal(done.result.resultType, 'complete');
    assert.equal(textOf(done.result), 'user=> 42');
    assert.equal(done.result.isError, false);

    const slowOne = (await call(atOnce, LOOP_PROGRAM)).result;
    const timedOut = await settled(() => get(atOnce, slowOne.taskId));
    assertTask(timedOut, 'completed');
    assert.equal(timedOut.result.isError, true, 'a tool error is a completed task (failed is for JSON-RPC errors)');
    assert.equal(reasonOf(timedOut.result), 'timeout');
  });

  test('a client that does not declare the extension never gets a task', async () => {
    const r = await call(atOnce, '(+ 1 2)', META_WITHOUT_TASKS);
    assert.equal(r.result.resultType, 'complete');
    assert.equal(textOf(r.result), 'user=> 3');
  });

  test('tasks/* errors: the capability, the task id, the input, removed and 2025-era methods', async () => {
    const missing = await taskRequest(slow, 'tasks/get', { taskId: 'x' }, META_WITHOUT_TASKS);
    assert.equal(missing.error.code, -32021);
    assert.deepEqual(missing.error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const unknown = await taskRequest(slow, method, { taskId: '0'.repeat(32) });
      assert.equal(unknown.error.code, -32602, method);
      assert.match(unknown.error.message, /Task not found/);
      const noId = await taskRequest(slow, method, {});
      assert.equal(noId.error.code, -32602);
      assert.match(noId.error.message, /taskId/);
    }
    const created = (await call(atOnce, '(+ 1 2)')).result;
    const update = await taskRequest(atOnce, 'tasks/update', { taskId: created.taskId, inputResponses: {} });
    assert.equal(update.result.resultType, 'complete', 'tasks/update is acknowledged (nothing is ever asked)');
    const badUpdate = await taskRequest(atOnce, 'tasks/update', { taskId: created.taskId });
    assert.equal(badUpdate.error.code, -32602);
    assert.equal((await taskRequest(slow, 'tasks/list', {})).error.code, -32601, 'the extension has no tasks/list');
    assert.equal((await taskRequest(slow, 'tasks/result', { taskId: created.taskId })).error.code, -32601);
    // A 2025-era client on the same pipe: no tasks there.
    await slow.init();
    const legacy = await slow.request(++next, 'tasks/get', { taskId: created.taskId });
    assert.equal(legacy.error.code, -32601);
  });
});

httpSuite('http: tasks', () => {
  let server;
  before(async () => {
    server = await startHttpServer(['--task-after-ms', '100', '--program-timeout-ms', '60000', '--max-concurrent-calls', '1']);
  });
  after(() => server?.stop());

  const H = (method, name) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) });
  const body = (id, method, params, meta = META) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });

  test('the official requester: an immediate result, then a task it follows and cancels', async () => {
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    assert.deepEqual(client.getServerCapabilities().extensions, { [TASKS]: {} });
    // The requester frames 2026-07-28 task traffic itself and posts it through here.
    const raw = new RawHttpClient(server.url);
    // It hands over the method and params; the id is the coordinator's.
    let id = 0;
    const rawDispatch = async (request) => {
      const name = request.params?.taskId ?? request.params?.name;
      return (await raw.post({ jsonrpc: '2.0', id: ++id, ...request }, H(request.method, name))).json;
    };
    const session = createTaskSessionFromClient(client, {
      endpointId: 'ptc-tasks-tests',
      rawDispatch,
      v2RequestFraming: { protocolVersion: MODERN, clientInfo: CLIENT_INFO, clientCapabilities: {} },
    });
    try {
      const quick = await session.callTool('lisp_eval', { program: '(+ 1 2)' });
      const { outcome } = await quick.settle();
      assert.equal(textOf(resultFromTaskOutcome(outcome)), 'user=> 3');

      const long = await session.callTool('lisp_eval', { program: LOOP_PROGRAM });
      const seen = [];
      const settling = long.settle({ onEvent: (e) => seen.push(e.type === 'task' ? e.task.status : e.type) });
      await eventually(() => seen.includes('working'), 10000, 10);
      await long.cancel();
      const end = await settling;
      assert.equal(end.outcome.status, 'cancelled', JSON.stringify(end.outcome));
      // The program stopped: the one slot serves the next call at once.
      const next = await session.callTool('lisp_eval', { program: '(+ 2 2)' });
      assert.equal(textOf(resultFromTaskOutcome((await next.settle()).outcome)), 'user=> 4');
    } finally {
      await session.close();
      await client.close();
      raw.close();
    }
  });

  test('a task outlives the connection that started it', async () => {
    const first = new RawHttpClient(server.url);
    const r = await first.post(body(1, 'tools/call', { name: 'lisp_eval', arguments: { program: LOOP_PROGRAM } }), H('tools/call', 'lisp_eval'));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.result.resultType, 'task');
    const { taskId } = r.json.result;
    first.close();
    const second = new RawHttpClient(server.url);
    const get = async () => (await second.post(body(2, 'tasks/get', { taskId }), H('tasks/get', taskId))).json.result;
    assert.equal((await get()).status, 'working', 'still running after its connection closed');
    const ack = await second.post(body(3, 'tasks/cancel', { taskId }), H('tasks/cancel', taskId));
    assert.equal(ack.status, 200);
    assertTask(await settled(get), 'cancelled');
    second.close();
  });

  test('Mcp-Name mirrors params.taskId; a missing capability is 400 -32021', async () => {
    const c = new RawHttpClient(server.url);
    const taskId = 'f'.repeat(32);
    const absent = await c.post(body(1, 'tasks/get', { taskId }), H('tasks/get'));
    assert.equal(absent.status, 400);
    assert.equal(absent.json.error.code, -32020);
    assert.match(absent.json.error.message, /params\.taskId="?f+"? but the required Mcp-Name header is absent/);
    const wrong = await c.post(body(2, 'tasks/cancel', { taskId }), H('tasks/cancel', 'lisp_eval'));
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json.error.code, -32020);
    const capability = await c.post(body(3, 'tasks/get', { taskId }, META_WITHOUT_TASKS), H('tasks/get', taskId));
    assert.equal(capability.status, 400);
    assert.equal(capability.json.error.code, -32021);
    const unknown = await c.post(body(4, 'tasks/get', { taskId }), H('tasks/get', taskId));
    assert.equal(unknown.status, 200, 'an unknown task is an in-band -32602');
    assert.equal(unknown.json.error.code, -32602);
    c.close();
  });
});
