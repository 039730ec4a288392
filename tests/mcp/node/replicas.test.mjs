// Replicas sharing a store, as docs/deploy.md deploys them: a private
// redis-server (append-only persistence), three `ptc mcp --http --store
// --sessions` replicas and haproxy in round robin in front, all started here on
// loopback. Clients: the v2 SDK pinned to 2026-07-28 (no session, so every
// request may land on another replica) and the v1 SDK's 2025 client (an
// Mcp-Session-Id the balancer sticks to one replica). Which replica served a
// request is read from its debug log (`http_request` lines on its stderr).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  LOOP_PROGRAM,
  eventually,
  fibProgram,
  figure,
  httpClient,
  httpUnavailableReason,
  now,
  reasonOf,
  textOf,
} from './lib/harness.mjs';
import { Haproxy, RedisServer, freePort, haproxyConfig, healthPaths, scratch, startReplicas, writeStoreKey } from './lib/replicas.mjs';
import { Resp } from './lib/resp.mjs';

const unavailable = await httpUnavailableReason();
if (unavailable) {
  console.log(`# SKIP: ptc mcp --http is not available in this build (${unavailable})`);
  process.exit(77);
}

const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const LEASE_MS = 1000;
// What a poll adds to a deadline the server keeps: a loaded machine's scheduling.
const SLACK_MS = 750;
const CALLS = 1000;
// Programs at once per replica (--max-concurrent-calls), and haproxy's maxconn per replica.
const SLOTS = 4;

// Everything the scenarios share; started once.
const d = {};

before(async () => {
  const t0 = now();
  const { dir, cleanup } = scratch();
  d.cleanup = cleanup;
  d.redis = await new RedisServer(dir).start();
  d.keyFile = writeStoreKey(dir);
  d.replicas = await startReplicas(3, [
    '--store', d.redis.url, '--store-key-file', d.keyFile, '--task-lease-ms', String(LEASE_MS),
    '--sessions', '--response-profile', 'structured', '--log-level', 'debug',
    '--task-after-ms', '100', '--program-timeout-ms', '30000', '--http-shutdown-grace-ms', '5000',
    '--max-concurrent-calls', String(SLOTS),
  ]);
  const paths = await healthPaths(d.replicas[0]);
  d.readyz = paths.readyz;
  if (!d.readyz) console.log('# pending: no /readyz on this build: haproxy checks /ready and /health instead');
  d.lb = await new Haproxy(dir, await freePort(), (o) => haproxyConfig({ ...o, ...paths, replicas: d.replicas, maxconn: SLOTS })).start();
  await d.lb.waitStatus(names(d.replicas), 'UP');
  figure('deployment started (redis, 3 replicas, haproxy) ms', Math.round(now() - t0));
});

after(async () => {
  await d.lb?.stop();
  for (const r of d.replicas ?? []) await r.stop('SIGKILL');
  await d.redis?.stop('SIGKILL');
  d.cleanup?.();
});

const names = (replicas) => replicas.map((r) => r.name);
const other = (r) => d.replicas.filter((x) => x !== r);

// A v2 SDK client pinned to 2026-07-28 on `url`; its clientInfo name is part of its owner.
async function modernClient(url, name = 'alice') {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
const tool = (client, name, args) => client.callTool({ name, arguments: args });

// Raw 2026-07-28 requests declaring the tasks extension (the SDK's requester
// would pick its own endpoint; here each request goes where the test says).
let nextId = 0;
async function rpc(url, method, params, clientName = 'alice') {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
    'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1' },
  };
  const name = params.taskId ?? params.name;
  const r = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params: { ...params, _meta } }),
  });
  const text = await r.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${method}: HTTP ${r.status} ${text}`);
  }
}
const taskGet = async (url, taskId, clientName) => {
  const r = await rpc(url, 'tasks/get', { taskId }, clientName);
  assert.ok(r.result, `tasks/get: ${JSON.stringify(r)}`);
  return r.result;
};

// The tools/call requests each replica has logged (`http_request` lines).
const toolCalls = () => d.replicas.map((r) => r.lines((l) => l.event === 'http_request' && l.rpc_method === 'tools/call').length);

// Runs `fn` (one tools/call through the balancer) and resolves with its result
// and the replica that served it (its log line comes just after the reply).
async function served(fn) {
  const before = toolCalls();
  const result = await fn();
  let grew;
  try {
    await eventually(() => {
      grew = toolCalls().map((n, i) => n - before[i]);
      return grew.reduce((a, b) => a + b) === 1;
    }, 3000, 5);
  } catch {
    throw new Error(`not one tools/call line in the replicas' logs, but ${grew}; the call gave ${textOf(result)}`);
  }
  return { result, by: d.replicas[grew.indexOf(1)] };
}

// The replica that turned call `taskId` into a task.
function runnerOf(taskId) {
  return Promise.any(d.replicas.map((r) =>
    r.logs.waitFor((l) => l.event === 'call_became_task' && l.task === taskId, 5000).then(() => r)));
}

// Starts lisp_eval of `program` through the balancer as a task.
async function startTask(program) {
  const created = await rpc(d.lb.url, 'tools/call', { name: 'lisp_eval', arguments: { program } });
  assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
  return { taskId: created.result.taskId, runner: await runnerOf(created.result.taskId) };
}

// Runs fn({taskId, runner}) on a task of `program`; a task still running when
// fn ends (a failed check) is cancelled where it runs, so that it does not
// hold a slot and a core through the next scenarios.
async function withTask(program, fn) {
  const task = await startTask(program);
  try {
    await fn(task);
  } finally {
    if (task.runner.alive) await rpc(task.runner.url, 'tasks/cancel', { taskId: task.taskId }).catch(() => {});
  }
}

// A replica stopped in a scenario is started again (and seen UP by the balancer).
async function restart(replica) {
  await replica.start();
  await d.lb.waitStatus([replica.name], 'UP');
}

// Every sealed record ("psr1") of ids[0] in Redis (a string, or a field of a
// hash, under a key that names ids[0] and was not in `before`) is in turn
// altered, forged (its HMAC zeroed) and copied under ids[1]'s key: each time
// `read(i)`, what the balancer answers about ids[i], must be refused
// ({refused}), and with the genuine record back it answers as at first.
async function tamper(redis, before, ids, read) {
  const records = [];
  for (const key of await redis.keys('*')) {
    if (before.has(key) || !key.includes(ids[0])) continue;
    const type = await redis.command('TYPE', key);
    if (type === 'string') records.push({ key, value: await redis.command('GET', key) });
    if (type === 'hash') {
      const flat = await redis.command('HGETALL', key);
      for (let i = 0; i < flat.length; i += 2) records.push({ key, field: flat[i].toString(), value: flat[i + 1] });
    }
  }
  const sealed = records.filter((r) => r.value.subarray(0, 4).toString() === 'psr1');
  assert.ok(sealed.length > 0, `a sealed record of ${ids[0]} in the store: ${(await redis.keys('*')).join(' ')}`);
  const put = (key, field, bytes) =>
    field === undefined ? redis.command('SET', key, bytes) : redis.command('HSET', key, field, bytes);
  const get = (key, field) => (field === undefined ? redis.command('GET', key) : redis.command('HGET', key, field));
  const genuine = [await read(0), await read(1)];
  assert.notDeepEqual(genuine[0], genuine[1]);
  for (const { key, field, value } of sealed) {
    const where = `${key}${field === undefined ? '' : ` ${field}`}`;
    const altered = Buffer.from(value);
    altered[altered.length - 1] ^= 1;
    const forged = Buffer.concat([value.subarray(0, 4), Buffer.alloc(32), value.subarray(36)]);
    for (const [what, bytes] of [['altered', altered], ['forged', forged]]) {
      await put(key, field, bytes);
      const r = await read(0);
      assert.ok(r.refused, `${what} ${where}: ${JSON.stringify(r)}`);
    }
    await put(key, field, value);
    assert.deepEqual(await read(0), genuine[0], `the genuine ${where} is served again`);
    const key2 = key.replace(ids[0], ids[1]);
    const genuine2 = await get(key2, field);
    assert.ok(genuine2, `${ids[1]} has ${key2}`);
    await put(key2, field, value);
    const moved = await read(1);
    assert.ok(moved.refused, `${where} moved to ${key2}: ${JSON.stringify(moved)}`);
    await put(key2, field, genuine2);
    assert.deepEqual(await read(1), genuine[1]);
  }
}

const ok = (r, what) => assert.equal(r.isError, false, `${what}: ${textOf(r)}`);
const resultOf = (r) => r.structuredContent?.result ?? textOf(r);

describe('replicas sharing a store behind haproxy', () => {
  test('a session started through the balancer keeps its definitions on each of three replicas', async () => {
    const client = await modernClient(d.lb.url);
    try {
      // Through served() too, so that its log line is not counted for the first eval.
      const { result: started } = await served(() => tool(client, 'lisp_session_start', { title: 'across replicas' }));
      ok(started, 'lisp_session_start');
      const id = started.structuredContent.session_id;
      const steps = [['(def x 20)', null], ['(def y (+ x 1))', null], ['(* x y)', 'user=> 420']];
      const by = [];
      for (const [program, expect] of steps) {
        const s = await served(() => tool(client, 'lisp_session_eval', { session_id: id, program }));
        ok(s.result, `${program} on ${s.by.name}`);
        if (expect) assert.equal(resultOf(s.result), expect, `on ${s.by.name}`);
        by.push(s.by.name);
      }
      assert.equal(new Set(by).size, 3, `each eval on another replica: ${by}`);
    } finally {
      await client.close();
    }
  });

  test('a 2025 client stays on the replica of its Mcp-Session-Id', async () => {
    const c = await httpClient(d.lb.url, { name: 'legacy' });
    try {
      assert.ok(c.transport.sessionId, 'a 2025 session');
      const by = new Set();
      for (let i = 0; i < 6; i++) {
        const s = await served(() => c.client.callTool({ name: 'lisp_eval', arguments: { program: `(+ ${i} 1)` } }));
        ok(s.result, `call ${i}`);
        assert.equal(resultOf(s.result), `user=> ${i + 1}`);
        by.add(s.by.name);
      }
      assert.equal(by.size, 1, `one replica served the session: ${[...by]}`);
    } finally {
      await c.close();
    }
  });

  test("another owner's session handle is refused on every replica", async () => {
    const alice = await modernClient(d.lb.url, 'alice');
    const started = await tool(alice, 'lisp_session_start', { title: 'private' });
    ok(started, 'start');
    const id = started.structuredContent.session_id;
    ok(await tool(alice, 'lisp_session_eval', { session_id: id, program: '(def secret 42)' }), 'def');
    for (const r of d.replicas) {
      const bob = await modernClient(r.url, 'bob');
      const stolen = await tool(bob, 'lisp_session_eval', { session_id: id, program: 'secret' });
      assert.equal(reasonOf(stolen), 'session_not_found', `${r.name}: ${textOf(stolen)}`);
      const listed = await tool(bob, 'lisp_session_list', {});
      ok(listed, 'list');
      assert.ok(!JSON.stringify(listed.structuredContent).includes(id), `${r.name} lists alice's session to bob`);
      await bob.close();
    }
    assert.equal(resultOf(await tool(alice, 'lisp_session_eval', { session_id: id, program: 'secret' })), 'user=> 42');
    await alice.close();
  });

  test('session records altered, forged or moved in Redis are refused', async () => {
    const redis = await Resp.connect({ path: d.redis.socket });
    const client = await modernClient(d.lb.url, 'victim');
    try {
      const before = new Set(await redis.keys('*'));
      const ids = [];
      for (const who of [1, 2]) {
        const s = await tool(client, 'lisp_session_start', { title: `victim ${who}` });
        ok(s, 'start');
        ids.push(s.structuredContent.session_id);
        ok(await tool(client, 'lisp_session_eval', { session_id: ids.at(-1), program: `(def who ${who})` }), 'def');
      }
      await tamper(redis, before, ids, async (i) => {
        const r = await tool(client, 'lisp_session_eval', { session_id: ids[i], program: 'who' });
        return r.isError ? { refused: reasonOf(r) } : resultOf(r);
      });
    } finally {
      await client.close();
      redis.close();
    }
  });

  test('task records altered, forged or moved in Redis are refused', async () => {
    const redis = await Resp.connect({ path: d.redis.socket });
    try {
      const before = new Set(await redis.keys('*'));
      const ids = [];
      for (const n of [33, 34]) {
        const { taskId } = await startTask(fibProgram(n));
        await eventually(async () => (await taskGet(d.lb.url, taskId)).status === 'completed', 20000, 50);
        ids.push(taskId);
      }
      await tamper(redis, before, ids, async (i) => {
        const r = await rpc(d.lb.url, 'tasks/get', { taskId: ids[i] });
        return r.error ? { refused: r.error.code } : `${r.result.status} ${textOf(r.result.result)}`;
      });
    } finally {
      redis.close();
    }
  });

  test('two clients racing on one session lose no update', async () => {
    const [a, b] = [await modernClient(d.lb.url, 'racer'), await modernClient(d.lb.url, 'racer')];
    try {
      const started = await tool(a, 'lisp_session_start', { title: 'race' });
      ok(started, 'start');
      const id = started.structuredContent.session_id;
      ok(await tool(a, 'lisp_session_eval', { session_id: id, program: '(def n 0)' }), 'def');
      const N = 40;
      const results = await Promise.all(Array.from({ length: N }, (_, i) =>
        tool(i % 2 ? a : b, 'lisp_session_eval', { session_id: id, program: '(def n (inc n)) (count (range 20000))' })));
      const wins = results.filter((r) => !r.isError).length;
      const busy = results.filter((r) => reasonOf(r) === 'session_busy').length;
      const others = results.filter((r) => r.isError && reasonOf(r) !== 'session_busy').map(textOf);
      figure('racing evals: won / session_busy', `${wins} / ${busy} of ${N}`);
      assert.deepEqual(others, [], 'every loser is session_busy');
      assert.ok(wins >= 1);
      assert.equal(resultOf(await tool(b, 'lisp_session_eval', { session_id: id, program: 'n' })), `user=> ${wins}`);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a task started on one replica is read on another and cancelled through a third', async () => {
    // One that completes: its result is read where it did not run.
    const done = await startTask(fibProgram(34));
    const [reader] = other(done.runner);
    let task;
    await eventually(async () => (task = await taskGet(reader.url, done.taskId)).status !== 'working', 20000, 50);
    assert.equal(task.status, 'completed', JSON.stringify(task));
    assert.equal(textOf(task.result), 'user=> 5702887');

    // One that runs until stopped.
    await withTask(LOOP_PROGRAM, async ({ taskId, runner }) => {
      const [poller, canceller] = other(runner);
      for (const r of [poller, canceller]) assert.equal((await taskGet(r.url, taskId)).status, 'working', `on ${r.name}`);
      const t0 = now();
      const ack = await rpc(canceller.url, 'tasks/cancel', { taskId });
      assert.ok(ack.result, JSON.stringify(ack));
      // The runner's program stops within a lease period (it learns of the cancel when it renews).
      await runner.logs.waitFor((l) => l.event === 'tool_call' && l.tool === 'lisp_eval' && l.cancelled === true,
        LEASE_MS + SLACK_MS);
      figure('cancel through another replica: program stopped after ms', Math.round(now() - t0));
      await eventually(async () => (await taskGet(poller.url, taskId)).status === 'cancelled', LEASE_MS, 20);
    });
  });

  test('kill -9 of the runner: the task reads failed on the others within the lease', async () => {
    await withTask(LOOP_PROGRAM, async ({ taskId, runner }) => {
      const readers = other(runner);
      assert.equal((await taskGet(readers[0].url, taskId)).status, 'working');
      const t0 = now();
      try {
        assert.deepEqual(await runner.stop('SIGKILL'), { code: null, signal: 'SIGKILL' });
        let task;
        let i = 0;
        await eventually(async () => (task = await taskGet(readers[i++ % 2].url, taskId)).status !== 'working',
          LEASE_MS + SLACK_MS, 20);
        figure('runner killed: task failed after ms', Math.round(now() - t0));
        assert.equal(task.status, 'failed', JSON.stringify(task));
        assert.match(JSON.stringify(task), /lost/i, 'it says the server was lost');
        for (const r of readers) assert.equal((await taskGet(r.url, taskId)).status, 'failed', `on ${r.name}`);
      } finally {
        if (!runner.alive) await restart(runner);
      }
    });
  });

  test('SIGTERM: the draining replica finishes its task, whose result is read on another', async () => {
    const { taskId, runner } = await startTask(fibProgram(34));
    const [reader] = other(runner);
    try {
      assert.deepEqual(await runner.stop('SIGTERM'), { code: 0, signal: null }, 'it drains and exits 0');
      const task = await taskGet(reader.url, taskId);
      assert.equal(task.status, 'completed', JSON.stringify(task));
      assert.equal(textOf(task.result), 'user=> 5702887');
    } finally {
      if (!runner.alive) await restart(runner);
    }
  });

  test(`a rolling restart under ${CALLS} calls: none fails, every session keeps its memory`, async () => {
    const WORKERS = 4;
    const clients = [];
    for (let w = 0; w < WORKERS; w++) clients.push(await modernClient(d.lb.url, 'roller'));
    const sessions = [];
    for (const c of clients) {
      const s = await tool(c, 'lisp_session_start', { title: 'rolling' });
      ok(s, 'start');
      sessions.push(s.structuredContent.session_id);
      ok(await tool(c, 'lisp_session_eval', { session_id: sessions.at(-1), program: '(def n 0)' }), 'def');
    }
    const increments = sessions.map(() => 0);
    const failures = [];
    let calls = 0;
    let restarting = true;
    // The restarts are spread over the calls: the roller waits for the count to reach n.
    let wake = null;
    const reached = (n) => new Promise((resolve) => (wake = { n, resolve }));
    const t0 = now();
    const worker = async (w) => {
      for (let i = 0; restarting || calls < CALLS; i++) {
        calls++;
        if (wake && calls >= wake.n) {
          wake.resolve();
          wake = null;
        }
        const session = i % 2 === 0;
        try {
          const r = session
            ? await tool(clients[w], 'lisp_session_eval', { session_id: sessions[w], program: '(def n (inc n))' })
            : await tool(clients[w], 'lisp_eval', { program: `(+ ${w} ${i})` });
          if (r.isError) failures.push(`${session ? 'session' : 'eval'}: ${textOf(r)}`);
          else if (session) increments[w]++;
          else if (resultOf(r) !== `user=> ${w + i}`) failures.push(`eval: ${resultOf(r)}`);
        } catch (e) {
          failures.push(`${session ? 'session' : 'eval'} threw: ${e.message}`);
        }
      }
    };
    const roll = async () => {
      try {
        for (const [k, r] of d.replicas.entries()) {
          await reached(((k + 0.5) * CALLS) / d.replicas.length);
          assert.deepEqual(await r.stop('SIGTERM'), { code: 0, signal: null }, `${r.name} drains and exits 0`);
          await restart(r);
        }
      } finally {
        restarting = false;
      }
    };
    const [rolled] = await Promise.allSettled([roll(), ...clients.map((_, w) => worker(w))]);
    figure(`rolling restart: calls / ms`, `${calls} / ${Math.round(now() - t0)}`);
    if (rolled.status === 'rejected') throw rolled.reason;
    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} of ${calls} calls failed`);
    for (let w = 0; w < WORKERS; w++) {
      const r = await tool(clients[w], 'lisp_session_eval', { session_id: sessions[w], program: 'n' });
      assert.equal(resultOf(r), `user=> ${increments[w]}`, `session ${w} kept every increment`);
    }
    for (const c of clients) await c.close();
  });

  test('redis-server stopped: store calls are unavailable at once, lisp_eval is served; restarted, sessions are back', async () => {
    const client = await modernClient(d.lb.url, 'outage');
    const started = await tool(client, 'lisp_session_start', { title: 'outage' });
    ok(started, 'start');
    const id = started.structuredContent.session_id;
    ok(await tool(client, 'lisp_session_eval', { session_id: id, program: '(def kept 7)' }), 'def');
    await d.redis.stop('SIGTERM');
    try {
      for (const r of d.replicas) {
        const direct = await modernClient(r.url, 'outage');
        for (const [name, args] of [['lisp_session_eval', { session_id: id, program: 'kept' }], ['lisp_session_start', {}]]) {
          const t0 = now();
          const res = await tool(direct, name, args);
          const ms = now() - t0;
          assert.equal(reasonOf(res), 'unavailable', `${name} on ${r.name}: ${textOf(res)}`);
          assert.ok(ms < 1000, `${name} on ${r.name} answered in ${Math.round(ms)} ms`);
        }
        await direct.close();
      }
      if (d.readyz) {
        for (const r of d.replicas) assert.equal((await fetch(`http://127.0.0.1:${r.port}/readyz`)).status, 503, r.name);
        await d.lb.waitStatus(names(d.replicas), 'DOWN', { timeoutMs: 3000 });
      }
      for (let i = 0; i < 6; i++) {
        const r = await tool(client, 'lisp_eval', { program: `(* ${i} 3)` });
        assert.equal(resultOf(r), `user=> ${i * 3}`, 'stateless lisp_eval is served through the balancer');
      }
    } finally {
      await d.redis.start();
    }
    const t0 = now();
    await eventually(async () => resultOf(await tool(client, 'lisp_session_eval', { session_id: id, program: 'kept' })) === 'user=> 7',
      5000, 50);
    figure('redis restarted: session served again after ms', Math.round(now() - t0));
    await d.lb.waitStatus(names(d.replicas), 'UP', { timeoutMs: 5000 });
    await client.close();
  });

  test('redis-server stopped: tasks/get is unavailable at once on every replica; restarted, the task is back', async () => {
    const { taskId } = await startTask(fibProgram(34));
    const result = async (url) => {
      const task = await taskGet(url, taskId);
      return task.status === 'completed' && textOf(task.result);
    };
    await eventually(() => result(d.lb.url), 20000, 50);
    await d.redis.stop('SIGTERM');
    try {
      for (const r of d.replicas) {
        const t0 = now();
        const res = await rpc(r.url, 'tasks/get', { taskId });
        const ms = now() - t0;
        assert.equal(res.error?.data?.reason, 'unavailable', `${r.name}: ${JSON.stringify(res)}`);
        assert.ok(ms < 1000, `tasks/get on ${r.name} answered in ${Math.round(ms)} ms`);
      }
    } finally {
      await d.redis.start();
    }
    assert.equal(await eventually(() => result(d.lb.url).catch(() => false), 5000, 50), 'user=> 5702887');
    await d.lb.waitStatus(names(d.replicas), 'UP', { timeoutMs: 5000 });
  });
});
