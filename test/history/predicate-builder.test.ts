// HistoryBuilder's relations, inserts, deletes and predicate reads (issue 22): the PredicateTable
// they build, describeOp's renderings, and assertHistory's checks of the new columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder } from '../../src/history/builder.ts';
import {
  assertHistory,
  describeOp,
  INITIAL_VALUE,
  OP_COUNT,
  OP_DELETE,
  OP_INSERT,
  OP_READ,
  OP_SELECT,
  type History,
} from '../../src/history/model.ts';
import { matches, PredicateSyntaxError } from '../../src/history/predicate.ts';
import { rowKey, rowValue } from '../../src/history/predicate-table.ts';

/** T1 inserts x=3 and y=4 into R; T2 selects value % 3 = 0 and counts rows, deletes x, reads it absent. */
function phantomish(): History {
  const b = new HistoryBuilder('<pred>');
  b.relation('R', ['x', 'y']);
  b.relation('S', [10]);
  b.relation('R', ['z']); // extends R
  const t1 = b.beginTxn(b.session('s1'), 'T1');
  b.insert(t1, 'x', 3);
  b.insert(t1, 'y', 4);
  b.write(t1, 'plain', 1);
  const t2 = b.beginTxn(b.session('s2'), 'T2');
  b.select(t2, 'R', 'value % 3 = 0', [['x', 3]]);
  b.count(t2, 'R', 'value >= 3', 2);
  b.delete(t2, 'x');
  b.read(t2, 'x', null);
  b.select(t2, 'S', 'key = 10', []);
  return b.build();
}

test('builder: relations, inserts, deletes, selects and counts make the PredicateTable', () => {
  const h = phantomish();
  const t = h.predicates!;
  assert.ok(t !== undefined);
  assert.deepEqual(t.relationLabels, ['R', 'S']);
  const keyOf = (l: string): number => h.keyLabels.indexOf(l);
  const rKeys = Array.from(t.relKeys.subarray(t.relStart[0], t.relStart[1]));
  assert.deepEqual(rKeys, [keyOf('x'), keyOf('y'), keyOf('z')].sort((a, b) => a - b));
  assert.deepEqual(Array.from(t.relKeys.subarray(t.relStart[1], t.relStart[2])), [keyOf('10')]);
  assert.equal(t.keyRelation[keyOf('plain')], -1);
  assert.equal(t.keyRelation[keyOf('z')], 0);
  assert.deepEqual(t.text, ['value % 3 = 0', 'value >= 3', 'key = 10']);
  assert.deepEqual(Array.from(t.count), [-1, 2, -1]);
  assert.deepEqual(Array.from(t.resultStart), [0, 1, 1, 1]);
  assert.equal(h.keyLabels[t.resultKeys[0]!], 'x');
  assert.equal(rowValue(h, t.resultValues[0]!), 3);
  assert.ok(matches(t.parsed[0]!, rowKey(h, t.resultKeys[0]!), rowValue(h, t.resultValues[0]!)));
  assert.equal(rowKey(h, keyOf('10')), 10);
  assert.equal(rowKey(h, keyOf('x')), 'x');
  assert.equal(rowValue(h, INITIAL_VALUE), null);

  const kinds = Array.from(h.opKind);
  assert.deepEqual(kinds, [OP_INSERT, OP_INSERT, 1, OP_SELECT, OP_COUNT, OP_DELETE, OP_READ, OP_SELECT]);
  const ops = Array.from({ length: h.opCount }, (_, op) => describeOp(h, op));
  assert.deepEqual(ops, [
    'ins(x,3)', 'ins(y,4)', 'w(plain,1)',
    'select(R, value % 3 = 0) -> {x:3}', 'count(R, value >= 3) -> 2', 'del(x)', 'r(x,absent)', 'select(S, key = 10) -> {}',
  ]);
  assert.equal(h.opValue[5], INITIAL_VALUE);
});

test('builder: a key-value history has no PredicateTable', () => {
  const b = new HistoryBuilder();
  const t = b.beginTxn(b.session(1));
  b.write(t, 'x', 1);
  b.read(t, 'x', null);
  const h = b.build();
  assert.equal(h.predicates, undefined);
  assert.equal(describeOp(h, 1), 'r(x,init)');
});

test('builder: calls the model forbids throw', () => {
  const b = new HistoryBuilder();
  b.relation('R', ['x']);
  const t = b.beginTxn(b.session(1));
  assert.throws(() => b.relation('S', ['x']), /key x of relation S already belongs to relation R/);
  assert.throws(() => b.insert(t, 'plain', 1), /insert of key plain, which is in no relation/);
  assert.throws(() => b.delete(t, 'plain'), /delete of key plain/);
  assert.throws(() => b.insert(t, 'x', null), /no value/);
  assert.throws(() => b.select(t, 'Q', 'true', []), /relation Q, which is not declared/);
  b.relation('S', ['s']);
  assert.throws(() => b.select(t, 'R', 'true', [['s', 1]]), /not a key of R/);
  assert.throws(() => b.select(t, 'R', 'true', [['x', 1], ['x', 2]]), /returned key x twice/);
  assert.throws(() => b.select(t, 'R', 'true', [['x', null]]), /absent row/);
  assert.throws(() => b.count(t, 'R', 'true', -1), /not a count/);
  assert.throws(() => b.select(t, 'R', 'value %', []), (e: unknown) => e instanceof PredicateSyntaxError && e.column === 8);
  // Nothing of the refused calls was recorded.
  assert.equal(b.opCount, 0);
  b.count(t, 'R', 'true', 0);
  assert.equal(b.build().predicates!.text.length, 1);
});

test('assertHistory: rejects malformed predicate columns', () => {
  const h = phantomish();
  const t = h.predicates!;
  const broken = (patch: Partial<History['predicates'] & object>, what: RegExp): void => {
    assert.throws(() => assertHistory({ ...h, predicates: { ...t, ...patch } }), what);
  };
  assertHistory(h);
  const keys = Int32Array.from(t.resultKeys);
  keys[0] = h.keyLabels.indexOf('10'); // a row of S in a select over R
  broken({ resultKeys: keys }, /resultKeys\[0\]/);
  broken({ count: Int32Array.from([-1, -1, -1]) }, /count\[1\]/);
  broken({ resultValues: Int32Array.from([INITIAL_VALUE]) }, /resultValues\[0\]/);
  broken({ keyRelation: new Int32Array(h.keyLabels.length).fill(-1) }, /relKeys/);
  // An insert on a plain key; a predicate op in a history without relations.
  const kinds = Uint8Array.from(h.opKind);
  kinds[2] = OP_INSERT;
  assert.throws(() => assertHistory({ ...h, opKind: kinds }), /insert\/delete of a key in no relation/);
  const { predicates: _, ...noPred } = h;
  assert.throws(() => assertHistory(noPred), /opKind\[0\]/);
});
