// What the shared store costs (bench/store-latency runs this; see there).
//
//   node bench/store_latency.mjs [path/to/ptc] [calls] [seconds]
//
// 1. Latency, one call at a time over a keep-alive loopback connection, of a
//    lisp_session_eval on a replica keeping its sessions in Redis (--store)
//    and on one keeping them in process, in the same sitting: blocks of 100
//    calls alternate between the two so that the machine's drift falls on
//    both. lisp_eval (no session, no store) on each is the baseline.
// 2. Throughput, calls/s with `clients` connections each making one call
//    at a time for `seconds`: one replica directly, one behind haproxy, three
//    behind haproxy (the configuration of docs/deploy.md), for lisp_eval and
//    for lisp_session_eval (a session per connection, in Redis).
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAll } from '../tests/mcp/node/lib/processes.mjs';
import { RawHttpClient } from '../tests/mcp/node/lib/raw-http.mjs';
import { Haproxy, RedisServer, Replica, freePort, haproxyConfig, healthPaths, scratch, writeStoreKey } from '../tests/mcp/node/lib/replicas.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
process.env.PTC_BIN = resolve(process.argv[2] ?? join(root, 'build', 'ptc'));
const calls = Number(process.argv[3] ?? 4000);
const seconds = Number(process.argv[4] ?? 5);
// Connections of the throughput runs; every replica runs as many programs at
// once (--max-concurrent-calls, haproxy's maxconn), so that none is answered busy.
const clients = 16;
const slots = clients;

const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

// A 2026-07-28 client on one keep-alive connection; a tool error throws.
class Conn {
  constructor(url) {
    this.raw = new RawHttpClient(url);
    this.id = 0;
  }
  async call(name, args) {
    const body = { jsonrpc: '2.0', id: ++this.id, method: 'tools/call', params: { name, arguments: args, _meta: META } };
    const r = await this.raw.post(body, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name });
    if (!r.json?.result || r.json.result.isError) throw new Error(`${name}: HTTP ${r.status} ${r.text}`);
    return r.json.result;
  }
  async session() {
    const r = await this.call('lisp_session_start', {});
    const id = r.structuredContent.session_id;
    await this.call('lisp_session_eval', { session_id: id, program: '(def n 0)' });
    return id;
  }
  close() {
    this.raw.close();
  }
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const us = (ms) => `${(ms * 1000).toFixed(0)} µs`.padStart(9);

// Latency of `calls` sequential calls, for each {label, conn, args}, alternating blocks of 100.
async function latency(kinds) {
  const times = kinds.map(() => []);
  for (let done = 0; done < calls; done += 100)
    for (const [i, k] of kinds.entries())
      for (let j = 0; j < 100; j++) {
        const t0 = performance.now();
        await k.conn.call(k.tool, k.args());
        times[i].push(performance.now() - t0);
      }
  return kinds.map((k, i) => {
    const s = times[i].sort((a, b) => a - b);
    return { label: k.label, p50: quantile(s, 0.5), p99: quantile(s, 0.99) };
  });
}

// Calls/s of `clients` connections to `url` for `seconds`.
async function throughput(url, tool) {
  const conns = Array.from({ length: clients }, () => new Conn(url));
  const sessions = tool === 'lisp_session_eval' ? await Promise.all(conns.map((c) => c.session())) : [];
  const args = (i) => (tool === 'lisp_session_eval' ? { session_id: sessions[i], program: '(def n (inc n))' } : { program: '(+ 1 2)' });
  let n = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(conns.map(async (c, i) => {
    while (performance.now() < end) {
      await c.call(tool, args(i));
      n++;
    }
  }));
  for (const c of conns) c.close();
  return n / seconds;
}

const { dir, cleanup } = scratch();
try {
  const redis = await new RedisServer(dir).start();
  const key = writeStoreKey(dir);
  const common = ['--sessions', '--response-profile', 'structured', '--log-level', 'info',
    '--max-concurrent-calls', String(slots), '--max-sessions', '1000', '--max-sessions-per-owner', '1000',
    '--http-max-connections-per-peer', '4096'];
  const store = ['--store', redis.url, '--store-key-file', key];
  const start = async (name, flags) => new Replica(name, await freePort(), flags).start();
  const local = await start('local', common);
  const replicas = [];
  for (const name of ['r1', 'r2', 'r3']) replicas.push(await start(name, [...common, ...store]));

  console.log(`ptc: ${process.env.PTC_BIN}; ${availableParallelism()} cores; --max-concurrent-calls ${slots}`);
  console.log(`\nlatency, one call at a time on one keep-alive loopback connection (${calls} calls each, alternating)`);
  const inRedis = new Conn(replicas[0].url);
  const inProcess = new Conn(local.url);
  const [redisSession, localSession] = [await inRedis.session(), await inProcess.session()];
  const rows = await latency([
    { label: 'lisp_session_eval, sessions in Redis', conn: inRedis, tool: 'lisp_session_eval', args: () => ({ session_id: redisSession, program: '(def n (inc n))' }) },
    { label: 'lisp_session_eval, sessions in process', conn: inProcess, tool: 'lisp_session_eval', args: () => ({ session_id: localSession, program: '(def n (inc n))' }) },
    { label: 'lisp_eval, replica with --store', conn: inRedis, tool: 'lisp_eval', args: () => ({ program: '(+ 1 2)' }) },
    { label: 'lisp_eval, replica without', conn: inProcess, tool: 'lisp_eval', args: () => ({ program: '(+ 1 2)' }) },
  ]);
  console.log(`  ${'call'.padEnd(42)} ${'p50'.padStart(9)} ${'p99'.padStart(9)}`);
  for (const r of rows) console.log(`  ${r.label.padEnd(42)} ${us(r.p50)} ${us(r.p99)}`);
  console.log(`  the store adds at p50: ${us(rows[0].p50 - rows[1].p50).trim()} (goal: at most 300 µs), at p99: ${us(rows[0].p99 - rows[1].p99).trim()}`);
  inRedis.close();
  inProcess.close();

  const paths = await healthPaths(local);
  const lb = async (name, behind) =>
    new Haproxy(dir, await freePort(), (o) => haproxyConfig({ ...o, ...paths, replicas: behind, maxconn: slots, checkMs: 1000 }), name)
      .start()
      .then(async (h) => (await h.waitStatus(behind.map((r) => r.name), 'UP'), h));
  const one = await lb('one', [replicas[0]]);
  const three = await lb('three', replicas);
  console.log(`\nthroughput, ${clients} connections each making one call at a time, ${seconds} s each (calls/s)`);
  console.log(`  ${''.padEnd(36)} ${'lisp_eval'.padStart(10)} ${'session_eval'.padStart(13)}`);
  for (const [label, url] of [['one replica, direct', replicas[0].url], ['one replica behind haproxy', one.url], ['three replicas behind haproxy', three.url]]) {
    const plain = await throughput(url, 'lisp_eval');
    const session = await throughput(url, 'lisp_session_eval');
    console.log(`  ${label.padEnd(36)} ${plain.toFixed(0).padStart(10)} ${session.toFixed(0).padStart(13)}`);
  }
  await one.stop();
  await three.stop();
} finally {
  killAll();
  cleanup();
}
