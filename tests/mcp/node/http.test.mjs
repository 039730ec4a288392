// `ptc mcp --http` driven by the official SDK's Client and StreamableHTTPClientTransport,
// plus the HTTP rules a client library does not exercise (raw fetch).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defineEssentials, defineSessions } from './lib/essentials.mjs';
import { INIT, httpClient, httpUnavailableReason, startHttpServer } from './lib/harness.mjs';

const unavailable = await httpUnavailableReason();
if (unavailable) {
  console.log(`# SKIP: ptc mcp --http is not available in this build (${unavailable}); the HTTP tests are skipped`);
  process.exit(77);
}

// A server and an SDK client on it; close() ends both and checks the server left cleanly.
async function open(flags) {
  const server = await startHttpServer(flags);
  const c = await httpClient(server.url);
  return {
    ...c,
    server,
    logs: server.logs,
    close: async () => {
      await c.close();
      const exit = await server.stop('SIGTERM');
      assert.deepEqual(exit, { code: 0, signal: null }, 'SIGTERM drains and exits 0');
    },
  };
}

defineEssentials('http', open, { logNotifications: false });
defineSessions('http', open);

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('http: the transport', () => {
  let server;
  before(async () => {
    server = await startHttpServer();
  });
  after(() => server?.stop());

  // initialize by hand; resolves with the session id.
  async function initSession(extraHeaders = {}) {
    const r = await fetch(server.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...extraHeaders },
      body: JSON.stringify(INIT(1)),
    });
    assert.equal(r.status, 200);
    const sid = r.headers.get('mcp-session-id');
    assert.ok(sid, 'initialize answers with Mcp-Session-Id');
    await r.text();
    return sid;
  }

  const post = (sid, body, headers = {}) =>
    fetch(server.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  test('the SDK client gets a session id, and terminateSession (DELETE) ends it', async () => {
    const c = await httpClient(server.url);
    const sid = c.transport.sessionId;
    assert.ok(sid);
    await c.transport.terminateSession();
    const r = await post(sid, { jsonrpc: '2.0', id: 2, method: 'ping' });
    assert.equal(r.status, 404);
    await c.close();
  });

  test('a notification is 202 with no body', async () => {
    const sid = await initSession();
    const r = await post(sid, { jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(r.status, 202);
    assert.equal(await r.text(), '');
  });

  test('every supported MCP-Protocol-Version header is accepted', async () => {
    const sid = await initSession();
    for (const v of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const r = await post(sid, { jsonrpc: '2.0', id: v, method: 'ping' }, { 'mcp-protocol-version': v });
      assert.equal(r.status, 200, v);
      assert.deepEqual((await r.json()).result, {});
    }
  });

  test('GET on the endpoint is 405; /health and /ready are 200', async () => {
    const g = await fetch(server.url, { headers: { accept: 'text/event-stream' } });
    assert.equal(g.status, 405);
    await g.text();
    for (const path of ['/health', '/ready']) {
      const r = await fetch(`http://127.0.0.1:${server.port}${path}`);
      assert.equal(r.status, 200, path);
      await r.text();
    }
  });

  test('a foreign Host or Origin is refused (DNS rebinding)', async () => {
    const evil = await fetch(server.url, {
      method: 'POST',
      headers: { ...JSON_HEADERS, host: 'evil.example.com', origin: 'http://evil.example.com' },
      body: JSON.stringify(INIT(1)),
    });
    assert.ok(evil.status >= 400 && evil.status < 500, `status ${evil.status}`);
    await evil.text();
    await initSession({ origin: `http://127.0.0.1:${server.port}` });
  });

  test('unparsable JSON is -32700 and the session goes on', async () => {
    const sid = await initSession();
    const bad = await post(sid, '{"jsonrpc": "2.0", "id": 1, "method": ');
    assert.ok(bad.status === 200 || bad.status === 400, `status ${bad.status}`);
    assert.equal((await bad.json()).error.code, -32700);
    const ok = await post(sid, { jsonrpc: '2.0', id: 3, method: 'ping' });
    assert.equal(ok.status, 200);
    await ok.text();
  });

  test('a request without a session (not initialize) is refused', async () => {
    const r = await fetch(server.url, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(r.status, 400);
    await r.text();
  });
});
