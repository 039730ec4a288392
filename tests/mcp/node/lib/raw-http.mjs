// A lean MCP client over node:http (one keep-alive connection per client), for
// load where the SDK client's own cost would dominate, and raw sockets for faults.
import http from 'node:http';
import net from 'node:net';

export const INIT = (id = 0, protocolVersion = '2025-11-25') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

export class RawHttpClient {
  // modern: revision 2026-07-28 (no session; the envelope and headers on every call).
  constructor(url, { modern = false } = {}) {
    this.url = new URL(url);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    this.sid = null;
    this.modern = modern;
  }
  // POST a body; resolves with {status, headers, text, json}.
  post(body, headers = {}) {
    const h = { ...HEADERS, ...headers };
    if (this.sid) {
      h['mcp-session-id'] = this.sid;
      h['mcp-protocol-version'] = '2025-11-25';
    }
    return new Promise((resolve, reject) => {
      const req = http.request(this.url, { method: 'POST', agent: this.agent, headers: h }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          let json = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            // left null
          }
          resolve({ status: res.statusCode, headers: res.headers, text, json });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  }
  async init() {
    if (this.modern) return this;
    const r = await this.post(INIT(0));
    if (r.status !== 200) throw new Error(`initialize: HTTP ${r.status} ${r.text}`);
    this.sid = r.headers['mcp-session-id'];
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return this;
  }
  call(id, args) {
    const params = { name: 'lisp_eval', arguments: args };
    if (!this.modern) return this.post({ jsonrpc: '2.0', id, method: 'tools/call', params });
    return this.post(
      { jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, _meta: MODERN_META } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'lisp_eval' },
    );
  }
  close() {
    this.agent.destroy();
  }
}

// A raw socket to host:port; resolves once connected. Collects what comes back.
export function rawSocket(port) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => resolve(sock));
    sock.received = '';
    sock.setEncoding('utf8');
    sock.on('data', (d) => (sock.received += d));
    sock.ended = new Promise((r) => sock.on('close', r));
    sock.on('error', () => {});
    sock.once('error', reject);
  });
}

// The head of an MCP POST with a Content-Length, for writing the body by hand.
export function postHead(port, sid, length, extra = '') {
  return (
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
    `Accept: application/json, text/event-stream\r\nMcp-Session-Id: ${sid}\r\n` +
    `Mcp-Protocol-Version: 2025-11-25\r\nContent-Length: ${length}\r\n${extra}\r\n`
  );
}
