// What a call through the Node package costs on top of the engine: µs per
// call of runSync and await run for '(+ 1 2)' (source and compiled), a run
// with one async tool, and many runs in flight at once; beside the engine's
// own time for the same run (Result.usage.durationMs) and, when the build
// has them, `build/ptc bench` on the same program (ptc::run from C++, the
// baseline: compiled once, and compiled in every run) with the binding's
// overhead over it, and build/ptc_benchmarks' BM_FullRun.
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

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
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

// ptc::run from C++ on the same program, median µs: compiled once (ptc
// bench's ProgramCache) and read, analyzed and compiled in every run.
const cli = join(root, 'build/ptc');
const withCpp = !args.includes('--no-cpp') && existsSync(cli);
const batchDir = mkdtempSync(join(tmpdir(), 'ptc-overhead-'));
writeFileSync(join(batchDir, 'p.jsonl'), `${JSON.stringify({ program: PROGRAM })}\n`);
function cppMedian(extra) {
  const r = spawnSync(cli, ['bench', join(batchDir, 'p.jsonl'), '-n', '100000', ...extra],
                      { encoding: 'utf8' });
  const line = (r.stdout || '').split('\n').find((l) => l.startsWith('line 1'));
  return line ? Number(line.trim().split(/\s+/)[2]) : NaN;
}

const program = ptc.compile(PROGRAM);
const cases = [
  ['runSync(source)', false, () => ptc.runSync(PROGRAM), ['--no-cache']],
  ['runSync(compiled)', false, () => ptc.runSync(program), []],
  ['await run(source)', true, () => ptc.run(PROGRAM), ['--no-cache']],
  ['await run(compiled)', true, () => ptc.run(program), []],
];
// This machine's speed drifts between sittings (shared cores), so each
// round measures C++ and then the binding right after it, and the overhead
// is the median of the rounds' differences.
const rounds = withCpp ? 5 : 1;
const diffs = cases.map(() => []);
const times = cases.map(() => []);
for (let r = 0; r < rounds; r++) {
  for (let c = 0; c < cases.length; c++) {
    const [name, isAsync, fn, extra] = cases[c];
    const base = withCpp ? cppMedian(extra) : NaN;
    const us = isAsync ? await measure(name, fn, { rounds: 3 }) : syncMeasure(name, fn, { rounds: 3 });
    times[c].push(us);
    diffs[c].push(us - base);
  }
}
if (withCpp) {
  console.log(`\nbinding overhead over ptc::run (ptc bench run just before each, median of ${rounds} rounds):`);
  for (let c = 0; c < cases.length; c++)
    console.log(`  ${cases[c][0].padEnd(20)} ${median(times[c]).toFixed(2).padStart(6)} µs   ` +
                `+${median(diffs[c]).toFixed(2)} (rounds: ${diffs[c].map((d) => d.toFixed(2)).join(' ')})`);
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
