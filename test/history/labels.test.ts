/**
 * Labels made on demand (src/history/labels.ts): the canonical split of a label, the tables
 * parsers fill, and the readers' view of them (valueLabel / txnLabel), including the JSON Lines
 * duplicate-name check that now works on the split parts.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { LabelColumn, LabelTable, splitLabel } from '../../src/history/labels.ts';
import { txnLabel, valueLabel } from '../../src/history/model.ts';
import { parseJsonl, parseJsonlGeneral } from '../../src/formats/jsonl.ts';
import { InputError } from '../../src/history/errors.ts';
import { mulberry32 } from '../support/prng.ts';

test('splitLabel: prefix + number spells the label, and distinct labels split differently', () => {
  const rng = mulberry32(7);
  const alphabet = ['0', '0', '1', '9', '5', 'a', '.', ':', '-', 'é', '😀', ' '];
  const seen = new Map<string, string>();
  for (let i = 0; i < 20_000; i++) {
    let s = '';
    const len = Math.floor(rng() * 24);
    for (let j = 0; j < len; j++) s += alphabet[Math.floor(rng() * alphabet.length)]!;
    if (rng() < 0.2) s += '1234567890123456789'.slice(0, Math.floor(rng() * 19));
    const [prefix, n] = splitLabel(s);
    assert.equal(prefix + (Number.isNaN(n) ? '' : String(n)), s, `label ${JSON.stringify(s)}`);
    if (!Number.isNaN(n)) assert.ok(Number.isSafeInteger(n) && n >= 0 && n < 1e15);
    const key = `${prefix}\u0000${n}`;
    const other = seen.get(key);
    assert.ok(other === undefined || other === s, `${JSON.stringify(s)} and ${JSON.stringify(other)} split alike`);
    seen.set(key, s);
  }
  assert.deepEqual(splitLabel('s3:17'), ['s3:', 17]);
  assert.deepEqual(splitLabel('007'), ['00', 7]);
  assert.deepEqual(splitLabel('abc'), ['abc', NaN]);
  assert.deepEqual(splitLabel('12345678901234567'), ['12', 345678901234567]);
});

test('label tables: labels read back as pushed, reordered by freeze, independent of prefix order', () => {
  const a = new LabelColumn(), b = new LabelColumn();
  const labels = ['x1', 'y2', '5', 'x10', 'init', 'zz'];
  b.prefix('y'); b.prefix('zz'); // a different interning order
  for (const col of [a, b]) for (const l of labels) col.pushSplit(l);
  assert.deepEqual(a.freeze().toArray(), labels);
  assert.deepStrictEqual(a.freeze(), b.freeze());
  const re = a.freeze(new Int32Array([5, 0, 3]));
  assert.deepEqual(re.toArray(), ['zz', 'x1', 'x10']);
  const texts = new LabelColumn();
  texts.pushNumber(texts.prefix('init'), NaN);
  texts.pushNumber(0, 12);
  texts.pushText('"a1"');
  texts.pushNumber(0, -1.5);
  assert.deepEqual(texts.freeze().toArray(), ['init', '12', '"a1"', '-1.5']);
  assert.deepEqual(LabelTable.of(['p', 'q']).toArray(), ['p', 'q']);
});

test('builder: value and txn labels as the parsers gave them', () => {
  const b = new HistoryBuilder();
  const s = b.session('s');
  const t0 = b.beginTxn(s);
  const t1 = b.beginTxn(s, 12);
  const t2 = b.beginTxn(s, 'T-007');
  const t3 = b.beginTxnNumbered(s, b.txnPrefix('s1:'), 4);
  const t4 = b.beginTxn(s, 2 ** 60);
  for (const t of [t0, t1, t2, t3, t4]) b.write(t, 1, t + 1);
  b.write(t0, 2, 'v');
  b.write(t0, 3, 10n ** 20n);
  b.write(t0, 4, -3);
  b.write(t0, 5, 0.25);
  const h = b.build();
  assert.deepEqual(Array.from({ length: h.txnCount }, (_, t) => txnLabel(h, t)), ['t0', '12', 'T-007', 's1:4', String(2 ** 60)]);
  assert.deepEqual(Array.from({ length: h.valueCount }, (_, v) => valueLabel(h, v)), ['init', '1', '2', '3', '4', '5', '"v"', '100000000000000000000', '-3', '0.25']);
});

test('jsonl: txn names are duplicates exactly when their text is equal, whatever the spelling', () => {
  const line = (txn: string | null, ops = '[]'): string => `{"session":"1",${txn === null ? '' : `"txn":${txn},`}"ops":${ops}}`;
  const dup = (...lines: string[]): void => {
    for (const parse of [parseJsonl, parseJsonlGeneral]) {
      assert.throws(() => parse(lines.join('\n'), 'd.jsonl'), (e: unknown) => e instanceof InputError && /already appears at line/.test(e.message));
    }
  };
  const distinct = (...lines: string[]): void => {
    for (const parse of [parseJsonl, parseJsonlGeneral]) {
      const h = parse(lines.join('\n'), 'd.jsonl');
      assert.equal(h.txnCount, lines.length);
    }
  };
  dup(line('"5"'), line('5'));
  dup(line('7'), line('"7"'));
  dup(line(null), line('"L1"'));
  dup(line('"a.1"'), line('"a.1"'));
  dup(line('"9999999999999999"'), line('9999999999999999'.slice(0, 15)), line('"9999999999999999"'));
  dup(line('-3'), line('"-3"'));
  dup(line('-0'), line('"0"'));
  distinct(line('"007"'), line('"7"'), line('"07"'), line('"-0"'), line('0'));
  distinct(line('"1234567890123456"'), line('"2234567890123456"'), line('"234567890123456"'));
  distinct(line(null), line(null), line('"L4"'));
  const h = parseJsonl([line('"007"'), line('"x"'), line(null), line('12')].join('\n'), 'd.jsonl');
  assert.deepEqual(h.txnLabelTable.toArray(), ['007', 'x', 'L3', '12']);
});
