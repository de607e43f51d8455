/**
 * Hand-drawn predicate histories at the weak levels (issue 22), each checked by `checkHistory`
 * and by the weak predicate oracle (test/oracle/brute-force-weak-predicates.ts), which must agree.
 * Each case is a boundary the weak differential (predicate-weak-differential.test.ts) found or
 * that docs/levels.md, "Predicates", "Per level", states.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkHistory } from '../../src/check/index.ts';
import { weakPredLevel, type WeakPredLevel } from '../oracle/brute-force-weak-predicates.ts';
import type { PredHistory, PredTxn } from '../oracle/predicate-history.ts';
import { buildPredHistory } from '../support/gen-predicates.ts';

const LEVELS: readonly WeakPredLevel[] = ['pl-1', 'ru', 'pl-2', 'mav', 'rc', 'ss-rc', 'ra', 'tcc'];

function expectLevels(h: PredHistory, violated: readonly WeakPredLevel[]): void {
  for (const level of LEVELS) {
    const want = violated.includes(level) ? 'violation' : 'valid';
    assert.equal(weakPredLevel(h, level), want, `oracle at ${level}`);
    assert.equal(checkHistory(buildPredHistory(h), { level, pruning: true }).verdict, want, `checker at ${level}`);
  }
}

// One select sees T1's insert of row 2 but not its insert of row 3 (a fractured predicate read):
//   T1: insert(2,1) insert(3,2)
//   T2: select(R, value != 5) -> [(2,1)]
// Its rows are read by one statement, so none is "earlier" than another: read committed (and
// MAV, ss-rc) allow it, as Adya's PL-2 does; read atomic forbids it (T2 observed T1 and read row
// 3 older than T1's). The checker used to order the rows by the relation's key order, so the
// verdict at rc hung on how the header listed R: [2, 3] said violation, [3, 2] valid.
for (const keys of [[2, 3], [3, 2]]) {
  test(`a fractured select (relation ${JSON.stringify(keys)}): rc, mav and ss-rc allow it, ra and tcc do not`, () => {
    expectLevels({
      relations: { R: keys },
      txns: [
        { session: 's1', status: 'committed', ops: [{ op: 'insert', key: 2, value: 1 }, { op: 'insert', key: 3, value: 2 }] },
        { session: 's2', status: 'committed', ops: [{ op: 'select', rel: 'R', pred: 'value != 5', rows: [[2, 1]] }] },
      ],
    }, ['ra', 'tcc']);
  });
}

// The same rows, T1's row 2 first read by an earlier statement: the select reads row 3 older than
// T1's, whom T2 has already observed, which read committed forbids (Biswas & Enea's RC; MAV's
// "observed transaction vanishes").
//   T1: insert(2,1) insert(3,2)
//   T2: r(2,1)   select(R, value != 5) -> [(2,1)]
test('a select after a read that observed the writer: rc, mav and above forbid it', () => {
  expectLevels({
    relations: { R: [2, 3] },
    txns: [
      { session: 's1', status: 'committed', ops: [{ op: 'insert', key: 2, value: 1 }, { op: 'insert', key: 3, value: 2 }] },
      { session: 's2', status: 'committed', ops: [
        { op: 'r', key: 2, value: 1 },
        { op: 'select', rel: 'R', pred: 'value != 5', rows: [[2, 1]] },
      ] },
    ],
  }, ['mav', 'rc', 'ss-rc', 'ra', 'tcc']);
});

// A count that only a dirty version explains: read uncommitted allows reading an aborted insert
// (G1a) or an intermediate one (G1b); every level above forbids it. The lowering used to call
// it predicate-mismatch at every level, counting only committed final versions.
//   T1 (aborted): insert(1,3)                 T2: count(R, true) -> 1
//   T1: insert(1,3) delete(1)                 T2: count(R, true) -> 1
const DIRTY: [string, PredTxn][] = [
  ['an aborted insert (G1a)', { session: 's1', status: 'aborted', ops: [{ op: 'insert', key: 1, value: 3 }] }],
  ['an intermediate insert (G1b)', { session: 's1', status: 'committed', ops: [{ op: 'insert', key: 1, value: 3 }, { op: 'delete', key: 1 }] }],
];
for (const [what, t1] of DIRTY) {
  test(`a count that saw ${what}: ru and pl-1 allow it, the levels above do not`, () => {
    expectLevels({
      relations: { R: [1] },
      txns: [t1, { session: 's2', status: 'committed', ops: [{ op: 'count', rel: 'R', pred: 'true', n: 1 }] }],
    }, ['pl-2', 'mav', 'rc', 'ss-rc', 'ra', 'tcc']);
  });
}
