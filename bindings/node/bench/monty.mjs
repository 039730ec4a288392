// ptc-lisp's Node package against pydantic's Monty (a peer sandbox for
// LLM-written code: a Rust interpreter for a Python subset, npm
// `@pydantic/monty`) on the reference programs, in one sitting.
//
//   npm ci --prefix bindings/node/bench       # @pydantic/monty, pinned here (not scripts/setup)
//   node bindings/node/bench/monty.mjs [PACKAGE_DIR] [--rounds N] [--ms T]
//
// PACKAGE_DIR defaults to build/node-package (the staged package; any folder
// holding index.js and ptc_lisp.node, e.g. node_modules/ptc-lisp).
//
// The programs: bench/programs.jsonl (the reference programs, with their
// contexts) run by ptc-lisp, and monty-programs.mjs (a copy, unchanged, of
// the shared bench folder's monty/programs.mjs: the same programs in plain
// Python) run by Monty. Both get the same inputs: a context program's context
// is parsed once into a JS object and handed to every run (ptc-lisp:
// `context`, read as `data/...`; Monty: the input `data`), so both convert it
// from JS values in every run. No program calls a tool. Two Monty programs
// return a summary of the value the Lisp one returns (group_by_aggregate_1000:
// the number of groups; reduce_update_1000: the "paid" total), after the same
// work; their ptc-lisp results are compared through the same summary.
// context_filter_3 has no Monty version and is left out.
//
// The figures, µs per call, each the median over rounds of a batch's mean:
//   ptc         runSync(source, {context})           read, analyze, compile, run
//   ptc comp.   runSync(compile(source), {context})  run only
//   ptc async   await run(source, {context})         on node's thread pool
//   ptc json    runSync(source, {context: text})     context programs only: the
//               context as JSON text (stringified once, as an MCP call or an
//               HTTP body brings it), parsed straight into the run; not in
//               the ratios (Monty takes JS values only)
//   monty       new Monty(code).run({inputs})        parse, compile, run
//   monty comp. monty.run({inputs})                  compiled once
// and the ratios monty/ptc (fresh: monty / ptc; compiled: monty comp. /
// ptc comp.). Every round times every (program, mode) batch, in an order
// rotated from round to round, so a busy moment of the machine falls on all
// of them alike; a batch runs as many calls as take about T ms (default 20).
// Before timing, every mode's result is checked against the others.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');

const argv = process.argv.slice(2);
function option(name, fallback) {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(argv[i + 1]);
  argv.splice(i, 2);
  if (!(v > 0)) throw new Error(`${name} needs a positive number`);
  return v;
}
const ROUNDS = option('--rounds', 9);
const BATCH_MS = option('--ms', 20);
const packageDir = resolve(argv[0] ?? join(root, 'build/node-package'));

const ptc = createRequire(import.meta.url)(join(packageDir, 'index.js'));
let Monty;
try {
  ({ Monty } = await import('@pydantic/monty'));
} catch (e) {
  console.error(`monty: cannot load @pydantic/monty (${e.message}): run npm ci --prefix bindings/node/bench`);
  process.exit(1);
}
const montyVersion = JSON.parse(readFileSync(join(here, 'node_modules/@pydantic/monty/package.json'), 'utf8')).version;
const { programs: montyPrograms } = await import('./monty-programs.mjs');

// What a Monty program returns of the Lisp program's value.
const SUMMARY = {
  group_by_aggregate_1000: (v) => v.length,
  reduce_update_1000: (v) => v.paid,
};

const cases = [];
for (const line of readFileSync(join(root, 'bench/programs.jsonl'), 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const { id, program, context } = JSON.parse(line);
  const python = montyPrograms[id];
  if (!python) {
    console.log(`(${id}: no Monty version, left out)`);
    continue;
  }
  const ptcOptions = context ? { context } : {};
  const ptcJsonOptions = context ? { context: JSON.stringify(context) } : null;
  const compiled = ptc.compile(program, ptcOptions);
  const montyOptions = context ? { inputs: { data: context } } : {};
  const montyNew = () => new Monty(python, context ? { inputs: ['data'] } : {});
  const monty = montyNew();
  const value = (r) => {
    if (!r.ok) throw new Error(`${id}: ptc-lisp failed: ${r.error.text}`);
    return (SUMMARY[id] ?? ((v) => v))(r.value);
  };
  const modes = {
    ptc: { sync: true, fn: () => value(ptc.runSync(program, ptcOptions)) },
    ptcCompiled: { sync: true, fn: () => value(ptc.runSync(compiled, ptcOptions)) },
    ptcAsync: { sync: false, fn: async () => value(await ptc.run(program, ptcOptions)) },
    monty: { sync: true, fn: () => montyNew().run(montyOptions) },
    montyCompiled: { sync: true, fn: () => monty.run(montyOptions) },
  };
  if (ptcJsonOptions) modes.ptcJson = { sync: true, fn: () => value(ptc.runSync(program, ptcJsonOptions)) };
  cases.push({ id, modes });
}
const COLUMNS = ['ptc', 'ptcCompiled', 'ptcAsync', 'ptcJson', 'monty', 'montyCompiled'];

// Results agree: every mode of a program gives the same (summarized) value.
const canonical = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? Number(x) : x));
let disagreements = 0;
for (const c of cases) {
  const seen = {};
  for (const m of Object.keys(c.modes)) seen[m] = canonical(await c.modes[m].fn());
  const distinct = new Set(Object.values(seen));
  if (distinct.size !== 1) {
    disagreements++;
    console.error(`monty: ${c.id}: results differ: ${JSON.stringify(seen)}`);
  }
  c.value = seen.ptc;
}

async function batch(mode, n) {
  const t0 = process.hrtime.bigint();
  if (mode.sync) for (let i = 0; i < n; i++) mode.fn();
  else for (let i = 0; i < n; i++) await mode.fn();
  return Number(process.hrtime.bigint() - t0) / 1e3; // µs
}

// Calibrate: calls per batch for about BATCH_MS (after a warm-up).
for (const c of cases) {
  c.n = {};
  c.samples = {};
  for (const m of Object.keys(c.modes)) {
    let n = 1;
    let us = await batch(c.modes[m], n);
    while (us < BATCH_MS * 250 && n < 1e6) {
      n *= 2;
      us = await batch(c.modes[m], n);
    }
    c.n[m] = Math.max(1, Math.round((n * BATCH_MS * 1000) / us));
    c.samples[m] = [];
  }
}

const load0 = loadavg()[0];
const started = Date.now();
const slots = cases.flatMap((c) => Object.keys(c.modes).map((m) => [c, m]));
for (let r = 0; r < ROUNDS; r++) {
  const shift = Math.floor((r * slots.length) / ROUNDS);
  for (let k = 0; k < slots.length; k++) {
    const [c, m] = slots[(k + shift) % slots.length];
    c.samples[m].push((await batch(c.modes[m], c.n[m])) / c.n[m]);
  }
}
const seconds = (Date.now() - started) / 1000;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (us) => (us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us.toFixed(2));

console.log(`ptc-lisp ${ptc.version} (${packageDir}) vs @pydantic/monty ${montyVersion}; node ${process.version}, ` +
            `${cpus().length} cpus, load ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)}; ` +
            `median of ${ROUNDS} rounds, ~${BATCH_MS} ms batches, ${seconds.toFixed(1)} s`);
console.log('µs per call; ratio = monty / ptc (> 1: ptc-lisp faster)\n');
const header = ['program', 'ptc', 'ptc comp.', 'ptc async', 'ptc json', 'monty', 'monty comp.', 'ratio', 'ratio comp.'];
const rows = [];
const ratios = { fresh: [], compiled: [] };
for (const c of cases) {
  const t = Object.fromEntries(Object.keys(c.modes).map((m) => [m, median(c.samples[m])]));
  const fresh = t.monty / t.ptc;
  const compiled = t.montyCompiled / t.ptcCompiled;
  ratios.fresh.push(fresh);
  ratios.compiled.push(compiled);
  rows.push([c.id, ...COLUMNS.map((m) => (m in t ? fmt(t[m]) : '')), `${fresh.toFixed(1)}×`, `${compiled.toFixed(1)}×`]);
}
const geomean = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
rows.push(['geometric mean', ...COLUMNS.map(() => ''), `${geomean(ratios.fresh).toFixed(1)}×`,
           `${geomean(ratios.compiled).toFixed(1)}×`]);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
const line = (row) => `| ${row.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
for (const row of rows) console.log(line(row));
console.log(disagreements ? `\n${disagreements} program(s) disagree (above)` : '\nresults agree (every mode, every program)');
process.exit(disagreements ? 1 : 0);
