// Upstream MCP servers (--upstreams): programs run by `ptc run` and by
// `ptc mcp`'s lisp_eval call the tools of real MCP servers from npm
// (server-filesystem on a temporary folder, server-everything) and of
// lib/fault-upstream.mjs, whose tools hang, crash, fail and answer too much.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { NODE_DIR, figure, passEnv, ptcBin, textOf } from './lib/harness.mjs';

const SECRET = `s3cr3t-${randomBytes(8).toString('hex')}`;
const MODULES = join(NODE_DIR, 'node_modules', '@modelcontextprotocol');
let dir, config;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-upstreams-'));
  const files = join(dir, 'files');
  mkdirSync(files); // server-filesystem serves only this folder
  for (const n of [1, 2, 3]) writeFileSync(join(files, `f${n}.txt`), `first line of f${n}\nsecond line\n`);
  config = join(dir, 'upstreams.json');
  writeFileSync(
    config,
    JSON.stringify({
      credentials: { tok: { source: 'env', var: 'PTC_TEST_UPSTREAM_SECRET' } },
      upstreams: {
        fs: {
          transport: 'mcp_stdio',
          command: process.execPath,
          args: [join(MODULES, 'server-filesystem', 'dist', 'index.js'), files],
          description: 'the test files',
        },
        ev: {
          transport: 'mcp_stdio',
          command: process.execPath,
          args: [join(MODULES, 'server-everything', 'dist', 'index.js'), 'stdio'],
        },
        fault: {
          transport: 'mcp_stdio',
          command: process.execPath,
          args: [join(NODE_DIR, 'lib', 'fault-upstream.mjs')],
          env: { TOKEN: '${credential:tok}' },
          timeout_ms: 700,
          max_response_bytes: 1 << 20,
        },
      },
    }),
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

// ptc run - --json --upstreams config [flags] with `program` on stdin.
function ptc(program, flags = [], env = {}) {
  return ptcWith(config, program, flags, env);
}

// The same with another upstreams file.
function ptcWith(upstreams, program, flags = [], env = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(ptcBin(), ['run', '-', '--json', '--timeout', '20000', '--upstreams', upstreams, ...flags], {
      env: passEnv({ PTC_TEST_UPSTREAM_SECRET: SECRET, ...env }),
    });
    let stdout = '',
      stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => {
      let value;
      try {
        value = JSON.parse(stdout);
      } catch {}
      resolve({ code, stdout, stderr, value });
    });
    p.stdin.end(program);
  });
}

// A fault upstream "v" that writes each pid it starts with to a file, in an
// upstreams file of its own (with `more` servers beside it): the file, the
// pids so far, and a killer of the first process once it has run `afterMs`.
function victimUpstream(name, more = {}) {
  const pidfile = join(dir, `${name}.pids`);
  const config = join(dir, `${name}.json`);
  const server = (env) => ({
    transport: 'mcp_stdio',
    command: process.execPath,
    args: [join(NODE_DIR, 'lib', 'fault-upstream.mjs')],
    env,
    timeout_ms: 10000,
  });
  const extra = Object.fromEntries(Object.entries(more).map(([n, env]) => [n, server(env)]));
  writeFileSync(config, JSON.stringify({ upstreams: { v: server({ PIDFILE: pidfile }), ...extra } }));
  const pids = () => (existsSync(pidfile) ? readFileSync(pidfile, 'utf8').trim().split('\n').map(Number) : []);
  const killFirstAfter = async (afterMs) => {
    while (pids().length === 0) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, afterMs));
    process.kill(pids()[0], 'SIGKILL');
  };
  return { config, pids, killFirstAfter };
}

describe('upstreams: ptc run --upstreams', () => {
  test('discovery: (tool/servers) lists every server and its tools (the fault server in two pages)', async () => {
    const r = await ptc('(tool/servers)');
    assert.equal(r.code, 0, r.stderr);
    const byName = Object.fromEntries(r.value.map((s) => [s.name, s]));
    assert.deepEqual(Object.keys(byName).sort(), ['ev', 'fault', 'fs']);
    assert.ok(byName.fs.tools.includes('read_text_file'));
    assert.equal(byName.fs.description, 'the test files');
    assert.ok(byName.ev.tools.includes('echo'));
    assert.equal(byName.fault.tool_count, 9);
    assert.ok(byName.fault.available);
  });

  test('discovery over the frozen catalog: dir, doc, meta, apropos (bounded)', async () => {
    const r = await ptc(`
      (doc "fs/read_text_file")
      {:dir (dir "fs" {:limit 3})
       :dir-all (count (dir "fault"))
       :meta (select-keys (meta "fs/read_text_file") [:kind :server :name :read_only])
       :required (get-in (meta "fs/read_text_file") [:input_schema "required"])
       :apropos (apropos "read text" {:limit 3})
       :language (:name (meta "map"))}`);
    assert.equal(r.code, 0, r.stderr);
    const v = r.value;
    assert.equal(v.dir.length, 3);
    assert.match(v.dir[0], /^create_directory - /);
    assert.equal(v['dir-all'], 9);
    assert.deepEqual(v.meta, { kind: 'upstream_tool', server: 'fs', name: 'read_text_file', read_only: true });
    assert.deepEqual(v.required, ['path']);
    assert.equal(v.apropos.length, 3);
    assert.match(v.apropos[0], /^fs\.read_text_file - /);
    assert.equal(v.language, 'map');
    // doc prints (stderr with --json): arguments and the call form
    assert.match(r.stderr, /path \(string, required\)/);
    assert.match(r.stderr, /\(tool\/call \{:server "fs" :tool "read_text_file" :args \{:path \.\.\.\}\}\)/);
  });

  test('a program reads three files and returns one line of each', async () => {
    const files = join(dir, 'files');
    const r = await ptc(`
      (mapv (fn [f]
              (let [r (tool/call {:server "fs" :tool "read_text_file" :args {:path (str "${files}/" f)}})]
                (first (split-lines (:content (:value r))))))
            ["f1.txt" "f2.txt" "f3.txt"])`);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value, ['first line of f1', 'first line of f2', 'first line of f3']);
  });

  test('pmap over 20 upstream calls returns what 20 sequential calls do', async () => {
    // Distinct messages: echo is read-only, so equal calls would come from the cache.
    const r = await ptc(
      `(let [call #(tool/call {:server "ev" :tool "echo" :args {:message %}})
             s (mapv #(call (str "s" %)) (range 20))
             p (vec (pmap #(call (str "p" %)) (range 20)))]
         [(mapv :value s) (mapv :value p)])`,
      ['--pmap-max-concurrency', '8'],
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value[0], [...Array(20).keys()].map((i) => `Echo: s${i}`));
    assert.deepEqual(r.value[1], [...Array(20).keys()].map((i) => `Echo: p${i}`));
  });

  test('speed: 20 calls through pmap take at most 1.5x (20 sequential calls / concurrency)', async () => {
    // The upstream takes 20 ms a call (fault slow), so the figure is about
    // waiting concurrently; echo's figures show our client's own time a call.
    const program = (concurrency) =>
      ptc(
        `(let [call (fn [tool m] (tool/call {:server (if (= tool "echo") "ev" "fault") :tool tool
                                              :args (if (= tool "echo") {:message m} {:ms 20 :m m})}))
               _ (call "echo" "warm")
               t0 (System/currentTimeMillis)
               _ (doseq [r (range 10)] (mapv #(call "echo" (str "s" r "-" %)) (range 20)))
               t1 (System/currentTimeMillis)
               _ (doseq [r (range 10)] (vec (pmap #(call "echo" (str "p" r "-" %)) (range 20))))
               t2 (System/currentTimeMillis)
               _ (mapv #(call "slow" (str "s" %)) (range 20))
               t3 (System/currentTimeMillis)
               _ (vec (pmap #(call "slow" (str "p" %)) (range 20)))
               t4 (System/currentTimeMillis)]
           {:echo-seq (- t1 t0) :echo-par (- t2 t1) :slow-seq (- t3 t2) :slow-par (- t4 t3)})`,
        ['--max-upstream-calls', '1000', '--pmap-max-concurrency', String(concurrency)],
      );
    for (const concurrency of [4, 8]) {
      const r = await program(concurrency);
      assert.equal(r.code, 0, r.stderr);
      const v = r.value;
      figure(`echo through ptc: ms a call, sequential (200 calls)`, (v['echo-seq'] / 200).toFixed(3));
      figure(`echo through ptc: ms a call in pmap of 20, concurrency ${concurrency}`, (v['echo-par'] / 200).toFixed(3));
      const ratio = v['slow-par'] / (v['slow-seq'] / concurrency);
      figure(`20 x 20 ms calls: sequential ms, pmap ms (concurrency ${concurrency}), ratio to seq/concurrency`,
        `${v['slow-seq']}, ${v['slow-par']}, ${ratio.toFixed(2)}`);
      if (concurrency === 4) assert.ok(ratio <= 1.5, `ratio ${ratio}`);
    }
  });

  test('a tool that errors, a JSON-RPC error, an access the upstream refuses: {:ok false}', async () => {
    const r = await ptc(`
      [(tool/call {:server "fault" :tool "fail" :args {}})
       (tool/call {:server "fault" :tool "rpc_error" :args {}})
       (tool/call {:server "fs" :tool "read_text_file" :args {:path "/etc/passwd"}})
       (:ok (tool/call {:server "fault" :tool "echo" :args {:message "still fine"}}))]`);
    assert.equal(r.code, 0, r.stderr);
    const [fail, rpc, fs, ok] = r.value;
    assert.equal(fail.reason, 'tool_error');
    assert.match(fail.message, /the tool broke/);
    assert.equal(rpc.reason, 'upstream_error');
    assert.match(rpc.message, /upstream exploded/);
    assert.equal(fs.reason, 'tool_error');
    assert.equal(ok, true);
  });

  test('a hanging upstream times out; a reply over the cap is refused; the server still answers', async () => {
    const t0 = performance.now();
    const r = await ptc(`
      [(tool/call {:server "fault" :tool "hang" :args {}})
       (tool/call {:server "fault" :tool "huge" :args {:bytes 3000000}})
       (tool/call {:server "fault" :tool "echo" :args {:message "after"}})]`);
    const ms = performance.now() - t0;
    assert.equal(r.code, 0, r.stderr);
    const [hang, huge, echo] = r.value;
    assert.equal(hang.reason, 'timeout');
    assert.equal(huge.reason, 'response_too_large');
    assert.deepEqual(echo, { ok: true, value: 'after' });
    assert.ok(ms < 10000, `took ${ms} ms`);
  });

  test('an upstream killed mid-call: that call is upstream_unavailable, the next restarts it', async () => {
    const r = await ptc(`
      [(tool/call {:server "fault" :tool "crash" :args {}})
       (tool/call {:server "fault" :tool "echo" :args {:message "back"}})]`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.value[0].reason, 'upstream_unavailable');
    assert.deepEqual(r.value[1], { ok: true, value: 'back' });
  });

  test('an upstream killed from outside mid-call; restarted; no process left behind', async () => {
    const { config: victim, pids, killFirstAfter } = victimUpstream('victim');
    const killer = killFirstAfter(400); // the slow call is in flight
    const t0 = performance.now();
    const p = spawn(ptcBin(), ['run', '-', '--json', '--timeout', '20000', '--upstreams', victim]);
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', () => {});
    p.stdin.end(`[(tool/call {:server "v" :tool "slow" :args {:ms 5000}})
                 (tool/call {:server "v" :tool "echo" :args {:message "again"}})]`);
    const code = await new Promise((res) => p.on('close', res));
    await killer;
    const ms = performance.now() - t0;
    assert.equal(code, 0);
    const [killed, again] = JSON.parse(out);
    assert.equal(killed.reason, 'upstream_unavailable');
    assert.deepEqual(again, { ok: true, value: 'again' });
    assert.ok(ms < 4000, `the killed call was noticed late: ${ms} ms`);
    const all = pids();
    assert.equal(all.length, 2, 'started once, restarted once');
    for (const pid of all) assert.throws(() => process.kill(pid, 0), /ESRCH/, `process ${pid} is left`);
  });

  test('an upstream killed while a pmap branch reads it and another computes: restarted from the branch, nothing hangs', async () => {
    // Branch 0 waits for a reply that never comes (it holds the reading
    // role, parked on the lane); branch 1 computes on the same lane while the
    // server is killed, then finds it dead by writing and calls again: the
    // restart waits for branch 0 to give the role up, which it can only do
    // if that wait lets the lane run it. Branch 0 then sees the exit, not its
    // own timeout.
    const { config: victim, pids, killFirstAfter } = victimUpstream('lane-victim');
    const killer = killFirstAfter(300); // branch 1 is computing
    const r = await ptcWith(
      victim,
      `(vec (pmap (fn [i]
                    (if (= i 0)
                      [(tool/call {:server "v" :tool "hang" :args {}})]
                      (let [first-call (tool/call {:server "v" :tool "echo" :args {:message "before"}})
                            r (vec (range 100000))
                            n (reduce (fn [a _] (+ a (reduce + r))) 0 (range 1200))]
                        [first-call
                         (tool/call {:server "v" :tool "echo" :args {:message "dead"}})
                         (tool/call {:server "v" :tool "echo" :args {:message "again"}})
                         (pos? n)])))
                  [0 1]))`,
      ['--pmap-max-concurrency', '2', '--timeout', '30000', '--pmap-timeout', '30000'],
    );
    await killer;
    assert.equal(r.code, 0, r.stderr);
    const [[hung], [before, dead, again, computed]] = r.value;
    assert.equal(hung.reason, 'upstream_unavailable', hung.message);
    assert.deepEqual(before, { ok: true, value: 'before' });
    assert.equal(dead.ok, false);
    assert.deepEqual(again, { ok: true, value: 'again' });
    assert.equal(computed, true);
    for (const pid of pids()) assert.throws(() => process.kill(pid, 0), /ESRCH/, `process ${pid} is left`);
  });

  test('an upstream that dies while no call is in flight is restarted by the next call', async () => {
    // Nobody waits for a reply when it dies: the idle reader must notice, or
    // the next call would be refused as unavailable instead of restarting it.
    const { config: victim, pids, killFirstAfter } = victimUpstream('idle-victim', { sleeper: {} });
    const killer = killFirstAfter(600); // v answered; the sleeper's call is in flight
    const r = await ptcWith(victim, `[(tool/call {:server "v" :tool "echo" :args {:message "first"}})
                 (:ok (tool/call {:server "sleeper" :tool "slow" :args {:ms 2000}}))
                 (tool/call {:server "v" :tool "echo" :args {:message "again"}})]`);
    await killer;
    assert.equal(r.code, 0, r.stderr);
    const [first, slept, again] = r.value;
    assert.deepEqual(first, { ok: true, value: 'first' });
    assert.equal(slept, true);
    assert.deepEqual(again, { ok: true, value: 'again' });
    assert.equal(pids().length, 2, 'started once, restarted once');
    assert.match(r.stderr, /upstream v: restarting/);
  });

  test('a request larger than the pipe, while the upstream waits for us to read: no deadlock', async () => {
    // The first call times out while the server sleeps, reading nothing; the
    // second call's 1 MB request fills stdin meanwhile; then the server
    // writes its late 400 kB answer and waits until it is read, and only then
    // reads on. Somebody must read while the second call still writes.
    const blocking = join(dir, 'blocking.json');
    writeFileSync(blocking, JSON.stringify({ upstreams: { b: {
      transport: 'mcp_stdio', command: 'python3',
      args: [join(NODE_DIR, 'lib', 'blocking-upstream.py')], timeout_ms: 1500 } } }));
    const r = spawnSync(ptcBin(), ['run', '-', '--json', '--timeout', '10000', '--upstreams', blocking], {
      input: `(let [a (tool/call {:server "b" :tool "late" :args {:ms 2000 :bytes 400000}})
                    big (apply str (repeat 20000 "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"))
                    b (tool/call {:server "b" :tool "size" :args {:message big}})]
                [(:reason a) (:value b)])`,
      encoding: 'utf8',
      timeout: 15000,
      env: passEnv(),
    });
    assert.equal(r.status, 0, `status ${r.status} signal ${r.signal}: ${r.stderr}`);
    assert.deepEqual(JSON.parse(r.stdout), ['timeout', '1000000']);
  });

  test("the program's own timeout bounds an upstream call", async () => {
    const slowConfig = join(dir, 'slow.json');
    writeFileSync(
      slowConfig,
      JSON.stringify({
        upstreams: {
          s: { transport: 'mcp_stdio', command: process.execPath, args: [join(NODE_DIR, 'lib', 'fault-upstream.mjs')], timeout_ms: 60000 },
        },
      }),
    );
    const t0 = performance.now();
    const p = spawn(ptcBin(), ['run', '-', '--json', '--timeout', '500', '--upstreams', slowConfig]);
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', () => {});
    p.stdin.end('(tool/call {:server "s" :tool "hang" :args {}})');
    const code = await new Promise((res) => p.on('close', res));
    const ms = performance.now() - t0;
    assert.equal(code, 1);
    assert.equal(JSON.parse(out).error.reason, 'timeout');
    assert.ok(ms < 3000, `took ${ms} ms`);
  });

  test('the per-program call cap: cap_exhausted past it', async () => {
    const r = await ptc(
      '(mapv #(:reason (tool/call {:server "fault" :tool "echo" :args {:message %}})) ["a" "b" "c" "d"])',
      ['--max-upstream-calls', '2'],
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value, [null, null, 'cap_exhausted', 'cap_exhausted']);
  });

  test('ptc batch and ptc repl: the call cap is per program, not per process', async () => {
    const lines = (cmd, input) =>
      new Promise((resolve) => {
        const p = spawn(ptcBin(), [cmd, ...(cmd === 'batch' ? ['-'] : []), '--upstreams', config, '--max-upstream-calls', '1'], {
          env: passEnv({ PTC_TEST_UPSTREAM_SECRET: SECRET }),
        });
        let out = '';
        p.stdout.on('data', (d) => (out += d));
        p.stderr.on('data', () => {});
        p.on('close', () => resolve(out));
        p.stdin.end(input);
      });
    const call = (m) => `(:ok (tool/call {:server "fault" :tool "echo" :args {:message "${m}"}}))`;
    const batch = await lines('batch', [1, 2].map((i) => JSON.stringify({ id: i, program: call(i) })).join('\n') + '\n');
    assert.deepEqual(batch.trim().split('\n').map((l) => JSON.parse(l).result), ['true', 'true']);
    const repl = await lines('repl', `${call('a')}\n${call('b')}\n`);
    assert.deepEqual(repl.trim().split('\n'), ['true', 'true']);
  });

  test('a host tool named call or servers is refused, never silently replaced', async () => {
    const table = join(dir, 'clash-tools.json');
    writeFileSync(table, JSON.stringify({ call: [{ args: {}, result: 'host' }] }));
    const run = spawnSync(ptcBin(), ['eval', '(tool/call {})', '--upstreams', config, '--tools', table], {
      env: passEnv({ PTC_TEST_UPSTREAM_SECRET: SECRET }),
      encoding: 'utf8',
    });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /clash-tools\.json: a host tool is named "call".*rename the host tool/);
    // ptc batch: the line whose tools clash fails with args_error; the others run.
    const lines = [
      { id: 1, program: '(tool/servers)', tools: { servers: [{ args: {}, result: [] }] } },
      { id: 2, program: '(count (tool/servers))' },
    ];
    const batch = spawnSync(ptcBin(), ['batch', '-', '--upstreams', config], {
      env: passEnv({ PTC_TEST_UPSTREAM_SECRET: SECRET }),
      input: lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
      encoding: 'utf8',
    });
    const [clash, fine] = batch.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(clash.ok, false);
    assert.equal(clash.error.reason, 'args_error');
    assert.match(clash.error.message, /a host tool is named "servers"/);
    assert.deepEqual(fine, { id: 2, ok: true, result: '3' });
    // ptc repl: :tools refuses the table; the upstreams' tool/servers still answers.
    const repl = spawnSync(ptcBin(), ['repl', '--upstreams', config], {
      env: passEnv({ PTC_TEST_UPSTREAM_SECRET: SECRET }),
      input: `:tools ${table}\n(count (tool/servers))\n`,
      encoding: 'utf8',
    });
    assert.match(repl.stderr, /clash-tools\.json: a host tool is named "call"/);
    assert.equal(repl.stdout.trim(), '3');
  });

  test('read-only tools are answered once per run for equal arguments', async () => {
    const r = await ptc(`
      [(tool/call {:server "fault" :tool "count" :args {:a 1 :b 2}})
       (tool/call {:server "fault" :tool "count" :args {"b" 2 "a" 1}})
       (tool/call {:server "fault" :tool "count" :args {:a 2}})]`);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value.map((v) => v.value.count), [1, 1, 2]);
  });

  test('programmer faults fail the program and list what exists', async () => {
    const server = await ptc('(tool/call {:server "nope" :tool "x" :args {}})');
    assert.equal(server.code, 1);
    assert.match(server.stderr, /unknown server "nope".*ev, fault, fs/);
    const tool = await ptc('(tool/call {:server "fs" :tool "nope" :args {}})');
    assert.equal(tool.code, 1);
    assert.match(tool.stderr, /has no tool "nope".*read_text_file/);
    const args = await ptc('(tool/call {:server "fs" :tool "read_text_file" :args [1]})');
    assert.equal(args.code, 1);
    assert.match(args.stderr, /:args must be a map/);
    const fn = await ptc('(tool/call {:server "fs" :tool "read_text_file" :args {:path inc}})');
    assert.equal(fn.code, 1);
    assert.match(fn.stderr, /:args must be JSON data/);
  });

  test('the credential never leaks: not in values, errors or the log', async () => {
    const r = await ptc(`
      [(tool/call {:server "fault" :tool "secret" :args {}})
       (tool/call {:server "fault" :tool "secret" :args {}})]`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.value[0].value, 'the token is [REDACTED]');
    assert.match(r.stderr, /starting with token \[REDACTED\]/);
    assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET));
    const d = await ptc('(doc "fault/secret") [(meta "fault/secret") (apropos "secret") (dir "fault")]');
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout + d.stderr, /token \[REDACTED\]/);
    assert.ok(!d.stdout.includes(SECRET) && !d.stderr.includes(SECRET), 'discovery shows the secret');
    const e = await ptc('(tool/call {:server "nope" :tool "x"})');
    assert.ok(!e.stdout.includes(SECRET) && !e.stderr.includes(SECRET));
  });

  test('an upstream that does not start: unavailable, or with --upstream-required an error', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({ upstreams: { gone: { transport: 'mcp_stdio', command: '/nonexistent/server' } } }),
    );
    const run = (flags) =>
      new Promise((resolve) => {
        const p = spawn(ptcBin(), ['eval', '(tool/call {:server "gone" :tool "x" :args {}})', '--upstreams', bad, ...flags]);
        let out = '',
          err = '';
        p.stdout.on('data', (d) => (out += d));
        p.stderr.on('data', (d) => (err += d));
        p.on('close', (code) => resolve({ code, out, err }));
      });
    const soft = await run([]);
    assert.equal(soft.code, 0, soft.err);
    assert.match(soft.out, /:reason :upstream_unavailable/);
    assert.match(soft.err, /upstream gone: .*marked unavailable/);
    const hard = await run(['--upstream-required']);
    assert.equal(hard.code, 2);
    assert.match(hard.err, /upstream gone/);
  });

  test('a bad upstreams file is refused with the key path', async () => {
    const bad = join(dir, 'wrong.json');
    writeFileSync(bad, JSON.stringify({ upstreams: { fs: { transport: 'mcp_stdio', command: 'x', args: [1] } } }));
    const p = spawn(ptcBin(), ['eval', '1', '--upstreams', bad]);
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    const code = await new Promise((res) => p.on('close', res));
    assert.equal(code, 2);
    assert.match(err, /wrong\.json: upstreams\.fs\.args\[0\]: must be a string/);
  });
});

describe('upstreams: an HTTP upstream (server-everything in Streamable HTTP mode)', () => {
  let server, port;
  before(async () => {
    const net = await import('node:net');
    port = await new Promise((res) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = s.address().port;
        s.close(() => res(p));
      });
    });
    server = spawn(process.execPath, [join(MODULES, 'server-everything', 'dist', 'index.js'), 'streamableHttp'], {
      env: { ...passEnv(), PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise((res, rej) => {
      let err = '';
      server.stderr.on('data', (d) => {
        err += d;
        if (err.includes('listening on port')) res();
      });
      server.on('exit', () => rej(new Error(`server-everything exited: ${err}`)));
    });
  });
  after(() => server?.kill('SIGKILL'));

  test('discovery, calls, structuredContent, pmap; the header credential never leaks; a dead server is unavailable', async () => {
    const httpConfig = join(dir, 'http.json');
    writeFileSync(
      httpConfig,
      JSON.stringify({
        credentials: { tok: { source: 'env', var: 'PTC_TEST_UPSTREAM_SECRET' } },
        upstreams: {
          web: {
            transport: 'mcp_http',
            url: `http://127.0.0.1:${port}/mcp`,
            headers: { Authorization: 'Bearer ${credential:tok}' },
          },
        },
      }),
    );
    const run = async (program) => {
      const r = await ptcWith(httpConfig, program);
      return { ...r, out: r.stdout, err: r.stderr };
    };
    const r = await run(`
      [(:tool_count (first (tool/servers)))
       (tool/call {:server "web" :tool "echo" :args {:message "over http"}})
       (:value (tool/call {:server "web" :tool "get-structured-content" :args {:location "New York"}}))
       (mapv :value (pmap #(tool/call {:server "web" :tool "echo" :args {:message (str %)}}) (range 20)))
       (tool/call {:server "web" :tool "get-sum" :args {:a "x"}})]`);
    assert.equal(r.code, 0, r.err);
    const [count, echo, weather, many, bad] = r.value;
    assert.ok(count >= 10, `${count} tools`);
    assert.deepEqual(echo, { ok: true, value: 'Echo: over http' });
    assert.equal(typeof weather.temperature, 'number');
    assert.deepEqual(many, [...Array(20).keys()].map((i) => `Echo: ${i}`));
    assert.equal(bad.ok, false);
    assert.ok(!r.out.includes(SECRET) && !r.err.includes(SECRET));
    // The server dies: calls are upstream_unavailable, the program goes on.
    const dead = await new Promise((resolve) => {
      const p = spawn(ptcBin(), ['run', '-', '--json', '--timeout', '20000', '--upstreams', httpConfig], {
        env: passEnv({ PTC_TEST_UPSTREAM_SECRET: SECRET }),
      });
      let out = '';
      p.stdout.on('data', (d) => {
        out += d;
      });
      p.stderr.on('data', () => {});
      p.on('close', (code) => resolve({ code, value: out ? JSON.parse(out) : undefined }));
      // Killed during the long operation (after initialize and tools/list).
      setTimeout(() => server.kill('SIGKILL'), 1500);
      p.stdin.end(`[(tool/call {:server "web" :tool "trigger-long-running-operation" :args {:duration 4 :steps 4}})
                    (tool/call {:server "web" :tool "echo" :args {:message "gone"}})]`);
    });
    assert.equal(dead.code, 0);
    assert.deepEqual(dead.value.map((v) => v.reason), ['upstream_unavailable', 'upstream_unavailable']);
  });
});

// lib/fault-http-upstream.mjs (requiring the bearer SECRET), with `env` added:
// resolves with the process and the port it listens on.
async function startFaultHttpUpstream(env) {
  const server = spawn(process.execPath, [join(NODE_DIR, 'lib', 'fault-http-upstream.mjs')], {
    env: { ...passEnv(), TOKEN: SECRET, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const port = await new Promise((res) => {
    let err = '';
    server.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/listening on port (\d+)/);
      if (m) res(Number(m[1]));
    });
  });
  return { server, port };
}

describe('upstreams: HTTP faults (lib/fault-http-upstream.mjs, JSON replies)', () => {
  let server, port;
  before(async () => {
    ({ server, port } = await startFaultHttpUpstream({}));
  });
  after(() => server?.kill('SIGKILL'));

  test('timeout, reply over the cap, 401; the bearer credential is sent and never shown', async () => {
    const httpConfig = join(dir, 'http-fault.json');
    // h sends its credential through the reference's auth emitter, wrong
    // through a plain header.
    const upstream = (token) => ({
      transport: 'mcp_http',
      url: `http://127.0.0.1:${port}/mcp`,
      ...(token === null
        ? { auth: [{ scheme: 'bearer', binding: 'tok' }] }
        : { headers: { Authorization: `Bearer ${token}` } }),
      static_headers: { 'X-MCP-Readonly': 'true' },
      timeout_ms: 500,
      max_response_bytes: 1 << 20,
    });
    writeFileSync(
      httpConfig,
      JSON.stringify({
        credentials: { tok: { source: 'env', var: 'PTC_TEST_UPSTREAM_SECRET' } },
        upstreams: { h: upstream(null), wrong: upstream('not-the-token') },
      }),
    );
    const { code, stdout: out, stderr: err, value } = await ptcWith(httpConfig,
      `[(tool/call {:server "h" :tool "echo" :args {:message "json reply"}})
        (:reason (tool/call {:server "h" :tool "hang" :args {}}))
        (:reason (tool/call {:server "h" :tool "huge" :args {:bytes 3000000}}))
        (tool/call {:server "h" :tool "denied" :args {}})
        (:available (second (tool/servers)))]`);
    assert.equal(code, 0, err);
    const [echo, hang, huge, denied, wrongAvailable] = value;
    assert.deepEqual(echo, { ok: true, value: 'json reply' });
    assert.equal(hang, 'timeout');
    assert.equal(huge, 'response_too_large');
    assert.equal(denied.reason, 'upstream_error');
    assert.match(denied.message, /refused the credentials \(HTTP 401\)/);
    assert.equal(wrongAvailable, false, 'a wrong token: the upstream does not start');
    assert.match(err, /upstream wrong: initialize failed: .*HTTP 401/);
    assert.ok(!out.includes(SECRET) && !err.includes(SECRET));
  });
});

describe('upstreams: HTTP connections are kept alive (lib/fault-http-upstream.mjs)', () => {
  let server, port;
  before(async () => {
    ({ server, port } = await startFaultHttpUpstream({ KEEPALIVE_MS: '200' }));
  });
  after(() => server?.kill('SIGKILL'));

  test('calls share one connection; one the server closed while idle is not a failed call', async () => {
    const config = join(dir, 'http-keepalive.json');
    const upstream = { transport: 'mcp_http', url: `http://127.0.0.1:${port}/mcp`,
      auth: [{ scheme: 'bearer', binding: 'tok' }], timeout_ms: 600 };
    // s is a second client of the same server: its hanging call lets h's
    // connection sit idle past the server's keep-alive (200 ms, which Node
    // turns into a close after about 1.2 s).
    writeFileSync(config, JSON.stringify({
      credentials: { tok: { source: 'env', var: 'PTC_TEST_UPSTREAM_SECRET' } },
      upstreams: { h: upstream, s: { ...upstream, timeout_ms: 2000 } },
    }));
    const r = await ptcWith(config, `
      (let [call (fn [server tool args] (tool/call {:server server :tool tool :args args}))
            before (parse-long (:value (call "h" "connections" {})))
            echoes (mapv #(:value (call "h" "echo" {:message (str %)})) (range 10))
            after (parse-long (:value (call "h" "connections" {})))
            hung (:reason (call "s" "hang" {}))
            again (call "h" "echo" {:message "after idle"})]
        [echoes (- after before) hung again])`);
    assert.equal(r.code, 0, r.stderr);
    const [echoes, opened, hung, again] = r.value;
    assert.deepEqual(echoes, [...Array(10).keys()].map(String));
    assert.equal(opened, 0, 'eleven calls, no new connection');
    assert.equal(hung, 'timeout');
    assert.deepEqual(again, { ok: true, value: 'after idle' });
  });

  test('a tools/call whose kept-alive connection drops unanswered is not sent again', async () => {
    const config = join(dir, 'http-replay.json');
    writeFileSync(config, JSON.stringify({
      credentials: { tok: { source: 'env', var: 'PTC_TEST_UPSTREAM_SECRET' } },
      upstreams: { h: { transport: 'mcp_http', url: `http://127.0.0.1:${port}/mcp`,
        auth: [{ scheme: 'bearer', binding: 'tok' }] } },
    }));
    const r = await ptcWith(config, `
      (let [call (fn [tool] (tool/call {:server "h" :tool tool :args {}}))
            before (parse-long (:value (call "effects")))
            dropped (call "side_effect")
            after (parse-long (:value (call "effects")))]
        [(:reason dropped) (- after before)])`);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.value, ['upstream_unavailable', 1]);
  });
});

describe('upstreams: an https upstream (lib/fault-http-upstream.mjs over TLS)', () => {
  let server, port, tlsDir;
  // A self-signed certificate for 127.0.0.1, and one for another name.
  const makeCert = (name, san) => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
      '-subj', `/CN=${name}`, '-addext', `subjectAltName=${san}`,
      '-keyout', join(tlsDir, `${name}.key`), '-out', join(tlsDir, `${name}.pem`)], { stdio: 'ignore' });
    return { key: join(tlsDir, `${name}.key`), cert: join(tlsDir, `${name}.pem`) };
  };
  let good, other;
  before(async () => {
    tlsDir = mkdtempSync(join(tmpdir(), 'ptc-tls-'));
    good = makeCert('localhost', 'IP:127.0.0.1,DNS:localhost');
    other = makeCert('elsewhere', 'DNS:elsewhere.example');
    ({ server, port } = await startFaultHttpUpstream({ TLS_KEY: good.key, TLS_CERT: good.cert }));
  });
  after(() => {
    server?.kill('SIGKILL');
    if (tlsDir) rmSync(tlsDir, { recursive: true, force: true });
  });

  test('verified against ca_file: calls work, the bearer token crosses encrypted; an untrusted or misnamed certificate is refused', async () => {
    const upstream = (host, caFile) => ({
      transport: 'mcp_http',
      url: `https://${host}:${port}/mcp`,
      ...(caFile ? { ca_file: caFile } : {}),
      auth: [{ scheme: 'bearer', binding: 'tok' }],
      timeout_ms: 2000,
    });
    const config = join(tlsDir, 'https.json');
    writeFileSync(config, JSON.stringify({
      credentials: { tok: { source: 'env', var: 'PTC_TEST_UPSTREAM_SECRET' } },
      upstreams: {
        ok: upstream('127.0.0.1', good.cert),
        byname: upstream('localhost', good.cert),
        untrusted: upstream('127.0.0.1', null),
        misnamed: upstream('127.0.0.1', other.cert),
      },
    }));
    const { code, stdout: out, stderr: err, value } = await ptcWith(config,
      `[(tool/call {:server "ok" :tool "echo" :args {:message "over tls"}})
        (tool/call {:server "byname" :tool "echo" :args {:message "by name"}})
        (mapv (juxt :name :available) (tool/servers))]`,
      [], { SSL_CERT_FILE: '/nonexistent', SSL_CERT_DIR: '/nonexistent' });
    assert.equal(code, 0, err);
    const [ok, byname, servers] = value;
    assert.deepEqual(ok, { ok: true, value: 'over tls' });
    assert.deepEqual(byname, { ok: true, value: 'by name' });
    assert.deepEqual(servers, [['byname', true], ['misnamed', false], ['ok', true], ['untrusted', false]]);
    assert.match(err, /upstream untrusted: .*TLS: the certificate of 127\.0\.0\.1 is not trusted/);
    assert.match(err, /upstream misnamed: .*TLS: the certificate of 127\.0\.0\.1 is not trusted/);
    assert.ok(!out.includes(SECRET) && !err.includes(SECRET));
  });
});

describe('upstreams: ptc agent --upstreams', () => {
  test("the agent's programs call the upstreams", async () => {
    const script = join(dir, 'agent.json');
    const program = '(:value (tool/call {:server "ev" :tool "echo" :args {:message "from the agent"}}))';
    writeFileSync(
      script,
      JSON.stringify({
        prompt: 'x',
        llm: [
          { role: 'assistant', tool_calls: [{ id: 'a', function: { name: 'lisp_eval', arguments: JSON.stringify({ program }) } }] },
          { role: 'assistant', content: 'done' },
        ],
      }),
    );
    const p = spawn(ptcBin(), ['agent', '--script', script, '--upstreams', config], {
      env: passEnv({ PTC_TEST_UPSTREAM_SECRET: SECRET }),
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', () => {});
    const code = await new Promise((res) => p.on('close', res));
    assert.equal(code, 0);
    assert.match(out, /Echo: from the agent/);
  });
});

describe('upstreams: ptc mcp --upstreams, through the SDK client', () => {
  test("lisp_eval's program calls the filesystem server", async () => {
    const transport = new StdioClientTransport({
      command: ptcBin(),
      args: ['mcp', '--program-timeout-ms', '20000'],
      stderr: 'pipe',
      env: passEnv({ PTC_TEST_UPSTREAM_SECRET: SECRET, PTC_MCP_UPSTREAMS: config }),
    });
    let stderr = '';
    transport.stderr.on('data', (d) => (stderr += d));
    const client = new Client({ name: 'upstream-e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const lispEval = tools.find((t) => t.name === 'lisp_eval');
      assert.match(lispEval.description, /tool\/call/);
      assert.match(lispEval.description, /fs \(14 tools\)/);
      assert.equal(lispEval.annotations.openWorldHint, true);
      const files = join(dir, 'files');
      const r = await client.callTool({
        name: 'lisp_eval',
        arguments: {
          program: `(->> ["f1.txt" "f2.txt" "f3.txt"]
                         (pmap #(tool/call {:server "fs" :tool "read_text_file" :args {:path (str "${files}/" %)}}))
                         (mapv #(first (split-lines (:content (:value %))))))`,
        },
      });
      assert.ok(!r.isError, textOf(r));
      assert.match(textOf(r), /\["first line of f1" "first line of f2" "first line of f3"\]/);
      const s = await client.callTool({
        name: 'lisp_eval',
        arguments: { program: '(:value (tool/call {:server "fault" :tool "secret" :args {}}))' },
      });
      assert.match(textOf(s), /\[REDACTED\]/);
      assert.ok(!textOf(s).includes(SECRET));
    } finally {
      await client.close();
    }
    assert.ok(!stderr.includes(SECRET), 'the secret is not in the log');
    assert.match(stderr, /upstream_stderr/);
  });

  test('--catalog-mode inline lists every tool in the description; lazy only the servers', async () => {
    const description = async (mode) => {
      const transport = new StdioClientTransport({
        command: ptcBin(),
        args: ['mcp', '--upstreams', config, '--catalog-mode', mode],
        stderr: 'pipe',
        env: passEnv({ PTC_TEST_UPSTREAM_SECRET: SECRET }),
      });
      transport.stderr.on('data', () => {});
      const client = new Client({ name: 'upstream-catalog', version: '1.0.0' });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        return tools.find((t) => t.name === 'lisp_eval').description;
      } finally {
        await client.close();
      }
    };
    const inline = await description('inline');
    assert.match(inline, /fs\.read_text_file - Read the complete contents/);
    assert.match(inline, /fault\.hang - fault tool hang/);
    const lazy = await description('lazy');
    assert.doesNotMatch(lazy, /fs\.read_text_file/);
    assert.match(lazy, /Servers: ev \(\d+ tools\) fault \(9 tools\) fs \(14 tools\)/);
  });
});

// lib/v2-upstream.mjs over HTTP (2026-07-28 only): resolves with the process and its port.
async function startV2HttpUpstream() {
  const server = spawn(process.execPath, [join(NODE_DIR, 'lib', 'v2-upstream.mjs'), 'http'], {
    env: passEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((res, rej) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/"port":(\d+)/);
      if (m) res(Number(m[1]));
    });
    server.once('exit', (code) => rej(new Error(`v2-upstream.mjs exited ${code}`)));
  });
  return { server, port };
}

describe('upstreams: servers on the v2 SDK (lib/v2-upstream.mjs)', () => {
  let server, port, v2Config, slowConfig;
  before(async () => {
    ({ server, port } = await startV2HttpUpstream());
    v2Config = join(dir, 'v2.json');
    const stdio = { transport: 'mcp_stdio', command: process.execPath, args: [join(NODE_DIR, 'lib', 'v2-upstream.mjs'), 'stdio'] };
    const stdioModern = { ...stdio, args: [join(NODE_DIR, 'lib', 'v2-upstream.mjs'), 'stdio-modern'] };
    const modern = { transport: 'mcp_http', url: `http://127.0.0.1:${port}/mcp` };
    writeFileSync(
      v2Config,
      JSON.stringify({
        upstreams: {
          m: modern,
          mq: { ...modern, timeout_ms: 300, max_response_bytes: 4096 },
          s: stdio,
          sq: { ...stdio, timeout_ms: 5000 },
          sm: stdioModern,
          smq: { ...stdioModern, timeout_ms: 300 },
        },
      }),
    );
    // A 2026-only server that starts after the 2 s server/discover window:
    // the 2025 handshake it refuses shows it is up, and the question is asked again.
    slowConfig = join(dir, 'v2-slow.json');
    writeFileSync(slowConfig, JSON.stringify({ upstreams: { sms: { ...stdioModern, args: [...stdioModern.args, '2500'] } } }));
  });
  after(() => server?.kill('SIGKILL'));

  test('2026-07-28-only HTTP and stdio servers and a 2025-only v2 stdio server answer programs, pmap included', async () => {
    const { code, stderr, value } = await ptcWith(v2Config,
      `[(tool/call {:server "m" :tool "echo" :args {:message "modern"}})
        (tool/call {:server "m" :tool "add" :args {:a 2 :b 3}})
        (tool/call {:server "s" :tool "add" :args {:a 4 :b 5}})
        (pmap #(:value (tool/call {:server "m" :tool "add" :args {:a % :b 1}})) (range 10))
        (tool/call {:server "sm" :tool "add" :args {:a 6 :b 7}})
        (pmap #(:value (tool/call {:server "sm" :tool "add" :args {:a % :b 2}})) (range 5))
        (map :available (tool/servers))]`);
    assert.equal(code, 0, stderr);
    const [echo, add, stdioAdd, many, modernStdio, manyStdio, available] = value;
    assert.deepEqual(echo, { ok: true, value: 'modern' });
    assert.deepEqual(add, { ok: true, value: { sum: 5 } });
    assert.deepEqual(stdioAdd, { ok: true, value: { sum: 9 } });
    assert.deepEqual(many, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => ({ sum: n })));
    assert.deepEqual(modernStdio, { ok: true, value: { sum: 13 } }, 'a stdio server that refuses the 2025 handshake');
    assert.deepEqual(manyStdio, [2, 3, 4, 5, 6].map((n) => ({ sum: n })));
    assert.deepEqual(available, [true, true, true, true, true, true]);
  });

  test('a 2026-only stdio server slow to start, past the discover window, is still spoken to', async () => {
    const { code, stderr, value } = await ptcWith(slowConfig, '(tool/call {:server "sms" :tool "add" :args {:a 1 :b 2}})');
    assert.equal(code, 0, stderr);
    assert.deepEqual(value, { ok: true, value: { sum: 3 } });
  });

  test('faults: timeout, over the cap, a stdio server dying mid-call, a dead HTTP server', async () => {
    const { code, stderr, value } = await ptcWith(v2Config,
      `[(:reason (tool/call {:server "mq" :tool "slow" :args {:ms 5000}}))
        (:reason (tool/call {:server "mq" :tool "echo" :args {:message (apply str (repeat 6000 "x"))}}))
        (:value (tool/call {:server "mq" :tool "echo" :args {:message "still there"}}))
        (:reason (tool/call {:server "sq" :tool "crash" :args {}}))
        (:value (tool/call {:server "sq" :tool "add" :args {:a 1 :b 1}}))
        (:reason (tool/call {:server "smq" :tool "slow" :args {:ms 5000}}))
        (:value (tool/call {:server "smq" :tool "echo" :args {:message "after the timeout"}}))
        (:reason (tool/call {:server "sm" :tool "crash" :args {}}))
        (:value (tool/call {:server "sm" :tool "add" :args {:a 2 :b 2}}))]`);
    assert.equal(code, 0, stderr);
    assert.deepEqual(value, ['timeout', 'response_too_large', 'still there', 'upstream_unavailable', { sum: 2 },
      'timeout', 'after the timeout', 'upstream_unavailable', { sum: 4 }]);
    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    const dead = await ptcWith(v2Config, '(:reason (tool/call {:server "m" :tool "echo" :args {:message "x"}}))');
    assert.equal(dead.code, 0, dead.stderr);
    assert.equal(dead.value, 'upstream_unavailable');
  });
});
