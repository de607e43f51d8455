/**
 * The search over the predicate reads' choices at the levels decided by saturation
 * (src/check/weak-search.ts; docs/levels.md, "Predicates", "How it is decided", step 3): tiny
 * hand-drawn histories whose verdict needs it (before it, each was `unknown` at these levels),
 * each checked against the weak predicate oracle (test/oracle/brute-force-weak-predicates.ts).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkHistory } from '../../src/check/index.ts';
import type { CheckResult } from '../../src/result/types.ts';
import { weakPredLevel, type WeakPredLevel } from '../oracle/brute-force-weak-predicates.ts';
import type { PredHistory } from '../oracle/predicate-history.ts';
import { buildPredHistory } from '../support/gen-predicates.ts';

const LEVELS: readonly WeakPredLevel[] = ['pl-1', 'ru', 'pl-2', 'mav', 'rc', 'ss-rc', 'ra', 'tcc'];

/** Checks every weak level against the oracle; returns the checker's results by level. */
function agree(p: PredHistory): Map<WeakPredLevel, CheckResult> {
  const h = buildPredHistory(p);
  const out = new Map<WeakPredLevel, CheckResult>();
  for (const level of LEVELS) {
    const r = checkHistory(h, { level, pruning: true, explain: true });
    assert.equal(r.verdict, weakPredLevel(p, level), `${level}: checker ${r.verdict} (${r.unknownReason ?? r.decidedBy}), oracle ${weakPredLevel(p, level)}`);
    out.set(level, r);
  }
  return out;
}

const c = (session: string, ops: PredHistory['txns'][number]['ops']) => ({ session, status: 'committed' as const, ops });

/**
 * Valid at ra and tcc only through a pick the witness orders do not make. T3 read x and y from T1
 * and its select of even values did not return row 1: it saw the initial (absent) version, T1's
 * odd 1, or T2's delete. Read atomic: T3 observed T1, which wrote row 1, so not the initial
 * version (fractured); T2's delete makes T3 observe T2, which wrote y, read from T1 (T2 before
 * T1) while T1's row 1 came before T2's delete: a cycle. Only T1's 1 works. T4 and T5 lose an
 * update of z, so no serial order exists (step 2 tries none), and the causal order (by index)
 * puts T2 after T1: it picks T2's delete. Read committed and the levels below it allow T2's
 * delete too (the select is one statement, after which T3 reads nothing): the witness decides.
 *
 *   T1: w(x,1) w(y,1) insert(1,1)
 *   T2: w(y,2) delete(1)
 *   T3: r(x,1) r(y,1) select(R, value % 2 = 0) -> []
 *   T4: r(z,null) w(z,1)        T5: r(z,null) w(z,2)
 */
test('valid at ra and tcc only through a version the witness orders do not pick', () => {
  const r = agree({
    relations: { R: [1] },
    txns: [
      c('s1', [{ op: 'w', key: 'x', value: 1 }, { op: 'w', key: 'y', value: 1 }, { op: 'insert', key: 1, value: 1 }]),
      c('s2', [{ op: 'w', key: 'y', value: 2 }, { op: 'delete', key: 1 }]),
      c('s3', [{ op: 'r', key: 'x', value: 1 }, { op: 'r', key: 'y', value: 1 }, { op: 'select', rel: 'R', pred: 'value % 2 = 0', rows: [] }]),
      c('s4', [{ op: 'r', key: 'z', value: null }, { op: 'w', key: 'z', value: 1 }]),
      c('s5', [{ op: 'r', key: 'z', value: null }, { op: 'w', key: 'z', value: 2 }]),
    ],
  });
  for (const level of ['ra', 'tcc'] as const) {
    assert.equal(r.get(level)!.verdict, 'valid', level);
    assert.equal(r.get(level)!.decidedBy, 'choice-search', level);
    assert.match(r.get(level)!.notes!.join(' '), /a search over 1 choices/, level);
  }
});

/**
 * A violation whichever non-matching version the select saw (a fractured predicate read). T3
 * read x from T1, which inserted row 1 = 2 (even), and its select of even values missed row 1:
 * it saw the initial version (older than T1's, which T3 had observed: read committed, MAV, ra and
 * tcc forbid it) or T2's delete (T1 read w from T2, so T2 came first, yet T3 read row 1 from T2
 * after observing T1's later version: a cycle). PL-2 and below allow both. The counterexample is
 * one certified anomaly per candidate version.
 *
 *   T2: w(w,1) delete(1)
 *   T1: r(w,1) w(x,1) insert(1,2)
 *   T3: r(x,1) select(R, value % 2 = 0) -> []
 */
test('a fractured predicate read whichever non-matching version was seen: a violation, one certified anomaly per version', () => {
  const r = agree({
    relations: { R: [1] },
    txns: [
      c('s2', [{ op: 'w', key: 'w', value: 1 }, { op: 'delete', key: 1 }]),
      c('s1', [{ op: 'r', key: 'w', value: 1 }, { op: 'w', key: 'x', value: 1 }, { op: 'insert', key: 1, value: 2 }]),
      c('s3', [{ op: 'r', key: 'x', value: 1 }, { op: 'select', rel: 'R', pred: 'value % 2 = 0', rows: [] }]),
    ],
  });
  for (const level of ['mav', 'rc', 'ss-rc', 'ra', 'tcc'] as const) {
    const x = r.get(level)!;
    assert.equal(x.verdict, 'violation', level);
    assert.equal(x.decidedBy, 'choice-search', level);
    assert.equal(x.anomalies.length, 2, level);
    assert.ok(x.anomalies.every((a) => a.explanation?.certificate?.status === 'certified'), level);
    assert.match(x.notes!.join(' '), /saw one of 2 versions of it/, level);
  }
  for (const level of ['pl-1', 'ru', 'pl-2'] as const) assert.equal(r.get(level)!.verdict, 'valid', level);
});

/**
 * A count n > 0. T1's count of rows matching `value % 2 = 1 or key = 1` is 1: row 1 is never
 * written (absent, no match), so row 2 was seen as T2's 1, and T2 -WR-> T1; its select of even
 * values saw row 2 absent or as T2's 1. The witness orders put T1 first (count 0): before the
 * search, `unknown`. Valid at every weak level. With T1 -WR(x)-> T2 as well, every choice that
 * makes the count 1 closes T1 -WR-> T2 -WR-> T1 (G1c): a violation from pl-2 up, whose
 * counterexample is certified for one concrete choice (the count's row alone, without the count,
 * is no cycle), which a note says plainly; pl-1 and read uncommitted allow it.
 *
 *   T1: [w(x,1)]  select(R, value % 2 = 0) -> []   count(R, value % 2 = 1 or key = 1) -> 1
 *   T2: [r(x,1)]  insert(2,1)
 */
test('a count n > 0: valid by the search, and a violation with a counterexample marked as one choice\'s', () => {
  const h = (x: boolean): PredHistory => ({
    relations: { R: [1, 2] },
    txns: [
      c('s1', [...(x ? [{ op: 'w' as const, key: 'x', value: 1 }] : []),
        { op: 'select', rel: 'R', pred: 'value % 2 = 0', rows: [] }, { op: 'count', rel: 'R', pred: 'value % 2 = 1 or key = 1', n: 1 }]),
      c('s2', [...(x ? [{ op: 'r' as const, key: 'x', value: 1 }] : []), { op: 'insert', key: 2, value: 1 }]),
    ],
  });
  const ok = agree(h(false));
  for (const level of LEVELS) {
    assert.equal(ok.get(level)!.verdict, 'valid', level);
    assert.equal(ok.get(level)!.decidedBy, 'choice-search', level);
  }
  const bad = agree(h(true));
  for (const level of ['pl-2', 'mav', 'rc', 'ss-rc', 'ra', 'tcc'] as const) {
    const x = bad.get(level)!;
    assert.equal(x.verdict, 'violation', level);
    assert.equal(x.decidedBy, 'choice-search', level);
    assert.ok(x.anomalies.length > 0 && x.anomalies.every((a) => a.explanation?.certificate?.status === 'certified'), level);
    assert.match(x.notes!.join(' '), /certified for ONE choice/, level);
  }
});

/**
 * An insert whose precondition only some commit orders keep. T2 inserted row 1 and T1 updated it
 * (no delete anywhere), so T2's insert must come first; nothing else orders them, and the
 * greedy order (by index) puts T1 first. The exact order search (pair literals over row 1's
 * writers, acyclicity) finds T2, T1: valid at every weak level (before it, the order found
 * broke the insert: `unknown`). T2's select (rows 1 and 2, `value % 2 = 1 or key = 1`) saw both
 * absent: row 2 as the initial version or not T1's odd 3.
 *
 *   T1: r(1,null) count(R, not (value % 2 = 0)) -> 0  w(1,2) insert(2,3)
 *   T2: select(R, value % 2 = 1 or key = 1) -> []  insert(1,1)
 */
test('an insert that only some commit orders keep: the exact order search finds one', () => {
  const r = agree({
    relations: { R: [1, 2] },
    txns: [
      c('s1', [{ op: 'r', key: 1, value: null }, { op: 'count', rel: 'R', pred: 'not (value % 2 = 0)', n: 0 },
        { op: 'w', key: 1, value: 2 }, { op: 'insert', key: 2, value: 3 }]),
      c('s2', [{ op: 'select', rel: 'R', pred: 'value % 2 = 1 or key = 1', rows: [] }, { op: 'insert', key: 1, value: 1 }]),
    ],
  });
  for (const level of LEVELS) {
    assert.equal(r.get(level)!.verdict, 'valid', level);
    assert.equal(r.get(level)!.decidedBy, 'choice-search', level);
  }
});
