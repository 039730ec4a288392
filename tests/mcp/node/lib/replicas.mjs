// `ptc mcp --http --store` replicas as they are deployed (docs/deploy.md): a
// private redis-server, replicas on fixed loopback ports sharing it, and
// haproxy in front. Every process is started here, on loopback, in one
// temporary folder, and waited for by an event (a log line), except haproxy's
// view of its servers, which only its stats socket tells (polled briefly).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startHttpServer, track } from './processes.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A folder for one deployment, removed by cleanup().
export function scratch() {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-replicas-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// The store key every replica reads (made as docs/deploy.md says: 32 random
// bytes in hex, mode 0600).
export function writeStoreKey(dir) {
  const path = join(dir, 'store.key');
  writeFileSync(path, randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
  return path;
}

// A TCP port nothing listens on now (the kernel's pick, released at once).
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// Resolves once a line of `stream` matches `re`; rejects when the stream ends first.
function lineMatching(stream, re, what, timeoutMs) {
  return new Promise((resolve, reject) => {
    const seen = [];
    const lines = createInterface({ input: stream });
    const timer = setTimeout(() => reject(new Error(`${what}: no "${re}" within ${timeoutMs} ms: ${seen.join('\n')}`)), timeoutMs);
    lines.on('line', (line) => {
      if (seen.length < 50) seen.push(line);
      if (re.test(line)) {
        clearTimeout(timer);
        resolve(line);
      }
    });
    lines.on('close', () => {
      clearTimeout(timer);
      reject(new Error(`${what} ended before "${re}": ${seen.join('\n')}`));
    });
  });
}

// Debian's redis-server on a Unix socket in `dir` (no TCP port: 7.0 then logs
// "The server is now ready to accept connections at <socket>"), with the persistence
// docs/deploy.md recommends (appendonly yes, appendfsync everysec), so that
// stop('SIGTERM') and start() again keep the data.
export class RedisServer {
  constructor(dir) {
    this.dir = dir;
    this.socket = join(dir, 'redis.sock');
    this.url = `unix://${this.socket}`;
    this.proc = null;
  }
  async start(timeoutMs = 10000) {
    const args = ['--port', '0', '--unixsocket', this.socket, '--unixsocketperm', '700', '--dir', this.dir,
      '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--daemonize', 'no', '--logfile', ''];
    const proc = track(spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    this.proc = proc;
    this.exited = new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })));
    const failed = new Promise((_, reject) =>
      proc.once('error', (e) => reject(new Error(`redis-server did not start (scripts/setup installs it): ${e.message}`))));
    await Promise.race([lineMatching(proc.stdout, /ready to accept connections/i, 'redis-server', timeoutMs), failed]);
    proc.stdout.resume();
    return this;
  }
  // SIGTERM: it writes its append-only file and exits; SIGKILL: a crash.
  async stop(signal = 'SIGTERM') {
    if (!this.proc) return null;
    const proc = this.proc;
    this.proc = null;
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    return this.exited;
  }
}

// One `ptc mcp --http --store` process on a fixed port: start() after stop()
// brings it back on the same port (the balancer's configuration names it).
export class Replica {
  constructor(name, port, flags) {
    this.name = name;
    this.port = port;
    this.flags = flags;
    this.server = null;
  }
  get url() {
    return `http://127.0.0.1:${this.port}/mcp`;
  }
  get logs() {
    return this.server.logs;
  }
  get alive() {
    const p = this.server?.proc;
    return Boolean(p) && p.exitCode === null && p.signalCode === null;
  }
  async start() {
    const s = await startHttpServer(this.flags, { port: this.port });
    if (s.unavailable) throw new Error(`ptc mcp --http is not in this build (${s.unavailable})`);
    this.server = s;
    return this;
  }
  // SIGTERM (drain) or SIGKILL; resolves with {code, signal}.
  stop(signal = 'SIGTERM') {
    return this.server.stop(signal);
  }
  // Log lines of this process matching `pred`.
  lines(pred) {
    return this.server.logs.lines.filter(pred);
  }
}

// Starts `n` replicas with `flags` (the same store), each on a free port.
export async function startReplicas(n, flags) {
  const replicas = [];
  for (let i = 1; i <= n; i++) replicas.push(new Replica(`r${i}`, await freePort(), flags));
  await Promise.all(replicas.map((r) => r.start()));
  return replicas;
}

// The health endpoints a balancer should check: /readyz and /healthz, or
// /ready and /health on a build that has only those (readyz: false).
export async function healthPaths(replica) {
  const probe = await fetch(`http://127.0.0.1:${replica.port}/readyz`);
  await probe.text();
  if (probe.status === 404) return { readyz: false, readyPath: '/ready', livePath: '/health' };
  return { readyz: true, readyPath: '/readyz', livePath: '/healthz' };
}

// The haproxy configuration of docs/deploy.md for `replicas`: round robin for
// 2026-07-28 traffic, affinity by Mcp-Session-Id for 2025 sessions (learnt
// from the initialize response), health checks on `readyPath`, at most
// `maxconn` requests at once per replica (its --max-concurrent-calls: more
// wait in haproxy's queue instead of being answered busy), and retries that
// replay a buffered request on another replica when one refuses the
// connection, closes it unanswered, or answers 503 (draining). When no replica
// is ready (the store is down), `live` takes the traffic: every replica that
// is alive, so stateless calls are still served. Connections to the replicas
// are kept alive and reused (http-reuse safe, haproxy's default): closing them
// after each request (option http-server-close) halved the calls/s through
// haproxy (bench/store-latency) and, in this test's rolling restart, made a
// call that reaches a replica just as it begins to drain more frequent.
export function haproxyConfig({ port, replicas, maxconn, readyPath = '/readyz', livePath = '/healthz', statsSocket, checkMs = 100 }) {
  const servers = replicas
    .map((r, i) => `  server ${r.name} 127.0.0.1:${r.port} id ${i + 1} maxconn ${maxconn} check inter ${checkMs}ms fall 2 rise 1`)
    .join('\n');
  const check = (path) => `  option httpchk\n  http-check send meth GET uri ${path} ver HTTP/1.1 hdr Host 127.0.0.1`;
  return `global
  nbthread 1
${statsSocket ? `  stats socket ${statsSocket} mode 600 level admin\n` : ''}
defaults
  mode http
  timeout connect 1s
  timeout client 60s
  timeout server 60s
  timeout queue 10s
  http-reuse safe
  option http-buffer-request
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response response-timeout 503

frontend mcp
  bind 127.0.0.1:${port}
  use_backend live if { nbsrv(ready) eq 0 }
  default_backend ready

backend ready
  balance roundrobin
${check(readyPath)}
  stick-table type string len 64 size 100k expire 30m
  stick match req.hdr(mcp-session-id)
  stick store-response res.hdr(mcp-session-id)
${servers}

backend live
  balance roundrobin
${check(livePath)}
  stick match req.hdr(mcp-session-id) table ready
  stick store-response res.hdr(mcp-session-id) table ready
${servers}
`;
}

// haproxy (-db: in the foreground) on a generated configuration; `name`
// tells apart the files of several in one folder.
export class Haproxy {
  constructor(dir, port, config, name = 'haproxy') {
    this.dir = dir;
    this.port = port;
    this.url = `http://127.0.0.1:${port}/mcp`;
    this.statsSocket = join(dir, `${name}.sock`);
    this.configPath = join(dir, `${name}.cfg`);
    writeFileSync(this.configPath, config({ port, statsSocket: this.statsSocket }));
    this.stderr = '';
  }
  async start() {
    const proc = track(spawn('haproxy', ['-db', '-f', this.configPath], { stdio: ['ignore', 'ignore', 'pipe'] }));
    this.proc = proc;
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d) => (this.stderr += d));
    this.exited = new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })));
    const failed = new Promise((_, reject) => {
      proc.once('error', (e) => reject(new Error(`haproxy did not start (scripts/setup installs it): ${e.message}`)));
      this.exited.then(({ code }) => reject(new Error(`haproxy exited ${code}: ${this.stderr}`)));
    });
    // No event says it is up: its stats socket answers once it is.
    await Promise.race([this.#until(async () => (await this.stat()).length > 0, 10000), failed]);
    return this;
  }
  stop() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
    return this.exited;
  }
  // One command on the stats socket; resolves with its text.
  command(text) {
    return new Promise((resolve, reject) => {
      let out = '';
      const sock = net.connect(this.statsSocket, () => sock.end(text + '\n'));
      sock.setEncoding('utf8');
      sock.on('data', (d) => (out += d));
      sock.on('close', () => resolve(out));
      sock.on('error', reject);
    });
  }
  // `show stat` as rows {pxname, svname, status, ...}; [] while it cannot answer.
  async stat() {
    let text;
    try {
      text = await this.command('show stat');
    } catch {
      return [];
    }
    const [head, ...rows] = text.trim().split('\n');
    if (!head?.startsWith('# ')) return [];
    const cols = head.slice(2).split(',');
    return rows.map((row) => Object.fromEntries(row.split(',').map((v, i) => [cols[i], v])));
  }
  // What haproxy's health checks say of each replica in `backend`:
  // name -> {status: UP|DOWN|..., check: L7OK|L7STS|L4CON|...}.
  async statuses(backend = 'ready') {
    const out = {};
    for (const row of await this.stat())
      if (row.pxname === backend && row.svname !== 'BACKEND') out[row.svname] = { status: row.status, check: row.check_status };
    return out;
  }
  // Until haproxy sees each of `names` with `status` in `backend` (UP: after a
  // check that passed, not the UP a server starts with).
  waitStatus(names, status, { backend = 'ready', timeoutMs = 10000 } = {}) {
    return this.#until(async () => {
      const s = await this.statuses(backend);
      return names.every((n) => s[n]?.status.startsWith(status) && (status !== 'UP' || s[n].check === 'L7OK'));
    }, timeoutMs, `${names.join(',')} ${status} in ${backend}`);
  }
  async #until(pred, timeoutMs, what = 'haproxy stats socket') {
    const deadline = performance.now() + timeoutMs;
    while (!(await pred())) {
      if (performance.now() > deadline) throw new Error(`haproxy: ${what} not seen within ${timeoutMs} ms: ${this.stderr}`);
      await sleep(20);
    }
  }
}
