// Load and faults over Streamable HTTP: 8 concurrent clients, every reply
// matched to its request, RSS over a long run; a client disconnecting mid-call,
// a slow client trickling its body, malformed and oversize requests, SIGTERM
// mid-load: the others keep being served and nothing acknowledged is lost.
// Counts: PTC_MCP_HTTP_CALLS (total raw calls of the long run, default 100,000;
// a tenth under sanitizers), PTC_MCP_HTTP_SDK_CALLS (per SDK client, default 500).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  LOOP_PROGRAM,
  SANITIZED,
  envCount,
  fibProgram,
  figure,
  httpClient,
  httpUnavailableReason,
  eventually,
  now,
  rssKiB,
  sleep,
  startHttpServer,
  textOf,
} from './lib/harness.mjs';
import { job } from './lib/jobs.mjs';
import { RawHttpClient, postHead, rawSocket } from './lib/raw-http.mjs';

const unavailable = await httpUnavailableReason();
if (unavailable) {
  console.log(`# SKIP: ptc mcp --http is not available in this build (${unavailable}); the HTTP load tests are skipped`);
  process.exit(77);
}

const CLIENTS = 8;

// `clients` raw clients, each with its own MCP session, making calls until
// `perClient` are done or stop() is called. Every reply must be HTTP 200 with
// the request's id and the exact text of its job. Resolves with stats.
// CPU time of every thread of a process, in ns (schedstat: no tick rounding).
function serverCpuNs(pid) {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ns;
}

function rawLoad(url, clients, perClient, { onProgress = () => {}, tag = 'L', modern = false } = {}) {
  let stopped = false;
  let done = 0;
  let worst = 0;
  const busy = [];
  const run = Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const client = await new RawHttpClient(url, { modern }).init();
      try {
        for (let i = 0; i < perClient && !stopped; i++) {
          const { args, expect, error } = job(c, i);
          const id = i % 2 ? `${tag}${c}-${i}` : c * 1000000 + i;
          const t0 = now();
          const r = await client.call(id, args);
          worst = Math.max(worst, now() - t0);
          assert.equal(r.status, 200, r.text);
          assert.equal(r.json.id, id, `reply to ${id} carried id ${r.json.id}`);
          if (r.json.result?.structuredContent?.reason === 'busy') busy.push(id);
          else {
            assert.equal(r.json.result.isError, !!error, r.text);
            assert.equal(r.json.result.content[0].text, expect);
          }
          onProgress(++done);
        }
      } finally {
        client.close();
      }
    }),
  );
  return {
    done: run.then(() => ({ calls: done, worstMs: worst, busy })),
    stop: () => (stopped = true),
  };
}

describe('http load', () => {
  test(`${CLIENTS} SDK clients at once: each result is its own`, async () => {
    const per = envCount('PTC_MCP_HTTP_SDK_CALLS', 500);
    const server = await startHttpServer(['--max-concurrent-calls', String(CLIENTS)]);
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => httpClient(server.url)));
    assert.equal(new Set(clients.map((c) => c.transport.sessionId)).size, CLIENTS, 'one MCP session each');
    const t0 = now();
    await Promise.all(
      clients.map(async ({ client }, c) => {
        for (let i = 0; i < per; i++) {
          const { args, expect, error } = job(c, i);
          const r = await client.callTool({ name: 'lisp_eval', arguments: args }, CallToolResultSchema);
          assert.equal(!!r.isError, !!error, textOf(r));
          assert.equal(textOf(r), expect);
        }
      }),
    );
    figure(`http SDK ${CLIENTS} clients x ${per} calls`, `${(now() - t0).toFixed(0)} ms`);
    await Promise.all(clients.map((c) => c.close()));
    assert.equal((await server.stop()).code, 0);
  });

  test(`${CLIENTS} clients x ${'5,000+'} calls: every reply matched; RSS after 100,000 within 10% of 10,000`, async () => {
    const total = envCount('PTC_MCP_HTTP_CALLS', 100000);
    const server = await startHttpServer(['--max-concurrent-calls', String(CLIENTS)]);
    const first = Math.floor(total / 10);
    let rssFirst = 0;
    const t0 = now();
    const load = rawLoad(server.url, CLIENTS, Math.ceil(total / CLIENTS), {
      onProgress: (n) => {
        if (n === first) rssFirst = rssKiB(server.pid);
      },
    });
    const { calls, worstMs, busy } = await load.done;
    const ms = now() - t0;
    const rssLast = rssKiB(server.pid);
    assert.equal(busy.length, 0, `busy with ${CLIENTS} slots for ${CLIENTS} clients: ${busy.slice(0, 5)}`);
    assert.ok(calls >= total);
    figure(`http ${CLIENTS} keep-alive clients x ${calls / CLIENTS} calls`, `${ms.toFixed(0)} ms, ${((calls / ms) * 1000).toFixed(0)} calls/s, worst call ${worstMs.toFixed(1)} ms`);
    figure(`http RSS after ${first} calls / after ${calls} calls (KiB)`, `${rssFirst} / ${rssLast} (${(((rssLast - rssFirst) / rssFirst) * 100).toFixed(1)}%)`);
    if (!SANITIZED) assert.ok(rssLast <= rssFirst * 1.1, `RSS grew from ${rssFirst} to ${rssLast} KiB`);
    assert.equal((await server.stop()).code, 0);
  });
});

describe('http: 2026-07-28 against 2025', () => {
  test(`${CLIENTS} keep-alive clients: calls/s without sessions beside calls/s with them (same server, alternating)`, async () => {
    const per = Math.ceil(envCount('PTC_MCP_HTTP_ERA_CALLS', 12000) / CLIENTS / 3);
    const server = await startHttpServer(['--max-concurrent-calls', String(CLIENTS)]);
    const rates = { 2025: [], 2026: [] };
    const cpu = { 2025: [], 2026: [] }; // the server's CPU time per call (µs): the clients share the cores
    for (let round = 0; round < 3; round++)
      for (const modern of [false, true]) {
        const t0 = now();
        const c0 = serverCpuNs(server.pid);
        const { calls, busy } = await rawLoad(server.url, CLIENTS, per, { modern, tag: modern ? 'M' : 'L' }).done;
        assert.equal(busy.length, 0);
        rates[modern ? 2026 : 2025].push((calls / (now() - t0)) * 1000);
        cpu[modern ? 2026 : 2025].push((serverCpuNs(server.pid) - c0) / calls / 1000);
      }
    const best = (xs) => Math.max(...xs).toFixed(0);
    const least = (xs) => Math.min(...xs).toFixed(1);
    figure(`http ${CLIENTS} keep-alive clients, calls/s (best of 3 rounds): 2025 sessions / 2026-07-28`, `${best(rates[2025])} / ${best(rates[2026])}`);
    figure('http server CPU per call, µs (least of 3 rounds): 2025 sessions / 2026-07-28', `${least(cpu[2025])} / ${least(cpu[2026])}`);
    assert.equal((await server.stop()).code, 0);
  });
});

describe('http faults', () => {
  test('clients disconnecting mid-call: their programs stop, the others are served', async () => {
    // 6 slots, 4 load clients, 3 abandoned loops: a loop not stopped would make the load busy.
    const server = await startHttpServer(['--max-concurrent-calls', '6', '--program-timeout-ms', '60000']);
    const load = rawLoad(server.url, 4, envCount('PTC_MCP_HTTP_FAULT_CALLS', 3000));
    const setup = await new RawHttpClient(server.url).init();
    for (let k = 0; k < 3; k++) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: `gone${k}`, method: 'tools/call', params: { name: 'lisp_eval', arguments: { program: LOOP_PROGRAM } } });
      const sock = await rawSocket(server.port);
      sock.write(postHead(server.port, setup.sid, Buffer.byteLength(body)) + body);
      await sleep(100);
      sock.destroy();
      await sleep(50);
    }
    const { busy, calls } = await load.done;
    assert.equal(busy.length, 0, `the load met busy: ${busy.slice(0, 5)}`);
    // Then, with the load over (4 + 6 would exceed the gate), all six slots
    // can be taken again at once.
    const t0 = now();
    for (;;) {
      const six = await Promise.all(
        Array.from({ length: 6 }, (_, k) => new RawHttpClient(server.url).init().then((c) => c.call(`six${k}`, { program: fibProgram(18) }).finally(() => c.close()))),
      );
      if (six.every((r) => r.json?.result?.isError === false)) break;
      assert.ok(now() - t0 < 3000, 'the disconnected calls kept their slots');
    }
    figure('http: 3 clients gone mid-call; 4 others served', `${calls} calls, 0 busy`);
    setup.close();
    assert.equal((await server.stop()).code, 0);
  });

  test('a slow client trickling its body does not hold up the others', async () => {
    const server = await startHttpServer(['--max-concurrent-calls', '4', '--http-request-timeout-ms', '3000']);
    const load = rawLoad(server.url, 3, 1e9);
    const c = await new RawHttpClient(server.url).init();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'lisp_eval', arguments: { program: '(+ 40 2)' } } });
    const sock = await rawSocket(server.port);
    sock.write(postHead(server.port, c.sid, Buffer.byteLength(body)));
    const t0 = now();
    for (const ch of body) {
      sock.write(ch);
      await sleep(5);
    }
    const trickleMs = now() - t0;
    while (!sock.received.includes('"slow"') && now() - t0 < trickleMs + 3000) await sleep(5);
    assert.match(sock.received, /^HTTP\/1\.1 200/);
    assert.match(sock.received, /user=> 42/);
    sock.destroy();
    // One that stalls half way is cut off at the request timeout; nobody else notices.
    const stall = await rawSocket(server.port);
    stall.write(postHead(server.port, c.sid, Buffer.byteLength(body)) + body.slice(0, 20));
    const t1 = now();
    await Promise.race([stall.ended, sleep(10000)]);
    const stallMs = now() - t1;
    load.stop();
    const { calls, worstMs } = await load.done;
    figure('http: trickled body (1 byte / 5 ms) while 3 clients load', `trickle ${trickleMs.toFixed(0)} ms; ${calls} calls meanwhile, worst ${worstMs.toFixed(1)} ms`);
    figure('http: a stalled body is cut off after (ms; request timeout 3000)', `${stallMs.toFixed(0)}, answered: ${stall.received.split('\r\n')[0] || '(closed)'}`);
    assert.ok(stallMs < 6000, 'the stalled request was never cut off');
    assert.ok(worstMs < 1000, `a load call took ${worstMs} ms`);
    c.close();
    assert.equal((await server.stop()).code, 0);
  });

  test('malformed and oversize requests get 4xx and the others are served', async () => {
    const server = await startHttpServer(['--max-concurrent-calls', '4', '--http-max-body-bytes', '65536']);
    const load = rawLoad(server.url, 3, 1e9);
    const c = await new RawHttpClient(server.url).init();
    const statuses = {};
    const expectStatus = async (label, r, test) => {
      statuses[label] = r.status;
      assert.ok(test(r), `${label}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
    };
    await expectStatus('unparsable JSON', await c.post('{"jsonrpc": "2.0", "id": 1,'), (r) => r.status === 400 && r.json?.error?.code === -32700);
    await expectStatus('not UTF-8', await c.post(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('latin1')), (r) => r.status === 400 || r.json?.error?.code === -32700);
    await expectStatus('a batch', await c.post('[{"jsonrpc":"2.0","id":1,"method":"ping"}]'), (r) => r.status >= 400 || r.json?.error?.code === -32600);
    await expectStatus('no jsonrpc', await c.post('{"id":1,"method":"ping"}'), (r) => r.json?.error?.code === -32600);
    await expectStatus('text/plain', await c.post('{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'content-type': 'text/plain' }), (r) => r.status === 415 || r.status === 400);
    await expectStatus('body over the cap', await c.post({ jsonrpc: '2.0', id: 2, method: 'ping', pad: 'x'.repeat(200000) }), (r) => r.status === 413);
    // Oversize and chunked (no Content-Length to refuse up front).
    const big = await rawSocket(server.port);
    big.write(postHead(server.port, c.sid, 0).replace('Content-Length: 0\r\n', 'Transfer-Encoding: chunked\r\n'));
    for (let k = 0; k < 10; k++) big.write(`4000\r\n${'y'.repeat(0x4000)}\r\n`);
    big.write('0\r\n\r\n');
    await Promise.race([big.ended, sleep(3000)]);
    statuses['chunked over the cap'] = big.received.split('\r\n')[0];
    assert.match(big.received, /^HTTP\/1\.1 413/);
    big.destroy();
    // A Content-Length the body never reaches, then the client leaves.
    const short = await rawSocket(server.port);
    short.write(postHead(server.port, c.sid, 5000) + '{"jsonrpc":');
    await sleep(50);
    short.destroy();
    // Not HTTP at all.
    const junk = await rawSocket(server.port);
    junk.write('HELLO THERE\r\n\r\n');
    await Promise.race([junk.ended, sleep(3000)]);
    statuses['not HTTP'] = junk.received.split('\r\n')[0] || '(closed)';
    assert.ok(junk.received === '' || /^HTTP\/1\.1 4\d\d/.test(junk.received), junk.received);
    // The session that sent all that still works.
    const ok = await c.call('after', { program: '(+ 1 2)' });
    assert.equal(ok.json.result.content[0].text, 'user=> 3');
    load.stop();
    const { calls } = await load.done;
    figure('http: malformed/oversize requests answered', JSON.stringify(statuses));
    figure('http: calls served meanwhile', calls);
    c.close();
    assert.equal((await server.stop()).code, 0);
  });

  test('SIGTERM mid-load: calls in flight are answered, later ones refused, nothing half-answered, exit 0', async () => {
    const server = await startHttpServer(['--max-concurrent-calls', '8', '--program-timeout-ms', '10000', '--log-level', 'debug']);
    const outcomes = { ok: 0, refused: 0, connection: 0 };
    const connectionErrors = new Set();
    let stopping = false;
    const errors = [];
    // 6 clients calling until refused.
    const loaders = Array.from({ length: 6 }, async (_, c) => {
      const client = await new RawHttpClient(server.url).init();
      for (let i = 0; ; i++) {
        const { args, expect, error } = job(c, i);
        let r;
        try {
          r = await client.call(i, args);
        } catch (e) {
          // Refused at the socket: never read by the server (the listener is closed).
          assert.ok(stopping, `connection error before SIGTERM: ${e.message}`);
          outcomes.connection++;
          connectionErrors.add(e.code ?? e.message);
          break;
        }
        if (r.status === 200 && r.json?.result?.structuredContent?.reason === 'shutting_down') {
          outcomes.refused++;
          break;
        }
        if (r.status === 503) {
          assert.ok(stopping);
          outcomes.refused++;
          break;
        }
        try {
          assert.equal(r.status, 200, r.text);
          assert.equal(r.json.id, i);
          assert.equal(r.json.result.isError, !!error);
          assert.equal(r.json.result.content[0].text, expect);
        } catch (e) {
          errors.push(e.message);
          break;
        }
        outcomes.ok++;
      }
      client.close();
    });
    // 2 clients with slower calls (~250 ms) in flight when the signal comes.
    await sleep(200);
    const slowClients = await Promise.all([0, 1].map(() => new RawHttpClient(server.url).init()));
    const slow = slowClients.map((client, k) => client.call(`slow${k}`, { program: fibProgram(32) }).finally(() => client.close()));
    await sleep(30);
    stopping = true;
    const t0 = now();
    server.proc.kill('SIGTERM');
    const slowReplies = await Promise.all(slow);
    await Promise.all(loaders);
    const exit = await server.exited;
    const ms = now() - t0;
    assert.deepEqual(errors, []);
    for (const r of slowReplies) {
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.result.content[0].text, 'user=> 2178309', 'a call in flight at SIGTERM was answered');
    }
    assert.ok(outcomes.ok > 0);
    // Every call the server ran was answered: its tool_call log lines (debug) count
    // the calls it ran, and each must have reached its client.
    await sleep(50);
    const ran = server.logs.events('tool_call').length;
    figure('http SIGTERM mid-load', `${JSON.stringify(outcomes)} (${[...connectionErrors]}); ran ${ran}; slow calls in flight answered; exit after ${ms.toFixed(0)} ms`);
    assert.equal(ran, outcomes.ok + slowReplies.length, 'calls the server ran but whose reply never arrived');
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.ok(server.logs.events('http_draining').length === 1);
  });
});

// Half-open connections from one address (127.0.0.2: loopback answers all of
// 127/8): each connects and sends nothing. Resolves with the sockets and how
// each ended: refused (503 then closed at once), closed later (the header
// timeout), or still open.
async function flood(port, count) {
  const net = await import('node:net');
  const sockets = [];
  const outcome = { refused: 0, closedLater: 0 };
  const opened = [];
  for (let i = 0; i < count; i++) {
    opened.push(
      new Promise((resolve) => {
        const s = net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' });
        let data = '';
        const t0 = now();
        s.on('data', (d) => (data += d));
        s.on('error', () => {});
        s.on('close', () => {
          if (data.startsWith('HTTP/1.1 503')) outcome.refused++;
          else if (now() - t0 > 200) outcome.closedLater++;
        });
        s.on('connect', () => resolve());
        s.on('error', () => resolve());
        sockets.push(s);
      }),
    );
  }
  await Promise.all(opened);
  return { sockets, outcome, destroy: () => sockets.forEach((s) => s.destroy()) };
}

describe('http connection floods', () => {
  test('3,000 half-open connections from one address under a 1,024 soft limit: refused at once past the per-address cap, timed out after the header timeout; a client elsewhere is served throughout', async () => {
    const server = await startHttpServer(['--http-header-timeout-ms', '1500'], { softFiles: 1024 });
    assert.ok(server.listening.descriptors > 1024, `soft limit raised: ${JSON.stringify(server.listening)}`);
    const f = await flood(server.port, 3000);
    const client = new RawHttpClient(server.url);
    const lat = [];
    for (let i = 0; i < 20; i++) {
      const t0 = now();
      if (i === 0) await client.init();
      const r = await client.post({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'lisp_eval', arguments: { program: '(+ 1 2)' } } });
      lat.push(now() - t0);
      assert.equal(r.status, 200, r.text);
    }
    figure('http flood: a client from another address, call round trip while 3,000 connections flood (max ms)', Math.max(...lat).toFixed(2));
    await eventually(() => f.outcome.refused >= 3000 - 256, 5000, 20);
    assert.equal(f.outcome.refused, 3000 - 256, 'everything past the per-address cap (256) refused with 503');
    // The 256 it kept send no header: the header timeout closes them.
    await eventually(() => f.outcome.closedLater >= 256, 5000, 50);
    f.destroy();
    await server.stop();
  });

  test('the total cap refuses the excess at once, whatever the address', async () => {
    const server = await startHttpServer(['--http-max-connections', '50', '--http-header-timeout-ms', '60000']);
    const f = await flood(server.port, 80);
    await eventually(() => f.outcome.refused >= 30, 5000, 20);
    assert.equal(f.outcome.refused, 30);
    const r = await fetch(server.url.replace('/mcp', '/health')).catch((e) => e);
    assert.ok(r instanceof Error || r.status === 503, 'over the cap: refused');
    f.destroy();
    await eventually(async () => (await fetch(server.url.replace('/mcp', '/health'))).status === 200, 5000, 20);
    await server.stop();
  });
});
