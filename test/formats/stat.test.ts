// `polysi stat` and historyStats: every number on a hand-built history, the text and JSON output
// on real files, and usage / input errors (exit 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_ABORTED, TXN_UNKNOWN } from '../../src/history/model.ts';
import { historyStats } from '../../src/history/stats.ts';
import { runStat } from '../../src/cli/stat.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';

const NO_DATA = needsData();
const DATA = DATA_DIR;
const EXAMPLE = fileURLToPath(new URL('../../examples/long-fork.txt', import.meta.url));

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) }, out, err };
}

test('historyStats: every field on a hand-built history', () => {
  const b = new HistoryBuilder();
  const s1 = b.session('a');
  const s2 = b.session('b');
  b.session('empty');
  const t1 = b.beginTxn(s1); // read-modify-write
  b.read(t1, 'x', null);
  b.write(t1, 'x', 1);
  b.append(t1, 'l', 5);
  const t2 = b.beginTxn(s1, 't2', TXN_ABORTED); // write-only
  b.write(t2, 'y', 2);
  b.write(t2, 'x', 3);
  const t3 = b.beginTxn(s2, 't3', TXN_UNKNOWN); // read-only
  b.readList(t3, 'l', [5, 6]);
  b.read(t3, 'x', 1);
  b.read(t3, 'x', 1);
  b.beginTxn(s2); // empty
  const s = historyStats(b.build(), 2);
  assert.deepEqual(s, {
    sessions: 3,
    transactions: { total: 4, committed: 2, aborted: 1, unknown: 1 },
    shapes: { readOnly: 1, writeOnly: 1, readModifyWrite: 1, empty: 1 },
    operations: { total: 8, read: 3, write: 3, append: 1, readList: 1 },
    listElementsRead: 2,
    keys: { total: 3, registerKeys: 2, listKeys: 1, mixedKeys: 0 },
    writtenValues: 4,
    opsPerTxn: { mean: 2, max: 3 },
    txnsPerSession: { min: 0, mean: 4 / 3, max: 2 },
    hottestKeys: [
      { key: 'x', ops: 5, reads: 3, writes: 2 },
      { key: 'l', ops: 2, reads: 1, writes: 1 },
    ],
  });
  const empty = historyStats(new HistoryBuilder().build());
  assert.deepEqual([empty.sessions, empty.txnsPerSession.min, empty.opsPerTxn.mean, empty.hottestKeys.length], [0, 0, 0, 0]);
});

test('historyStats: ties between equally hot keys go to the key seen first', () => {
  const b = new HistoryBuilder();
  const t = b.beginTxn(b.session(1));
  for (const k of [9, 3, 7, 3, 9]) b.write(t, k, `${k}-${Math.random()}`);
  b.write(t, 7, 'z');
  assert.deepEqual(historyStats(b.build()).hottestKeys.map((h) => h.key), ['9', '3', '7']);
});

test('stat: text and JSON output on real files', { skip: NO_DATA }, async () => {
  const c = capture();
  assert.equal(await runStat([join(DATA, 'elle/si-without-g-single.edn')], c.io), 0);
  const text = c.out.join('');
  assert.match(text, /^file +.*si-without-g-single.edn \(edn\)$/m);
  assert.match(text, /^sessions +4 \(txns per session: min 1, mean 1.0, max 1\)$/m);
  assert.match(text, /^transactions +4: 4 committed \(100.0%\), 0 aborted \(0.0%\), 0 unknown \(0.0%\)$/m);
  assert.match(text, /^operations +8: 0 reads, 0 writes, 4 appends, 4 list reads \(1 elements\)$/m);
  assert.match(text, /^keys +3: 0 register, 3 list$/m);
  assert.match(text, /^ {2}9 +4 ops \(2 reads, 2 writes\)$/m);

  const j = capture();
  assert.equal(await runStat([join(DATA, 'polysi/valid/cobra/twitter-10000'), '--json', '--top', '3'], j.io), 0);
  const s = JSON.parse(j.out.join(''));
  assert.equal(s.format, 'cobra');
  assert.equal(s.transactions.total, 9571);
  assert.equal(s.transactions.committed, 9571);
  assert.equal(s.operations.read + s.operations.write, 34384 + 15433);
  assert.equal(s.hottestKeys.length, 3);
  assert.ok(s.hottestKeys[0].ops >= s.hottestKeys[1].ops && s.hottestKeys[1].ops >= s.hottestKeys[2].ops);
  assert.deepEqual(s.notes, []);
});

test('stat: usage and input errors exit 2', async () => {
  const cases: [string[], RegExp][] = [
    [[], /expected exactly one history path, got 0/],
    [['a', 'b'], /got 2/],
    [[EXAMPLE, '--top=-1'], /--top takes a non-negative integer/],
    [[EXAMPLE, '--top', 'x'], /--top takes a non-negative integer, got "x"/],
    [[EXAMPLE, '--nope'], /^polysi stat: unknown option --nope; see polysi stat --help$/],
    [[join(import.meta.dirname, 'nope.edn')], /nope.edn.*no such file/],
    [[EXAMPLE, '--format', 'edn'], /long-fork.txt line 1/],
  ];
  for (const [args, err] of cases) {
    const c = capture();
    assert.equal(await runStat(args, c.io), 2, args.join(' '));
    assert.match(c.err.join('\n'), err);
    assert.deepEqual(c.out, []);
  }
});
