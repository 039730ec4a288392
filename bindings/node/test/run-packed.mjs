// node_package_tests: the packed package as a user gets it. Installs the
// tarball into a scratch folder with `npm install --offline` (no compiler,
// no network), type-checks examples/basic.ts against the installed
// declarations with the pinned tsc, and runs test/*.test.mjs there with
// node's test runner, so every test imports 'ptc-lisp' from node_modules.
//
//   node test/run-packed.mjs build/ptc-lisp-<version>.tgz
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = resolve(here, '..');
const tarball = resolve(process.argv[2] ?? '');
if (!process.argv[2] || !existsSync(tarball)) {
  console.error(`run-packed: no package at ${tarball}: build the node-package target first`);
  process.exit(1);
}
const tsc = join(packageDir, 'node_modules/typescript/bin/tsc');
if (!existsSync(tsc)) {
  console.error(`run-packed: ${tsc} is missing: run scripts/setup (npm ci in bindings/node)`);
  process.exit(1);
}

function step(what, command, args, cwd) {
  const started = Date.now();
  const r = spawnSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (r.status !== 0) {
    console.error(`run-packed: ${what} failed (${r.status ?? r.signal})`);
    return false;
  }
  console.log(`run-packed: ${what} ok (${Date.now() - started} ms)`);
  return true;
}

const scratch = mkdtempSync(join(tmpdir(), 'ptc-lisp-node-'));
let ok = false;
try {
  writeFileSync(join(scratch, 'package.json'),
                JSON.stringify({ name: 'ptc-lisp-test-host', private: true, type: 'module' }));
  cpSync(join(here), join(scratch, 'test'), {
    recursive: true, filter: (src) => !src.endsWith('run-packed.mjs'),
  });
  cpSync(join(packageDir, 'examples'), join(scratch, 'examples'), { recursive: true });
  const tests = readdirSync(join(scratch, 'test')).filter((f) => f.endsWith('.test.mjs'))
    .map((f) => join('test', f));
  ok = step('npm install --offline of the tarball', 'npm',
            ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], scratch) &&
    step('tsc --noEmit of examples/basic.ts', process.execPath,
         [tsc, '-p', join(scratch, 'examples/tsconfig.json')], scratch) &&
    step(`node --test (${tests.length} files)`, process.execPath, ['--test', ...tests], scratch);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
