// Fault events in JSON Lines (issue 24): fault lines read into History.faults (in start order,
// end null = never healed) through both the in-memory and the streaming reader, written back by
// writeJsonl and by the recorder, malformed fault lines refused with their line, and other
// formats' writers leaving faults out with a note from `polysi convert`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { InputError } from '../../src/history/errors.ts';
import { parseJsonl, parseJsonlGeneral, readJsonl, writeJsonl } from '../../src/formats/jsonl.ts';
import { JsonlRecorder } from '../../src/run/recorder.ts';
import { runConvert } from '../../src/cli/convert.ts';
import { scratchDir } from '../support/scratch.ts';

const TEXT = [
  '{"format":"polysi-history","version":1,"sessions":["0","1"]}',
  '{"session":"0","txn":"0.0","status":"committed","ops":[["w",1,1]],"start":1,"end":2}',
  '{"fault":"pause","node":"n2","start":40.5,"end":null}',
  '{"session":"1","txn":"1.0","status":"unknown","ops":[["r",1,1]],"start":3,"end":50,"error":"connection-lost"}',
  '{"fault":"kill","node":"n1","start":2.25,"end":30}',
  '',
].join('\n');

test('jsonl faults: fault lines become History.faults in start order; null end is NaN', async () => {
  const dir = scratchDir('polysi-faults-');
  try {
    const p = join(dir, 'h.jsonl');
    writeFileSync(p, TEXT);
    for (const h of [parseJsonl(TEXT), parseJsonlGeneral(TEXT), await readJsonl(p)]) {
      assert.equal(h.txnCount, 2);
      assert.deepEqual(h.faults?.map((f) => [f.kind, f.node, f.start]), [['kill', 'n1', 2.25], ['pause', 'n2', 40.5]]);
      assert.equal(h.faults![0]!.end, 30);
      assert.ok(Number.isNaN(h.faults![1]!.end));
    }
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('jsonl faults: a history without fault lines has no faults field', () => {
  assert.equal(parseJsonl(TEXT.split('\n').filter((l) => !l.includes('fault')).join('\n')).faults, undefined);
});

test('jsonl faults: writeJsonl writes them back (after the txns) and reading again gives the same', () => {
  const h = parseJsonl(TEXT);
  const text = writeJsonl(h);
  assert.match(text, /\n\{"fault":"kill","node":"n1","start":2\.25,"end":30\}\n\{"fault":"pause","node":"n2","start":40\.5,"end":null\}\n$/);
  assert.deepEqual(parseJsonl(text).faults, h.faults);
  assert.equal(writeJsonl(parseJsonl(text)), text);
});

test('jsonl faults: the builder sorts by start, stably', () => {
  const b = new HistoryBuilder();
  b.beginTxn(b.session('s'));
  b.fault('partition', 'n3', 5, 9);
  b.fault('kill', 'n1', 1, NaN);
  b.fault('pause', 'n2', 5, 6);
  assert.deepEqual(b.build().faults?.map((f) => f.node), ['n1', 'n3', 'n2']);
});

test('jsonl faults: malformed fault lines are InputErrors naming the line', () => {
  const head = '{"format":"polysi-history","version":1}\n';
  const cases: [string, RegExp][] = [
    ['{"fault":"kill","node":"n1","start":1,"end":2,"txn":"x"}', /unknown fault field "txn"/],
    ['{"fault":"","node":"n1","start":1,"end":2}', /"fault" to be the fault's kind/],
    ['{"fault":3,"node":"n1","start":1,"end":2}', /"fault" to be the fault's kind/],
    ['{"fault":"kill","start":1,"end":2}', /"node" to be the name/],
    ['{"fault":"kill","node":"n1","end":2}', /"start" to be a time/],
    ['{"fault":"kill","node":"n1","start":1}', /"end" to be a time in ms .* or null/],
    ['{"fault":"kill","node":"n1","start":1,"end":"2"}', /"end" to be a time/],
    ['{"fault":"kill","node":"n1","start":5,"end":2}', /"end" \(2\) is before its "start" \(5\)/],
  ];
  for (const [line, re] of cases) {
    for (const parse of [parseJsonl, parseJsonlGeneral]) {
      assert.throws(() => parse(head + line), (e: unknown) => e instanceof InputError && e.loc === 2 && re.test(e.detail), line);
    }
  }
  // A fault line before the header: the header is then refused, as after a txn.
  assert.throws(() => parseJsonl(`{"fault":"kill","node":"n1","start":1,"end":2}\n${head}`), /header .* may only be the first line/);
});

test('jsonl faults: the recorder writes fault lines relative to its t0, not counted as txns', async () => {
  const dir = scratchDir('polysi-faults-');
  try {
    const p = join(dir, 'rec.jsonl');
    const rec = new JsonlRecorder(p, 2, 1000);
    rec.recordFault('kill', 'n1', 1100.5, 1200);
    rec.recordFault('pause', 'n2', 1300, NaN);
    assert.equal(rec.count, 0);
    rec.close();
    const h = await readJsonl(p);
    assert.deepEqual(h.faults?.map((f) => [f.kind, f.node, f.start, f.end]), [['kill', 'n1', 100.5, 200], ['pause', 'n2', 300, NaN]]);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('jsonl faults: convert to a format without faults says it leaves them out', async () => {
  const dir = scratchDir('polysi-faults-');
  try {
    const p = join(dir, 'h.jsonl');
    writeFileSync(p, [
      '{"format":"polysi-history","version":1,"sessions":["0"]}',
      '{"session":"0","txn":"1","status":"committed","ops":[["w",1,1]]}',
      '{"fault":"kill","node":"n1","start":2,"end":3}', '',
    ].join('\n'));
    const err: string[] = [];
    const io = { stdout: () => {}, stderr: (s: string) => err.push(s) };
    assert.equal(await runConvert([p, join(dir, 'h.edn'), '--to', 'edn'], io), 0);
    assert.match(err.join('\n'), /cannot hold the run's 1 fault event; they are left out/);
    err.length = 0;
    assert.equal(await runConvert([p, join(dir, 'h2.jsonl'), '--to', 'jsonl'], io), 0);
    assert.doesNotMatch(err.join('\n'), /fault/);
    assert.match(readFileSync(join(dir, 'h2.jsonl'), 'utf8'), /\{"fault":"kill","node":"n1","start":2,"end":3\}/);
  } finally {
    rmSync(dir, { recursive: true });
  }
});
