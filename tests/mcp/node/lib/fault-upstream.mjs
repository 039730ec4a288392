// A tiny MCP server over stdio (NDJSON, no dependencies) whose tools misbehave
// on purpose, for the upstream tests of `ptc run --upstreams`:
//   echo {message}  -> the message       fail      -> isError: true
//   hang            -> never answers      rpc_error -> a JSON-RPC error
//   huge {bytes}    -> that much text     crash     -> the process exits mid-call
//   secret          -> $TOKEN             slow {ms} -> answers after ms
// At start it writes $TOKEN to stderr (the log must redact it), and its pid as
// a line of $PIDFILE when set.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const tools = ['echo', 'fail', 'hang', 'rpc_error', 'huge', 'crash', 'secret', 'slow', 'count'].map(
  (name) => ({
    name,
    // The secret tool names $TOKEN in its description and schema: discovery must redact it.
    description: name === 'secret' ? `fault tool secret (token ${process.env.TOKEN})` : `fault tool ${name}`,
    inputSchema:
      name === 'secret'
        ? { type: 'object', properties: { t: { type: 'string', description: `${process.env.TOKEN}` } } }
        : { type: 'object' },
    annotations: name === 'count' ? { readOnlyHint: true } : {},
  }),
);
let counted = 0;
if (process.env.PIDFILE) appendFileSync(process.env.PIDFILE, `${process.pid}\n`);
process.stderr.write(`fault upstream starting with token ${process.env.TOKEN ?? '(none)'}\n`);
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const text = (t, extra = {}) => ({ content: [{ type: 'text', text: t }], ...extra });

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  const reply = (result) => send({ jsonrpc: '2.0', id: msg.id, result });
  if (msg.method === 'initialize')
    return reply({
      protocolVersion: msg.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'fault', version: '1' },
    });
  if (msg.method === 'tools/list') {
    // Two pages: the client must follow nextCursor.
    if (!msg.params?.cursor) return reply({ tools: tools.slice(0, 4), nextCursor: 'p2' });
    return reply({ tools: tools.slice(4) });
  }
  if (msg.method !== 'tools/call')
    return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'no such method' } });
  const args = msg.params.arguments ?? {};
  switch (msg.params.name) {
    case 'echo': return reply(text(String(args.message)));
    case 'fail': return reply(text('the tool broke', { isError: true }));
    case 'hang': return;
    case 'rpc_error':
      return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32000, message: 'upstream exploded' } });
    case 'huge': return reply(text('x'.repeat(args.bytes ?? 3 << 20)));
    case 'crash': process.exit(3);
    case 'secret': return reply(text(`the token is ${process.env.TOKEN}`));
    case 'slow': return setTimeout(() => reply(text('slow done')), args.ms ?? 100);
    case 'count': return reply({ content: [], structuredContent: { count: ++counted } });
  }
});
