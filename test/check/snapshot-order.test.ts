/**
 * The snapshot witness of predicate histories (src/check/snapshot-order.ts), against the
 * brute-force predicate oracle's axiomatic SI (test/oracle/brute-force-predicates.ts: a commit
 * order and a visible prefix of it per txn, Cerone et al.'s axioms; no code shared with src/).
 *
 * Recorded times stand for a commit order CO (completion) and a visibility per txn (the txns
 * completed before its invocation): every CO with every visible prefix VIS(T) shorter than T's
 * place in CO is realised by times (T's end at 10 (i + 1) for place i, its start at 10 L + 5 for
 * a prefix of length L). On seeded tiny histories with at most 4 committed txns all of them are
 * tried: if some passes, the oracle must say SI; and when no txn has an unknown outcome, SI must
 * be matched by some that passes (both directions: a witness that rejects good snapshots fails
 * too). Larger histories get a random sample, one direction. Through checkHistory, times that
 * pass decide SI and the levels below it ('recorded-order') and the oracle agrees.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkHistory } from '../../src/check/index.ts';
import { snapshotOrderBreaks, snapshotWindows } from '../../src/check/snapshot-order.ts';
import { TXN_COMMITTED, type History } from '../../src/history/model.ts';
import { axiomaticLevel } from '../oracle/brute-force-levels.ts';
import { axiomaticPredLevel } from '../oracle/brute-force-predicates.ts';
import { predHistoryText } from '../oracle/predicate-history.ts';
import { buildPredHistory, tinyPredicateHistory } from '../support/gen-predicates.ts';
import { caseSeed, mulberry32, tinyMixedHistory } from '../support/gen.ts';
import { predicateHistory } from '../support/predicate-history.ts';

const CASES = Number(process.env['POLYSI_SNAPSHOT_ORDER_CASES'] ?? 300);
const SAMPLES = 200;

function permutations(xs: readonly number[]): number[][] {
  if (xs.length <= 1) return [xs.slice()];
  const out: number[][] = [];
  xs.forEach((x, i) => { for (const rest of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) out.push([x, ...rest]); });
  return out;
}

/** Every choice of a visible prefix length per place i of CO (0 .. i). */
function prefixChoices(n: number): number[][] {
  let out: number[][] = [[]];
  for (let i = 0; i < n; i++) out = out.flatMap((c) => Array.from({ length: i + 1 }, (_, l) => [...c, l]));
  return out;
}

/** `h` with times realising CO = `order` and VIS(order[i]) = the first `vis[i]` of it; other txns overlap everything. */
function withTimes(h: History, order: readonly number[], vis: readonly number[]): History {
  const start = new Float64Array(h.txnCount).fill(0), end = new Float64Array(h.txnCount).fill(10 * h.txnCount + 20);
  order.forEach((t, i) => { end[t] = 10 * (i + 1); start[t] = 10 * vis[i]! + 5; });
  return { ...h, txnStart: start, txnEnd: end };
}

test(`snapshot order: ${CASES} tiny predicate histories, commit orders and snapshots as recorded times, against the oracle's SI`, () => {
  const failures: string[] = [];
  let proved = 0, exhaustive = 0, viaCheck = 0;
  for (let i = 0; i < CASES; i++) {
    const rng = mulberry32(caseSeed(8484, i));
    const { history: p, generator } = tinyPredicateHistory(rng);
    const h = buildPredHistory(p);
    const committed: number[] = [];
    for (let t = 0; t < h.txnCount; t++) if (h.txnStatus[t] === TXN_COMMITTED) committed.push(t);
    const small = committed.length <= 4;
    const tries: [number[], number[]][] = [];
    if (small) {
      for (const o of permutations(committed)) for (const v of prefixChoices(committed.length)) tries.push([o, v]);
    } else {
      for (let s = 0; s < SAMPLES; s++) {
        const o = committed.slice().sort(() => rng() - 0.5);
        tries.push([o, o.map((_, j) => Math.floor(rng() * (j + 1)))]);
      }
    }
    const passing = tries.find(([o, v]) => snapshotOrderBreaks(withTimes(h, o, v)) === null);
    const si = axiomaticPredLevel(p, 'si');
    if (passing !== undefined) {
      proved++;
      if (si !== 'valid' && failures.length < 5) failures.push(`case ${i} (${generator}): CO ${passing[0].join(',')} with prefixes ${passing[1].join(',')} passes, oracle SI ${si}\n${predHistoryText(p)}`);
      if (i % 5 === 0) {
        const timed = withTimes(h, passing[0], passing[1]);
        for (const level of ['si', 'pl-si', 'pc', 'psi', 'strict-si', 'tcc', 'ra'] as const) {
          viaCheck++;
          const r = checkHistory(timed, { level, pruning: true, timeoutMs: 20_000 });
          if ((r.verdict !== 'valid' || r.decidedBy !== 'recorded-order') && failures.length < 5) failures.push(`case ${i} ${level}: ${r.verdict} by ${r.decidedBy}`);
        }
      }
    } else if (small && si === 'valid' && p.txns.every((t) => t.status !== 'unknown')) {
      if (failures.length < 5) failures.push(`case ${i} (${generator}): SI, but no commit order and snapshots pass\n${predHistoryText(p)}`);
    }
    if (small) exhaustive++;
  }
  assert.deepEqual(failures, []);
  assert.ok(proved >= CASES / 5, `only ${proved} histories had passing snapshots`);
  assert.ok(exhaustive >= CASES / 3, `only ${exhaustive} histories were small enough to try exhaustively`);
  assert.ok(viaCheck > 0);
});

/**
 * A snapshot taken after the invocation (the window): T2 is invoked before T1 completes, yet
 * its select and count see T1's insert, as a database that takes T2's snapshot at its first
 * statement (PostgreSQL, the embedded store) records it. The two write different rows.
 *
 *   time   0    1         4                 8
 *   T1 s1  [----ins(1,10)-]                          invoked 0, completed 4
 *   T2 s2       [--- select(R, value > 0) -> {1:10}, count(R, value > 0) -> 1, ins(2,20) ---]
 *                                                    invoked 1, completed 8
 *
 * CO = T1, T2; lo(T2) = 0 (nothing completed before T2 was invoked), and p(T2) = 1 meets every
 * axiom. Before the windows, VIS(T2) was fixed to lo(T2) = 0 and the step said no. It is strict
 * SI too: real time asks only that a txn that completed before T2 was invoked be in T2's
 * snapshot (none did), which the key-value twin below confirms with the axiomatic oracle.
 */
test('snapshot windows: a txn whose snapshot was taken after its invocation sees a txn that completed in between', () => {
  const h = predicateHistory({ R: [1, 2] }, {
    s1: [{ id: 'T1', ops: [['insert', 1, 10]] }],
    s2: [{ id: 'T2', ops: [['select', 'R', 'value > 0', [[1, 10]]], ['count', 'R', 'value > 0', 1], ['insert', 2, 20]] }],
  });
  const timed: History = { ...h, txnStart: Float64Array.of(0, 1), txnEnd: Float64Array.of(4, 8) };
  assert.equal(snapshotOrderBreaks(timed), null);
  const w = snapshotWindows(timed);
  assert.ok(typeof w !== 'string');
  assert.deepEqual([w.lo[1], w.snap[1], w.late], [0, 1, 1]);
  for (const level of ['si', 'strict-si', 'pl-si', 'pc', 'psi', 'tcc', 'ra', 'rc'] as const) {
    const r = checkHistory(timed, { level, pruning: true });
    assert.equal(r.verdict, 'valid', level);
    assert.equal(r.decidedBy, 'recorded-order', level);
  }
  // (T1 then T2 is also a serial execution, which the serial step finds first through
  // checkHistory; the next test is not.)
  const twin = predicateHistory({}, {
    s1: [{ id: 'T1', ops: [['w', 'x', 10]] }],
    s2: [{ id: 'T2', ops: [['r', 'x', 10], ['w', 'y', 20]] }],
  });
  assert.equal(axiomaticLevel({ ...twin, txnStart: Float64Array.of(0, 1), txnEnd: Float64Array.of(4, 8) }, 'strict-si'), 'valid');
});

/**
 * Windows on overlapping writers of other rows, not serial in completion order: T3's snapshot
 * must hold T1 (it read row 1 at 10) and not T2 (it did not see row 2), and T2 completed after
 * T1, so p(T3) = 1 of CO = T1, T2, T3, later than its invocation (lo = 0).
 *
 *   time   0      2      4      6       9
 *   T1 s1  [ins(1,10)]                               0 - 3
 *   T2 s2     [---- ins(2,20) ----]                  1 - 6
 *   T3 s3   [-- select(R, true) -> {1:10}, ins(3,30) --]   0.5 - 9 (snapshot between 3 and 6)
 */
test('snapshot windows: the least position meeting every read lies inside the window', () => {
  const h = predicateHistory({ R: [1, 2, 3] }, {
    s1: [{ id: 'T1', ops: [['insert', 1, 10]] }],
    s2: [{ id: 'T2', ops: [['insert', 2, 20]] }],
    s3: [{ id: 'T3', ops: [['select', 'R', 'true', [[1, 10]]], ['insert', 3, 30]] }],
  });
  const timed: History = { ...h, txnStart: Float64Array.of(0, 1, 0.5), txnEnd: Float64Array.of(3, 6, 9) };
  const w = snapshotWindows(timed);
  assert.ok(typeof w !== 'string' && w.why === null);
  assert.equal(w.snap[2], 1);
  for (const level of ['si', 'strict-si'] as const) {
    const r = checkHistory(timed, { level, pruning: true });
    assert.deepEqual([r.verdict, r.decidedBy], ['valid', 'recorded-order'], level);
    assert.match(r.notes?.[0] ?? '', /1 of 3 read a snapshot taken after their invocation/);
  }
});

/**
 * No window: the step must not say valid (and the full check decides).
 * (a) a fractured select: T2 sees T1's insert of row 1 and not of row 2; no prefix of CO holds
 *     one and not the other (read atomic forbids it).
 *       T1 s1  [ins(1,10) ins(2,20)]                 0 - 4
 *       T2 s2     [select(R, true) -> {1:10}]        1 - 8
 * (b) a stale read after the insert completed: T1 completed before T2 was invoked, so T1 is in
 *     every snapshot T2 may have (lo = 1), yet T2 misses it: SI (T2 first in CO) but not strict SI.
 *       T1 s1  [ins(1,10)]                           0 - 2
 *       T2 s2              [select(R, true) -> {}]   3 - 5
 */
test('snapshot windows: no window exists, and the step does not say valid', () => {
  const fractured = predicateHistory({ R: [1, 2] }, {
    s1: [{ id: 'T1', ops: [['insert', 1, 10], ['insert', 2, 20]] }],
    s2: [{ id: 'T2', ops: [['select', 'R', 'true', [[1, 10]]]] }],
  });
  const a: History = { ...fractured, txnStart: Float64Array.of(0, 1), txnEnd: Float64Array.of(4, 8) };
  assert.match(snapshotOrderBreaks(a) ?? '', /no snapshot between its invocation and its commit: its select's result on row 2/);
  for (const level of ['si', 'ra'] as const) {
    const r = checkHistory(a, { level, pruning: true });
    assert.equal(r.verdict, 'violation', level);
  }
  const stale = predicateHistory({ R: [1] }, {
    s1: [{ id: 'T1', ops: [['insert', 1, 10]] }],
    s2: [{ id: 'T2', ops: [['select', 'R', 'true', []]] }],
  });
  const b: History = { ...stale, txnStart: Float64Array.of(0, 3), txnEnd: Float64Array.of(2, 5) };
  assert.notEqual(snapshotOrderBreaks(b), null);
  const strict = checkHistory(b, { level: 'strict-si', pruning: true });
  assert.equal(strict.verdict, 'violation');
  const si = checkHistory(b, { level: 'si', pruning: true });
  assert.equal(si.verdict, 'valid');
  assert.notEqual(si.decidedBy, 'recorded-order');
});

/**
 * Step 2's time order picks versions at the window's position (check/predicates.ts, timeOrder):
 *
 *   time   0        5          10          20
 *   T2 s2           [ ins(2,1) ]                                   5 - 10
 *   T1 s1           [ select(R, value % 2 = 1) -> {}, count(R, value != 5) -> 1 ]   5 - 20
 *
 * T1's select misses T2's insert and its count sees it: a predicate read that is not repeated
 * (PMP, T1 -RW-> T2 -WR-> T1 through predicate reads), which repeatable read (PL-2.99) allows
 * and SI forbids. No window exists (the step says nothing), but the search's last position for
 * T1 (past T2, where the count holds) gives the count's row its version; picking at T1's
 * invocation instead (nothing completed then) contradicted the count, and RR was `unknown`.
 */
test('snapshot windows: step 2 picks versions at the window position, and repeatable read is decided', () => {
  const h = predicateHistory({ R: [1, 2] }, {
    s1: [{ id: 'T1', ops: [['select', 'R', 'value % 2 = 1', []], ['count', 'R', 'value != 5', 1]] }],
    s2: [{ id: 'T2', ops: [['insert', 2, 1]] }],
  });
  const timed: History = { ...h, txnStart: Float64Array.of(5, 5), txnEnd: Float64Array.of(20, 10) };
  assert.notEqual(snapshotOrderBreaks(timed), null);
  const rr = checkHistory(timed, { level: 'rr', pruning: true });
  assert.equal(rr.verdict, 'valid');
  assert.equal(checkHistory(timed, { level: 'si', pruning: true }).verdict, 'violation');
});

/**
 * The windows' strict-SI claim against the key-value levels oracle (test/oracle/brute-force-levels.ts,
 * whose axiomatic strict SI is SI with RT within VIS: a txn that completed before another was
 * invoked is in its snapshot): on tiny register histories with random completion orders and
 * invocation times, whenever the windows pass (the step works on any history's reads and
 * writes), the oracle must say strict SI; some of those must use a snapshot later than the
 * invocation, or the test says nothing about windows.
 */
test('snapshot windows: a window witness is strict SI by the key-value oracle', () => {
  const failures: string[] = [];
  let passed = 0, late = 0;
  for (let i = 0; i < 400; i++) {
    const rng = mulberry32(caseSeed(8585, i));
    const { history: h } = tinyMixedHistory(rng, 5);
    const committed: number[] = [];
    for (let t = 0; t < h.txnCount; t++) if (h.txnStatus[t] === TXN_COMMITTED) committed.push(t);
    for (let s = 0; s < 6; s++) {
      const o = committed.slice().sort(() => rng() - 0.5);
      const timed = withTimes(h, o, o.map((_, j) => Math.floor(rng() * (j + 1))));
      const w = snapshotWindows(timed);
      if (typeof w === 'string' || w.why !== null) continue;
      passed++;
      if (w.late > 0) late++;
      const oracle = axiomaticLevel(timed, 'strict-si');
      if (oracle !== 'valid' && failures.length < 5) failures.push(`case ${i}: windows pass (CO ${o.join(',')}), oracle strict-si ${oracle}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(late >= 50, `only ${late} of ${passed} passing timings used a later snapshot`);
});
