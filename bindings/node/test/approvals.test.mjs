// Approvals: a tool named in `approval` runs only once a person approves
// its call -- through resume() (approve(), reject(reason)), an approver given
// to run()/runSync()/start(); without one, run() fails closed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { approve, load, reject, run, runSync, start, startSync } from 'ptc-lisp';

const PROGRAM = '(def amount (tool/lookup {:order 7}))\n' +
  '(def done (tool/refund {:order 7 :amount amount}))\n' +
  '(str done "!")';

function shop() {
  const refunds = [];
  return {
    refunds,
    options: {
      tools: {
        lookup: () => 30,
        refund: async ({ amount }) => {
          refunds.push(amount);
          return `refunded ${amount}`;
        },
      },
      approval: ['refund'],
    },
  };
}

test('start suspends for approval before the tool runs; approve() runs it', async () => {
  const s = shop();
  const ex = await start(PROGRAM, s.options);
  assert.deepEqual(ex.pending, [{
    id: 'c1', tool: 'refund', args: { order: 7, amount: 30 }, kind: 'approval', line: 2, column: 11,
  }]);
  assert.deepEqual(s.refunds, []);
  await assert.rejects(ex.resume({ c1: 'forged' }), /waits for a person's approval/);
  await ex.resume({ c1: approve() });
  assert.equal(ex.result.value, 'refunded 30!');
  assert.deepEqual(s.refunds, [30]);
});

test('reject(reason) fails the call with the reason; a pending approval survives dump/load', async () => {
  const s = shop();
  const ex = await start(PROGRAM, s.options);
  const bytes = ex.dump('k');
  await ex.resume({ c1: reject('refunds over 20 need a manager') });
  assert.equal(ex.result.error.reason, 'tool_error');
  assert.equal(ex.result.error.message, 'tool/refund was rejected: refunds over 20 need a manager');
  const loaded = await load(bytes, { key: 'k', tools: s.options.tools });
  assert.equal(loaded.pending[0].kind, 'approval');
  await loaded.resume({ c1: approve() });
  assert.equal(loaded.result.value, 'refunded 30!');
  assert.deepEqual(s.refunds, [30]);
});

test('run asks an async approver, for every pmap branch; without one it fails closed', async () => {
  const s = shop();
  const asked = [];
  const approver = async (call) => {
    asked.push(call.id);
    return call.args.amount <= 20 ? true : reject('too much');
  };
  const ok = await run('(pmap #(tool/refund {:amount %}) [10 20])', { ...s.options, approver });
  assert.deepEqual(ok.value, ['refunded 10', 'refunded 20']);
  assert.deepEqual(asked.sort(), ['p0.0/c0', 'p0.1/c0']);
  const no = await run(PROGRAM, { ...s.options, approver });
  assert.equal(no.error.message, 'tool/refund was rejected: too much');
  const closed = await run(PROGRAM, s.options);
  assert.equal(closed.error.message, 'tool/refund was rejected: run was given no approver');
  const broken = await run(PROGRAM, { ...s.options, approver: () => { throw new Error('offline'); } });
  assert.equal(broken.error.message, 'tool/refund was rejected: the approver failed: offline');
  assert.deepEqual(s.refunds, [10, 20]);
});

test('runSync and startSync take a synchronous approver', () => {
  const refunds = [];
  const options = {
    tools: { refund: ({ amount }) => (refunds.push(amount), amount) },
    approval: ['refund'],
    approver: (call) => call.args.amount < 10,
  };
  assert.equal(runSync('(tool/refund {:amount 5})', options).value, 5);
  assert.equal(runSync('(tool/refund {:amount 50})', options).error.message,
    'tool/refund was rejected by the person who approves it');
  const ex = startSync('(tool/refund {:amount 7})', options);
  assert.equal(ex.result.value, 7);
  assert.deepEqual(refunds, [5, 7]);
});

test('bad approval options are TypeErrors', async () => {
  assert.throws(() => runSync('1', { tools: { t: () => 1 }, approval: ['nope'] }),
    /approval names nope, which option tools does not give/);
  assert.throws(() => runSync('1', { tools: { t: () => 1 }, approval: 't' }), TypeError);
  assert.throws(() => runSync('1', { tools: { t: () => 1 }, approver: 3 }), TypeError);
  assert.throws(() => reject(3), TypeError);
});
