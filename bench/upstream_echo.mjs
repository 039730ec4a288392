// What ptc's upstream MCP client adds to a call, and how pmap spreads calls,
// against server-everything's `echo` over stdio (issue 14's speed goal):
//
//   node bench/upstream_echo.mjs [path/to/ptc] [batches]
//
// In one sitting, alternating, each measured `rounds` times (medians shown):
// - raw: a minimal client in this script (NDJSON on the server's pipes, no
//   SDK, no validation): 20 sequential calls, then 20 calls with 2 or 4 in
//   flight, then all 20 at once. This is the upstream's own time: no client
//   can do much better.
// - ptc: `ptc run --upstreams` running 20 sequential (tool/call ...) and
//   (pmap ...) over 20 calls with --pmap-max-concurrency 2 and 4.
// - a 20 ms tool (tests/mcp/node/lib/fault-upstream.mjs `slow`): 20
//   sequential calls and a pmap of 20 at concurrency 4 through ptc.
// Times are ms per batch of 20 calls; "ratio" is a pmap batch over (the
// sequential batch / concurrency), the goal being at most 1.5.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ptc = resolve(process.argv[2] ?? join(root, 'build', 'ptc'));
const batches = Number(process.argv[3] ?? 300);
const rounds = 3;
const everything = join(
  root, 'tests', 'mcp', 'node', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const fault = join(root, 'tests', 'mcp', 'node', 'lib', 'fault-upstream.mjs');

// The minimal client: one pending map, replies matched by id.
async function rawClient() {
  const p = spawn(process.execPath, [everything, 'stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
  let buf = '';
  let id = 0;
  const waiting = new Map();
  p.stdout.setEncoding('utf8');
  p.stdout.on('data', (d) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      const done = waiting.get(msg.id);
      if (done) {
        waiting.delete(msg.id);
        done(msg);
      }
    }
  });
  const request = (method, params) =>
    new Promise((done) => {
      waiting.set(++id, done);
      p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  await request('initialize', {
    protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  const echo = (m) => request('tools/call', { name: 'echo', arguments: { message: m } });
  return { echo, close: () => p.kill() };
}

// ms per batch of 20 calls, `lanes` of them in flight at a time.
async function rawBatches(client, lanes, tag) {
  const t0 = performance.now();
  for (let b = 0; b < batches; b++) {
    let next = 0;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (next < 20) {
          const i = next++;
          await client.echo(`${tag}${b}-${i}`);
        }
      }),
    );
  }
  return (performance.now() - t0) / batches;
}

function ptcRun(program, config, concurrency) {
  const r = spawnSync(
    ptc,
    ['run', '-', '--json', '--upstreams', config, '--max-upstream-calls', '100000', '--timeout', '600000',
      '--max-heap', '4000000000', '--pmap-max-concurrency', String(concurrency)],
    { input: program, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`ptc failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

// Distinct messages everywhere: echo is read-only, so an equal call would be
// answered from the run's cache.
const ptcEcho = (concurrency) => `
  (let [call #(tool/call {:server "ev" :tool "echo" :args {:message %}})
        _ (doseq [b (range 100)] (mapv #(call (str "w" b "-" %)) (range 20)))
        t0 (System/currentTimeMillis)
        _ (doseq [b (range ${batches})] (mapv #(call (str "s" b "-" %)) (range 20)))
        t1 (System/currentTimeMillis)
        _ (doseq [b (range ${batches})] (vec (pmap #(call (str "p" b "-" %)) (range 20))))
        t2 (System/currentTimeMillis)]
    {:seq (/ (- t1 t0) ${batches}.0) :pmap${concurrency} (/ (- t2 t1) ${batches}.0)})`;

const ptcSlow = `
  (let [call #(tool/call {:server "fault" :tool "slow" :args {:ms 20 :m %}})
        _ (call "warm")
        t0 (System/currentTimeMillis)
        _ (mapv #(call (str "s" %)) (range 20))
        t1 (System/currentTimeMillis)
        _ (vec (pmap #(call (str "p" %)) (range 20)))
        t2 (System/currentTimeMillis)]
    {:seq (- t1 t0) :pmap4 (- t2 t1)})`;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = mkdtempSync(join(tmpdir(), 'ptc-upstream-bench-'));
try {
  const config = join(dir, 'upstreams.json');
  writeFileSync(config, JSON.stringify({
    upstreams: {
      ev: { transport: 'mcp_stdio', command: process.execPath, args: [everything, 'stdio'] },
      fault: { transport: 'mcp_stdio', command: process.execPath, args: [fault] },
    },
  }));
  const got = {};
  const add = (k, v) => (got[k] ??= []).push(v);
  for (let r = 0; r < rounds; r++) {
    const client = await rawClient();
    for (let i = 0; i < 2000; i++) await client.echo(`w${i}`);
    add('raw seq', await rawBatches(client, 1, 's'));
    for (const lanes of [2, 4, 20]) add(`raw ${lanes} in flight`, await rawBatches(client, lanes, `p${lanes}-`));
    client.close();
    for (const c of [2, 4]) {
      const v = ptcRun(ptcEcho(c), config, c);
      add(`ptc seq (run with ${c})`, v.seq);
      add(`ptc pmap ${c}`, v[`pmap${c}`]);
    }
    const slow = ptcRun(ptcSlow, config, 4);
    add('slow ptc seq', slow.seq);
    add('slow ptc pmap 4', slow.pmap4);
  }
  const m = Object.fromEntries(Object.entries(got).map(([k, v]) => [k, median(v)]));
  const row = (label, ms, extra = '') => console.log(`${label.padEnd(34)} ${ms.toFixed(3).padStart(8)} ms${extra}`);
  const ratio = (par, seq, c) => `   ratio to seq/${c}: ${(par / (seq / c)).toFixed(2)}`;
  console.log(`server-everything echo over stdio, ms per 20 calls (median of ${rounds} rounds of ${batches} batches)`);
  row('raw client, sequential', m['raw seq']);
  for (const lanes of [2, 4]) row(`raw client, ${lanes} in flight`, m[`raw ${lanes} in flight`], ratio(m[`raw ${lanes} in flight`], m['raw seq'], lanes));
  row('raw client, all 20 in flight', m['raw 20 in flight']);
  const seq = median([...got['ptc seq (run with 2)'], ...got['ptc seq (run with 4)']]);
  row('ptc, sequential', seq);
  for (const c of [2, 4]) row(`ptc, pmap concurrency ${c}`, m[`ptc pmap ${c}`], ratio(m[`ptc pmap ${c}`], seq, c));
  console.log(`ptc's client adds ${(((seq - m['raw seq']) / 20) * 1000).toFixed(1)} us a sequential call ` +
    `(${((seq / m['raw seq'] - 1) * 100).toFixed(0)}% over the raw client); ` +
    `in pmap 4, ${(((m['ptc pmap 4'] - m['raw 4 in flight']) / 20) * 1000).toFixed(1)} us a call over raw with 4 in flight`);
  for (const c of [2, 4])
    console.log(`ptc pmap ${c} / raw client with ${c} in flight: ${(m[`ptc pmap ${c}`] / m[`raw ${c} in flight`]).toFixed(2)}`);
  // The server's own floor: with every call in flight it answers no faster.
  // When seq/c lies below it, no client reaches the 1.5x goal at c here.
  const floor = m['raw 20 in flight'];
  for (const c of [2, 4])
    console.log(`goal at ${c}: 1.5 x seq/${c} = ${((1.5 * seq) / c).toFixed(3)} ms; the upstream's floor ` +
      `(raw, all 20 in flight) ${floor.toFixed(3)} ms${(1.5 * seq) / c < floor ? ': below it, out of any client\'s reach' : ''}`);
  console.log('a 20 ms tool (fault-upstream slow), ms per 20 calls:');
  row('ptc, sequential', m['slow ptc seq']);
  row('ptc, pmap concurrency 4', m['slow ptc pmap 4'], ratio(m['slow ptc pmap 4'], m['slow ptc seq'], 4));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
