/**
 * One boundary history per adjacent pair of the ladder's polygraph levels: it satisfies the
 * weaker level and violates the stronger, checked by the pipeline and by the brute-force
 * oracles (test/oracle/brute-force-levels.ts), with the counterexample's name (docs/levels.md).
 * TCC's side is shown by the axiomatic oracle (TCC itself is decided by saturation, elsewhere).
 *
 * Drawings: sessions are columns, time runs down; `-X->` an edge of kind X.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkHistory } from '../../src/check/index.ts';
import type { History } from '../../src/history/model.ts';
import type { Level } from '../../src/result/types.ts';
import { axiomaticLevel, graphLevel, type LadderLevel } from '../oracle/brute-force-levels.ts';
import { tinyHistory, type TinyTxn } from '../support/tiny-history.ts';
import { renderExplanationText } from '../../src/render/text.ts';
import { renderDot } from '../../src/render/dot.ts';
import { anomalyLabel } from '../../src/render/text.ts';

/** A tiny history with [start, end] times per txn (in list order). */
function timed(txns: readonly TinyTxn[], times: readonly (readonly [number, number])[]): History {
  const h = tinyHistory(txns);
  return { ...h, txnStart: Float64Array.from(times, (x) => x[0]), txnEnd: Float64Array.from(times, (x) => x[1]) };
}

function verdict(h: History, level: Level): { verdict: string; name: string | undefined } {
  const r = checkHistory(h, { level, pruning: true, explain: true });
  const a = r.anomalies[0];
  // Every counterexample passes its independent certificate (certify.ts) for the level.
  if (a?.type === 'cycle') assert.equal(a.explanation?.certificate.status, 'certified', `${level}: ${a.explanation?.certificate.reason}`);
  return { verdict: r.verdict, name: a?.explanation === undefined ? undefined : anomalyLabel(a.explanation) };
}

/** `h` satisfies `weaker` and violates `stronger` (named `name`), by the pipeline and both oracles. */
function boundary(h: History, weaker: LadderLevel | 'tcc', stronger: LadderLevel, name: string): void {
  if (weaker === 'tcc') assert.equal(axiomaticLevel(h, 'tcc'), 'valid', 'TCC (axiomatic oracle)');
  else {
    assert.equal(verdict(h, weaker).verdict, 'valid', `${weaker} (checker)`);
    assert.equal(graphLevel(h, weaker), 'valid', `${weaker} (graph oracle)`);
    if (weaker !== 'rr') assert.equal(axiomaticLevel(h, weaker), 'valid', `${weaker} (axiomatic oracle)`);
  }
  const v = verdict(h, stronger);
  assert.equal(v.verdict, 'violation', `${stronger} (checker)`);
  assert.equal(v.name, name, `${stronger}: the counterexample's name`);
  assert.equal(graphLevel(h, stronger), 'violation', `${stronger} (graph oracle)`);
  if (stronger !== 'rr') assert.equal(axiomaticLevel(h, stronger), 'violation', `${stronger} (axiomatic oracle)`);
}

/*
 * Lost update:    T1: r(x,0) w(x,1)      T2: r(x,0) w(x,2)
 *   T1 -WW(x)-> T2 -RW(x)-> T1 (or the mirror): a cycle with one RW edge, right after a WW edge.
 * PC allows it (an RW edge after WW, not after SO/WR); PSI and SI forbid it (NOCONFLICT).
 */
const LOST_UPDATE = tinyHistory([{ s: 1, ops: 'r(x,0) w(x,1)' }, { s: 2, ops: 'r(x,0) w(x,2)' }]);

/*
 * Long fork:   T1: w(x,1)   T2: w(y,1)   T3: r(x,1) r(y,0)   T4: r(x,0) r(y,1)
 *   T1 -WR(x)-> T3 -RW(y)-> T2 -WR(y)-> T4 -RW(x)-> T1: two RW edges, never adjacent.
 * TCC and PSI allow it (the two writes are seen in opposite orders); PC and SI forbid it.
 */
const LONG_FORK = tinyHistory([
  { s: 1, ops: 'w(x,1)' }, { s: 2, ops: 'w(y,1)' }, { s: 3, ops: 'r(x,1) r(y,0)' }, { s: 4, ops: 'r(x,0) r(y,1)' },
]);

/*
 * Write skew:   T1: r(x,0) r(y,0) w(x,1)     T2: r(x,0) r(y,0) w(y,1)
 *   T1 -RW(y)-> T2 -RW(x)-> T1: two adjacent RW edges (G2-item).
 * SI allows it; SER and RR (PL-2.99) forbid it.
 */
const WRITE_SKEW = tinyHistory([{ s: 1, ops: 'r(x,0) r(y,0) w(x,1)' }, { s: 2, ops: 'r(x,0) r(y,0) w(y,1)' }]);

test('TCC < PSI: a lost update is causal but not PSI (PC allows it too)', () => {
  boundary(LOST_UPDATE, 'tcc', 'psi', 'lost update');
  boundary(LOST_UPDATE, 'pc', 'psi', 'lost update');
});

test('TCC < PC and PSI < SI: a long fork', () => {
  boundary(LONG_FORK, 'tcc', 'pc', 'G-nonadjacent (long fork)');
  boundary(LONG_FORK, 'psi', 'si', 'G-nonadjacent (long fork)');
  boundary(LONG_FORK, 'psi', 'pc', 'G-nonadjacent (long fork)'); // PSI and PC are incomparable: this way ...
});

test('PC < SI: a lost update (and PC and PSI are incomparable)', () => {
  boundary(LOST_UPDATE, 'pc', 'si', 'lost update');
  boundary(LOST_UPDATE, 'pc', 'psi', 'lost update'); // ... and the other way
});

test('SI < SER, and RR (PL-2.99) < SER without being above SI: write skew is a G2-item', () => {
  boundary(WRITE_SKEW, 'si', 'ser', 'G2-item (write skew)');
  boundary(WRITE_SKEW, 'psi', 'rr', 'G2-item (write skew)');
});

/*
 * Session order is not in Adya's graph:   session 1:  T1: w(x,1)
 *                                                     T2: r(x,0)
 *   T2 -RW(x)-> T1 -SO-> T2: every other level here keeps SO; PL-2.99 does not.
 */
test('RR < SER: a stale read in one session is PL-2.99 but not (strong session) SER, nor PC', () => {
  const h = tinyHistory([{ s: 1, ops: 'w(x,1)' }, { s: 1, ops: 'r(x,0)' }]);
  boundary(h, 'rr', 'ser', 'G-single-process (session guarantee violation)');
  boundary(h, 'rr', 'pc', 'G-single-process (session guarantee violation)');
});

/*
 * Stale read in real time:   T1: w(x,1)  [0, 1]
 *                                                  T2: r(x,0)  [2, 3]   (another session)
 *   T2 -RW(x)-> T1 -RT-> T2: T2 began after T1 returned, yet missed its write.
 * SER (and SI) allow it, serialising T2 first; the strict levels forbid it.
 */
const STALE = timed([{ s: 1, ops: 'w(x,1)' }, { s: 2, ops: 'r(x,0)' }], [[0, 1], [2, 3]]);

test('SER < strict-SER and SI < strict-SI: a stale read after the write returned is a real-time violation', () => {
  boundary(STALE, 'ser', 'strict-ser', 'G-single-realtime (real-time violation)');
  boundary(STALE, 'si', 'strict-si', 'G-single-realtime (real-time violation)');
});

/*
 * Write skew in real time:   T1: r(x,0) r(y,0) w(x,1)  [0, 2]
 *                            T2: r(x,0) r(y,0) w(y,1)  [1, 3]   (overlapping)
 * strict-SI allows it (the txns overlap, so real time orders nothing); strict-SER forbids it.
 * Also SI < strict-SI cannot be reached from strict-SER: strict-SER < ... is a chain.
 */
test('strict-SI < strict-SER: write skew between overlapping txns', () => {
  const h = timed([{ s: 1, ops: 'r(x,0) r(y,0) w(x,1)' }, { s: 2, ops: 'r(x,0) r(y,0) w(y,1)' }], [[0, 2], [1, 3]]);
  boundary(h, 'strict-si', 'strict-ser', 'G2-item (write skew)');
});

test('real time orders nothing after a txn of unknown outcome, nor without times', () => {
  // T1's outcome is unknown: it may have committed after T2 began, so T2 may miss it.
  const unknown = timed([{ s: 1, ops: 'w(x,1)', status: 'unknown' }, { s: 2, ops: 'r(x,0)' }, { s: 3, ops: 'r(x,1)' }], [[0, 1], [2, 3], [4, 5]]);
  assert.equal(verdict(unknown, 'strict-ser').verdict, 'valid');
  assert.equal(graphLevel(unknown, 'strict-ser'), 'valid');
  const untimed = tinyHistory([{ s: 1, ops: 'w(x,1)' }, { s: 2, ops: 'r(x,0)' }]);
  assert.equal(verdict(untimed, 'strict-ser').verdict, 'valid');
});

test('the named counterexamples render as text and DOT: real-time violation, long fork at SI, G2-item at RR', () => {
  const rt = checkHistory(STALE, { level: 'strict-ser', pruning: true, explain: true }).anomalies[0]!.explanation!;
  const text = renderExplanationText(rt);
  assert.match(text, /real-time violation/);
  assert.match(text, /-RT->/);
  assert.match(text, /was invoked after T1 had committed and returned \(real time\)/);
  assert.match(text, /forbidden by strict serializability/);
  assert.match(renderDot([rt]), /RT/);
  const fork = checkHistory(LONG_FORK, { level: 'si', pruning: true, explain: true }).anomalies[0]!.explanation!;
  assert.match(renderExplanationText(fork), /long fork/);
  // Elle's G2-item example without a more specific shape: three txns, each reading what the next overwrites.
  const g2 = tinyHistory([
    { s: 1, ops: 'r(x,0) w(y,1)' }, { s: 2, ops: 'r(y,0) w(z,1)' }, { s: 3, ops: 'r(z,0) w(x,1)' },
  ]);
  const item = checkHistory(g2, { level: 'rr', pruning: true, explain: true }).anomalies[0]!.explanation!;
  assert.equal(item.class, 'G2-item');
  assert.match(renderExplanationText(item), /forbidden by repeatable read/);
  assert.equal(checkHistory(g2, { level: 'si', pruning: true }).verdict, 'valid');
});
