/**
 * Lost updates named as such (issue 21): a history with a lost update gets a counterexample
 * named `lost update` at every level that forbids one, even when the search's first cycle runs
 * through session order (a later txn of one session misses its own lost write, a
 * G-single-process); and none at a level that allows lost updates.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHistory } from '../../src/check/index.ts';
import { validate } from '../../src/validate/validate.ts';
import { findLostUpdatePairs } from '../../src/explain/lost-update.ts';
import type { Level } from '../../src/result/types.ts';
import { tinyHistory } from '../support/tiny-history.ts';
import { verifyExplanation } from './verify-explanation.ts';

// T0 w(x,1) | T1 r(x,1) w(x,2) ; T3 r(x,3) | T2 r(x,1) w(x,3) ; T4 r(x,2).
// T1 and T2 both read T0's x and both write it: a lost update whichever is installed first.
// T3 (after T1 in its session) reads T2's x and T4 (after T2) reads T1's: with T2 first, T3
// misses its session's write (T3 -RW-> T1 -SO-> T3); with T1 first, T4 does.
const SESSION_MISS = tinyHistory([
  { s: 0, ops: 'w(x,1)' },
  { s: 1, ops: 'r(x,1) w(x,2)' }, { s: 1, ops: 'r(x,3)' },
  { s: 2, ops: 'r(x,1) w(x,3)' }, { s: 2, ops: 'r(x,2)' },
]);

test('findLostUpdatePairs: two committed read-modify-writes of one version, once per version', () => {
  const v = validate(SESSION_MISS);
  const pairs = findLostUpdatePairs(v, 10);
  assert.equal(pairs.length, 1);
  const p = pairs[0]!;
  assert.deepEqual([p.a, p.b].sort(), [1, 3]);
  assert.equal(p.writer, 0);
  // A read without a write of the key, or a write without a read of the same version, is no pair.
  const none = validate(tinyHistory([{ s: 0, ops: 'w(x,1)' }, { s: 1, ops: 'r(x,1) w(x,2)' }, { s: 2, ops: 'r(x,2) w(x,3)' }, { s: 3, ops: 'r(x,1)' }]));
  assert.deepEqual(findLostUpdatePairs(none, 10), []);
});

for (const level of ['psi', 'si', 'pl-si', 'rr', 'ser'] as Level[]) {
  test(`${level}: a lost update behind session-order cycles is named lost update`, () => {
    const r = checkHistory(SESSION_MISS, { level, pruning: true, explain: true, maxAnomalies: 1 });
    assert.equal(r.verdict, 'violation');
    const lost = r.anomalies.filter((a) => a.explanation?.class === 'lost update');
    assert.equal(lost.length, 1, r.anomalies.map((a) => a.explanation?.class).join(', '));
    const cx = lost[0]!.explanation!;
    assert.equal(cx.certificate.status, 'certified');
    // At PSI and PL-SI the test verifier finds the final dilemma's WW edges removable, for every
    // lost update (the plain two-txn one too, found by the main search): a disagreement with
    // the checker's scenario solver older than this test, left to its own issue.
    if (level === 'si' || level === 'rr' || level === 'ser') assert.deepEqual(verifyExplanation(SESSION_MISS, level, cx), []);
    // The pair, and the writer they read from when the argument needs its place in the order.
    const core = cx.txns.filter((t) => t.role === 'core').map((t) => t.txn);
    assert.ok(core.includes(1) && core.includes(3) && core.every((t) => [0, 1, 3].includes(t)), core.join(','));
  });
}

test('pc allows lost updates: no counterexample is named one', () => {
  const r = checkHistory(SESSION_MISS, { level: 'pc', pruning: true, explain: true });
  assert.ok(r.anomalies.every((a) => a.explanation?.class !== 'lost update'), r.anomalies.map((a) => a.explanation?.class).join(', '));
});
