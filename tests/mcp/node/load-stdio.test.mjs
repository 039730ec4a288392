// Load and faults over stdio: interleaved callers on one connection, every reply
// matched to its id and none lost or doubled; RSS growth over a long run;
// malformed, oversize and trickled frames; the client going away; SIGTERM.
// Counts: PTC_MCP_STDIO_CALLS (total calls of the long run, default 100,000;
// a tenth under sanitizers), PTC_MCP_SDK_CALLS (per SDK caller, default 1,000).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  LOOP_PROGRAM,
  RawStdio,
  SANITIZED,
  envCount,
  fibProgram,
  figure,
  now,
  rssKiB,
  sleep,
  stdioClient,
  textOf,
} from './lib/harness.mjs';
import { job } from './lib/jobs.mjs';

const CALLERS = 8;

// Runs `total` calls split over CALLERS interleaved callers on one raw connection.
// onProgress(done) is called after each reply. Resolves with the elapsed ms.
async function interleaved(raw, total, onProgress = () => {}) {
  let done = 0;
  const per = Math.ceil(total / CALLERS);
  const t0 = now();
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, c) => {
      for (let i = 0; i < per && c * per + i < total; i++) {
        const { args, expect, error } = job(c, i);
        const id = i % 2 ? `c${c}-${i}` : c * 1000000 + i; // string and number ids
        const r = await raw.request(id, 'tools/call', { name: 'lisp_eval', arguments: args });
        assert.equal(r.error, undefined, JSON.stringify(r));
        assert.equal(r.result.isError, !!error, JSON.stringify(r));
        assert.equal(r.result.content[0].text, expect);
        onProgress(++done);
      }
    }),
  );
  return now() - t0;
}

function assertAccounted(raw, sent) {
  assert.equal(raw.badLines.length, 0, `non-JSON lines on stdout: ${raw.badLines.slice(0, 3)}`);
  assert.equal(raw.unmatched.length, 0, `replies to no request: ${JSON.stringify(raw.unmatched.slice(0, 3))}`);
  assert.equal(raw.pending.size, 0, 'requests never answered');
  const doubled = [...raw.replies].filter(([, n]) => n !== 1);
  assert.deepEqual(doubled, [], 'ids answered more than once');
  assert.equal(raw.replies.size, sent);
}

describe('stdio load', () => {
  test(`${CALLERS} interleaved callers on one connection: every reply matched, none lost; RSS flat`, async () => {
    const total = envCount('PTC_MCP_STDIO_CALLS', 100000);
    const raw = new RawStdio(['--max-concurrent-calls', String(CALLERS)]);
    await raw.init();
    const first = Math.floor(total / 10);
    let rssFirst = 0;
    const ms = await interleaved(raw, total, (done) => {
      if (done === first) rssFirst = rssKiB(raw.proc.pid);
    });
    const rssLast = rssKiB(raw.proc.pid);
    assertAccounted(raw, total + 1);
    figure(`stdio ${CALLERS} callers x ${total / CALLERS} calls`, `${ms.toFixed(0)} ms, ${((total / ms) * 1000).toFixed(0)} calls/s`);
    figure(`stdio RSS after ${first} calls / after ${total} calls (KiB)`, `${rssFirst} / ${rssLast} (${(((rssLast - rssFirst) / rssFirst) * 100).toFixed(1)}%)`);
    if (!SANITIZED) assert.ok(rssLast <= rssFirst * 1.1, `RSS grew from ${rssFirst} to ${rssLast} KiB`);
    raw.endInput();
    assert.deepEqual(await raw.exited, { code: 0, signal: null });
  });

  test(`${CALLERS} callers through one SDK Client: each result is its own`, async () => {
    const per = envCount('PTC_MCP_SDK_CALLS', 1000);
    const s = await stdioClient(['--max-concurrent-calls', String(CALLERS)]);
    const t0 = now();
    await Promise.all(
      Array.from({ length: CALLERS }, async (_, c) => {
        for (let i = 0; i < per; i++) {
          const { args, expect, error } = job(c, i);
          const r = await s.client.callTool({ name: 'lisp_eval', arguments: args }, CallToolResultSchema);
          assert.equal(!!r.isError, !!error);
          assert.equal(textOf(r), expect);
        }
      }),
    );
    figure(`stdio SDK client ${CALLERS} callers x ${per} calls (ms)`, (now() - t0).toFixed(0));
    await s.close();
  });

  test('pipelined bursts: replies come out of order, each to its id', async () => {
    const raw = new RawStdio(['--max-concurrent-calls', String(CALLERS)]);
    await raw.init();
    let outOfOrder = 0;
    for (let burst = 0; burst < 50; burst++) {
      const order = [];
      const waits = [];
      let frames = '';
      for (let k = 0; k < CALLERS; k++) {
        const id = `b${burst}-${k}`;
        // Slower programs first, so that later ones overtake them.
        const n = 22 - k;
        waits.push(
          raw.expect(id).then((m) => {
            order.push(k);
            assert.equal(m.result.content[0].text, `user=> ${fib(n)}`);
          }),
        );
        frames += JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'lisp_eval', arguments: { program: fibProgram(n) } },
        }) + '\n';
      }
      raw.write(frames); // all eight in one write
      await Promise.all(waits);
      if (order.some((k, i) => k !== i)) outOfOrder++;
    }
    figure('stdio bursts of 8 answered out of order', `${outOfOrder} of 50`);
    assertAccounted(raw, 50 * CALLERS + 1);
    raw.endInput();
    await raw.exited;
  });
});

describe('stdio: 2026-07-28 against 2025', () => {
  test('one caller, one call at a time: the round trip of each era (same process, alternating)', async () => {
    const per = envCount('PTC_MCP_STDIO_ERA_CALLS', 3000);
    const raw = new RawStdio();
    await raw.init();
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    };
    const rounds = { 2025: [], 2026: [] };
    let sent = 1;
    for (let round = 0; round < 3; round++)
      for (const modern of [false, true]) {
        const t0 = now();
        for (let i = 0; i < per; i++) {
          const params = { name: 'lisp_eval', arguments: { program: '(+ 1 2)' }, ...(modern ? { _meta: meta } : {}) };
          const r = await raw.request(sent++, 'tools/call', params);
          assert.equal(r.result.content[0].text, 'user=> 3');
          assert.equal(r.result.resultType, modern ? 'complete' : undefined);
        }
        rounds[modern ? 2026 : 2025].push(((now() - t0) * 1000) / per);
      }
    assertAccounted(raw, sent);
    const least = (xs) => Math.min(...xs).toFixed(1);
    figure('stdio round trip per call, µs (least of 3 rounds): 2025 / 2026-07-28', `${least(rounds[2025])} / ${least(rounds[2026])}`);
    raw.endInput();
    assert.deepEqual(await raw.exited, { code: 0, signal: null });
  });
});

function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

describe('stdio faults', () => {
  test('malformed frames get -32700/-32600 and the calls around them are all answered', async () => {
    const raw = new RawStdio(['--max-concurrent-calls', String(CALLERS)]);
    await raw.init();
    const bad = [
      ['not json at all', -32700],
      ['{"jsonrpc":"2.0","id":7,"method":', -32700],
      ['{"jsonrpc":"2.0","id":"s","method":"ping"} trailing', -32700],
      ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600],
      ['42', -32600],
      ['{"id":99,"method":"ping"}', -32600],
      ['{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}', -32600],
      ['{"jsonrpc":"2.0","id":98,"method":"tools/call","params":"x"}', -32602],
      [Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), -32700], // not UTF-8
    ];
    let calls = 0;
    const load = interleaved(raw, 2000, () => calls++);
    load.catch(() => {}); // awaited below
    const codes = [];
    for (const [frame, code] of bad) {
      await sleep(2);
      raw.write(frame);
      raw.write('\n');
      const reply = await raw.nextUnmatched();
      codes.push([String(frame).slice(0, 30), reply.error?.code, code]);
    }
    raw.write('\n   \n'); // blank lines are nothing
    await load;
    for (const [frame, got, want] of codes) assert.equal(got, want, `frame ${frame}`);
    assert.equal(calls, 2000);
    assert.equal(raw.unmatched.length, 0);
    assert.equal(raw.pending.size, 0);
    raw.endInput();
    assert.equal((await raw.exited).code, 0);
  });

  // Sends a frame of about `size` bytes in pieces, the way a pipe delivers a big write.
  function sendBig(raw, id, size) {
    const frame = JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', pad: 'y'.repeat(size) });
    for (let off = 0; off < frame.length; off += 50000) raw.write(frame.slice(off, off + 50000));
    raw.write('\n');
  }

  test('an oversize frame gets -32700 (id null), reading resyncs at its newline', async () => {
    const limit = 64 * 1024;
    const raw = new RawStdio(['--max-frame-bytes', String(limit)]);
    await raw.init();
    // Just under the limit: fine.
    const fits = await raw.call('fits', `(count "${'x'.repeat(limit - 200)}")`);
    assert.equal(fits.result.content[0].text, `user=> ${limit - 200}`);
    for (const size of [3 * limit, 20 * limit, 200 * limit]) {
      sendBig(raw, `big${size}`, size);
      const reply = await raw.nextUnmatched();
      assert.equal(reply.id, null, `the oversize frame was answered: ${JSON.stringify(reply).slice(0, 200)}`);
      assert.equal(reply.error.code, -32700);
      assert.match(reply.error.message, /max-frame-bytes/);
      const after = await raw.call(`after${size}`, '(+ 1 2)');
      assert.equal(after.result.content[0].text, 'user=> 3');
    }
    raw.endInput();
    assert.equal((await raw.exited).code, 0);
  });

  test(
    'a frame a little over the limit whose newline comes in the same read is refused too',
    async () => {
      const limit = 64 * 1024;
      const raw = new RawStdio(['--max-frame-bytes', String(limit)]);
      await raw.init();
      sendBig(raw, 'over', limit + 100);
      const reply = await raw.nextUnmatched();
      raw.endInput();
      assert.equal(reply.id, null, `the oversize frame was answered: ${JSON.stringify(reply).slice(0, 200)}`);
      assert.equal(reply.error.code, -32700);
    },
  );

  test('a frame trickled byte by byte does not hold up the calls already read', async () => {
    const raw = new RawStdio(['--max-concurrent-calls', '4']);
    await raw.init();
    const quick = [1, 2, 3].map((k) => raw.call(`q${k}`, `(* ${k} 2)`));
    const frame = JSON.stringify({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'lisp_eval', arguments: { program: '(+ 40 2)' } } });
    const slow = raw.expect('slow');
    const t0 = now();
    let quickDoneAt = null;
    Promise.all(quick).then(() => (quickDoneAt = now() - t0));
    for (const ch of frame) {
      raw.write(ch);
      await sleep(frame.length > 200 ? 1 : 3);
    }
    const trickleMs = now() - t0;
    raw.write('\n');
    const r = await slow;
    assert.equal(r.result.content[0].text, 'user=> 42');
    assert.ok(quickDoneAt !== null && quickDoneAt < trickleMs, `quick calls answered at ${quickDoneAt} ms, trickle took ${trickleMs} ms`);
    figure('stdio: 3 calls answered while a frame trickled (ms into a trickle of)', `${quickDoneAt.toFixed(1)} / ${trickleMs.toFixed(0)}`);
    raw.endInput();
    await raw.exited;
  });

  test('the client stops reading stdout: the server notices, then exits 0 at EOF', async () => {
    const raw = new RawStdio();
    await raw.init();
    raw.proc.stdout.destroy(); // the read end closes: the next reply meets EPIPE
    const lost = [raw.call(1, '(+ 1 2)'), raw.call(2, '(+ 1 2)')];
    for (const p of lost) p.catch(() => {}); // their replies have nowhere to go
    await sleep(200);
    raw.endInput();
    assert.deepEqual(await raw.exited, { code: 0, signal: null }, 'killed by SIGPIPE instead of handling EPIPE');
  });

  test('the client dies mid-call: every running program stops and the server exits 0', async () => {
    const raw = new RawStdio(['--max-concurrent-calls', '4', '--program-timeout-ms', '60000']);
    await raw.init();
    for (let k = 0; k < 4; k++) raw.call(k, LOOP_PROGRAM).catch(() => {}); // never answered
    await sleep(50);
    const t0 = now();
    raw.proc.stdin.destroy(); // as when the client process is killed
    const exit = await raw.exited;
    figure('stdio: client gone with 4 looping calls -> server exit (ms)', (now() - t0).toFixed(1));
    assert.deepEqual(exit, { code: 0, signal: null });
  });

  test(
    'SIGTERM mid-load: in-flight calls are answered, then exit 0',
    async () => {
      const raw = new RawStdio(['--max-concurrent-calls', '4', '--program-timeout-ms', '10000']);
      await raw.init();
      const inFlight = [0, 1, 2, 3].map((k) => raw.call(`t${k}`, fibProgram(27)));
      await sleep(5);
      raw.proc.kill('SIGTERM');
      await sleep(100); // a signal and a pipe's bytes have no order: let the drain begin first
      const late = await raw.call('late', '(+ 1 2)').catch(() => null);
      const replies = await Promise.all(inFlight);
      // A call still unread when the signal came is refused, not lost (slow
      // builds); the ones already running finish.
      const texts = replies.map((r) => r.result.content[0].text);
      for (const t of texts) assert.match(t, /^user=> 196418$|shutting_down/);
      assert.ok(texts.includes('user=> 196418'), 'no running call was let finish');
      if (late) assert.match(late.result.content[0].text, /shutting_down/);
      assert.deepEqual(await raw.exited, { code: 0, signal: null });
    },
  );
});
