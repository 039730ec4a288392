// What a call through the Node package costs on top of the engine: µs per
// call of runSync and await run for '(+ 1 2)' (source and compiled), a run
// with one async tool, and many runs in flight at once; beside the engine's
// own time for the same run (Result.usage.durationMs) and, when the build
// has them, ptc::run called from C++ in this process (the baseline,
// build/node/engine_loop.node: compiled once, and compiled in every run) with
// the binding's overhead over it, `build/ptc bench` on the same program, and
// build/ptc_benchmarks' BM_FullRun.
//
//   node bindings/node/bench/overhead.mjs [PACKAGE_DIR] [--no-cpp]
//
// PACKAGE_DIR defaults to build/node-package (the staged package; any
// folder holding index.js and ptc_lisp.node, e.g. node_modules/ptc-lisp).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const args = process.argv.slice(2);
const packageDir = resolve(args.find((a) => !a.startsWith('--')) ?? join(root, 'build/node-package'));
const ptc = createRequire(import.meta.url)(join(packageDir, 'index.js'));
const PROGRAM = '(+ 1 2)';

function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) * q + 0.5)];
}
function median(xs) {
  return quantile(xs, 0.5);
}

// Median over rounds of the mean µs per call within a round.
async function measure(name, fn, { calls = 2000, rounds = 7 } = {}) {
  for (let i = 0; i < calls; i++) await fn(); // warm up
  const perCall = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await fn();
    perCall.push(Number(process.hrtime.bigint() - t0) / 1000 / calls);
  }
  const us = median(perCall);
  console.log(`${name.padEnd(44)} ${us.toFixed(2).padStart(8)} µs/call`);
  return us;
}

function syncMeasure(name, fn, { calls = 20000, rounds = 7 } = {}) {
  for (let i = 0; i < calls; i++) fn();
  const perCall = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn();
    perCall.push(Number(process.hrtime.bigint() - t0) / 1000 / calls);
  }
  const us = median(perCall);
  console.log(`${name.padEnd(44)} ${us.toFixed(2).padStart(8)} µs/call`);
  return us;
}

console.log(`ptc-lisp ${ptc.version} from ${packageDir}, node ${process.version}, '${PROGRAM}'`);
const engine = [];
for (let i = 0; i < 20000; i++) engine.push(ptc.runSync(PROGRAM).usage.durationMs * 1000);
console.log(`${'engine time inside the run (usage.durationMs)'.padEnd(44)} ${median(engine).toFixed(2).padStart(8)} µs/call`);

// The baseline is ptc::run called from C++ in a loop in this same process
// (build/node/engine_loop.node): the binding's overhead is a call's time
// minus the engine's own time in the same process, with the same malloc
// (node's glibc; the ptc binary has mimalloc) and the same state of this
// machine, whose speed drifts by up to 2x between processes and from one
// second to the next. So the two are measured in pairs of short batches,
// and the overhead is the median of the pairs' differences (with the
// quartiles). `build/ptc bench` (its own process, mimalloc) is shown beside
// them for reference.
const loopAddon = join(root, 'build/node/engine_loop.node');
const withLoop = !args.includes('--no-cpp') && existsSync(loopAddon);
const engineLoop = withLoop ? createRequire(import.meta.url)(loopAddon) : null;
const cli = join(root, 'build/ptc');
const withCli = !args.includes('--no-cpp') && existsSync(cli);
const batchDir = mkdtempSync(join(tmpdir(), 'ptc-overhead-'));
writeFileSync(join(batchDir, 'p.jsonl'), `${JSON.stringify({ program: PROGRAM })}\n`);
// ptc bench's mean µs per run (from its runs/s).
function cliMean(compiled) {
  const extra = compiled ? [] : ['--no-cache'];
  const r = spawnSync(cli, ['bench', join(batchDir, 'p.jsonl'), '-n', '100000', ...extra],
                      { encoding: 'utf8' });
  const line = (r.stdout || '').split('\n').find((l) => l.startsWith('line 1'));
  return line ? 1e6 / Number(line.trim().split(/\s+/)[4]) : NaN;
}
const program = ptc.compile(PROGRAM);
const cases = [
  ['runSync(source)', false, () => ptc.runSync(PROGRAM), false],
  ['runSync(compiled)', false, () => ptc.runSync(program), true],
  ['await run(source)', true, () => ptc.run(PROGRAM), false],
  ['await run(compiled)', true, () => ptc.run(program), true],
];
// Mean µs per call of `calls` calls of fn.
function syncBatch(fn, calls) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn();
  return Number(process.hrtime.bigint() - t0) / 1000 / calls;
}
async function asyncBatch(fn, calls) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await fn();
  return Number(process.hrtime.bigint() - t0) / 1000 / calls;
}
// Pairs of short batches (a few ms each), the baseline then the binding, so
// that both see the same machine; the figures are medians over the pairs.
const pairs = withLoop ? 41 : 1;
const batchCalls = 2000;
const diffs = cases.map(() => []);
const times = cases.map(() => []);
const bases = cases.map(() => []);
for (let c = 0; c < cases.length; c++) {
  const [name, isAsync, fn, compiled] = cases[c];
  if (isAsync) await asyncBatch(fn, batchCalls); else syncBatch(fn, batchCalls); // warm up
  if (withLoop) engineLoop.meanUs(PROGRAM, batchCalls, compiled);
  for (let k = 0; k < pairs; k++) {
    const base = withLoop ? engineLoop.meanUs(PROGRAM, batchCalls, compiled) : NaN;
    const us = isAsync ? await asyncBatch(fn, batchCalls) : syncBatch(fn, batchCalls);
    times[c].push(us);
    bases[c].push(base);
    diffs[c].push(us - base);
  }
  console.log(`${name.padEnd(44)} ${median(times[c]).toFixed(2).padStart(8)} µs/call`);
}
if (withLoop) {
  const cliBase = withCli ? [cliMean(false), cliMean(true)] : [NaN, NaN];
  console.log(`\nbinding overhead over ptc::run from C++ in this process (µs per call, medians of ${pairs} pairs of ${batchCalls}-call batches):`);
  console.log(`  ${'call'.padEnd(20)} ${'binding'.padStart(8)} ${'ptc::run'.padStart(9)} ${'overhead'.padStart(9)}   ${'ptc bench'.padStart(9)}`);
  for (let c = 0; c < cases.length; c++)
    console.log(`  ${cases[c][0].padEnd(20)} ${median(times[c]).toFixed(2).padStart(8)} ` +
                `${median(bases[c]).toFixed(2).padStart(9)} ${('+' + median(diffs[c]).toFixed(2)).padStart(9)}   ` +
                `${cliBase[cases[c][3] ? 1 : 0].toFixed(2).padStart(9)}   ` +
                `(quartiles of the overhead: ${quantile(diffs[c], 0.25).toFixed(2)} ${quantile(diffs[c], 0.75).toFixed(2)})`);
  console.log('');
}
rmSync(batchDir, { recursive: true, force: true });
const tools = { one: async () => 1 };
await measure('await run(\'(+ 1 (tool/one {}))\'), async tool', () => ptc.run('(+ 1 (tool/one {}))', { tools }));
syncMeasure('runSync(\'(+ 1 (tool/one {}))\'), sync tool', () => ptc.runSync('(+ 1 (tool/one {}))', { tools: { one: () => 1 } }));
// Throughput with many runs in flight (node's pool: UV_THREADPOOL_SIZE, default 4).
const batch = 64;
{
  const perRun = [];
  for (let r = 0; r < 9; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 20; i++) await Promise.all(Array.from({ length: batch }, () => ptc.run(PROGRAM)));
    perRun.push(Number(process.hrtime.bigint() - t0) / 1000 / (20 * batch));
  }
  console.log(`${`run(source), ${batch} in flight, per run`.padEnd(44)} ${median(perRun).toFixed(2).padStart(8)} µs/call`);
}

const bench = join(root, 'build/ptc_benchmarks');
if (!args.includes('--no-cpp') && existsSync(bench)) {
  console.log('\nC++ (build/ptc_benchmarks, ptc::run and a compiled program, one thread):');
  const r = spawnSync(bench, [
    '--benchmark_filter=^(BM_FullRun/(baseline_nil|arithmetic)|BM_CompiledRun/arithmetic/real_time/threads:1)$',
    '--benchmark_min_time=0.3s',
  ], { encoding: 'utf8' });
  for (const line of (r.stdout || '').split('\n'))
    if (line.startsWith('BM_')) console.log(`  ${line}`);
  if (r.status !== 0) console.log(`  (ptc_benchmarks failed: ${r.stderr?.trim()})`);
}
