// The official Inspector CLI (@modelcontextprotocol/inspector-cli 1.0.3) against
// `ptc mcp` over stdio. Its quirks: it must run from a folder whose parent has a
// package.json (it looks for ../package.json from the working directory), and it
// exits 0 for a tool result with isError, so the output is what is checked.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { NODE_DIR, ptcBin } from './lib/harness.mjs';

const CLI = join(NODE_DIR, 'node_modules/@modelcontextprotocol/inspector-cli/build/index.js');

// Runs the CLI on `ptc mcp [serverFlags]`; resolves with {code, json, stdout, stderr}.
function inspect(serverFlags, args) {
  const argv = [CLI, ptcBin(), 'mcp', ...serverFlags, ...args];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: join(NODE_DIR, 'lib'), timeout: 60000 }, (err, stdout, stderr) => {
      let json = null;
      try {
        json = JSON.parse(stdout);
      } catch {
        // left null: the assertion shows stdout
      }
      resolve({ code: err ? (err.code ?? 1) : 0, json, stdout, stderr });
    });
  });
}

const show = (r) => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;

test('tools/list shows lisp_eval', async () => {
  const r = await inspect([], ['--method', 'tools/list']);
  assert.equal(r.code, 0, show(r));
  assert.deepEqual(r.json.tools.map((t) => t.name), ['lisp_eval'], show(r));
  assert.deepEqual(r.json.tools[0].inputSchema.required, ['program']);
  assert.equal(r.json.tools[0].annotations.readOnlyHint, true);
});

test('tools/call lisp_eval with a program and a context', async () => {
  const r = await inspect([], [
    '--method', 'tools/call', '--tool-name', 'lisp_eval',
    '--tool-arg', 'program=(reduce + data/xs)', 'context={"xs":[1,2,3,4]}',
  ]);
  assert.equal(r.code, 0, show(r));
  assert.equal(r.json.isError, false, show(r));
  assert.equal(r.json.content[0].text, 'user=> 10');
});

test('tools/call with output_schema under --response-profile structured', async () => {
  const r = await inspect(['--response-profile', 'structured'], [
    '--method', 'tools/call', '--tool-name', 'lisp_eval',
    '--tool-arg', 'program={:n (count data/xs)}', 'context={"xs":["a","b"]}',
    'output_schema={"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}',
  ]);
  assert.equal(r.code, 0, show(r));
  assert.equal(r.json.isError, false, show(r));
  assert.deepEqual(r.json.structuredContent.validated, { n: 2 });
});

test('a failing program: exit 0, isError in the output', async () => {
  const r = await inspect([], [
    '--method', 'tools/call', '--tool-name', 'lisp_eval', '--tool-arg', 'program=(/ 1 0)',
  ]);
  assert.equal(r.code, 0, show(r));
  assert.equal(r.json.isError, true, show(r));
  assert.match(r.json.content[0].text, /^runtime_error: /);
});

test('an unknown tool: isError result naming the tools', async () => {
  const r = await inspect([], ['--method', 'tools/call', '--tool-name', 'nope']);
  assert.equal(r.code, 0, show(r));
  assert.equal(r.json.isError, true, show(r));
  assert.match(r.json.content[0].text, /unknown_tool/);
});

test('logging/setLevel', async () => {
  const r = await inspect([], ['--method', 'logging/setLevel', '--log-level', 'debug']);
  assert.equal(r.code, 0, show(r));
  assert.deepEqual(r.json, {}, show(r));
});
