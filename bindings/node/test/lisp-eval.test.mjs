// The lisp_eval tool of the protocol layer, for LLM SDKs.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { lispEvalTool, renderError, run, runSync, toolSchema } from 'ptc-lisp';

test('toolSchema gives the canonical description and JSON Schema', () => {
  const s = toolSchema();
  assert.equal(s.name, 'lisp_eval');
  assert.ok(s.description.length > 100);
  assert.equal(s.inputSchema.type, 'object');
  assert.deepEqual(s.inputSchema.required, ['program']);
  assert.equal(s.inputSchema.additionalProperties, false);
  const mcp = toolSchema('mcp_no_tools');
  assert.ok('context' in mcp.inputSchema.properties);
  assert.notEqual(mcp.description, s.description);
  assert.throws(() => toolSchema('nope'), TypeError);
});

test('execute answers with the success payload', async () => {
  const tool = lispEvalTool({ tools: { 'get-user': async ({ id }) => ({ id, name: 'Ada' }) } });
  assert.equal(tool.name, 'lisp_eval');
  assert.equal(tool.parameters, tool.inputSchema);
  const payload = await tool.execute({ program: '(println "hi") (:name (tool/get-user {:id 1}))' });
  assert.equal(payload.status, 'ok');
  assert.equal(payload.result, 'user=> "Ada"');
  assert.deepEqual(payload.prints, ['hi']);
});

test('execute answers a failing program with the error payload', async () => {
  const tool = lispEvalTool({ limits: { timeout: 20 } });
  const parse = await tool.execute({ program: '(+ 1' });
  assert.equal(parse.status, 'error');
  assert.equal(parse.reason, 'parse_error');
  const slow = await tool.execute({ program: '(do (defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 40))' });
  assert.equal(slow.reason, 'timeout');
  const failed = await tool.execute({ program: '(fail "nope")' });
  assert.equal(failed.reason, 'fail');
});

test('bad arguments are an args_error payload, not a throw', async () => {
  const tool = lispEvalTool();
  assert.equal((await tool.execute({})).reason, 'args_error');
  assert.equal((await tool.execute({ program: '   ' })).reason, 'args_error');
  assert.equal((await tool.execute({ program: 5 })).reason, 'args_error');
});

test('mcp_no_tools takes the context from the call', async () => {
  const tool = lispEvalTool({ profile: 'mcp_no_tools', context: { xs: [1] } });
  assert.equal((await tool.execute({ program: '(count data/xs)' })).result, 'user=> 1');
  const own = await tool.execute({ program: '(count data/xs)', context: { xs: [1, 2, 3] } });
  assert.equal(own.result, 'user=> 3');
  assert.equal((await tool.execute({ program: '1', context: [1] })).reason, 'args_error');
});

test('lispEvalTool checks its configuration when made', () => {
  assert.throws(() => lispEvalTool({ limits: { nope: 1 } }), TypeError);
  assert.throws(() => lispEvalTool({ limits: { timeout: 'x' } }), TypeError);
  assert.throws(() => lispEvalTool({ profile: 'mcp_no_tools', tools: { f: () => 1 } }), TypeError);
  assert.throws(() => lispEvalTool({ tools: { f: 1 } }), TypeError);
  assert.throws(() => lispEvalTool({ extra: 1 }), TypeError);
});

test('an abortSignal from the SDK cancels the call', async () => {
  const tool = lispEvalTool({ limits: { timeout: 20000 } });
  const payload = await tool.execute({ program: '(do (defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 60))' },
                                     { abortSignal: AbortSignal.abort() });
  assert.equal(payload.status, 'error');
  assert.match(payload.message, /cancelled/);
});

test('the payload option: a Result carries the payload lispEvalTool would answer', async () => {
  const tools = { 'get-user': async ({ id }) => ({ id, name: 'Ada' }) };
  const program = '(println "hi") (:name (tool/get-user {:id 1}))';
  const viaTool = await lispEvalTool({ tools }).execute({ program });
  const r = await run(program, { tools, payload: true });
  assert.deepEqual(r.payload, viaTool);
  // In place (no tools) and blocking, errors too, under another profile.
  const err = runSync('(+ 1 "a")', { payload: 'in_process_text_mode' });
  assert.equal(err.payload.status, 'error');
  assert.equal(err.payload.reason, 'runtime_error');
  assert.match(err.payload.message, /type_error/);
  assert.deepEqual((await run('(+ 1 "a")', { payload: true })).payload, err.payload);
  assert.equal((await run('(+ 1 2)')).payload, undefined, 'only when asked');
  assert.throws(() => runSync('1', { payload: 'nope' }), TypeError);
  await assert.rejects(run('1', { payload: 7 }), TypeError);
});

test('renderError gives the protocol error payload', () => {
  assert.deepEqual(renderError('timeout', 'too slow'),
                   { status: 'error', reason: 'timeout', message: 'too slow', feedback: 'too slow' });
  assert.deepEqual(renderError('fail', 'no user', { result: '{:id 7}', feedback: 'look again' }),
                   { status: 'error', reason: 'fail', message: 'no user', feedback: 'look again', result: '{:id 7}' });
  assert.equal(renderError('fail', 'x').result, null);
  assert.throws(() => renderError('type_error', 'x'), /unknown payload reason 'type_error' \(parse_error, /);
  assert.throws(() => renderError('timeout', 1), TypeError);
  assert.throws(() => renderError('timeout', 'x', { feedback: 3 }), TypeError);
});
