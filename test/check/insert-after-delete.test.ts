/**
 * An insert over a row its own snapshot holds, after a concurrent delete (found by the predicate
 * workload on PostgreSQL repeatable read, which commits it; `polysi probe`'s insert-after-delete):
 *
 *   t1: ins(a,10)
 *   t2:            select(value = 10) -> {a:10}                 ins(a,20)
 *   t3:                                  del(a)
 *
 * t2 saw t1's a, so t3's delete is not in its snapshot; its insert needs a absent just before it,
 * so it follows the initial version (then t2 -RW-> t1 -WR-> t2) or t3's delete (then t2 -RW-> t3
 * -WR-> t2): both t2 and t3 wrote a concurrently, which NOCONFLICT (PSI, SI) and serializability
 * forbid, and read committed allows. The note must say what the choice is (the insert's
 * precondition), not call it a predicate read.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHistory } from '../../src/check/index.ts';
import { predicateHistory } from '../support/predicate-history.ts';

const h = predicateHistory({ test: ['a'] }, {
  T1: [{ id: 't1', ops: [['insert', 'a', 10]] }],
  T2: [{ id: 't2', ops: [['select', 'test', 'value = 10', [['a', 10]]], ['insert', 'a', 20]] }],
  T3: [{ id: 't3', ops: [['delete', 'a']] }],
});

test('insert after a concurrent delete: violation at psi, si and ser, one certified cycle per absent version', () => {
  for (const level of ['psi', 'si', 'ser'] as const) {
    const r = checkHistory(h, { level, pruning: true, explain: true });
    assert.equal(r.verdict, 'violation', level);
    assert.equal(r.anomalies.length, 2, level);
    for (const a of r.anomalies) assert.equal(a.explanation?.certificate?.status, 'certified', level);
    const notes = r.notes?.join(' ') ?? '';
    assert.match(notes, /t2's insert of row a needs the row absent just before it: after one of 2 versions/, level);
    assert.doesNotMatch(notes, /predicate read did not return/, level);
  }
});
