/**
 * List-append anomalies as a user meets them on the command line: `polysi check` exits 1 and
 * names the anomaly in the text and in --json (with the transactions it involves), for JSONL
 * and Jepsen EDN alike. Issue 7, item 1: a read showing one writer's appends out of program
 * order was VALID (exit 0) in both formats.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { runCli as run } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const DIR = scratchDir('polysi-lists-');

function file(name: string, text: string): string {
  const path = join(DIR, name);
  writeFileSync(path, text);
  return path;
}

// t1 appends 1 then 2 to x; t2 reads x = [2, 1].
const FILES = [
  {
    format: 'jsonl',
    path: () => file('order.jsonl', '{"session":"a","txn":"t1","ops":[["append","x",1],["append","x",2]]}\n{"session":"b","txn":"t2","ops":[["r","x",[2,1]]]}\n'),
    reader: 't2', writer: 't1',
  },
  {
    format: 'edn',
    path: () => file('order.edn', [
      '{:type :invoke, :f :txn, :value [[:append :x 1] [:append :x 2]], :process 0, :index 0}',
      '{:type :ok, :f :txn, :value [[:append :x 1] [:append :x 2]], :process 0, :index 1}',
      '{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :index 2}',
      '{:type :ok, :f :txn, :value [[:r :x [2 1]]], :process 1, :index 3}',
    ].join('\n')),
    reader: null, writer: null,
  },
];

for (const f of FILES) {
  for (const level of ['si', 'ser']) {
    test(`${f.format}: a read that reverses one writer's appends exits 1 with incompatible-order at ${level}`, async () => {
      const path = f.path();
      const text = await run('check', path, '--level', level, '--explain');
      assert.equal(text.code, 1, text.out + text.err);
      assert.match(text.out, /VIOLATION/);
      assert.match(text.out, /incompatible-order \(incompatible order\): .*read :?x=\[2 1\].*appended \[1 2\] to :?x in that order/);
      assert.match(text.out, /Anomaly 1 of 1: incompatible-order \(incompatible order\)/);

      const json = await run('check', path, '--level', level, '--json', '--explain');
      assert.equal(json.code, 1);
      const j = JSON.parse(json.out);
      assert.equal(j.verdict, 'violation');
      assert.equal(j.anomalies.length, 1);
      const a = j.anomalies[0];
      assert.equal(a.type, 'non-cycle');
      assert.equal(a.name, 'incompatible-order');
      assert.equal(a.keyLabel, f.format === 'edn' ? ':x' : 'x');
      assert.equal(a.class, 'incompatible-order');
      assert.equal(a.description, 'incompatible order');
      assert.equal(a.explanation.class, 'incompatible-order');
      assert.equal(a.explanation.description, 'incompatible order');
      assert.match(a.text, /incompatible order/);
      // Both the reader and the writer are spelled out, as for G1a / G1b.
      assert.equal(j.transactions.length, 2);
      const ops = j.transactions.map((t: { ops: string[] }) => t.ops.join(' ')).sort();
      assert.deepEqual(ops.map((o: string) => o.replace(/:x/g, 'x')), ['append(x,1) append(x,2)', 'r(x,[2 1])']);
      if (f.reader !== null) assert.equal(j.transactions.find((t: { txn: number }) => t.txn === a.txn).label, f.reader);
      if (f.writer !== null) assert.equal(j.transactions.find((t: { txn: number }) => t.txn === a.writer).label, f.writer);
    });
  }
}

test('jsonl: a key used as register and list exits 2 naming both operations and lines', async () => {
  const path = file('mixed.jsonl', '{"session":"a","txn":"t1","ops":[["append","x",1]]}\n{"session":"b","txn":"t2","ops":[["r","x",1]]}\n');
  const r = await run('check', path);
  assert.equal(r.code, 2);
  assert.match(r.err, /line 2: key x is used both as a register and as a list: append\(x,1\) at .* line 1 and r\(x,1\) at .* line 2/);
});
