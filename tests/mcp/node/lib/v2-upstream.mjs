// An upstream MCP server on the official v2 server SDK (@modelcontextprotocol/server 2.4.0).
//   node v2-upstream.mjs http    Streamable HTTP on a free loopback port, revision 2026-07-28
//                                only (createMcpHandler, legacy: 'reject': a 2025 initialize
//                                is refused with -32022); prints {"port": N} on stdout
//   node v2-upstream.mjs stdio   the stdio transport, 2025 handshake only (McpServer.connect)
//   node v2-upstream.mjs stdio-modern
//                                stdio through serveStdio, revision 2026-07-28 only (legacy:
//                                'reject': the opening exchange must be a modern request)
//   node v2-upstream.mjs stdio-modern MS
//                                the same, reading nothing for its first MS milliseconds
//                                (a server slow to start)
// Tools: echo {message} -> message; add {a, b} -> a + b (structuredContent {sum}); slow {ms}
// -> "done" after ms milliseconds; crash -> the process exits mid-call.
import http from 'node:http';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';

const mode = process.argv[2] ?? 'http';

function server() {
  const s = new McpServer({ name: 'v2-fixture', version: '1.0.0' });
  s.registerTool(
    'echo',
    { description: 'echo the message', inputSchema: fromJsonSchema({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] }) },
    async ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
  s.registerTool(
    'add',
    {
      description: 'a + b',
      inputSchema: fromJsonSchema({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }),
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  s.registerTool(
    'slow',
    { description: 'answers after ms milliseconds', inputSchema: fromJsonSchema({ type: 'object', properties: { ms: { type: 'number' } } }) },
    async ({ ms }) => {
      await new Promise((r) => setTimeout(r, ms ?? 0));
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  s.registerTool('crash', { description: 'exits mid-call', inputSchema: fromJsonSchema({ type: 'object' }) }, async () => {
    process.exit(3);
  });
  return s;
}

if (mode === 'stdio') {
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  await server().connect(new StdioServerTransport());
} else if (mode === 'stdio-modern') {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  await new Promise((r) => setTimeout(r, Number(process.argv[3] ?? 0)));
  serveStdio(server, { legacy: 'reject' });
} else {
  const handler = createMcpHandler(server, { legacy: 'reject' });
  const httpServer = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers,
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks),
    });
    const response = await (handler.fetch ? handler.fetch(request) : handler(request));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  httpServer.listen(0, '127.0.0.1', () => {
    process.stdout.write(JSON.stringify({ port: httpServer.address().port }) + '\n');
  });
}
