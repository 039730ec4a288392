// Runs the official conformance suite's server mode against a URL with our baseline.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { NODE_DIR } from './harness.mjs';

export const BASELINE = join(NODE_DIR, 'conformance-baseline.yml');
const SUITE = join(NODE_DIR, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const SHIM = join(NODE_DIR, 'lib/node20/register.mjs');

// Resolves with {code, output, ms}; extra args (e.g. ['--scenario', 'ping']) replace the baseline.
export function runConformance(url, extra = ['--expected-failures', BASELINE]) {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', SHIM, SUITE, 'server', '--url', url, ...extra], {
    cwd: NODE_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output, ms: performance.now() - t0 })));
}

// The summary's scenario lines: {name: passed?}.
export function scenarioResults(output) {
  const out = {};
  for (const m of output.matchAll(/^\s*([✓✗])\s+([a-z0-9-]+):/gmu)) out[m[2]] = m[1] === '✓';
  return out;
}
