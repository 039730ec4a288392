// ctest's entry point: node run.mjs <script> <path to ptc>
// Checks that scripts/setup installed this folder's packages (and that they
// match package-lock.json), then runs <script>.test.mjs with PTC_BIN set.
// A script that cannot apply to this build (e.g. no HTTP transport) exits 77,
// which ctest reports as skipped.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const [script, bin] = process.argv.slice(2);
if (!script) {
  console.error('usage: node run.mjs <stdio|http|v2|tasks|conformance|inspector|load-stdio|load-http|upstreams|replicas> [path/to/ptc]');
  process.exit(2);
}
const stamp = join(here, 'node_modules', '.ptc-lock.sha256');
const lockHash = createHash('sha256').update(readFileSync(join(here, 'package-lock.json'))).digest('hex');
if (!existsSync(join(here, 'node_modules'))) {
  console.error(`tests/mcp/node: node_modules is missing; run scripts/setup to install the pinned MCP packages`);
  process.exit(1);
}
if (!existsSync(stamp) || readFileSync(stamp, 'utf8').trim() !== lockHash) {
  console.error('tests/mcp/node: node_modules does not match package-lock.json; run scripts/setup');
  process.exit(1);
}
if (bin) process.env.PTC_BIN = resolve(bin);
await import(pathToFileURL(join(here, `${script}.test.mjs`)).href);
