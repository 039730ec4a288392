// The lisp_eval tool in a Vercel AI SDK agent loop (`ai`): the model writes
// PTC-Lisp programs, the SDK runs them through ptc-lisp, and the programs call
// the app's tools. Needs OPENAI_API_KEY; any AI SDK provider works the same.
// Type-checked by the tests against the pinned SDK (node_package_tests).
import { openai } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { lispEvalTool, type LispEvalArgs } from 'ptc-lisp';

const orders: Record<string, { id: number; total: number }[]> = {
  acme: [{ id: 1, total: 120 }, { id: 2, total: 80 }],
  globex: [{ id: 3, total: 40 }],
};

const lisp = lispEvalTool({
  tools: {
    'list-customers': async () => Object.keys(orders),
    'get-orders': async ({ customer }) => orders[String(customer)] ?? [],
  },
  limits: { timeout: 2000 },
});

const { text, steps } = await generateText({
  model: openai('gpt-4.1'), // or anthropic('claude-sonnet-4-5'), google('gemini-2.5-pro'), ...
  tools: {
    lisp_eval: tool({
      description: lisp.description,
      inputSchema: jsonSchema<LispEvalArgs>(lisp.inputSchema),
      execute: (args, { abortSignal }) => lisp.execute(args, { abortSignal }),
    }),
  },
  stopWhen: stepCountIs(5), // up to 5 model calls: programs, their payloads, the answer
  prompt: 'Which customer spent most? Tools: tool/list-customers, tool/get-orders {:customer name}.',
});
console.log(text, `(${steps.length} steps)`);
