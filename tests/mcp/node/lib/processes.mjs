// Child processes: the ptc binary under test started as an HTTP server, the
// JSON log lines it writes on stderr, and a record of every child started so
// that none outlives its script. Free of node:test, so that bench scripts can
// use it too (harness.mjs re-exports all of it for the tests).
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

// Every process a script starts; whatever is still running when the script's
// tests end (e.g. after a failure) is killed so that node can exit.
const children = new Set();
export function track(proc) {
  children.add(proc);
  proc.once('exit', () => children.delete(proc));
  return proc;
}
// SIGKILL to whatever is still running (harness.mjs does it after a script's tests).
export function killAll() {
  for (const p of children) p.kill('SIGKILL');
}

export const NODE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// The binary under test: PTC_BIN (set by run.mjs from ctest's argument), else build/ptc.
export function ptcBin() {
  return process.env.PTC_BIN || resolve(NODE_DIR, '../../../build/ptc');
}

// Collects a child's stderr JSON log lines; waitFor(pred) resolves with the first match.
export class LogReader {
  constructor(stream) {
    this.lines = [];
    this.waiters = [];
    createInterface({ input: stream }).on('line', (line) => {
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        entry = { raw: line };
      }
      this.lines.push(entry);
      for (const w of [...this.waiters])
        if (w.pred(entry)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(entry);
        }
    });
  }
  waitFor(pred, timeoutMs = 10000) {
    const found = this.lines.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const w = { pred, resolve };
      this.waiters.push(w);
      setTimeout(() => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) {
          this.waiters.splice(i, 1);
          reject(new Error(`no matching log line within ${timeoutMs} ms`));
        }
      }, timeoutMs).unref();
    });
  }
  events(name) {
    return this.lines.filter((l) => l.event === name);
  }
}

// Environment for a spawned server: what the SDK would pass, plus sanitizer options.
export function passEnv(extra = {}) {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };
  for (const k of ['ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'TSAN_OPTIONS'])
    if (process.env[k]) env[k] = process.env[k];
  return { ...env, ...extra };
}

// `ptc mcp --http --http-port 0 [flags]`: resolves with {url, port, proc, logs, stop}
// once it logs http_listening, or with {unavailable: reason} when it exits 2
// saying http_unavailable (the transport is not built in).
// softFiles: start it with that soft descriptor limit (as a shell's ulimit -Sn would).
// port: listen there instead of on any free port (a replica behind a balancer).
export function startHttpServer(flags = [], { timeoutMs = 15000, softFiles, port = 0 } = {}) {
  const args = ['mcp', '--http', '--http-port', String(port), ...flags];
  const proc = track(
    softFiles
      ? spawn('bash', ['-c', `ulimit -Sn ${softFiles} && exec "$0" "$@"`, ptcBin(), ...args], {
          stdio: ['ignore', 'ignore', 'pipe'],
          env: passEnv(),
        })
      : spawn(ptcBin(), args, { stdio: ['ignore', 'ignore', 'pipe'], env: passEnv() }),
  );
  const logs = new LogReader(proc.stderr);
  const exited = new Promise((r) => proc.once('exit', (code, signal) => r({ code, signal })));
  const stop = async (signal = 'SIGTERM') => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    return exited;
  };
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`ptc mcp --http did not log http_listening within ${timeoutMs} ms`));
    }, timeoutMs);
    logs.waitFor((l) => l.event === 'http_listening', timeoutMs).then(
      (l) => {
        clearTimeout(timer);
        const port = l.port;
        resolvePromise({ url: `http://127.0.0.1:${port}/mcp`, port, proc, pid: proc.pid, logs, exited, stop, listening: l });
      },
      () => {},
    );
    exited.then(({ code }) => {
      if (logs.lines.some((l) => l.event === 'http_listening')) return;
      clearTimeout(timer);
      // Let the last stderr lines arrive before judging.
      setTimeout(() => {
        const why = logs.lines.find((l) => l.event === 'http_unavailable');
        if (code === 2 && why) resolvePromise({ unavailable: why.reason ?? 'http_unavailable' });
        else reject(new Error(`ptc mcp --http exited ${code}: ${JSON.stringify(logs.lines)}`));
      }, 50);
    });
  });
}
