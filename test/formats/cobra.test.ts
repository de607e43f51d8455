// Cobra binary logs: the three real log directories (counts from an independent record walk),
// the WR mapping (write id as value, initial-state markers), and every rejection rule with file
// and byte offset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../src/history/errors.ts';
import {
  INITIAL_VALUE,
  OP_READ,
  OP_WRITE,
  TXN_ABORTED,
  TXN_COMMITTED,
  TXN_UNKNOWN,
  valueLabel,
  type History,
} from '../../src/history/model.ts';
import { cobraFormat, parseCobraFiles, readCobra } from '../../src/formats/cobra.ts';
import { notesOf } from '../../src/formats/io-notes.ts';
import { checkHistory } from '../../src/check/index.ts';
import { runCli } from '../support/run-cli.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const NO_DATA = needsData();
const COBRA = `${DATA_DIR}/polysi/valid/cobra/`;

/** Independent walk: counts records by tag, and reads naming the initial-state markers. */
function walk(dir: string) {
  const tags: Record<string, number> = { S: 0, W: 0, R: 0, C: 0, A: 0 };
  let initialReads = 0;
  const files = readdirSync(dir).filter((f) => /^T\d+\.log$/.test(f));
  for (const f of files) {
    const b = readFileSync(join(dir, f));
    for (let i = 0; i < b.length;) {
      const t = String.fromCharCode(b[i]!);
      tags[t]!++;
      if (t === 'R') {
        const writer = b.readBigUInt64BE(i + 1);
        if (writer === 0xbebeebeen || writer === 0xdeadbeefn) initialReads++;
      }
      i += t === 'W' ? 25 : t === 'R' ? 33 : 9;
    }
  }
  return { files: files.length, tags, initialReads };
}

for (const name of ['rubis-10000', 'tpcc-10000', 'twitter-10000']) {
  test(`cobra: real logs ${name} parse with the independently counted records`, { skip: NO_DATA }, async () => {
    const dir = join(COBRA, name);
    const want = walk(dir);
    const h = await readCobra(dir);
    assert.equal(h.sessionCount, want.files);
    assert.equal(h.txnCount, want.tags.S);
    assert.equal(h.opCount, want.tags.W! + want.tags.R!);
    let reads = 0, writes = 0, initial = 0, committed = 0;
    for (let op = 0; op < h.opCount; op++) {
      if (h.opKind[op] === OP_READ) {
        reads++;
        if (h.opValue[op] === INITIAL_VALUE) initial++;
      } else if (h.opKind[op] === OP_WRITE) writes++;
    }
    for (let t = 0; t < h.txnCount; t++) if (h.txnStatus[t] === TXN_COMMITTED) committed++;
    assert.equal(reads, want.tags.R);
    assert.equal(writes, want.tags.W);
    assert.equal(initial, want.initialReads);
    assert.equal(committed, want.tags.C);
    assert.equal(h.locUnit, 'byte');
    assert.match(h.sessionLabels[0]!, /^T\d+$/);
    assert.deepEqual(notesOf(h), []);
    // Values are write ids: unique per write, so every written value id occurs once.
    const seen = new Set<number>();
    for (let op = 0; op < h.opCount; op++) {
      if (h.opKind[op] !== OP_WRITE) continue;
      assert.ok(!seen.has(h.opValue[op]!), 'write ids are unique values');
      seen.add(h.opValue[op]!);
    }
    assert.equal(cobraFormat.sniff(new Uint8Array(0), dir, true), true);
  });
}
// Counts found by a separate survey script when the format was examined (kept as a fixed point).
test('cobra: known record counts of the rubis log', { skip: NO_DATA }, () => {
  const w = walk(join(COBRA, 'rubis-10000'));
  assert.deepEqual(w.tags, { S: 9358, W: 11257, R: 35770, C: 9358, A: 0 });
  assert.equal(w.initialReads, 28465 + 2024);
});

// ---- synthetic logs -------------------------------------------------------------------------

function rec(tag: string, ...xs: bigint[]): Buffer {
  const b = Buffer.alloc(1 + 8 * xs.length);
  b[0] = tag.charCodeAt(0);
  xs.forEach((x, i) => b.writeBigInt64BE(BigInt.asIntN(64, x), 1 + 8 * i));
  return b;
}
const S = (t: bigint) => rec('S', t);
const C = (t: bigint) => rec('C', t);
const A = (t: bigint) => rec('A', t);
const W = (w: bigint, k: bigint, v: bigint) => rec('W', w, k, v);
const R = (t: bigint, w: bigint, k: bigint, v: bigint) => rec('R', t, w, k, v);
const INIT = 0xbebeebeen;
const MISSING = 0xdeadbeefn;

function parse(...sessions: Buffer[][]): History {
  return parseCobraFiles('<logs>', sessions.map((recs, i) => ({
    label: `T${i + 1}`, path: `T${i + 1}.log`, bytes: new Uint8Array(Buffer.concat(recs)),
  })));
}

function rejects(fn: () => unknown, code: string, file: string, byte: number, detail: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.equal(e.source, file);
    assert.equal(e.unit, 'byte');
    assert.equal(e.loc, byte);
    assert.match(e.detail, detail);
    return true;
  });
}

test('cobra: reads name write ids; markers read the initial value; big keys stay exact', () => {
  const bigKey = 0x7fffffffffffff01n;
  const h = parse(
    [S(1n), W(100n, bigKey, 7n), W(101n, 2n, 8n), C(1n), S(3n), R(2n, 200n, 2n, 9n), A(3n)],
    [S(2n), R(INIT, INIT, bigKey, 55n), R(MISSING, MISSING, 4n, 0n), W(200n, 2n, 9n), C(2n), S(4n), R(1n, 100n, bigKey, 7n)],
  );
  assert.equal(h.sessionCount, 2);
  assert.deepEqual([...h.txnStatus], [TXN_COMMITTED, TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN]);
  assert.deepEqual(h.txnLabelTable.toArray(), ['1', '3', '2', '4']);
  const desc = (op: number) => `${h.opKind[op] === OP_READ ? 'r' : 'w'}(${h.keyLabels[h.opKey[op]!]},${valueLabel(h, h.opValue[op]!)})`;
  assert.deepEqual(Array.from({ length: h.opCount }, (_, i) => desc(i)), [
    `w(${bigKey},100)`, 'w(2,101)', 'r(2,200)', `r(${bigKey},init)`, 'r(4,init)', 'w(2,200)', `r(${bigKey},100)`,
  ]);
  assert.equal(h.opValue[6], h.opValue[0], 'a read of write 100 has the value of write 100');
  assert.equal(h.opLoc[1], 34); // byte offset of the second W in T1.log: 9 + 25
  assert.match(notesOf(h)[0]!, /1 transaction\(s\) not closed/);
});

test('cobra: rejects malformed and inconsistent logs with file and byte offset', () => {
  rejects(() => parse([S(1n), rec('W', 1n, 2n)]), 'truncated', 'T1.log', 9, /needs 25 bytes but the file ends after 17/);
  rejects(() => parse([S(1n), C(1n).subarray(0, 5)]), 'truncated', 'T1.log', 9, /'C' record needs 9 bytes/);
  rejects(() => parse([S(1n), rec('X', 1n)]), 'syntax', 'T1.log', 9, /unknown record tag 0x58/);
  rejects(() => parse([W(1n, 2n, 3n)]), 'syntax', 'T1.log', 0, /'W' record outside a transaction/);
  rejects(() => parse([S(1n), C(1n), R(INIT, INIT, 1n, 1n)]), 'syntax', 'T1.log', 18, /'R' record outside/);
  rejects(() => parse([S(1n), C(2n)]), 'syntax', 'T1.log', 9, /'C' 0x2 does not match the open txn 0x1/);
  rejects(() => parse([S(1n), A(2n)]), 'syntax', 'T1.log', 9, /'A' 0x2 does not match/);
  rejects(() => parse([C(1n)]), 'syntax', 'T1.log', 0, /outside a transaction/);
  rejects(() => parse([S(1n), S(2n)]), 'syntax', 'T1.log', 9, /while txn 0x1 opened at byte 0 is still open/);
  rejects(() => parse([S(1n), C(1n)], [S(1n), C(1n)]), 'inconsistent', 'T2.log', 0, /txn id 0x1 was already used at T1.log byte 0/);
  rejects(() => parse([S(1n), W(5n, 1n, 1n), W(5n, 2n, 2n), C(1n)]), 'inconsistent', 'T1.log', 34, /write id 0x5 was already used/);
  rejects(() => parse([S(1n), W(INIT, 1n, 1n), C(1n)]), 'inconsistent', 'T1.log', 9, /reserved/);
  // Reads checked against their 'W' after every file, so the offset is the read's.
  rejects(() => parse([S(1n), W(5n, 1n, 1n), C(1n)], [S(2n), R(3n, 5n, 1n, 1n), C(2n)]), 'inconsistent', 'T2.log', 9, /names txn 0x3 as the writer of write id 0x5/);
  rejects(() => parse([S(1n), W(5n, 1n, 1n), C(1n)], [S(2n), R(1n, 5n, 9n, 1n), C(2n)]), 'inconsistent', 'T2.log', 9, /key 9 names write id 0x5, which T1.log byte 9 writes to key 1/);
  rejects(() => parse([S(1n), W(5n, 1n, 1n), C(1n)], [S(2n), R(1n, 5n, 1n, 4n), C(2n)]), 'inconsistent', 'T2.log', 9, /read value 0x4 differs from value 0x1/);
});

test('cobra: a read of a write id no W record carries is a garbage (thin-air) read, not bad input (issue 23 item 8)', async () => {
  const h = parse([S(1n), W(5n, 1n, 1n), C(1n)], [S(2n), R(INIT, INIT, 2n, 0n), R(1n, 6n, 1n, 1n), C(2n)]);
  assert.deepEqual(notesOf(h), [
    "1 read(s) name a write id that no 'W' record carries (first at T2.log byte 42: write id 0x6 of txn 0x1, key 1): each read a value nobody wrote, a garbage (thin-air) read",
  ]);
  for (const level of ['ru', 'si', 'ser'] as const) {
    const r = checkHistory(h, { level, pruning: true });
    assert.equal(r.verdict, 'violation', level);
    const a = r.anomalies.find((x) => x.type === 'non-cycle');
    assert.ok(a !== undefined && a.type === 'non-cycle' && a.name === 'garbage-read', `${level}: ${JSON.stringify(r.anomalies)}`);
    assert.equal(h.opLoc[a.op], 42, 'the anomaly points at the read record');
  }
  // Through the CLI on a directory: exit 1, the garbage read named, the file and offset in the note.
  const dir = scratchDir('polysi-cobra-thin-');
  try {
    writeFileSync(join(dir, 'T1.log'), Buffer.concat([S(1n), W(5n, 1n, 1n), C(1n)]));
    writeFileSync(join(dir, 'T2.log'), Buffer.concat([S(2n), R(1n, 6n, 1n, 1n), C(2n)]));
    const r = await runCli('check', dir);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /garbage[- ]read/);
    assert.ok(r.out.includes(`first at ${join(dir, 'T2.log')} byte 9: write id 0x6`), r.out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cobra: directory reading, session order by number, sniffing, ignored files', async () => {
  const dir = scratchDir('polysi-cobra-');
  try {
    writeFileSync(join(dir, 'T10.log'), Buffer.concat([S(2n), R(1n, 5n, 1n, 1n), C(2n)]));
    writeFileSync(join(dir, 'T9.log'), Buffer.concat([S(1n), W(5n, 1n, 1n), C(1n)]));
    writeFileSync(join(dir, 'T2.log'), Buffer.alloc(0));
    writeFileSync(join(dir, 'README'), 'x');
    const h = await readCobra(dir);
    assert.deepEqual(h.sessionLabels, ['T2', 'T9', 'T10']);
    assert.deepEqual([...h.sessionTxnStart], [0, 0, 1, 2]);
    assert.match(notesOf(h).join(' '), /ignored 1 file\(s\) not named T<n>.log: README/);
    assert.equal(cobraFormat.sniff(new Uint8Array(0), dir, true), true);
    assert.equal(cobraFormat.sniff(new Uint8Array(0), tmpdir() + '/does-not-exist', true), false);
    assert.equal(cobraFormat.sniff(new Uint8Array([0x53]), join(dir, 'T9.log'), false), false);
    const single = await readCobra(join(dir, 'T9.log'));
    assert.equal(single.txnCount, 1);
    const empty = scratchDir('polysi-cobra-empty-');
    await assert.rejects(readCobra(empty), (e: unknown) => e instanceof InputError && /no session files/.test(e.detail));
    rmSync(empty, { recursive: true });
    await assert.rejects(readCobra(join(dir, 'nope')), (e: unknown) => e instanceof InputError && e.code === 'io');
  } finally {
    rmSync(dir, { recursive: true });
  }
});
