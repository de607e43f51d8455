// Histories with relations (issue 22) outside the JSONL reader: every other format's writer
// refuses them saying why, `polysi convert` shows that refusal (and converts to JSON Lines),
// and `polysi stat` counts relations, inserts, deletes, selects and counts (text and JSON,
// schema/stat-result.schema.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { HistoryBuilder } from '../../src/history/builder.ts';
import type { History } from '../../src/history/model.ts';
import { FORMATS } from '../../src/formats/index.ts';
import { parseJsonl } from '../../src/formats/jsonl.ts';
import { diffHistories } from '../../src/formats/io-diff.ts';
import { historyStats } from '../../src/history/stats.ts';
import { runConvert } from '../../src/cli/convert.ts';
import { runStat } from '../../src/cli/stat.ts';
import { scratchDir } from '../support/scratch.ts';

const TEXT = [
  '{"format":"polysi-history","version":1,"sessions":["s1","s2"],"relations":{"R":[1,2,3],"S":["a"]}}',
  '{"session":"s1","txn":"T1","ops":[["insert",1,3],["insert",2,4],["w","plain",9]]}',
  '{"session":"s2","txn":"T2","ops":[["select","R","value % 3 = 0",[[1,3]]],["count","R","true",2],["delete",1],["r",1,null]]}',
  '{"session":"s2","txn":"T3","ops":[["select","R","value > 0",[[1,3],[2,4]]],["r",2,4]]}',
  '',
].join('\n');

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) }, out, err };
}

function relationsOnly(): History {
  const b = new HistoryBuilder('<rel>');
  b.relation('R', [1]);
  const t = b.beginTxn(b.session('s'), 'T');
  b.write(t, 1, 5);
  return b.build();
}

test('every writer but JSON Lines refuses a history with relations, saying what it has', () => {
  const h = parseJsonl(TEXT, 'p.jsonl');
  const others = FORMATS.filter((f) => f.write !== undefined && f.name !== 'jsonl');
  assert.ok(others.length >= 5, others.map((f) => f.name).join(', '));
  for (const f of others) {
    assert.throws(() => f.write!(h), (e: unknown) => e instanceof Error &&
      /^cannot write p\.jsonl as .+: it has 3 predicate reads, 2 inserts, 1 delete over relations "R", "S", which only JSON Lines can hold/.test(e.message),
    f.name);
    // Relations without a predicate op still declare rows that start absent: refused too.
    assert.throws(() => f.write!(relationsOnly()), /: it has relation "R", which only JSON Lines can hold/, f.name);
  }
});

test('convert: refuses other formats with the reason, and converts to JSON Lines verified', async () => {
  const dir = scratchDir('polysi-pred-io-');
  try {
    const src = join(dir, 'p.jsonl');
    writeFileSync(src, TEXT);
    const c = capture();
    assert.equal(await runConvert([src, join(dir, 'p.txt'), '--to', 'text'], c.io), 2);
    assert.match(c.err.join(''), /^polysi convert: refusing to convert .*p\.jsonl from jsonl to text: cannot write .*p\.jsonl as PolySI text: it has 3 predicate reads, 2 inserts, 1 delete over relations "R", "S", which only JSON Lines can hold/);
    const j = capture();
    const out = join(dir, 'q.jsonl');
    assert.equal(await runConvert([src, out, '--to', 'jsonl'], j.io), 0, j.err.join(''));
    assert.equal(diffHistories(parseJsonl(TEXT), parseJsonl(readFileSync(out, 'utf8'))), null);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('stat: relations, inserts, deletes, selects and counts, in text and in JSON the schema accepts', async () => {
  const s = historyStats(parseJsonl(TEXT, 'p.jsonl'));
  assert.deepEqual(s.predicates, { relations: 2, relationKeys: 4, inserts: 2, deletes: 1, selects: 2, rowsReturned: 3, counts: 1 });
  assert.deepEqual(s.operations, { total: 9, read: 2, write: 1, append: 0, readList: 0 });
  // Selects and counts are reads; inserts and deletes writes; a relation is not a key.
  assert.deepEqual(s.shapes, { readOnly: 1, writeOnly: 1, readModifyWrite: 1, empty: 0 });
  assert.deepEqual(s.hottestKeys.map((k) => [k.key, k.reads, k.writes]), [['1', 1, 2], ['2', 1, 1], ['plain', 0, 1]]);
  assert.equal(s.writtenValues, 3); // a delete writes no value
  assert.deepEqual(s.keys, { total: 3, registerKeys: 3, listKeys: 0, mixedKeys: 0 }); // rows are registers
  assert.equal(historyStats(relationsOnly()).predicates?.relations, 1);
  const kv = new HistoryBuilder();
  kv.write(kv.beginTxn(kv.session(1)), 'x', 1);
  assert.equal('predicates' in historyStats(kv.build()), false);

  const dir = scratchDir('polysi-pred-stat-');
  try {
    const src = join(dir, 'p.jsonl');
    writeFileSync(src, TEXT);
    const t = capture();
    assert.equal(await runStat([src], t.io), 0);
    assert.match(t.out.join(''), /^relations +2 \(4 keys\): 2 inserts, 1 deletes, 2 selects \(3 rows returned\), 1 counts$/m);
    const j = capture();
    assert.equal(await runStat([src, '--json'], j.io), 0);
    const json = JSON.parse(j.out.join('')) as { predicates: unknown };
    assert.deepEqual(json.predicates, s.predicates);
    const root = resolve(import.meta.dirname, '..', '..');
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    const validate = ajv.compile(JSON.parse(readFileSync(join(root, 'schema', 'stat-result.schema.json'), 'utf8')) as object);
    assert.ok(validate(json), ajv.errorsText(validate.errors));
    assert.ok(!validate({ ...json, predicates: { ...s.predicates, extra: 1 } }), 'the schema is strict about predicates');
  } finally {
    rmSync(dir, { recursive: true });
  }
});
