// Until the predicate checker lands (pred-core), a history with an insert, delete, select or
// count is refused with an 'unsupported' InputError at the op, at every level, never checked as
// item reads and writes; relations with only r/w ops keep item semantics and are checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { InputError } from '../../src/history/errors.ts';
import { checkHistory } from '../../src/check/index.ts';
import { checkLevels } from '../../src/check/ladder.ts';
import type { History } from '../../src/history/model.ts';

function withRelation(op: 'insert' | 'delete' | 'select' | 'count' | 'none'): History {
  const b = new HistoryBuilder('<pred>', 'line');
  b.relation('R', ['x', 'y']);
  const t1 = b.beginTxn(b.session('s1'), 'T1', 0, 1);
  b.write(t1, 'x', 1, 1);
  const t2 = b.beginTxn(b.session('s2'), 'T2', 0, 2);
  b.read(t2, 'x', 1, 2);
  b.read(t2, 'y', null, 2);
  if (op === 'insert') b.insert(t2, 'y', 5, 7);
  if (op === 'delete') b.delete(t2, 'x', 7);
  if (op === 'select') b.select(t2, 'R', 'value = 1', [['x', 1]], 7);
  if (op === 'count') b.count(t2, 'R', 'value = 1', 1, 7);
  return b.build();
}

for (const op of ['insert', 'delete', 'select', 'count'] as const) {
  test(`a history with a ${op} is refused at check time, naming the op and its line`, () => {
    const h = withRelation(op);
    for (const level of ['ser', 'si', 'rc', 'ru', 'rr'] as const) {
      assert.throws(() => checkHistory(h, { level, pruning: true }), (e: unknown) =>
        e instanceof InputError && e.code === 'unsupported' && e.loc === 7 && /does not yet decide inserts, deletes and predicate reads/.test(e.message));
    }
    // No level of the ladder can use it: the ladder says so (the caller's error, as for one level).
    assert.throws(() => checkLevels(h, { pruning: true }), (e: unknown) => e instanceof InputError && e.code === 'unsupported');
  });
}

test('relations with only item reads and writes are checked as item histories', () => {
  const r = checkHistory(withRelation('none'), { level: 'ser', pruning: true });
  assert.equal(r.verdict, 'valid');
});
