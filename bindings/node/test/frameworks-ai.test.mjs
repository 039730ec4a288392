// The lisp_eval tool in a real Vercel AI SDK loop (`ai`, pinned in
// package.json), with the SDK's own scripted model (MockLanguageModelV3 from
// 'ai/test') instead of an LLM: generateText offers the tool, executes the
// model's lisp_eval calls through lispEvalTool().execute (the program calls an
// app tool for real) and sends the payload back in the next call's prompt.
// No network. run-packed.mjs links the pinned SDK into the scratch folder.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { lispEvalTool, toolSchema } from 'ptc-lisp';

const ORDERS = {
  acme: [{ id: 1, total: 120 }, { id: 2, total: 80 }, { id: 3, total: 157 }],
  globex: [{ id: 4, total: 40 }],
};

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

function callLisp(id, program) {
  return {
    content: [{ type: 'tool-call', toolCallId: id, toolName: 'lisp_eval', input: JSON.stringify({ program }) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

function say(text) {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
}

// The payload of the tool result with this id in a call's prompt: what the
// model reads on its next turn.
function toolResultIn(prompt, toolCallId) {
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.toolCallId === toolCallId) {
        assert.equal(part.toolName, 'lisp_eval');
        assert.equal(part.output.type, 'json');
        return part.output.value;
      }
    }
  }
  assert.fail(`no tool result ${toolCallId} in the prompt`);
}

function harness() {
  const appCalls = [];
  const lisp = lispEvalTool({
    tools: {
      'get-orders': async ({ customer }) => {
        appCalls.push(customer);
        return ORDERS[customer] ?? [];
      },
    },
    limits: { timeout: 2000 },
  });
  const tools = {
    lisp_eval: tool({
      description: lisp.description,
      inputSchema: jsonSchema(lisp.inputSchema),
      execute: (args, { abortSignal }) => lisp.execute(args, { abortSignal }),
    }),
  };
  return { appCalls, tools };
}

test('generateText runs a lisp_eval program that calls an app tool and answers with its result', async () => {
  const { appCalls, tools } = harness();
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const turn = model.doGenerateCalls.length; // this call is already recorded
      if (turn === 1) {
        return callLisp('call-1', '(->> (tool/get-orders {:customer "acme"}) (map :total) (reduce +))');
      }
      const payload = toolResultIn(prompt, 'call-1');
      return say(`acme spent ${payload.result.replace('user=> ', '')}`);
    },
  });

  const result = await generateText({
    model,
    tools,
    stopWhen: stepCountIs(5),
    prompt: 'How much did acme spend?',
  });

  assert.equal(result.text, 'acme spent 357');
  assert.equal(result.steps.length, 2);
  assert.equal(result.finishReason, 'stop');
  assert.deepEqual(appCalls, ['acme']);

  // The model was offered the canonical tool, and read the payload.
  const offered = model.doGenerateCalls[0].tools;
  assert.equal(offered.length, 1);
  assert.equal(offered[0].type, 'function');
  assert.equal(offered[0].name, 'lisp_eval');
  assert.equal(offered[0].description, toolSchema().description);
  assert.deepEqual(offered[0].inputSchema, toolSchema().inputSchema);
  const payload = toolResultIn(model.doGenerateCalls[1].prompt, 'call-1');
  assert.equal(payload.status, 'ok');
  assert.equal(payload.result, 'user=> 357');
  assert.deepEqual(result.steps[0].toolResults.map((r) => r.output), [payload]);
});

test('a program with a parse error: the model reads the error payload, fixes the program, and answers', async () => {
  const { appCalls, tools } = harness();
  const model = new MockLanguageModelV3({
    doGenerate: [
      callLisp('call-1', '(count (tool/get-orders {:customer "globex"})'),
      callLisp('call-2', '(count (tool/get-orders {:customer "globex"}))'),
      say('globex has 1 order'),
    ],
  });

  const result = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt: 'How many orders has globex?' });

  assert.equal(result.text, 'globex has 1 order');
  assert.equal(result.steps.length, 3);
  const error = toolResultIn(model.doGenerateCalls[1].prompt, 'call-1');
  assert.equal(error.status, 'error');
  assert.equal(error.reason, 'parse_error');
  assert.match(error.message, /^parse_error at 1:1: unclosed \(/);
  assert.match(error.feedback, /hint: add the missing \)/);
  const fixed = toolResultIn(model.doGenerateCalls[2].prompt, 'call-2');
  assert.equal(fixed.status, 'ok');
  assert.equal(fixed.result, 'user=> 1');
  // The program that did not parse never ran: only the fixed one called the tool.
  assert.deepEqual(appCalls, ['globex']);
});

test('an app tool that throws reaches the model as an error payload, not a failed generateText', async () => {
  const lisp = lispEvalTool({ tools: { 'get-orders': () => { throw new Error('orders db is down'); } } });
  const model = new MockLanguageModelV3({
    doGenerate: [callLisp('call-1', '(tool/get-orders {:customer "acme"})'), say('the orders db is down')],
  });
  const result = await generateText({
    model,
    tools: {
      lisp_eval: tool({
        description: lisp.description,
        inputSchema: jsonSchema(lisp.inputSchema),
        execute: (args, { abortSignal }) => lisp.execute(args, { abortSignal }),
      }),
    },
    stopWhen: stepCountIs(5),
    prompt: 'acme?',
  });
  assert.equal(result.text, 'the orders db is down');
  const payload = toolResultIn(model.doGenerateCalls[1].prompt, 'call-1');
  assert.equal(payload.status, 'error');
  assert.equal(payload.reason, 'runtime_error');
  assert.match(payload.message, /tool_error .*tool\/get-orders failed: orders db is down/);
});
