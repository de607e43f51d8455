/**
 * Lost-update opportunities counted from a recorded history (src/history/opportunities.ts):
 * overlapping read-modify-writes of one key, by outcome. Each case is drawn above it
 * (times in ms, `[start, end]`).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type TxnStatus } from '../../src/history/model.ts';
import { lostUpdateOpportunities } from '../../src/history/opportunities.ts';

interface T { s: number; ops: [('r' | 'w'), string, number | null][]; at: [number, number]; status?: TxnStatus; code?: string }

function history(txns: T[]) {
  const b = new HistoryBuilder();
  for (const t of txns) {
    const id = b.beginTxn(b.session(t.s), undefined, t.status ?? TXN_COMMITTED);
    for (const [k, key, v] of t.ops) if (k === 'r') b.read(id, key, v); else b.write(id, key, v);
    b.setTimes(id, t.at[0], t.at[1]);
    if (t.code !== undefined) b.setError(id, t.code);
  }
  return b.build();
}

test('each outcome of two overlapping read-modify-writes of x', () => {
  const o = lostUpdateOpportunities(history([
    // allowed: A [0,10] r(x)=init w(x,1) and B [5,15] r(x)=init w(x,2): both read one version.
    { s: 0, ops: [['r', 'x', null], ['w', 'x', 1]], at: [0, 10] },
    { s: 1, ops: [['r', 'x', null], ['w', 'x', 2]], at: [5, 15] },
    // blocked: C [20,30] r(x)=2 w(x,3) and D [25,40] r(x)=3 w(x,4): D started before C ended
    // and read C's write, so its read waited for C's commit.
    { s: 0, ops: [['r', 'x', 2], ['w', 'x', 3]], at: [20, 30] },
    { s: 1, ops: [['r', 'x', 3], ['w', 'x', 4]], at: [25, 40] },
    // aborted: E [50,60] commits, F [55,65] aborts with 40001.
    { s: 0, ops: [['r', 'x', 4], ['w', 'x', 5]], at: [50, 60] },
    { s: 1, ops: [['r', 'x', 4], ['w', 'x', 6]], at: [55, 65], status: TXN_ABORTED, code: '40001' },
    // unknown: G [70,80] commits, H [75,85] outcome unknown.
    { s: 0, ops: [['r', 'x', 5], ['w', 'x', 7]], at: [70, 80] },
    { s: 1, ops: [['r', 'x', 5], ['w', 'x', 8]], at: [75, 85], status: TXN_UNKNOWN },
  ]));
  assert.deepEqual(o, { pairs: 4, allowed: 1, blocked: 1, aborted: 1, abortCodes: { '40001': 1 }, unknown: 1, other: 0 });
});

test('no opportunity: disjoint in time, other keys, a blind write, a write before the read, no times', () => {
  const o = lostUpdateOpportunities(history([
    { s: 0, ops: [['r', 'x', null], ['w', 'x', 1]], at: [0, 10] },
    { s: 1, ops: [['r', 'x', 1], ['w', 'x', 2]], at: [11, 20] }, // after the first: no overlap
    { s: 2, ops: [['r', 'y', null], ['w', 'y', 3]], at: [0, 20] }, // another key
    { s: 3, ops: [['w', 'x', 4]], at: [0, 20] }, // a blind write
    { s: 4, ops: [['w', 'x', 5], ['r', 'x', 5], ['w', 'x', 6]], at: [0, 20] }, // wrote before reading
  ]));
  assert.deepEqual(o, { pairs: 0, allowed: 0, blocked: 0, aborted: 0, abortCodes: {}, unknown: 0, other: 0 });
  const b = new HistoryBuilder();
  const t = b.beginTxn(b.session(0));
  b.read(t, 'x', null);
  b.write(t, 'x', 1);
  assert.equal(lostUpdateOpportunities(b.build()), null);
});

test('three at once make three pairs; a re-read of a newer version is `other`', () => {
  const o = lostUpdateOpportunities(history([
    { s: 0, ops: [['r', 'x', null], ['w', 'x', 1]], at: [0, 30] },
    { s: 1, ops: [['r', 'x', null], ['w', 'x', 2]], at: [1, 31], status: TXN_ABORTED, code: 'write-conflict' },
    { s: 2, ops: [['r', 'x', 9], ['w', 'x', 3]], at: [2, 32] },
    { s: 3, ops: [['w', 'x', 9]], at: [-5, -1] },
  ]));
  // (0,1) aborted, (0,2) other (2 read 9, neither the init value nor 0's write), (1,2) aborted.
  assert.deepEqual(o, { pairs: 3, allowed: 0, blocked: 0, aborted: 2, abortCodes: { 'write-conflict': 2 }, unknown: 0, other: 1 });
});
