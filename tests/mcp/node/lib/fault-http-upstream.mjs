// A tiny MCP server over Streamable HTTP (plain JSON replies, no SDK) whose
// tools misbehave on purpose, for the upstream tests: echo, hang (never
// answers), huge {bytes} (that much text), denied (answers 401), connections
// (how many TCP connections it has accepted), side_effect (counts a call, and
// drops the connection unanswered on every odd one), effects (that count). Every request must carry
// "Authorization: Bearer $TOKEN" (else 401). Prints "listening on port N" on
// stderr. With TLS_KEY and TLS_CERT (PEM files) it serves https instead;
// KEEPALIVE_MS sets how long it keeps an idle connection open.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';

const createServer = (handler) =>
  process.env.TLS_KEY
    ? createHttpsServer({ key: readFileSync(process.env.TLS_KEY), cert: readFileSync(process.env.TLS_CERT) }, handler)
    : createHttpServer(handler);

const tools = ['echo', 'hang', 'huge', 'denied', 'connections', 'side_effect', 'effects'].map((name) => ({
  name,
  description: `http fault tool ${name}`,
  inputSchema: { type: 'object' },
}));
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    if (req.headers.authorization !== `Bearer ${process.env.TOKEN}`) {
      res.writeHead(401, { 'content-type': 'text/plain' });
      return res.end('missing or wrong bearer token');
    }
    if (req.method === 'DELETE') return res.writeHead(200).end();
    const msg = JSON.parse(body);
    if (msg.id === undefined) return res.writeHead(202).end();
    const reply = (result, headers = {}) => {
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    };
    const text = (t) => ({ content: [{ type: 'text', text: t }] });
    if (msg.method === 'initialize')
      return reply(
        { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'fault-http', version: '1' } },
        { 'mcp-session-id': 'session-1' },
      );
    if (req.headers['mcp-session-id'] !== 'session-1') return res.writeHead(400).end('no session');
    if (msg.method === 'tools/list') return reply({ tools });
    const args = msg.params.arguments ?? {};
    switch (msg.params.name) {
      case 'echo': return reply(text(String(args.message)));
      case 'hang': return;
      case 'huge': return reply(text('x'.repeat(args.bytes ?? 3 << 20)));
      case 'denied': res.writeHead(401, { 'content-type': 'text/plain' }); return res.end('denied');
      case 'connections': return reply(text(String(connections)));
      case 'side_effect': return ++effects % 2 ? req.socket.destroy() : reply(text(String(effects)));
      case 'effects': return reply(text(String(effects)));
    }
  });
});
let connections = 0;
let effects = 0;
server.on(process.env.TLS_KEY ? 'secureConnection' : 'connection', () => connections++);
if (process.env.KEEPALIVE_MS) server.keepAliveTimeout = Number(process.env.KEEPALIVE_MS);
server.listen(0, '127.0.0.1', () => process.stderr.write(`listening on port ${server.address().port}\n`));
