/**
 * List-append histories through the whole pipeline: the anomalies only list reads reveal
 * (Elle §4), and the inputs the checker refuses on list keys.
 *
 * Each case is a tiny JSONL history (the format a user writes lists in), checked at SI and SER
 * with pruning on and off; the expected anomaly name (or InputError) is asserted, together
 * with the explanation the CLI shows, so a case that slips through to VALID fails loudly.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkHistory } from '../../src/check/index.ts';
import type { Level, NonCycleAnomaly } from '../../src/result/types.ts';
import { InputError } from '../../src/history/errors.ts';
import { parseJsonl } from '../../src/formats/jsonl.ts';
import { renderExplanationText } from '../../src/render/text.ts';

/** One JSONL line per txn: `[session, ops]` with ops as JSONL op arrays. */
function jsonl(txns: [string, unknown[], string?][]): string {
  return txns.map(([s, ops, status], i) => JSON.stringify({ session: s, txn: `t${i + 1}`, status: status ?? 'committed', ops })).join('\n');
}

const LEVELS: Level[] = ['si', 'ser'];

/** Checks at both levels, pruning on and off, with explanations; all four must agree. */
function checkAll(text: string): ReturnType<typeof checkHistory>[] {
  const h = parseJsonl(text, 'h.jsonl');
  const out = [];
  for (const level of LEVELS) for (const pruning of [true, false]) out.push(checkHistory(h, { level, pruning, explain: true }));
  return out;
}

interface ViolationCase {
  name: string;
  txns: [string, unknown[], string?][];
  anomaly: NonCycleAnomaly['name'];
  /** The reading txn's label. */
  txn: string;
  /** Words the message must contain. */
  message: RegExp;
}

const VIOLATIONS: ViolationCase[] = [
  // t1 appends 1 then 2; t2 sees them the other way round. Every read is as long as t1's run,
  // so only the order inside one writer's run gives it away.
  {
    name: 'a read that reverses one writer\'s appends',
    txns: [['a', [['append', 'x', 1], ['append', 'x', 2]]], ['b', [['r', 'x', [2, 1]]]]],
    anomaly: 'incompatible-order', txn: 't2', message: /t1 appended .*1 2/,
  },
  // The same, behind another writer's element and with an unknown-outcome writer.
  {
    name: 'a reordered run after another writer, unknown-outcome writer',
    txns: [['a', [['append', 'x', 5]]], ['b', [['append', 'x', 1], ['append', 'x', 2], ['append', 'x', 3]], 'unknown'],
      ['c', [['r', 'x', [5, 1, 3, 2]]]]],
    anomaly: 'incompatible-order', txn: 't3', message: /appended/,
  },
  // Two reads of x that no single order of appends explains.
  {
    name: 'two reads that are not prefixes of one another',
    txns: [['a', [['append', 'x', 1]]], ['b', [['append', 'x', 2]]], ['c', [['r', 'x', [1, 2]]]], ['d', [['r', 'x', [2, 1]]]]],
    anomaly: 'incompatible-order', txn: 't4', message: /neither is a prefix/,
  },
  // t1's appends are applied together, so t2's element cannot sit between them: one G1b for
  // the read, naming the split, not two partial runs.
  {
    name: 'a writer\'s appends split by another writer\'s',
    txns: [['a', [['append', 'x', 1], ['append', 'x', 2]]], ['b', [['append', 'x', 3]]], ['c', [['r', 'x', [1, 3, 2]]]]],
    anomaly: 'G1b', txn: 't3', message: /elements t1 appended to x are split by another/,
  },
  {
    name: 'a read with an element twice',
    txns: [['a', [['append', 'x', 1]]], ['b', [['r', 'x', [1, 1]]]]],
    anomaly: 'duplicate-elements', txn: 't2', message: /more than once/,
  },
];

for (const c of VIOLATIONS) {
  test(`list violation: ${c.name} is ${c.anomaly} at SI and SER, pruning on and off`, () => {
    for (const r of checkAll(jsonl(c.txns))) {
      assert.equal(r.verdict, 'violation', `${r.level}: ${JSON.stringify(r.anomalies)}`);
      const a = r.anomalies[0]!;
      assert.equal(a.type, 'non-cycle');
      if (a.type !== 'non-cycle') return;
      assert.equal(a.name, c.anomaly);
      assert.match(a.message, c.message);
      assert.equal(r.anomalies.length, 1, JSON.stringify(r.anomalies.map((x) => x.type === 'non-cycle' ? x.message : x.type)));
      const spelled = c.anomaly === 'G1b' ? 'intermediate read' : c.anomaly.replace('-', ' ');
      assert.equal(a.explanation?.class, c.anomaly);
      assert.equal(a.explanation?.description, spelled);
      const text = renderExplanationText(a.explanation!, { index: 1, total: 1 });
      assert.match(text, new RegExp(spelled, 'i'));
      assert.match(text, new RegExp(`\\b${c.txn}\\b`));
    }
  });
}

// Reads in appenders' own order, and an appender that reads its own appends back, are fine.
test('list reads in each writer\'s own append order are valid at SI and SER', () => {
  const text = jsonl([
    ['a', [['append', 'x', 1], ['append', 'x', 2], ['r', 'x', [1, 2]]]],
    ['b', [['r', 'x', [1, 2]], ['append', 'x', 3], ['append', 'x', 4], ['r', 'x', [1, 2, 3, 4]]]],
    ['c', [['r', 'x', [1, 2, 3, 4]]]],
  ]);
  for (const r of checkAll(text)) assert.equal(r.verdict, 'valid', `${r.level}: ${JSON.stringify(r.anomalies)}`);
});

interface MixedCase { name: string; txns: [string, unknown[], string?][]; both: RegExp[] }

// A key is a register or a list, never both: reads are resolved by value, and a register read
// of a list key (or the reverse) has no meaning the checker could pick without guessing.
const MIXED: MixedCase[] = [
  { name: 'a register read of an appended key', txns: [['a', [['append', 'x', 1]]], ['b', [['r', 'x', 1]]]],
    both: [/append\(x,1\)/, /r\(x,1\)/] },
  { name: 'a null register read of an appended key', txns: [['a', [['append', 'x', 1]]], ['b', [['r', 'x', null]]]],
    both: [/append\(x,1\)/, /r\(x,init\)/] },
  { name: 'a list read of a written key', txns: [['a', [['w', 'x', 1]]], ['b', [['r', 'x', [1]]]]],
    both: [/w\(x,1\)/, /r\(x,\[1\]\)/] },
  { name: 'a write and an append in one txn', txns: [['a', [['w', 'x', 1], ['append', 'x', 2]]]],
    both: [/w\(x,1\)/, /append\(x,2\)/] },
  { name: 'mixing in aborted txns too', txns: [['a', [['w', 'x', 1]], 'aborted'], ['b', [['append', 'x', 2]], 'aborted']],
    both: [/w\(x,1\)/, /append\(x,2\)/] },
];

for (const c of MIXED) {
  test(`unsupported input: ${c.name} is rejected naming both operations`, () => {
    const h = parseJsonl(jsonl(c.txns), 'h.jsonl');
    for (const level of LEVELS) {
      assert.throws(() => checkHistory(h, { level, pruning: true }), (e: unknown) => {
        assert.ok(e instanceof InputError, String(e));
        assert.equal(e.code, 'unsupported');
        assert.match(e.message, /^h\.jsonl line \d+: /);
        assert.match(e.message, /both as a register and as a list/);
        for (const re of c.both) assert.match(e.message, re);
        return true;
      });
    }
  });
}

test('register keys and list keys side by side are accepted', () => {
  const text = jsonl([['a', [['w', 'x', 1], ['append', 'l', 1]]], ['b', [['r', 'x', 1], ['r', 'l', [1]], ['r', 'y', null], ['r', 'm', []]]]]);
  for (const r of checkAll(text)) assert.equal(r.verdict, 'valid');
});
