// Format registry, --format auto detection and readHistory: real files, notes, and the
// 'unknown-format' / 'io' errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../src/history/errors.ts';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { detectFormat, findFormat, FORMATS, readHistory } from '../../src/formats/index.ts';
import { readHead } from '../../src/formats/io-read.ts';
import { writeJsonl } from '../../src/formats/jsonl.ts';
import { diffHistories } from '../../src/formats/io-diff.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const NO_DATA = needsData();
const DATA = DATA_DIR;
const EXAMPLE = fileURLToPath(new URL('../../examples/long-fork.txt', import.meta.url));
const MINE = ['text', 'dbcop', 'jsonl'];

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(DATA, dir), { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...filesUnder(join(dir, e.name)));
    else out.push(join(dir, e.name));
  }
  return out;
}

const tmp = scratchDir('polysi-detect-');
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

async function expectInputError(p: Promise<unknown>, code: string, msg?: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.code, code, e.message);
    if (msg) assert.match(e.message, msg);
    return true;
  });
}

test('the registry holds text, dbcop and jsonl with unique names', () => {
  const names = FORMATS.map((f) => f.name);
  for (const n of MINE) assert.ok(names.includes(n), n);
  assert.equal(new Set(names).size, names.length);
  for (const n of MINE) assert.equal(findFormat(n).name, n);
  assert.throws(() => findFormat('nope'), (e: unknown) =>
    e instanceof InputError && e.code === 'unknown-format' && /unknown format "nope"; expected one of: auto, /.test(e.message) &&
    names.every((n) => e.message.includes(n)));
});

test('every real .txt is detected as text and every .bincode as dbcop, and reads', { skip: NO_DATA }, async () => {
  const files = filesUnder('.').filter((f) => f.endsWith('.txt') || f.endsWith('.bincode'));
  assert.ok(files.length >= 44, `${files.length}`);
  for (const f of files) {
    const path = join(DATA, f);
    const want = f.endsWith('.txt') ? 'text' : 'dbcop';
    assert.equal((await detectFormat(path)).name, want, f);
    const r = await readHistory(path);
    assert.equal(r.format, want);
    assert.ok(r.history.opCount > 0, f);
    assert.equal(r.history.source, path);
    // Only the IsoVista explicit initial transaction earns a note among the real files.
    for (const n of r.notes) assert.match(n, /explicit initial transaction/, f);
  }
});

test('files of other formats are not claimed by text, dbcop or jsonl', { skip: NO_DATA }, async () => {
  const others = [
    ...filesUnder('elle'),
    ...filesUnder('polysi/valid/cobra').slice(0, 3),
    'README.md',
  ].map((f) => join(DATA, f));
  others.push(join(DATA, 'polysi/valid/cobra/rubis-10000'));
  for (const path of others) {
    const { head, isDir } = await readHead(path);
    for (const f of FORMATS.filter((m) => MINE.includes(m.name))) {
      assert.equal(f.sniff(head, path, isDir), false, `${f.name} claims ${path}`);
    }
  }
});

test('jsonl files are detected, with or without a header', async () => {
  const b = new HistoryBuilder();
  b.write(b.beginTxn(b.session('s'), 't'), 'k', 'v');
  const h = b.build();
  const withHeader = join(tmp, 'h.jsonl');
  writeFileSync(withHeader, writeJsonl(h));
  const bare = join(tmp, 'bare.log');
  writeFileSync(bare, '\n{"session":"s","txn":"t","ops":[["w","k","v"]]}\n');
  for (const p of [withHeader, bare]) {
    assert.equal((await detectFormat(p)).name, 'jsonl', p);
    const r = await readHistory(p);
    assert.equal(r.format, 'jsonl');
    assert.equal(diffHistories(r.history, h), null);
  }
});

test('readHistory returns parse notes (dbcop dropped events)', async () => {
  // One session, one txn with two events, the second with success=0.
  const u64 = (v: number) => [v & 0xff, (v >> 8) & 0xff, 0, 0, 0, 0, 0, 0];
  const bytes = [
    ...u64(0), ...u64(1), ...u64(10), ...u64(1), ...u64(2),
    ...u64(0), ...u64(0), ...u64(0),
    ...u64(1), ...u64(1), ...u64(2),
    1, ...u64(3), ...u64(4), 1,
    0, ...u64(3), ...u64(0), 0,
    1,
  ];
  const path = join(tmp, 'drop.bin');
  writeFileSync(path, Uint8Array.from(bytes));
  const r = await readHistory(path);
  assert.equal(r.format, 'dbcop');
  assert.equal(r.history.opCount, 1);
  assert.deepEqual(r.notes, ['dropped 1 event(s) with success=0 (dbcop: they did not happen), 1 of them in committed transactions']);
});

test('an explicit format overrides detection; a wrong one fails with that format\'s error', async () => {
  const path = EXAMPLE;
  assert.equal((await readHistory(path, 'text')).format, 'text');
  await expectInputError(readHistory(path, 'dbcop'), 'truncated');
  await expectInputError(readHistory(path, 'jsonl'), 'syntax', /line 1: expected one JSON object per line/);
  await expectInputError(readHistory(path, 'edn?'), 'unknown-format', /expected one of: auto, /);
});

test('unknown, empty, missing and unreadable inputs', async () => {
  const junk = join(tmp, 'junk.dat');
  writeFileSync(junk, 'hello world\nthis is not a history\n');
  await expectInputError(detectFormat(junk), 'unknown-format',
    /junk\.dat: could not tell the format; expected one of (?=.*text)(?=.*dbcop)(?=.*jsonl).*; pass --format$/);
  await expectInputError(readHistory(junk), 'unknown-format');
  const empty = join(tmp, 'empty.txt');
  writeFileSync(empty, '');
  await expectInputError(readHistory(empty), 'unknown-format', /of an empty file/);
  // An empty file read as text is an empty history, not an error.
  assert.equal((await readHistory(empty, 'text')).history.txnCount, 0);
  await expectInputError(readHistory(join(tmp, 'missing.txt')), 'io', /no such file or directory/);
  await expectInputError(readHistory(join(tmp, 'missing.txt'), 'text'), 'io', /no such file or directory/);
  await expectInputError(readHistory(tmp, 'text'), 'io', /is a directory/);
  await expectInputError(detectFormat(tmp), 'unknown-format', /of this directory/);
});

test('when detection fails, the error names the closest format with its first error (line, column)', async () => {
  // Before: only "could not tell the format", hiding a typo on line 3 of a small text file.
  const cases: [string, string, RegExp][] = [
    ['typo.txt', 'r(1,0,1,1)\nw(1,2,1,1)\nw(2,x,1,2)\nr(2,0,1,3)\n',
      /typo\.txt: could not tell the format; closest: text, line 3: expected r\(key,value,session,txn\) or w\(key,value,session,txn\), found "w\(2,x,1,2\)" \(column 5: expected an integer value\); expected one of .*; pass --format$/],
  ];
  for (const [name, body, want] of cases) {
    const p = join(tmp, name);
    writeFileSync(p, body);
    await expectInputError(readHistory(p), 'unknown-format', want);
  }
  // When a sniff accepts, the parser's error is the answer: JSONL sniffs its first line only,
  // text its first five.
  const jl = join(tmp, 'typo.jsonl');
  writeFileSync(jl, '{"session":"s","txn":"a","ops":[]}\n{"session":"s","txn":"b","ops":[["w","k" 2]]}\n');
  await expectInputError(readHistory(jl), 'syntax', /typo\.jsonl line 2: expected one JSON object per line, found invalid JSON/);
  const late = join(tmp, 'late.txt');
  writeFileSync(late, 'r(1,0,1,1)\n'.repeat(5) + 'w(1,2,1,1\n');
  await expectInputError(readHistory(late), 'syntax', /late\.txt line 6: .*column 10: expected '\)'/);
  // Text-looking junk: no hint (every parser fails on line 1), and no binary format "closest".
  const junk = join(tmp, 'junk2.dat');
  writeFileSync(junk, 'hello world\nthis is not a history\n');
  await expectInputError(readHistory(junk), 'unknown-format', /could not tell the format; expected one of/);
});
