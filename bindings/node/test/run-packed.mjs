// node_package_tests: the packed package as a user gets it. Installs the
// tarball into a scratch folder with `npm install --offline` (no compiler,
// no network), links the pinned agent frameworks (the devDependencies of
// package.json but the build tools: `ai`, `@openai/agents`, ... installed by
// scripts/setup's `npm ci`) from node_modules here into the scratch
// node_modules, type-checks examples/basic.ts against the installed
// declarations with the pinned tsc (examples/tsconfig.json) and the framework
// examples against the installed declarations and the frameworks' types
// (examples/tsconfig.frameworks.json), and runs test/*.test.mjs there with
// node's test runner, so every test imports 'ptc-lisp' from node_modules.
//
//   node test/run-packed.mjs build/ptc-lisp-<version>.tgz [--no-typecheck]
//
// PTC_NODE_TEST_PRELOAD (the sanitizer runtimes of an ASan build's addon)
// is LD_PRELOADed into the test runner's node only (not npm or tsc), and
// --no-typecheck leaves the tsc steps out (node_package_asan_tests).
import { spawnSync } from 'node:child_process';
import {
  cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync,
} from 'node:fs';
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

// The pinned frameworks the tests and examples use: every devDependency but
// the build tools.
const BUILD_TOOLS = new Set(['node-api-headers', 'typescript']);
const frameworks = Object.keys(JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).devDependencies ?? {})
  .filter((name) => !BUILD_TOOLS.has(name));
const missing = frameworks.filter((name) => !existsSync(join(packageDir, 'node_modules', name, 'package.json')));
if (missing.length > 0) {
  console.error(`run-packed: ${missing.join(', ')} missing in ${join(packageDir, 'node_modules')}: ` +
                'run scripts/setup (npm ci in bindings/node)');
  process.exit(1);
}

// Symlinks resolve to their real paths (node and tsc both), so a linked
// framework finds its own dependencies in node_modules here.
function linkFrameworks(scratch) {
  for (const name of frameworks) {
    const link = join(scratch, 'node_modules', name);
    if (existsSync(link)) continue; // never shadow what the tarball brought
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(packageDir, 'node_modules', name), link, 'dir');
  }
  console.log(`run-packed: linked ${frameworks.join(', ')}`);
  return true;
}

const typecheck = !process.argv.includes('--no-typecheck');
const preload = process.env.PTC_NODE_TEST_PRELOAD;

function step(what, command, args, cwd, extraEnv = {}) {
  const started = Date.now();
  const env = { ...process.env, npm_config_update_notifier: 'false', ...extraEnv };
  delete env.PTC_NODE_TEST_PRELOAD;
  const r = spawnSync(command, args, { cwd, stdio: 'inherit', env });
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
    linkFrameworks(scratch) &&
    (!typecheck || step('tsc --noEmit of examples/basic.ts', process.execPath,
                        [tsc, '-p', join(scratch, 'examples/tsconfig.json')], scratch)) &&
    (!typecheck || step('tsc --noEmit of the framework examples', process.execPath,
                        [tsc, '-p', join(scratch, 'examples/tsconfig.frameworks.json')], scratch)) &&
    step(`node --test (${tests.length} files)${preload ? ' with ' + preload + ' preloaded' : ''}`,
         process.execPath, ['--test', ...tests], scratch, preload ? { LD_PRELOAD: preload } : {});
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
