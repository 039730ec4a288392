// What every script needs: the ptc binary, servers over stdio and HTTP, SDK
// clients on them, a raw NDJSON peer, and small readers of tool results.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { after } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LogReader, killAll, passEnv, ptcBin, startHttpServer, track } from './processes.mjs';
import { INIT } from './raw-http.mjs';

export { INIT };
export { LogReader, NODE_DIR, killAll, passEnv, ptcBin, startHttpServer, track } from './processes.mjs';

after(killAll);

// Sanitized builds run the same checks with smaller counts (they are ~5-10x slower).
export const SANITIZED = process.env.PTC_MCP_SANITIZED === '1';

// An integer from the environment, or `fallback` (divided by `sanitizedDivisor` under ASan).
export function envCount(name, fallback, sanitizedDivisor = 10) {
  const v = process.env[name];
  if (v !== undefined && v !== '') return Number(v);
  return SANITIZED ? Math.max(1, Math.floor(fallback / sanitizedDivisor)) : fallback;
}

// A program that runs until stopped (exponential, allocation-free, shallow).
export const LOOP_PROGRAM =
  '(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 60)';
// A program that takes some milliseconds (fib 25: ~3 ms in a Release build).
export const fibProgram = (n) =>
  `(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib ${n})`;

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const now = () => performance.now();

// The text of a CallToolResult's first content item.
export function textOf(result) {
  const item = result?.content?.find((c) => c.type === 'text');
  return item ? item.text : '';
}

// The reason of an error result: structuredContent.reason when there is one
// (structured/debug profiles, and server-made errors such as busy), else the
// slim text's "reason: message" prefix.
export function reasonOf(result) {
  if (!result?.isError) return null;
  const r = result.structuredContent?.reason;
  if (typeof r === 'string') return r;
  const text = textOf(result);
  try {
    const parsed = JSON.parse(text);
    if (typeof parsed?.reason === 'string') return parsed.reason;
  } catch {
    // slim text, not JSON
  }
  const m = /^([a-z_]+):/.exec(text);
  return m ? m[1] : null;
}

// An SDK Client on a `ptc mcp [flags]` child over stdio.
export async function stdioClient(flags = [], { name = 'ptc-node-tests', capabilities = {} } = {}) {
  const transport = new StdioClientTransport({
    command: ptcBin(),
    args: ['mcp', ...flags],
    stderr: 'pipe',
    env: passEnv(),
  });
  const logs = new LogReader(transport.stderr);
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  if (transport._process) track(transport._process); // the SDK keeps the child private
  return { client, transport, logs, pid: transport.pid, close: () => client.close() };
}

// Whether this build serves HTTP (a throwaway server); a reason string when it does not.
export async function httpUnavailableReason() {
  const s = await startHttpServer();
  if (s.unavailable) return s.unavailable;
  await s.stop();
  return null;
}

// An SDK Client over Streamable HTTP.
export async function httpClient(url, { name = 'ptc-node-tests', headers } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: headers ? { headers } : undefined,
  });
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

// VmRSS of a process in KiB.
export function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

// Calls a function until it stops throwing or returns truthy, up to `ms`.
export async function eventually(fn, ms = 5000, stepMs = 2) {
  const t0 = now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (now() - t0 > ms) throw new Error(`condition not met within ${ms} ms`);
    await sleep(stepMs);
  }
}

// Prints a measured figure so that it lands in ctest's log.
export function figure(label, value) {
  console.log(`# figure: ${label}: ${value}`);
}

// A raw NDJSON peer on `ptc mcp [flags]`: frames go out as written, replies are
// matched by id and every id's replies are counted (to find lost or doubled ones).
export class RawStdio {
  constructor(flags = []) {
    this.proc = track(spawn(ptcBin(), ['mcp', ...flags], { stdio: ['pipe', 'pipe', 'pipe'], env: passEnv() }));
    this.logs = new LogReader(this.proc.stderr);
    this.pending = new Map();
    this.replies = new Map(); // id -> count
    this.unmatched = []; // replies whose id was never sent or null
    this.notifications = [];
    this.badLines = [];
    this.exited = new Promise((r) => this.proc.once('exit', (code, signal) => r({ code, signal })));
    // Once the server is gone no reply can come: waiting requests fail.
    this.exited.then(({ code, signal }) => {
      for (const [key, p] of this.pending) p.reject(new Error(`server exited (${code ?? signal}) before answering ${key}`));
      this.pending.clear();
    });
    this.proc.stdin.on('error', () => {});
    createInterface({ input: this.proc.stdout }).on('line', (line) => this.#onLine(line));
  }
  #onLine(line) {
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      this.badLines.push(line);
      return;
    }
    if (m.method && m.id === undefined) {
      this.notifications.push(m);
      return;
    }
    const key = JSON.stringify(m.id);
    this.replies.set(key, (this.replies.get(key) ?? 0) + 1);
    const p = this.pending.get(key);
    if (p) {
      this.pending.delete(key);
      p.resolve(m);
    } else {
      this.unmatched.push(m);
    }
  }
  write(text) {
    this.proc.stdin.write(text);
  }
  send(obj) {
    this.write(JSON.stringify(obj) + '\n');
  }
  // A promise of the reply to `id` (a request sent by other means).
  expect(id) {
    const key = JSON.stringify(id);
    if (this.proc.exitCode !== null || this.proc.signalCode !== null)
      return Promise.reject(new Error(`server exited before ${key} was sent`));
    return new Promise((resolve, reject) => this.pending.set(key, { resolve, reject }));
  }
  // Sends a request and resolves with its reply.
  request(id, method, params) {
    const p = this.expect(id);
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return p;
  }
  // Resolves with the next reply that has no pending request (e.g. id null).
  nextUnmatched(timeoutMs = 5000) {
    return eventually(() => this.unmatched.shift(), timeoutMs);
  }
  call(id, program, extra = {}) {
    return this.request(id, 'tools/call', { name: 'lisp_eval', arguments: { program, ...extra } });
  }
  async init() {
    const r = await this.request('init', 'initialize', INIT('init').params);
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }
  endInput() {
    this.proc.stdin.end();
  }
  kill(signal = 'SIGKILL') {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(signal);
    return this.exited;
  }
}
