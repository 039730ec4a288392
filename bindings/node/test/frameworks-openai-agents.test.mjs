// The lisp_eval tool in a real OpenAI Agents SDK loop (`@openai/agents`,
// pinned in package.json): an Agent with the tool made by the SDK's tool()
// from lispEvalTool(), driven by run() with a scripted Model (the SDK's Model
// interface: getResponse(request) → {usage, output}) instead of an LLM. The
// runner executes the model's lisp_eval calls (the program calls an app tool
// for real) and puts the payload in the next request's input. No network:
// the model is ours and tracing is off. run-packed.mjs links the pinned SDK
// into the scratch folder.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Agent, run, setTracingDisabled, tool, Usage } from '@openai/agents';
import { lispEvalTool, toolSchema } from 'ptc-lisp';

setTracingDisabled(true);

const ORDERS = {
  acme: [{ id: 1, total: 120 }, { id: 2, total: 80 }, { id: 3, total: 157 }],
  globex: [{ id: 4, total: 40 }],
};

function callLisp(callId, program) {
  return { type: 'function_call', callId, name: 'lisp_eval', arguments: JSON.stringify({ program }), status: 'completed' };
}

function say(text) {
  return {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text }],
  };
}

// A Model that answers each request with the next scripted turn: a function of
// the request (to read the tool results) or a fixed output item.
class ScriptedModel {
  constructor(turns) {
    this.turns = turns;
    this.requests = [];
  }

  async getResponse(request) {
    this.requests.push(request);
    const turn = this.turns[this.requests.length - 1];
    assert.ok(turn, `no scripted turn ${this.requests.length}`);
    const item = typeof turn === 'function' ? turn(request) : turn;
    return {
      usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }),
      output: [item],
      responseId: `resp-${this.requests.length}`,
    };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse() {
    throw new Error('not scripted: streaming');
  }
}

// The lisp_eval payload the runner sent back for callId in a request's input.
function toolResultIn(request, callId) {
  assert.ok(Array.isArray(request.input));
  const item = request.input.find((i) => i.type === 'function_call_result' && i.callId === callId);
  assert.ok(item, `no function_call_result ${callId} in the input`);
  assert.equal(item.name, 'lisp_eval');
  const text = typeof item.output === 'string' ? item.output : item.output.text;
  return JSON.parse(text);
}

function lispAgent(model, appCalls) {
  const lisp = lispEvalTool({
    tools: {
      'get-orders': async ({ customer }) => {
        appCalls.push(customer);
        return ORDERS[customer] ?? [];
      },
    },
    limits: { timeout: 2000 },
  });
  return new Agent({
    name: 'analyst',
    instructions: 'Answer with lisp_eval programs.',
    model,
    tools: [
      tool({
        name: lisp.name,
        description: lisp.description,
        parameters: lisp.parameters,
        strict: true,
        execute: (input, _context, details) => lisp.execute(input, { abortSignal: details?.signal }),
      }),
    ],
  });
}

test('run() executes a lisp_eval program that calls an app tool; the model answers with its result', async () => {
  const appCalls = [];
  const model = new ScriptedModel([
    callLisp('call-1', '(->> (tool/get-orders {:customer "acme"}) (map :total) (reduce +))'),
    (request) => say(`acme spent ${toolResultIn(request, 'call-1').result.replace('user=> ', '')}`),
  ]);
  const result = await run(lispAgent(model, appCalls), 'How much did acme spend?', { maxTurns: 5 });

  assert.equal(result.finalOutput, 'acme spent 357');
  assert.equal(model.requests.length, 2);
  assert.deepEqual(appCalls, ['acme']);

  const offered = model.requests[0].tools;
  assert.equal(offered.length, 1);
  assert.equal(offered[0].type, 'function');
  assert.equal(offered[0].name, 'lisp_eval');
  assert.equal(offered[0].description, toolSchema().description);
  assert.equal(offered[0].strict, true);
  assert.deepEqual(offered[0].parameters, toolSchema().inputSchema);
  const payload = toolResultIn(model.requests[1], 'call-1');
  assert.equal(payload.status, 'ok');
  assert.equal(payload.result, 'user=> 357');
  assert.ok(result.newItems.some((i) => i.type === 'tool_call_output_item'));
});

test('a program with a parse error: the model reads the error payload, fixes the program, and answers', async () => {
  const appCalls = [];
  const model = new ScriptedModel([
    callLisp('call-1', '(count (tool/get-orders {:customer "globex"})'),
    callLisp('call-2', '(count (tool/get-orders {:customer "globex"}))'),
    say('globex has 1 order'),
  ]);
  const result = await run(lispAgent(model, appCalls), 'How many orders has globex?', { maxTurns: 5 });

  assert.equal(result.finalOutput, 'globex has 1 order');
  assert.equal(model.requests.length, 3);
  const error = toolResultIn(model.requests[1], 'call-1');
  assert.equal(error.status, 'error');
  assert.equal(error.reason, 'parse_error');
  assert.match(error.message, /^parse_error at 1:1: unclosed \(/);
  const fixed = toolResultIn(model.requests[2], 'call-2');
  assert.equal(fixed.result, 'user=> 1');
  assert.deepEqual(appCalls, ['globex']);
});
