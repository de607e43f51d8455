/**
 * Repeatable read (Adya's PL-2.99) searched over the predicate reads' choices by lazy refinement
 * (check/rr-search.ts; docs/levels.md, "Predicates", "How it is decided"). Before it, each of
 * these histories was `unknown` at rr: step 1 leaves predicate observations out and the witness
 * failed.
 *
 * Drawings: one transaction per line, ops in order; `-X->` an edge of kind X (pRW: a predicate
 * anti-dependency, RW: an item one, pWR: a predicate read-dependency). Relation R's rows start
 * absent. PL-2.99 forbids G1c and G2-item (a cycle with at least one item anti-dependency) and
 * allows cycles whose anti-dependencies are all predicate ones.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkHistory } from '../../src/check/index.ts';
import { predicateHistory } from '../support/predicate-history.ts';

/**
 * G2-item through a phantom: t1's select misses t2's matching insert of row 1 (t1 -pRW-> t2), and
 * t2 read x before t1 wrote it (t2 -RW-> t1, an item anti-dependency). The cycle has an item
 * anti-dependency: G2-item, forbidden at rr. Neither edge alone is a cycle, and step 1 (no
 * predicate observations) sees only the item one.
 *
 *   t1: select R where value > 5 -> []   w(x,1)
 *   t2: r(x,init)   insert 1=10
 */
test('G2-item through a phantom (an item and a predicate anti-dependency): a violation at rr, the phantom named', () => {
  const h = predicateHistory({ R: [1] }, {
    s1: [{ id: 't1', ops: [['select', 'R', 'value > 5', []], ['w', 'x', 1]] }],
    s2: [{ id: 't2', ops: [['r', 'x', null], ['insert', 1, 10]] }],
  });
  for (const pruning of [true, false]) {
    const r = checkHistory(h, { level: 'rr', pruning, explain: true });
    assert.equal(r.verdict, 'violation', `pruning ${pruning}`);
    assert.equal(r.decidedBy, 'choice-search');
    assert.ok(r.anomalies.length > 0);
    for (const a of r.anomalies) {
      assert.equal(a.explanation?.certificate.status, 'certified');
      assert.equal(a.explanation?.class, 'G2-item');
      assert.match(a.explanation?.summary ?? '', /t1's predicate read `value > 5`.* did not return row 1: it missed t2's ins\(1,10\)/);
      assert.match(a.explanation?.summary ?? '', /G2-item through a phantom/);
    }
  }
});

/**
 * A cycle whose only anti-dependency is a predicate one (PMP through a count): t1's select saw
 * row 1 absent (its only non-matching version: t2's 1 matches), so t1 -pRW-> t2; its count of 1
 * can only have counted t2's row 1, so t2 -pWR-> t1. PL-2.99 allows it (a phantom), SER and PL-3
 * forbid it. The witness of step 2 picks versions by an order that puts t1 first, where the count
 * is 0: it fails, and only the search decides.
 *
 *   t1: select R where value != 5 -> []   count R where value != 5 -> 1
 *   t2: insert 1=1
 */
test('a cycle of predicate anti-dependencies only: valid at rr, a violation at ser', () => {
  const h = predicateHistory({ R: [1, 2, 3] }, {
    s1: [{ id: 't1', ops: [['select', 'R', 'value != 5', []], ['count', 'R', 'value != 5', 1]] }],
    s2: [{ id: 't2', ops: [['insert', 1, 1]] }],
  });
  for (const pruning of [true, false]) {
    const r = checkHistory(h, { level: 'rr', pruning });
    assert.equal(r.verdict, 'valid', `pruning ${pruning}`);
    assert.equal(r.decidedBy, 'choice-search');
    assert.match(r.notes?.join(' ') ?? '', /no cycle has an item anti-dependency/);
    assert.equal(checkHistory(h, { level: 'ser', pruning }).verdict, 'violation');
    assert.equal(checkHistory(h, { level: 'pl-3', pruning }).verdict, 'violation');
  }
});

/**
 * Two refinement rounds, then unsat. P = `value % 2 = 1 or key = 1` (row 1 matches when present;
 * row 2 when odd). t1's insert of row 2 follows the initial (absent) version, so t2's w(2,2)
 * comes after it, and t3, which read t1's row 2, has t3 -RW-> t2 (item). t2's count of 1 saw
 * exactly one matching row (it writes row 2 itself afterwards), so either
 * - row 1 absent and row 2 t1's: t2 -pRW-> t3 (t3 inserts a matching row 1): t2 -pRW-> t3 -RW-> t2;
 * - row 1 t3's and row 2 absent: t2 -pRW-> t1 (t1 inserts a matching row 2) -WR-> t3 -RW-> t2.
 * Each closes a cycle with an item anti-dependency only through a predicate one, so the theory
 * (WW, WR, item RW) has a model for each and the refinement refutes them one after the other.
 *
 *   t1: insert 2=1
 *   t2: count R where P -> 1   w(2,2)
 *   t3: select R where P -> [(2,1)]   insert 1=3
 */
test('a violation the refinement needs two rounds for', () => {
  const P = 'value % 2 = 1 or key = 1';
  const h = predicateHistory({ R: [1, 2] }, {
    s0: [{ id: 't1', ops: [['insert', 2, 1]] }],
    s1: [{ id: 't2', ops: [['count', 'R', P, 1], ['w', 2, 2]] }],
    s2: [{ id: 't3', ops: [['select', 'R', P, [[2, 1]]], ['insert', 1, 3]] }],
  });
  const r = checkHistory(h, { level: 'rr', pruning: true, explain: true });
  assert.equal(r.verdict, 'violation');
  assert.equal(r.decidedBy, 'choice-search');
  assert.match(r.notes?.join(' ') ?? '', /\b2 models refuted/);
  for (const a of r.anomalies) assert.equal(a.explanation?.certificate.status, 'certified');
  // Without pruning, t1's version of row 2 is not known to precede t2's own write, and reading it
  // as an item read is stricter than Adya there (docs/levels.md, Limits): unknown, never valid.
  assert.notEqual(checkHistory(h, { level: 'rr', pruning: false }).verdict, 'valid');
});

/**
 * The pipeline gives a reader an anti-dependency to every later writer of what it read; when the
 * reader writes the row itself in between, that edge stands for a write-write one, not an item
 * anti-dependency. Here t2 and t3 both read t1's row 1 and both overwrite it. With t3's write
 * first: t2's count (a predicate read) -pRW-> t3 (its 5 stops matching) and t3 -WW-> t2: a cycle
 * with a predicate anti-dependency only, which rr allows; t3's item read of t1's row 1 is followed
 * by t3's own write, so its "t3 -RW-> t2" is no item anti-dependency. (Found by the differential
 * against the predicate oracle, seed 777: taken as G2-item, the search said violation.)
 *
 *   t1: insert 1=1  insert 2=2  insert 3=3
 *   t2: count R where value != 5 -> 3   w(1,4)
 *   t3: select R where value != 5 -> [(1,1) (2,2) (3,3)]   w(1,5)
 */
test('a read-modify-write\'s edge to a later writer is not an item anti-dependency', () => {
  const h = predicateHistory({ R: [1, 2, 3] }, {
    s0: [{ id: 't1', ops: [['insert', 1, 1], ['insert', 2, 2], ['insert', 3, 3]] }],
    s1: [{ id: 't2', ops: [['count', 'R', 'value != 5', 3], ['w', 1, 4]] }],
    s2: [{ id: 't3', ops: [['select', 'R', 'value != 5', [[1, 1], [2, 2], [3, 3]]], ['w', 1, 5]] }],
  });
  const r = checkHistory(h, { level: 'rr', pruning: true });
  assert.equal(r.verdict, 'valid');
  assert.equal(r.decidedBy, 'choice-search');
  assert.notEqual(checkHistory(h, { level: 'rr', pruning: false }).verdict, 'violation');
  assert.equal(checkHistory(h, { level: 'ser', pruning: true }).verdict, 'violation');
});
