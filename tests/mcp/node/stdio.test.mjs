// `ptc mcp` over stdio, driven by the official SDK's Client and StdioClientTransport.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { defineEssentials, defineSessions } from './lib/essentials.mjs';
import { LOOP_PROGRAM, RawStdio, figure, now, sleep, stdioClient, textOf } from './lib/harness.mjs';

defineEssentials('stdio', (flags) => stdioClient(flags));
defineSessions('stdio', (flags) => stdioClient(flags));

describe('stdio: the process', () => {
  test('negotiates each supported protocol version and answers the latest otherwise', async () => {
    const raw = new RawStdio();
    for (const v of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const r = await raw.request(`v${v}`, 'initialize', {
        protocolVersion: v,
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      });
      assert.equal(r.result.protocolVersion, v);
    }
    const r = await raw.request('old', 'initialize', {
      protocolVersion: '2024-01-01',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    assert.equal(r.result.protocolVersion, '2025-11-25');
    raw.endInput();
    assert.deepEqual(await raw.exited, { code: 0, signal: null });
  });

  test('stdout carries only frames; logs are JSON lines on stderr', async () => {
    const s = await stdioClient(['--log-level', 'debug']);
    await s.client.callTool({ name: 'lisp_eval', arguments: { program: '(println "to stdout?") 1' } });
    await s.close();
    assert.ok(s.logs.lines.length > 0);
    for (const l of s.logs.lines) assert.equal(typeof l.event, 'string', JSON.stringify(l));
    assert.ok(s.logs.events('stdio_ready').length === 1);
  });

  test('stdin EOF during a call cancels it and the process exits 0 at once', async () => {
    const raw = new RawStdio(['--program-timeout-ms', '60000']);
    await raw.init();
    raw.call(1, LOOP_PROGRAM).catch(() => {}); // never answered: the call is cancelled
    await sleep(100);
    const t0 = now();
    raw.endInput();
    const exit = await raw.exited;
    const ms = now() - t0;
    figure('stdio EOF with a looping call -> process exit (ms)', ms.toFixed(1));
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.ok(ms < 2000, `exit took ${ms} ms`);
    assert.equal(raw.replies.get('1'), undefined, 'no reply to the cancelled call');
  });

  test('with a call running, stdin is still read: ping answered, cancel frees the slot (20 fresh servers)', async () => {
    // The first call of a fresh server is where a lost wake-up of the reading thread showed.
    const worst = { ping: 0, free: 0 };
    for (let round = 0; round < 20; round++) {
      const raw = new RawStdio(['--max-concurrent-calls', '4', '--program-timeout-ms', '60000']);
      await raw.init();
      raw.call('loop', LOOP_PROGRAM).catch(() => {}); // cancelled: no reply
      const t0 = now();
      const pong = await Promise.race([raw.request('ping', 'ping'), sleep(2000).then(() => null)]);
      assert.ok(pong, `round ${round}: ping not answered while a call runs`);
      worst.ping = Math.max(worst.ping, now() - t0);
      raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'loop' } });
      // All four slots free again: four calls at once are not busy.
      const t1 = now();
      for (let k = 0; ; k++) {
        const four = await Promise.all([1, 2, 3, 4].map((n) => raw.call(`r${k}-${n}`, String(n))));
        if (four.every((r) => !r.result.isError)) break;
        assert.ok(now() - t1 < 2000, `round ${round}: the cancelled call kept its slot`);
      }
      worst.free = Math.max(worst.free, now() - t1);
      raw.endInput();
      assert.deepEqual(await raw.exited, { code: 0, signal: null });
      assert.equal(raw.replies.get('"loop"'), undefined, 'no reply to a cancelled call on stdio');
    }
    figure('stdio: ping while a call runs (worst of 20, ms)', worst.ping.toFixed(2));
    figure('stdio: notifications/cancelled -> 4 slots free (worst of 20, ms)', worst.free.toFixed(2));
  });

  test('shutdown: in-flight calls finish, new calls get shutting_down', async () => {
    const raw = new RawStdio(['--max-concurrent-calls', '2']);
    await raw.init();
    const slow = raw.call('slow', '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 27)');
    const down = await raw.request('down', 'shutdown');
    assert.equal(down.error, undefined);
    const refused = await raw.call('late', '(+ 1 2)');
    assert.equal(refused.result.isError, true);
    assert.match(refused.result.content[0].text, /shutting_down/);
    const done = await slow;
    assert.equal(done.result.isError, false, JSON.stringify(done));
    assert.match(done.result.content[0].text, /user=> 196418/);
    raw.endInput();
    assert.equal((await raw.exited).code, 0);
  });

  test('the SDK client closes the server cleanly', async () => {
    const s = await stdioClient();
    const r = await s.client.callTool({ name: 'lisp_eval', arguments: { program: '(+ 1 2)' } }, CallToolResultSchema);
    assert.equal(textOf(r), 'user=> 3');
    const t0 = now();
    await s.close();
    figure('stdio SDK client.close() (stdin end -> exit, ms)', (now() - t0).toFixed(1));
    await s.logs.waitFor((l) => l.event === 'stdio_eof', 2000); // it saw EOF and left by itself
  });
});
