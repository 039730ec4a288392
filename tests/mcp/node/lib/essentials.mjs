// The checks both transports must pass, written once: `open(flags)` starts a
// server with those flags and resolves with {client, close, logs?}.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CallToolResultSchema,
  CompleteResultSchema,
  EmptyResultSchema,
  LoggingMessageNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { LOOP_PROGRAM, figure, now, reasonOf, sleep, textOf } from './harness.mjs';

const call = (client, args, opts) =>
  client.callTool({ name: 'lisp_eval', arguments: args }, CallToolResultSchema, opts);

// One program (or argument set) per error reason lisp_eval can answer with.
export const REASONS = [
  ['parse_error', { program: '(+ 1' }],
  ['runtime_error', { program: '(/ 1 0)' }],
  ['timeout', { program: LOOP_PROGRAM }],
  ['memory_limit', { program: '(count (range 100000000))' }],
  ['fail', { program: '(fail "boom")' }],
  ['args_error', {}],
  ['args_error', { program: '(+ 1 2)', signature: ':int' }],
  ['args_error', { program: '(+ 1 2)', context: [1, 2] }],
  ['args_error', { program: 'x'.repeat(70 * 1024) }],
  ['validation_error', { program: '"seven"', output_schema: { type: 'integer' } }],
];

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// logNotifications: whether notifications/message reach the client (stdio: yes;
// HTTP with JSON replies and no GET stream: the server has no channel for them).
export function defineEssentials(label, open, { logNotifications = true } = {}) {
  describe(`${label}: slim profile`, () => {
    let s;
    before(async () => {
      s = await open(['--max-concurrent-calls', '4']);
    });
    after(() => s?.close());

    test('initialize: server info, capabilities and instructions', () => {
      const info = s.client.getServerVersion();
      assert.equal(info.name, 'ptc-lisp');
      assert.equal(typeof info.version, 'string');
      const caps = s.client.getServerCapabilities();
      assert.ok(caps.tools, 'tools capability');
      assert.ok(caps.logging, 'logging capability');
      assert.ok(caps.completions, 'completions capability');
      assert.match(s.client.getInstructions() ?? '', /lisp_eval/);
    });

    test('tools/list: lisp_eval with description, inputSchema and annotations', async () => {
      const { tools } = await s.client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['lisp_eval'],
      );
      const t = tools[0];
      assert.ok(t.description.length > 100, 'a real description');
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.inputSchema.properties.program.type, 'string');
      assert.equal(t.inputSchema.properties.context.type, 'object');
      assert.ok(t.inputSchema.properties.output_schema, 'output_schema argument');
      assert.deepEqual(t.inputSchema.required, ['program']);
      assert.equal(t.annotations.readOnlyHint, true);
      assert.equal(t.annotations.destructiveHint, false);
      assert.equal(t.annotations.idempotentHint, true);
      assert.equal(t.annotations.openWorldHint, false);
      assert.equal(t.outputSchema, undefined, 'slim has no outputSchema');
    });

    test('tools/call with context: keys become data/ names', async () => {
      const r = await call(s.client, {
        program: '(println "n" (count data/xs)) (reduce + data/xs)',
        context: { xs: [1, 2, 3] },
      });
      assert.equal(r.isError, false, textOf(r));
      assert.match(textOf(r), /^n 3\n/);
      assert.match(textOf(r), /user=> 6$/);
    });

    test('tools/call with output_schema gives the value as JSON text in slim', async () => {
      const r = await call(s.client, {
        program: '{:total (reduce + data/xs)}',
        context: { xs: [1, 2, 3] },
        output_schema: {
          type: 'object',
          properties: { total: { type: 'integer' } },
          required: ['total'],
        },
      });
      assert.equal(r.isError, false, textOf(r));
      assert.match(textOf(r), /6/);
    });

    for (const [reason, args] of REASONS)
      test(`error reason ${reason} (${JSON.stringify(args).slice(0, 60)})`, async () => {
        const r = await call(s.client, args);
        assert.equal(r.isError, true, textOf(r));
        assert.equal(reasonOf(r), reason, textOf(r));
      });

    test('an unknown tool is an isError result with reason unknown_tool', async () => {
      const r = await s.client.callTool({ name: 'no_such_tool', arguments: {} });
      assert.equal(r.isError, true);
      assert.equal(reasonOf(r), 'unknown_tool');
      assert.match(textOf(r), /lisp_eval/);
    });

    test('ping answers {}', async () => {
      assert.deepEqual(await s.client.ping(), {});
    });

    test('logging/setLevel: {} and then notifications/message for calls', async () => {
      const messages = [];
      s.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => messages.push(n.params));
      assert.deepEqual(await s.client.setLoggingLevel('debug'), {});
      const r = await call(s.client, { program: '(+ 1 2)' });
      assert.equal(textOf(r), 'user=> 3');
      if (logNotifications) {
        for (let i = 0; i < 200 && !messages.some((m) => m.data?.event === 'tool_call'); i++) await sleep(5);
        const m = messages.find((x) => x.data?.event === 'tool_call');
        assert.ok(m, `a tool_call log message, got ${JSON.stringify(messages)}`);
        assert.equal(m.level, 'debug');
        assert.equal(m.logger, 'ptc');
        assert.equal(m.data.detail.tool, 'lisp_eval');
      }
      await assert.rejects(
        s.client.request({ method: 'logging/setLevel', params: { level: 'loud' } }, EmptyResultSchema),
        (e) => e instanceof McpError && e.code === -32602,
      );
      assert.deepEqual(await s.client.setLoggingLevel('error'), {});
    });

    test('completion/complete answers an empty list', async () => {
      const r = await s.client.request(
        {
          method: 'completion/complete',
          params: { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } },
        },
        CompleteResultSchema,
      );
      assert.deepEqual(r.completion.values, []);
    });

    test('an unknown method is -32601', async () => {
      await assert.rejects(
        s.client.request({ method: 'resources/list' }, EmptyResultSchema),
        (e) => e instanceof McpError && e.code === -32601,
      );
    });
  });

  describe(`${label}: structured profile`, () => {
    let s;
    before(async () => {
      s = await open(['--response-profile', 'structured', '--max-concurrent-calls', '4']);
      await s.client.listTools(); // the SDK then checks structuredContent against outputSchema
    });
    after(() => s?.close());

    test('tools/list: lisp_eval has an outputSchema', async () => {
      const { tools } = await s.client.listTools();
      assert.equal(tools[0].outputSchema?.type, 'object');
    });

    test('output_schema gives structuredContent.validated', async () => {
      const r = await call(s.client, {
        program: '{:total (reduce + (map :n data/rows)) :names (mapv :name data/rows) :ok true}',
        context: { rows: [{ name: 'a', n: 2 }, { name: 'b', n: 5 }] },
        output_schema: {
          type: 'object',
          properties: {
            total: { type: 'integer' },
            names: { type: 'array', items: { type: 'string' } },
            ok: { type: 'boolean' },
          },
          required: ['total', 'names', 'ok'],
        },
      });
      assert.equal(r.isError, false, textOf(r));
      assert.equal(r.structuredContent.status, 'ok');
      assert.deepEqual(r.structuredContent.validated, { total: 7, names: ['a', 'b'], ok: true });
    });

    test('without output_schema: result is the preview, no validated', async () => {
      const r = await call(s.client, { program: '(count data/xs)', context: { xs: [1, 2, 3] } });
      assert.equal(r.structuredContent.status, 'ok');
      assert.equal(r.structuredContent.result, 'user=> 3');
      assert.equal(r.structuredContent.validated, undefined);
    });

    for (const [reason, args] of REASONS)
      test(`structuredContent.reason ${reason}`, async () => {
        const r = await call(s.client, args);
        assert.equal(r.isError, true);
        assert.equal(r.structuredContent?.status, 'error', JSON.stringify(r));
        assert.equal(r.structuredContent.reason, reason, JSON.stringify(r.structuredContent));
        assert.equal(typeof r.structuredContent.message, 'string');
      });

    test('fail keeps its value', async () => {
      const r = await call(s.client, { program: '(fail {:code 42})' });
      assert.equal(r.structuredContent.reason, 'fail');
      assert.match(r.structuredContent.message, /42/);
    });
  });

  describe(`${label}: the gate and cancellation`, () => {
    // One slot and a long program timeout: a freed slot proves the server stopped the program.
    let s;
    before(async () => {
      s = await open(['--max-concurrent-calls', '1', '--program-timeout-ms', '60000']);
    });
    after(() => s?.close());

    // Starts a looping call and resolves once it holds the slot (a probe is busy).
    async function startLoop() {
      const controller = new AbortController();
      const promise = call(s.client, { program: LOOP_PROGRAM }, { signal: controller.signal, timeout: 120000 });
      promise.catch(() => {});
      for (let i = 0; ; i++) {
        const r = await call(s.client, { program: '1' });
        if (reasonOf(r) === 'busy') break;
        assert.ok(i < 2000, 'the loop never took the slot');
        await sleep(1);
      }
      return { controller, promise };
    }

    // Aborts the call (the SDK sends notifications/cancelled) and times until a call succeeds.
    async function cancelAndWait(loop) {
      const t0 = now();
      loop.controller.abort('test cancels');
      await assert.rejects(loop.promise);
      let busy = 0;
      for (;;) {
        const r = await call(s.client, { program: '(+ 1 2)' });
        if (!r.isError) {
          assert.match(textOf(r), /user=> 3/);
          break;
        }
        assert.equal(reasonOf(r), 'busy', textOf(r));
        busy++;
        assert.ok(now() - t0 < 5000, 'the cancelled program kept its slot for 5 s');
      }
      return { ms: now() - t0, busy };
    }

    test('a call beyond the gate is answered busy at once', async () => {
      const loop = await startLoop();
      const lat = [];
      for (let i = 0; i < 20; i++) {
        const t0 = now();
        const r = await call(s.client, { program: '(+ 1 2)' });
        lat.push(now() - t0);
        assert.equal(r.isError, true);
        assert.equal(reasonOf(r), 'busy');
        assert.match(r.structuredContent?.feedback ?? textOf(r), /retry/);
      }
      figure(`${label} busy reply round trip (median of 20, ms)`, median(lat).toFixed(3));
      await cancelAndWait(loop);
    });

    test('cancelling a looping program frees its slot promptly', async () => {
      const times = [];
      for (let i = 0; i < 5; i++) {
        const loop = await startLoop();
        const { ms } = await cancelAndWait(loop);
        times.push(ms);
      }
      figure(
        `${label} cancel -> next call succeeds (median of 5, ms; includes one round trip)`,
        median(times).toFixed(3),
      );
      figure(`${label} cancel -> next call succeeds (max of 5, ms)`, Math.max(...times).toFixed(3));
      assert.ok(Math.max(...times) < 2000);
    });
  });
}

// Sessions round trip (start, eval, eval with *1 and def, inspect, close), or a skip.
export function defineSessions(label, open) {
  describe(`${label}: sessions`, () => {
    let s;
    let skip = null;
    before(async () => {
      s = await open(['--sessions', '--response-profile', 'structured']);
      const { tools } = await s.client.listTools();
      const names = tools.map((t) => t.name);
      if (!names.includes('lisp_session_start'))
        skip = `this build has no lisp_session_* tools (tools/list with --sessions: ${names.join(', ')})`;
    });
    after(() => s?.close());

    const tool = async (name, args) => {
      const r = await s.client.callTool({ name, arguments: args }, CallToolResultSchema);
      return r;
    };

    test('start, eval, eval with *1 and def, inspect, close', async (t) => {
      if (skip) return t.skip(skip);
      const { tools } = await s.client.listTools();
      const names = tools.map((x) => x.name);
      for (const n of ['lisp_eval', 'lisp_session_start', 'lisp_session_eval', 'lisp_session_inspect',
        'lisp_session_close', 'lisp_session_list', 'lisp_session_forget', 'lisp_session_list_preludes'])
        assert.ok(names.includes(n), `${n} listed`);

      const started = await tool('lisp_session_start', { title: 'node test' });
      assert.equal(started.isError, false, textOf(started));
      const id = started.structuredContent.session_id;
      assert.equal(typeof id, 'string');

      const e1 = await tool('lisp_session_eval', { session_id: id, program: '(+ 1 2)' });
      assert.equal(e1.isError, false, textOf(e1));
      assert.equal(e1.structuredContent.result, 'user=> 3');

      const e2 = await tool('lisp_session_eval', { session_id: id, program: '(def y (* *1 10))' });
      assert.equal(e2.isError, false, textOf(e2));

      const e3 = await tool('lisp_session_eval', { session_id: id, program: '(+ y 1)' });
      assert.equal(e3.isError, false, textOf(e3));
      assert.equal(e3.structuredContent.result, 'user=> 31');

      const bad = await tool('lisp_session_eval', { session_id: id, program: '(def y 0) (/ 1 0)' });
      assert.equal(bad.isError, true);
      const e4 = await tool('lisp_session_eval', { session_id: id, program: 'y' });
      assert.equal(e4.structuredContent.result, 'user=> 30', 'a failed eval is rolled back');

      const seen = await tool('lisp_session_inspect', { session_id: id, view: 'memory' });
      assert.equal(seen.isError, false, textOf(seen));
      assert.match(JSON.stringify(seen.structuredContent), /"y"/);

      const closed = await tool('lisp_session_close', { session_id: id });
      assert.equal(closed.isError, false, textOf(closed));
      const after = await tool('lisp_session_eval', { session_id: id, program: 'y' });
      assert.equal(after.isError, true);
      assert.match(reasonOf(after) ?? '', /^session_(closed|not_found)$/);
    });
  });
}
