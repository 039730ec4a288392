// `ptc mcp` driven by the official v2 client (@modelcontextprotocol/client 2.4.0) in each of
// its negotiation modes, over stdio and Streamable HTTP: 'legacy' (the 2025 handshake),
// 'auto' (server/discover, then 2026-07-28) and pinned to 2026-07-28. Then raw 2026-07-28
// frames: the envelope, the standard HTTP headers and what the revision removed.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { REASONS } from './lib/essentials.mjs';
import { RawHttpClient } from './lib/raw-http.mjs';
import {
  LOOP_PROGRAM,
  RawStdio,
  eventually,
  httpUnavailableReason,
  now,
  passEnv,
  ptcBin,
  reasonOf,
  startHttpServer,
  textOf,
} from './lib/harness.mjs';

const MODERN = '2026-07-28';
const MODES = [
  ['legacy', 'legacy', '2025-11-25'],
  ['auto', 'auto', MODERN],
  ['pinned', { pin: MODERN }, MODERN],
];
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};
const httpUnavailable = await httpUnavailableReason();
if (httpUnavailable) console.log(`# SKIP: the HTTP transport is not in this build (${httpUnavailable})`);
// The suites of a transport this build has (describe), or skipped ones.
const suite = (transport) => (transport === 'http' && httpUnavailable ? describe.skip : describe);

function v2Client(mode) {
  return new Client({ name: 'ptc-v2-tests', version: '1.0.0' }, { versionNegotiation: { mode } });
}

const TRANSPORTS = {
  async stdio(mode, flags) {
    const client = v2Client(mode);
    const transport = new StdioClientTransport({
      command: ptcBin(),
      args: ['mcp', ...flags],
      stderr: 'ignore',
      env: passEnv(),
    });
    await client.connect(transport);
    return { client, transport, close: () => client.close() };
  },
  async http(mode, flags) {
    const server = await startHttpServer(flags);
    const client = v2Client(mode);
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    return {
      client,
      transport,
      close: async () => {
        await client.close();
        assert.deepEqual(await server.stop('SIGTERM'), { code: 0, signal: null });
      },
    };
  },
};

const lispEval = (client, args, options) => client.callTool({ name: 'lisp_eval', arguments: args }, options);

for (const [transportName, open] of Object.entries(TRANSPORTS)) {
  for (const [modeName, mode, version] of MODES) {
    suite(transportName)(`${transportName}, v2 client ${modeName}`, () => {
      let s;
      before(async () => {
        s = await open(mode, ['--max-concurrent-calls', '1', '--program-timeout-ms', '60000']);
      });
      after(() => s?.close());

      test(`negotiates ${version}; discovery or the handshake gives the server and its instructions`, () => {
        assert.equal(s.client.getNegotiatedProtocolVersion(), version);
        assert.equal(s.client.getServerVersion()?.name, 'ptc-lisp');
        assert.ok(s.client.getServerCapabilities()?.tools, 'tools capability');
        assert.match(s.client.getInstructions() ?? '', /lisp_eval/);
        if (transportName === 'http')
          assert.equal(Boolean(s.transport.sessionId), version !== MODERN, 'a session only for 2025');
      });

      test('tools/list and lisp_eval with a context', async () => {
        const { tools } = await s.client.listTools();
        const lisp = tools.find((t) => t.name === 'lisp_eval');
        assert.deepEqual(lisp.inputSchema.required, ['program']);
        const r = await lispEval(s.client, { program: '(+ 1 (count data/xs))', context: { xs: [1, 2, 3] } });
        assert.equal(r.isError, false, textOf(r));
        assert.equal(textOf(r), 'user=> 4');
        const typed = await lispEval(s.client, { program: '(* 6 7)', output_schema: { type: 'integer' } });
        assert.equal(typed.isError, false, textOf(typed));
        assert.match(textOf(typed), /42/);
      });

      test('every error reason, and an unknown tool', async () => {
        for (const [reason, args] of REASONS) {
          if (reason === 'timeout') continue; // 60 s here: the busy test below loops instead
          const r = await lispEval(s.client, args);
          assert.equal(r.isError, true, `${reason}: ${textOf(r)}`);
          assert.equal(reasonOf(r), reason, textOf(r));
        }
        const unknown = await s.client.callTool({ name: 'no_such_tool', arguments: {} });
        assert.equal(reasonOf(unknown), 'unknown_tool');
      });

      test('busy beyond the gate; cancelling frees the slot', async () => {
        const abort = new AbortController();
        const loop = lispEval(s.client, { program: LOOP_PROGRAM }, { signal: abort.signal }).catch((e) => e);
        // The loop holds the only slot once a second call is answered busy.
        await eventually(async () => reasonOf(await lispEval(s.client, { program: '1' })) === 'busy', 5000, 20);
        const t0 = now();
        abort.abort();
        assert.ok((await loop) instanceof Error, 'the aborted call rejects');
        await eventually(async () => {
          const r = await lispEval(s.client, { program: '(+ 1 2)' });
          return r.isError === false && textOf(r) === 'user=> 3';
        }, 5000, 20);
        assert.ok(now() - t0 < 5000);
      });
    });
  }
}

for (const [transportName, open] of Object.entries(TRANSPORTS)) {
  suite(transportName)(`${transportName}, v2 client pinned: sessions are handles in the arguments`, () => {
    let s;
    before(async () => {
      s = await open({ pin: MODERN }, ['--sessions', '--response-profile', 'structured']);
    });
    after(() => s?.close());

    test('start, eval with def, eval again, close', async () => {
      const tool = (name, args) => s.client.callTool({ name, arguments: args });
      const started = await tool('lisp_session_start', { title: 'v2' });
      assert.equal(started.isError, false, textOf(started));
      const id = started.structuredContent.session_id;
      const e1 = await tool('lisp_session_eval', { session_id: id, program: '(def y 41)' });
      assert.equal(e1.isError, false, textOf(e1));
      const e2 = await tool('lisp_session_eval', { session_id: id, program: '(inc y)' });
      assert.equal(e2.structuredContent.result, 'user=> 42');
      assert.equal((await tool('lisp_session_close', { session_id: id })).isError, false);
      assert.match(reasonOf(await tool('lisp_session_eval', { session_id: id, program: 'y' })) ?? '',
        /^session_(closed|not_found)$/);
    });
  });
}

describe('stdio: raw 2026-07-28 frames', () => {
  let raw;
  before(() => {
    raw = new RawStdio();
  });
  after(() => raw.kill());

  const modern = (id, method, params = {}, meta = META) => raw.request(id, method, { ...params, _meta: meta });

  test('server/discover without a handshake; a 2025 session on the same pipe is unaffected', async () => {
    const d = await modern('d', 'server/discover');
    assert.deepEqual(d.result.supportedVersions, [MODERN]);
    assert.equal(d.result.resultType, 'complete');
    assert.equal(d.result._meta['io.modelcontextprotocol/serverInfo'].name, 'ptc-lisp');
    assert.equal(typeof d.result.ttlMs, 'number');
    assert.ok(['public', 'private'].includes(d.result.cacheScope));
    await raw.init();
    const legacy = await raw.call('l', '(+ 1 1)');
    assert.equal(legacy.result.resultType, undefined, '2025 results are as before');
    assert.equal((await raw.request('p', 'ping')).result !== undefined, true, 'ping for 2025');
    const m = await modern('m', 'tools/call', { name: 'lisp_eval', arguments: { program: '(+ 2 2)' } });
    assert.equal(m.result.content[0].text, 'user=> 4');
    assert.equal(m.result.resultType, 'complete');
  });

  test('the envelope is checked; an unknown version gets the supported ones', async () => {
    const noCaps = await modern('e1', 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': MODERN });
    assert.equal(noCaps.error.code, -32602);
    assert.deepEqual(noCaps.error.data.envelope, { key: 'io.modelcontextprotocol/clientCapabilities', problem: 'missing' });
    const badCaps = await modern('e2', 'tools/list', {}, { ...META, 'io.modelcontextprotocol/clientCapabilities': 7 });
    assert.equal(badCaps.error.code, -32602);
    const badVersion = await modern('e3', 'tools/list', {}, { ...META, 'io.modelcontextprotocol/protocolVersion': 7 });
    assert.equal(badVersion.error.data.envelope.key, 'io.modelcontextprotocol/protocolVersion');
    const future = await modern('e4', 'tools/list', {}, { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
    assert.equal(future.error.code, -32022);
    assert.deepEqual(future.error.data, { supported: [MODERN], requested: '2099-01-01' });
  });

  test('what the revision removed is not found for modern requests', async () => {
    for (const method of ['ping', 'logging/setLevel', 'initialize']) {
      const r = await modern(`x-${method}`, method, method === 'logging/setLevel' ? { level: 'info' } : {});
      assert.equal(r.error?.code, -32601, `${method}: ${JSON.stringify(r)}`);
    }
  });
});

// Two 2026-07-28 clients sharing one transport owner (one stdio pipe, one HTTP server
// without a token) and told apart by their envelope's clientInfo: neither lists, reads
// or uses the other's sessions and tasks; the same client on a new connection does.
for (const transportName of ['stdio', 'http']) {
  suite(transportName)(`${transportName}: two 2026-07-28 clients interleaved never see each other's state`, () => {
    const flags = ['--sessions', '--response-profile', 'structured', '--task-after-ms', '0'];
    let send, close;
    before(async () => {
      if (transportName === 'stdio') {
        const raw = new RawStdio(flags);
        send = (id, method, params) => raw.request(id, method, params);
        close = () => raw.kill();
      } else {
        const server = await startHttpServer(flags);
        send = async (id, method, params) => {
          // A fresh connection per request: nothing ties a client to a socket.
          const c = new RawHttpClient(server.url);
          const name = params.taskId ?? params.name;
          const r = await c.post({ jsonrpc: '2.0', id, method, params },
            { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) });
          c.close();
          return r.json;
        };
        close = () => server.stop();
      }
    });
    after(() => close?.());

    const meta = (name, tasks = false) => ({
      ...META,
      'io.modelcontextprotocol/clientInfo': { name, version: '1' },
      ...(tasks ? { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } } : {}),
    });
    const tool = async (id, client, name, args) =>
      (await send(id, 'tools/call', { name, arguments: args, _meta: meta(client) })).result;

    test('sessions and tasks stay with the client that started them', async () => {
      const a = (await tool('a1', 'alice', 'lisp_session_start', { title: 'alice' })).structuredContent.session_id;
      const b = (await tool('b1', 'bob', 'lisp_session_start', { title: 'bob' })).structuredContent.session_id;
      await tool('a2', 'alice', 'lisp_session_eval', { session_id: a, program: '(def secret 1)' });
      await tool('b2', 'bob', 'lisp_session_eval', { session_id: b, program: '(def secret 2)' });
      const listed = async (id, client) =>
        (await tool(id, client, 'lisp_session_list', {})).structuredContent.sessions.map((s) => s.session_id);
      assert.deepEqual(await listed('a3', 'alice'), [a]);
      assert.deepEqual(await listed('b3', 'bob'), [b]);
      const stolen = await tool('b4', 'bob', 'lisp_session_eval', { session_id: a, program: 'secret' });
      assert.equal(reasonOf(stolen), 'session_not_found', 'a handle of another client is unknown');
      const own = await tool('a4', 'alice', 'lisp_session_eval', { session_id: a, program: '(inc secret)' });
      assert.equal(own.structuredContent.result, 'user=> 2');

      const created = (await send('a5', 'tools/call', { name: 'lisp_eval', arguments: { program: '(+ 1 2)' }, _meta: meta('alice', true) })).result;
      assert.equal(created.resultType, 'task');
      const peek = await send('b5', 'tasks/get', { taskId: created.taskId, _meta: meta('bob', true) });
      assert.equal(peek.error?.code, -32602, 'another client is told the task does not exist');
      const mine = await send('a6', 'tasks/get', { taskId: created.taskId, _meta: meta('alice', true) });
      assert.equal(mine.result.taskId, created.taskId);
    });
  });
}

suite('http')('http: raw 2026-07-28 requests', () => {
  let server;
  before(async () => {
    server = await startHttpServer();
  });
  after(() => server?.stop());

  const H = (method, extra = {}) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': method, ...extra });
  const body = (id, method, params = {}, meta = META) => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } });
  const call = (id, program) => body(id, 'tools/call', { name: 'lisp_eval', arguments: { program } });

  test('served without a session; none is minted', async () => {
    const c = new RawHttpClient(server.url);
    const r = await c.post(call(1, '(+ 1 2)'), H('tools/call', { 'mcp-name': 'lisp_eval' }));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers['mcp-session-id'], undefined);
    assert.match(r.headers['content-type'], /application\/json/);
    assert.equal(r.json.result.content[0].text, 'user=> 3');
    assert.equal(r.json.result.resultType, 'complete');
    const b64 = await c.post(call(3, '7'), H('tools/call', { 'mcp-name': `=?base64?${Buffer.from('lisp_eval').toString('base64')}?=` }));
    assert.equal(b64.json.result?.content[0].text, 'user=> 7', 'Mcp-Name in its Base64 form');
    const d = await c.post(body(2, 'server/discover'), H('server/discover'));
    assert.deepEqual(d.json.result.supportedVersions, [MODERN]);
  });

  test('headers that disagree with the body are -32020 on 400, in the SDK order', async () => {
    const c = new RawHttpClient(server.url);
    const cases = [
      ['no version header', call(1, '1'), { 'mcp-method': 'tools/call', 'mcp-name': 'lisp_eval' }],
      ['another version', call(2, '1'), H('tools/call', { 'mcp-name': 'lisp_eval', 'mcp-protocol-version': '2099-01-01' })],
      ['no method header', call(3, '1'), { 'mcp-protocol-version': MODERN, 'mcp-name': 'lisp_eval' }],
      ['another method', call(4, '1'), H('tools/list', { 'mcp-name': 'lisp_eval' })],
      ['no name header', call(5, '1'), H('tools/call')],
      ['another name', call(6, '1'), H('tools/call', { 'mcp-name': 'other' })],
      ['a bad Base64 name', call(8, '1'), H('tools/call', { 'mcp-name': '=?base64?*?=' })],
      ['initialize with a modern header', { jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }, H('initialize')],
    ];
    for (const [what, b, headers] of cases) {
      const r = await c.post(b, headers);
      assert.equal(r.status, 400, `${what}: ${r.text}`);
      assert.equal(r.json.error.code, -32020, `${what}: ${r.text}`);
      assert.equal(typeof r.json.error.data.mismatch.header, 'string');
    }
  });

  test('envelope problems, unknown versions and removed methods', async () => {
    const c = new RawHttpClient(server.url);
    const missing = await c.post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, H('tools/list'));
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error.code, -32602);
    assert.deepEqual(missing.json.error.data.envelope.missing, ['_meta']);
    const noCaps = await c.post(body(2, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': MODERN }), H('tools/list'));
    assert.equal(noCaps.status, 400);
    assert.equal(noCaps.json.error.data.envelope.problem, 'missing');
    const future = { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
    const f = await c.post(body(3, 'tools/list', {}, future), H('tools/list', { 'mcp-protocol-version': '2099-01-01' }));
    assert.equal(f.status, 400);
    assert.deepEqual(f.json.error.data, { supported: [MODERN], requested: '2099-01-01' });
    const ping = await c.post(body(4, 'ping'), H('ping'));
    assert.equal(ping.status, 404);
    assert.equal(ping.json.error.code, -32601);
    const get = await fetch(server.url, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': MODERN } });
    assert.equal(get.status, 405, 'no GET stream');
  });

  test('a keep-alive connection that carried a 2025 session serves a modern request', async () => {
    const c = new RawHttpClient(server.url);
    await c.init();
    const legacy = await c.post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'lisp_eval', arguments: { program: '1' } } });
    assert.equal(legacy.status, 200, legacy.text);
    const sid = c.sid;
    c.sid = null; // the next request carries no session: a modern one
    const m = await c.post(call(2, '(+ 40 2)'), H('tools/call', { 'mcp-name': 'lisp_eval' }));
    assert.equal(m.json.result.content[0].text, 'user=> 42');
    c.sid = sid;
    const again = await c.post({ jsonrpc: '2.0', id: 3, method: 'ping' });
    assert.equal(again.status, 200, 'the 2025 session still works');
  });
});

// A plain round-robin HTTP load balancer: each request to the next backend,
// nothing sticky. Resolves with its URL, the requests each backend got, close().
async function roundRobin(backends) {
  const served = backends.map(() => 0);
  let next = 0;
  const lb = http.createServer((req, res) => {
    const i = next++ % backends.length;
    served[i]++;
    const target = new URL(backends[i]);
    const up = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
      (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise((r) => lb.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${lb.address().port}/mcp`, served, close: () => new Promise((r) => lb.close(r)) };
}

suite('http')('http: two servers behind a load balancer', () => {
  test('a 2026-07-28 client alternating between them is served every time', async () => {
    const servers = [await startHttpServer(), await startHttpServer()];
    const lb = await roundRobin(servers.map((s) => s.url));
    const client = v2Client({ pin: MODERN });
    await client.connect(new StreamableHTTPClientTransport(new URL(lb.url)));
    for (let i = 0; i < 10; i++) {
      const r = await lispEval(client, { program: `(* ${i} 2)` });
      assert.equal(textOf(r), `user=> ${i * 2}`);
    }
    assert.ok(lb.served.every((n) => n >= 5), `both served: ${lb.served}`);
    await client.close();
    await lb.close();
    for (const s of servers) await s.stop();
  });
});
