// JSON Lines with relations, inserts, deletes, selects and counts (issue 22; docs/formats.md,
// "Predicates"): the documented example, round trips, the fast path against the general one,
// and each bad input the contract names with its code, line and message.
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { InputError } from '../../src/history/errors.ts';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { assertHistory, describeOp, INITIAL_VALUE, OP_COUNT, OP_DELETE, OP_INSERT, OP_READ, OP_SELECT, OP_WRITE, type History } from '../../src/history/model.ts';
import { parseJsonl, parseJsonlGeneral, writeJsonl } from '../../src/formats/jsonl.ts';
import { diffHistories } from '../../src/formats/io-diff.ts';
import { mulberry32 } from '../support/gen.ts';

const HEADER = '{"format":"polysi-history","version":1,"sessions":["s1","s2"],"relations":{"R":["x","y",3],"S":[]}}';

/** The example of docs/formats.md, "Predicates": the first jsonl block after that heading. */
const DOC = readFileSync(fileURLToPath(new URL('../../docs/formats.md', import.meta.url)), 'utf8');
const EXAMPLE = /### Predicates[\s\S]*?```jsonl\n([\s\S]*?)```/.exec(DOC)![1]!;

function roundTrip(h: History, what: string): void {
  const text = writeJsonl(h);
  const back = parseJsonl(text, 'rt.jsonl');
  assertHistory(back);
  assert.equal(diffHistories(h, back), null, what);
  const again = writeJsonl(back);
  assert.equal(diffHistories(back, parseJsonl(again, 'rt2.jsonl'), true), null, what);
  assert.equal(again, text, what);
}

test('jsonl predicates: the documented example reads as documented', () => {
  const h = parseJsonl(EXAMPLE, 'ex.jsonl');
  const t = h.predicates!;
  assert.deepEqual(t.relationLabels, ['R', 'S']);
  assert.deepEqual(Array.from(t.relKeys, (k) => h.keyLabels[k]), ['x', 'y', '3']);
  assert.equal(t.relStart[2], 3); // S has no keys
  assert.deepEqual(Array.from(h.opKind), [OP_INSERT, OP_INSERT, OP_WRITE, OP_SELECT, OP_COUNT, OP_DELETE, OP_READ]);
  assert.equal(h.opValue[5], INITIAL_VALUE);
  assert.deepEqual(Array.from({ length: h.opCount }, (_, op) => describeOp(h, op)), [
    'ins(x,3)', 'ins(y,4)', 'w(3,6)', 'select(R, value % 3 = 0) -> {x:3, 3:6}', 'count(R, value >= 3) -> 3', 'del(x)', 'r(x,absent)',
  ]);
  assert.deepEqual(Array.from(h.opLoc), [2, 2, 2, 3, 3, 3, 3]);
  assert.deepStrictEqual(h, parseJsonlGeneral(EXAMPLE, 'ex.jsonl'));
  roundTrip(h, 'example');
});

test('jsonl predicates: a result row that contradicts its predicate is read as written (the database\'s fault, not bad input)', () => {
  const h = parseJsonl(`${HEADER}\n{"session":"s1","ops":[["select","R","value > 10",[["x",3]]]]}\n`, 'm.jsonl');
  assert.equal(describeOp(h, 0), 'select(R, value > 10) -> {x:3}');
});

test('jsonl predicates: random histories round-trip, and the fast path gives the general path\'s History', () => {
  const rng = mulberry32(22);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
  const preds = ['true', 'value % 2 = 0', 'key >= 2 and value < 50', 'not (value between 3 and 9)', 'key = "a"', 'value != "s"'];
  for (let round = 0; round < 60; round++) {
    const b = new HistoryBuilder('<rand>');
    const rels = ['R', 'Q'];
    const keysOf = [[0, 1, 2, 'a'], ['b', 7, 'c']] as const;
    b.relation('R', keysOf[0]);
    b.relation('Q', keysOf[1]);
    let value = 1;
    for (let i = 0; i < 12; i++) {
      const t = b.beginTxn(b.session(`s${i % 3}`), `t${i}`);
      for (let j = 0; j < 4; j++) {
        const r = Math.floor(rng() * 2);
        const key = pick(keysOf[r]!);
        switch (Math.floor(rng() * 7)) {
          case 0: b.insert(t, key, value++); break;
          case 1: b.delete(t, key); break;
          case 2: b.write(t, key, rng() < 0.2 ? `v${value++}` : value++); break;
          case 3: b.read(t, key, rng() < 0.5 ? null : Math.floor(rng() * value) || null); break;
          case 4: b.count(t, rels[r]!, pick(preds), Math.floor(rng() * 4)); break;
          case 5: b.write(t, `plain${j}`, value++); break;
          default: {
            const rows = keysOf[r]!.filter(() => rng() < 0.5).map((k) => [k, Math.floor(rng() * value) + 1] as const);
            b.select(t, rels[r]!, pick(preds), rows);
          }
        }
      }
    }
    const h = b.build();
    roundTrip(h, `round ${round}`);
    const text = writeJsonl(h);
    if (round === 0) for (const kind of ['insert', 'delete', 'select', 'count', '"r"', '"w"', 'null']) assert.ok(text.includes(kind), kind);
    assert.deepStrictEqual(parseJsonl(text, 'r.jsonl'), parseJsonlGeneral(text, 'r.jsonl'), `round ${round}`);
  }
});

const txn = (ops: string): string => `${HEADER}\n{"session":"s1","ops":[${ops}]}\n`;
const BAD: Array<[string, string, number, RegExp]> = [
  [txn('["select","R","value %",[]]'), 'syntax', 2, /the predicate "value %" of op 1 does not parse: at column 8 of the predicate, expected an integer after "%"/],
  [txn('["w","z",1],["count","R","key = = 1",0]'), 'syntax', 2, /predicate "key = = 1" of op 2 does not parse: at column 7 of the predicate/],
  [txn('["select","T","true",[]]'), 'inconsistent', 2, /op 1 reads relation "T", which the header's "relations" does not declare/],
  ['{"session":"s1","ops":[["count","R","true",0]]}\n', 'inconsistent', 1, /relation "R", which the header's "relations" does not declare/],
  [txn('["select","R","true",[["x",1],["q",2]]]'), 'inconsistent', 2, /row 2 of the result of op 1 has key "q", which is not a key of relation "R"/],
  [txn('["select","R","true",[["x",1],["x",2]]]'), 'inconsistent', 2, /row 2 of the result of op 1 has key "x" again/],
  [txn('["select","R","true",[["x",null]]]'), 'syntax', 2, /value of row 1 of the result of op 1 to be a value, found null/],
  [txn('["select","R","true",[["x"]]]'), 'syntax', 2, /row 1 of the result of op 1 to be \[key, value\]/],
  [txn('["select","R","true",{}]'), 'syntax', 2, /result of op 1 \(a select\) to be an array/],
  [txn('["select","R",5,[]]'), 'syntax', 2, /predicate of op 1 to be a string/],
  [txn('["select",["R"],"true",[]]'), 'syntax', 2, /relation of op 1 to be a relation's name/],
  [txn('["count","R","true",-1]'), 'syntax', 2, /result of op 1 \(a count\) to be a non-negative integer, found -1/],
  [txn('["count","R","true",1.5]'), 'syntax', 2, /non-negative integer, found 1.5/],
  [txn('["insert","plain",1]'), 'inconsistent', 2, /op 1 inserts key "plain", which is not a key of any relation/],
  [txn('["delete","plain"]'), 'inconsistent', 2, /op 1 deletes key "plain", which is not a key of any relation/],
  [txn('["insert","x",null]'), 'syntax', 2, /op 1 \(an insert\) to be a value, found null/],
  [txn('["delete","x",1]'), 'syntax', 2, /op 1 to be \["delete", key\]/],
  [txn('["select","R","true"]'), 'syntax', 2, /op 1 to be \["select", relation, predicate, \[\[key, value\], \.\.\.\]\]/],
  [txn('["append","x",1]'), 'inconsistent', 2, /key "x" is a row of relation "R", which holds one value at a time/],
  [txn('["r","y",[1]]'), 'inconsistent', 2, /key "y" is a row of relation "R"/],
  ['{"format":"polysi-history","version":1,"relations":["x"]}\n', 'syntax', 1, /"relations" to be an object/],
  ['{"format":"polysi-history","version":1,"relations":{"R":"x"}}\n', 'syntax', 1, /relation "R" to be an array of its keys/],
  ['{"format":"polysi-history","version":1,"relations":{"R":["x",1.5]}}\n', 'syntax', 1, /key 2 of relation "R"/],
  ['{"format":"polysi-history","version":1,"relations":{"R":["x","x"]}}\n', 'inconsistent', 1, /key "x" appears twice in relation "R"/],
  ['{"format":"polysi-history","version":1,"relations":{"R":["x"],"S":["y","x"]}}\n', 'inconsistent', 1, /key "x" of relation "S" is already a key of another relation/],
  ['{"format":"polysi-history","version":1,"relations":{"R":[5],"S":["5"]}}\n', 'inconsistent', 1, /key 5 of relation "S" is already a key/],
];

test('jsonl predicates: bad input is an InputError with the line and what was expected, on both paths', () => {
  for (const [input, code, line, msg] of BAD) {
    for (const parse of [parseJsonl, parseJsonlGeneral]) {
      assert.throws(() => parse(input, 'bad.jsonl'), (e: unknown) => {
        assert.ok(e instanceof InputError, `${JSON.stringify(input)}: ${String(e)}`);
        assert.equal(e.code, code, `${JSON.stringify(input)}: ${e.message}`);
        assert.equal(e.loc, line, JSON.stringify(input));
        assert.match(e.message, new RegExp(`^bad\\.jsonl line ${line}: `));
        assert.match(e.message, msg, JSON.stringify(input));
        return true;
      });
    }
  }
});
