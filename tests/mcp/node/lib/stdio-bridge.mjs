// A stdio server seen as Streamable HTTP, for the conformance suite (whose
// server mode speaks only HTTP). Each MCP session is one child process; the
// SDK's server transport does the HTTP side (JSON replies) and messages cross
// verbatim both ways. Only loopback Host/Origin values are let in.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

// Resolves with {url, sessions (count opened), close()} once listening on 127.0.0.1.
export async function startBridge(command, args, env) {
  const sessions = new Map(); // session id -> {front, child}
  const opened = new Set();
  let port = 0;

  async function openSession() {
    const child = new StdioClientTransport({ command, args, env, stderr: 'ignore' });
    const front = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => sessions.set(id, pair),
    });
    const pair = { front, child };
    front.onmessage = (m) => child.send(m).catch(() => {});
    child.onmessage = (m) => front.send(m).catch(() => {});
    front.onclose = () => {
      child.close();
      sessions.delete(front.sessionId);
    };
    await child.start();
    opened.add(pair);
    return pair;
  }

  const loopback = () => [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  const server = http.createServer(async (req, res) => {
    try {
      const origin = req.headers.origin;
      if (!loopback().includes(req.headers.host) || (origin && !loopback().some((h) => origin === `http://${h}`)))
        return res.writeHead(403).end();
      if (new URL(req.url, 'http://bridge').pathname !== '/mcp') return res.writeHead(404).end();
      const sid = req.headers['mcp-session-id'];
      let pair = sid ? sessions.get(sid) : undefined;
      if (sid && !pair) return res.writeHead(404).end();
      if (!pair) {
        if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
        pair = await openSession();
      }
      await pair.front.handleRequest(req, res);
      if (!pair.front.sessionId) {
        // Not an initialize after all: the transport refused it; drop the child.
        opened.delete(pair);
        await pair.child.close();
      }
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  port = server.address().port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    opened: () => opened.size,
    close: async () => {
      server.close();
      server.closeAllConnections();
      await Promise.all([...opened].map((p) => p.child.close()));
    },
  };
}
