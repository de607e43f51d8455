/**
 * `CheckResult.decidedBy` names the stage that settled the verdict, and `pruneRoundsMax` moves
 * decisions from pruning to the solver without changing the verdict. One hand-written history
 * per path; the differential tests count the paths over thousands of random ones.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkHistory } from '../../src/check/index.ts';
import type { CheckOptions } from '../../src/result/types.ts';
import type { History } from '../../src/history/model.ts';
import { tinyHistory } from '../support/tiny-history.ts';
import { crossedReadersHistory } from '../support/gen-solver.ts';

const check = (h: History, extra: Partial<CheckOptions> = {}) => checkHistory(h, { level: 'si', pruning: true, ...extra });

// The gadget of gen-solver.ts with every cross read present: a violation no single constraint
// side reveals (pruning decides nothing), so the solver must prove it.
const CROSSED = tinyHistory([
  { s: 1, ops: 'w(x,1) w(a,1)' },
  { s: 2, ops: 'w(x,2) w(b,1)' },
  { s: 3, ops: 'w(y,1) w(c,1)' },
  { s: 4, ops: 'w(y,2) w(d,1)' },
  { s: 5, ops: 'r(x,1) r(c,1) r(d,1)' },
  { s: 6, ops: 'r(x,2) r(c,1) r(d,1)' },
  { s: 7, ops: 'r(y,1) r(a,1) r(b,1)' },
  { s: 8, ops: 'r(y,2) r(a,1) r(b,1)' },
]);

// Lost update: both read x = 0 and write it. Pruning forces one order and closes the cycle.
const LOST_UPDATE = tinyHistory([
  { s: 1, ops: 'r(x,0) w(x,1)' },
  { s: 2, ops: 'r(x,0) w(x,2)' },
]);

test('decidedBy: validation for a non-cycle anomaly', () => {
  const r = check(tinyHistory([{ s: 1, ops: 'r(x,7)' }, { s: 2, ops: 'w(x,7)', status: 'aborted' }]));
  assert.equal(r.verdict, 'violation');
  assert.equal(r.decidedBy, 'validation');
  assert.equal(r.solver, null);
});

test('decidedBy: pruning, for a violation and for a valid history', () => {
  const bad = check(LOST_UPDATE);
  assert.equal(bad.verdict, 'violation');
  assert.equal(bad.decidedBy, 'pruning');
  const good = check(tinyHistory([{ s: 1, ops: 'w(x,1)' }, { s: 2, ops: 'r(x,1) w(x,2)' }]));
  assert.equal(good.verdict, 'valid');
  assert.equal(good.decidedBy, 'pruning');
  assert.equal(good.solver, null);
});

test('decidedBy: solver-unsat when pruning leaves constraints that no choice satisfies', () => {
  const r = check(CROSSED);
  assert.equal(r.verdict, 'violation');
  assert.equal(r.decidedBy, 'solver-unsat');
  assert.equal(r.constraints.after, 2, 'pruning decided nothing');
  assert.ok(r.solver !== null && r.solver.conflicts > 0);
  assert.equal(check(CROSSED, { level: 'ser' }).decidedBy, 'solver-unsat');
});

test('decidedBy: solver-sat, and pruneRoundsMax hands pruning\'s work to the solver with the same verdict', () => {
  // W2 overwrites W1 in a way pruning orders in round 1; with zero rounds the solver must.
  const h = tinyHistory([{ s: 1, ops: 'w(x,1)' }, { s: 2, ops: 'r(x,1) w(x,2)' }]);
  const r = check(h, { pruneRoundsMax: 0 });
  assert.equal(r.verdict, 'valid');
  assert.equal(r.decidedBy, 'solver-sat');
  assert.equal(r.constraints.pruneRounds, 0);
  assert.equal(r.constraints.after, 1);
  const capped = check(LOST_UPDATE, { pruneRoundsMax: 0 });
  assert.equal(capped.verdict, 'violation');
  assert.equal(capped.decidedBy, 'solver-unsat');
  assert.throws(() => check(h, { pruneRoundsMax: -1 }), RangeError);
  assert.throws(() => check(h, { pruneRoundsMax: 1.5 }), RangeError);
});

test('decidedBy: limit when the solver runs out of conflicts', () => {
  const r = check(CROSSED, { conflictsMax: 1 });
  assert.equal(r.verdict, 'unknown');
  assert.equal(r.decidedBy, 'limit');
});

test('the gadget generator, unperturbed, gives the same solver-only violation', () => {
  // No perturbation, and rng() = 0 picks one session per txn.
  const h = crossedReadersHistory(() => 0, { pDropRead: 0, pInitialRead: 0, pUnknownReader: 0 });
  assert.equal(h.txnCount, 8);
  assert.equal(h.sessionCount, 8);
  const r = check(h);
  assert.equal(r.decidedBy, 'solver-unsat');
  assert.equal(r.constraints.after, 2);
});
