// The lisp_eval tool in an OpenAI Agents SDK agent (`@openai/agents`): the
// model writes PTC-Lisp programs, the runner runs them through ptc-lisp, and
// the programs call the app's tools. Needs OPENAI_API_KEY.
// Type-checked by the tests against the pinned SDK (node_package_tests).
import { Agent, run, tool } from '@openai/agents';
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

const agent = new Agent({
  name: 'analyst',
  instructions: 'Answer by writing lisp_eval programs. Tools: tool/list-customers, tool/get-orders {:customer name}.',
  model: 'gpt-4.1',
  tools: [
    tool({
      name: lisp.name,
      description: lisp.description,
      parameters: lisp.parameters, // a closed object schema, as strict tools need
      strict: true,
      execute: (input, _context, details) => lisp.execute(input as LispEvalArgs, { abortSignal: details?.signal }),
    }),
  ],
});

const result = await run(agent, 'Which customer spent most?', { maxTurns: 5 });
console.log(result.finalOutput);
