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
