// dbcop bincode: every real file (counts checked against its file name and header), byte-exact
// round trips, dropped events, exact u64s, and a table of malformed inputs with code and offset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { InputError } from '../../src/history/errors.ts';
import { HistoryBuilder } from '../../src/history/builder.ts';
import {
  assertHistory,
  INITIAL_VALUE,
  OP_READ,
  OP_WRITE,
  TXN_ABORTED,
  TXN_COMMITTED,
  TXN_UNKNOWN,
  txnLabel,
  valueLabel,
  type History,
} from '../../src/history/model.ts';
import {
  dbcopHeaderOf, parseDbcopBincode, parseDbcopBincodeDetailed, writeDbcopBincode,
} from '../../src/formats/dbcop-bincode.ts';
import { notesOf } from '../../src/formats/io-notes.ts';
import { diffHistories } from '../../src/formats/io-diff.ts';
import { checkHistory } from '../../src/check/index.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';

// Parse speed on the real files is measured by bench/speed.ts, not asserted here.
const NO_DATA = needsData();
const DATA = `${DATA_DIR}/polysi/`;
const REAL = NO_DATA !== false ? [] : [
  ...readdirSync(`${DATA}valid/fig7`).map((f) => `valid/fig7/${f}`),
  ...readdirSync(`${DATA}valid/fig8`).map((f) => `valid/fig8/${f}`),
  'violations/dgraph-causality.bincode',
].filter((f) => f.endsWith('.bincode'));

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
const bytesOf = (f: string): Uint8Array => new Uint8Array(readFileSync(`${DATA}${f}`));

// ---- An independent bincode encoder for hand-made inputs. ----
type Ev = [write: number, variable: number | bigint, value: number | bigint, success: number];
interface Spec {
  header?: Array<number | bigint>;
  strings?: string[];
  sessions: Array<Array<{ events: Ev[]; success?: number }>>;
}
function encode(spec: Spec): Uint8Array {
  const out: number[] = [];
  const u64 = (v: number | bigint) => {
    let b = BigInt(v);
    for (let i = 0; i < 8; i++) { out.push(Number(b & 0xffn)); b >>= 8n; }
  };
  const maxT = Math.max(0, ...spec.sessions.map((s) => s.length));
  const maxE = Math.max(0, ...spec.sessions.flat().map((t) => t.events.length));
  for (const v of spec.header ?? [0, spec.sessions.length, 100, maxT, maxE]) u64(v);
  for (const s of spec.strings ?? ['db', 'start', 'end']) {
    const b = new TextEncoder().encode(s);
    u64(b.length);
    out.push(...b);
  }
  u64(spec.sessions.length);
  for (const s of spec.sessions) {
    u64(s.length);
    for (const t of s) {
      u64(t.events.length);
      for (const [w, k, v, ok] of t.events) { out.push(w); u64(k); u64(v); out.push(ok); }
      out.push(t.success ?? 1);
    }
  }
  return Uint8Array.from(out);
}
const HEADER_END = 40 + 3 * 8 + 'db'.length + 'start'.length + 'end'.length; // offset of the session count

test('every real dbcop file parses with the counts in its name and header', { skip: NO_DATA }, () => {
  assert.equal(REAL.length, 35);
  for (const f of REAL) {
    const { history: h, header, droppedEvents } = parseDbcopBincodeDetailed(bytesOf(f), f);
    assertHistory(h);
    const name = f.split('/').pop()!;
    // fig7/fig8: sessions_txnsPerSession_opsPerTxn_keys_...; the Dgraph file: 10 x 80 (README).
    const [sessions, txns, ops, keys] = name.startsWith('dgraph') ? [10, 80, 20, 1000] : name.split('_').map(Number);
    assert.equal(h.sessionCount, sessions, `${f} sessions`);
    assert.equal(h.txnCount, sessions! * txns!, `${f} txns`);
    assert.equal(droppedEvents, 0, `${f} dropped events`);
    assert.equal(h.opCount, sessions! * txns! * ops!, `${f} ops`);
    for (let s = 0; s < h.sessionCount; s++) assert.equal(h.sessionTxnStart[s + 1]! - h.sessionTxnStart[s]!, txns);
    assert.deepEqual([header.nNode, header.nTransaction, header.nEvent, header.nVariable], [sessions, txns, ops, keys], f);
    assert.ok(h.keyLabels.length <= keys!, `${f}: at most n_variable keys`);
    assert.match(header.info, /^(PostgreSQL|Dgraph)$/);
    assert.equal(h.locUnit, 'byte');
    assert.deepEqual(notesOf(h), []);
  }
});

test('dgraph-causality: aborted txns, labels, locations', { skip: NO_DATA }, () => {
  const h = parseDbcopBincode(bytesOf('violations/dgraph-causality.bincode'), 'dgraph');
  let aborted = 0;
  for (let t = 0; t < h.txnCount; t++) if (h.txnStatus[t] === TXN_ABORTED) aborted++;
  assert.equal(aborted, 320);
  assert.deepEqual(h.sessionLabels, ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
  assert.equal(txnLabel(h, 0), 's1:0');
  assert.equal(txnLabel(h, h.txnCount - 1), 's10:79');
  // Header 40 + strings (8+6, 8+35, 8+35) + session count 8 + txn count 8: the first txn's events.
  assert.equal(h.txnLoc[0], 148 + 8);
  assert.equal(h.opLoc[0], h.txnLoc[0]! + 8);
  assert.equal(h.opLoc[1], h.opLoc[0]! + 18);
});

test('bincode round trip: real files come back byte for byte and History for History', { skip: NO_DATA }, () => {
  for (const f of REAL) {
    const bytes = bytesOf(f);
    const h = parseDbcopBincode(bytes, f);
    const out = writeDbcopBincode(h);
    assert.ok(sameBytes(out, bytes), `${f}: bytes differ`);
    assert.equal(diffHistories(h, parseDbcopBincode(out, 'rt'), true), null, f);
  }
});

test('events with success=0 are dropped, counted and noted; txn success=0 is aborted', () => {
  const bytes = encode({ sessions: [[
    { events: [[1, 1, 5, 1], [1, 2, 6, 0], [0, 1, 0, 1]] },
    { events: [[0, 2, 6, 0], [1, 3, 7, 1]], success: 0 },
  ], []] });
  const p = parseDbcopBincodeDetailed(bytes, 'drop.bincode');
  assert.equal(p.droppedEvents, 2);
  assert.equal(p.droppedInCommitted, 1);
  assert.deepEqual(p.notes, ['dropped 2 event(s) with success=0 (dbcop: they did not happen), 1 of them in committed transactions']);
  assert.deepEqual(notesOf(p.history), p.notes);
  const h = p.history;
  assert.equal(h.sessionCount, 2); // the empty second session is kept
  assert.deepEqual([...h.txnStatus], [TXN_COMMITTED, TXN_ABORTED]);
  assert.deepEqual([...h.opKind], [OP_WRITE, OP_READ, OP_WRITE]);
  assert.equal(h.opValue[1], INITIAL_VALUE);
  assert.deepEqual([...h.txnOpStart], [0, 2, 3]);
});

test('u64 keys and values beyond 2^53 stay exact and round-trip', () => {
  const big = (1n << 64n) - 1n;
  const bytes = encode({
    header: [7n, 1, big, 1, 2],
    sessions: [[{ events: [[1, big - 1n, big, 1], [0, 9007199254740993n, 9007199254740993n, 1]] }]],
  });
  const h = parseDbcopBincode(bytes, 'big');
  assert.equal(h.keyLabels[h.opKey[0]!], (big - 1n).toString());
  assert.equal(valueLabel(h, h.opValue[0]!), big.toString());
  assert.equal(valueLabel(h, h.opValue[1]!), '9007199254740993');
  assert.equal(dbcopHeaderOf(h)!.id, 7);
  assert.ok(sameBytes(writeDbcopBincode(h), bytes));
});

test('random files: every event that happened is an op with its key, value, kind and byte offset (keys and values in every interning path)', () => {
  // Seeded (mulberry32). Keys below and above the parser's key cache (2^16) and 2^32; values 0
  // (the initial value), small, around the value cache's bound (2^20 and the event count),
  // around 2^31, and beyond 2^53: each goes through its own interning path, and every value
  // recurs (read back, or written to several keys), so a cache that hands out a wrong id fails.
  let seed = 0x5eed5;
  const rand = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let z = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const KEY_BASES: Array<number | bigint> = [0, 1, 65534, 65536, 1 << 20, 2 ** 31 - 1, 2 ** 32 + 5, 2n ** 60n];
  const VALUE_BASES: Array<number | bigint> = [1, 1000, (1 << 20) - 2, 1 << 20, 2 ** 31 - 2, 2 ** 31, 2 ** 40, 2n ** 63n];
  for (let round = 0; round < 60; round++) {
    const keys = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => {
      const b = pick(KEY_BASES);
      return typeof b === 'bigint' ? b + BigInt(Math.floor(rand() * 4)) : b + Math.floor(rand() * 4);
    });
    const values = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => {
      const b = pick(VALUE_BASES);
      // Values from 1 up spread over 1..64: around the value cache's bound of small files (the event count + 1).
      return typeof b === 'bigint' ? b + BigInt(Math.floor(rand() * 4)) : b + Math.floor(rand() * (b === 1 ? 64 : 4));
    });
    const sessions = Array.from({ length: 1 + Math.floor(rand() * 4) }, () =>
      Array.from({ length: Math.floor(rand() * 5) }, () => ({
        events: Array.from({ length: Math.floor(rand() * 6) }, (): Ev => [
          rand() < 0.5 ? 1 : 0, pick(keys), rand() < 0.15 ? 0 : pick(values), rand() < 0.1 ? 0 : 1,
        ]),
        success: rand() < 0.2 ? 0 : 1,
      })));
    const maxT = Math.max(0, ...sessions.map((x) => x.length));
    const maxE = Math.max(0, ...sessions.flat().map((t) => t.events.length));
    const bytes = encode({ header: [round, sessions.length, 2n ** 64n - 1n, maxT, maxE], sessions });
    const h = parseDbcopBincode(bytes, 'random');
    assertHistory(h);
    // Expected ops, in file order, with each event's byte offset.
    const expected: Array<{ kind: number; key: string; value: string; at: number }> = [];
    const statuses: number[] = [];
    let at = HEADER_END + 8;
    for (const sess of sessions) {
      at += 8;
      for (const t of sess) {
        at += 8;
        for (const [w, k, v, ok] of t.events) {
          if (ok === 1) expected.push({ kind: w === 1 ? OP_WRITE : OP_READ, key: String(k), value: String(v), at });
          at += 18;
        }
        at += 1;
        statuses.push(t.success === 0 ? TXN_ABORTED : TXN_COMMITTED);
      }
    }
    assert.equal(h.opCount, expected.length);
    assert.deepEqual(Array.from(h.txnStatus), statuses);
    const idOfValue = new Map<string, number>();
    for (let op = 0; op < h.opCount; op++) {
      const e = expected[op]!;
      assert.equal(h.opKind[op], e.kind, `round ${round} op ${op} kind`);
      assert.equal(h.keyLabels[h.opKey[op]!], e.key, `round ${round} op ${op} key`);
      const id = h.opValue[op]!;
      if (e.value === '0') assert.equal(id, INITIAL_VALUE, `round ${round} op ${op}: 0 is the initial value`);
      else assert.equal(valueLabel(h, id), e.value, `round ${round} op ${op} value`);
      // One id per value: the same value always has the same id, different values different ids.
      const seen = idOfValue.get(e.value);
      if (seen === undefined) idOfValue.set(e.value, id); else assert.equal(id, seen, `round ${round}: value ${e.value} has two ids`);
      assert.equal(h.opLoc[op], e.at, `round ${round} op ${op} byte offset`);
    }
    assert.equal(new Set(idOfValue.values()).size, idOfValue.size, `round ${round}: two values share an id`);
  }
});

const BAD: Array<[string, Uint8Array, string, number, RegExp?]> = (() => {
  const good = encode({ sessions: [[{ events: [[1, 1, 1, 1]] }]] });
  const with_ = (at: number, byte: number) => { const c = good.slice(); c[at] = byte; return c; };
  const sessAt = HEADER_END; // session count
  const txnAt = sessAt + 16; // session 1's txn count, then txn s1:0's event count
  const evAt = txnAt + 8;
  return [
    ['empty file', new Uint8Array(0), 'truncated', 0, /expected header field id \(8 bytes\), but the file ends here/],
    ['cut in the header', good.subarray(0, 13), 'truncated', 8, /header field n_node \(8 bytes\), but the file ends after 5 more/],
    ['cut in a string', good.subarray(0, 45), 'truncated', 40, /length of the info string/],
    ['string longer than the file', (() => { const c = good.slice(); c[40] = 200; return c; })(), 'truncated', 40, /length 200 of the info string/],
    ['absurd session count', (() => { const c = good.slice(); c.fill(0xff, sessAt, sessAt + 8); return c; })(), 'truncated', sessAt, /length 18446744073709551615 of the session list/],
    ['absurd event count', (() => { const c = good.slice(); c[txnAt + 3] = 0x40; return c; })(), 'truncated', txnAt],
    ['cut before txn success', good.subarray(0, good.length - 1), 'truncated', good.length - 1, /success flag of txn s1:0/],
    ['write flag 2', with_(evAt, 2), 'syntax', evAt, /0 or 1 for the write flag of an event of txn s1:0, found 0x02/],
    ['event success 7', with_(evAt + 17, 7), 'syntax', evAt + 17, /success flag of an event/],
    ['txn success 0xff', with_(good.length - 1, 0xff), 'syntax', good.length - 1, /success flag of txn s1:0/],
    ['trailing bytes', Uint8Array.from([...good, 0, 0]), 'syntax', good.length, /end of the file after the last session, found 2 more/],
    ['invalid UTF-8', (() => { const c = good.slice(); c[48] = 0xff; return c; })(), 'syntax', 48, /UTF-8/],
    ['n_node mismatch', with_(8, 3), 'inconsistent', sessAt, /n_node/],
    ['more txns than n_transaction', with_(24, 0), 'inconsistent', sessAt + 8, /n_transaction/],
    ['more events than n_event', with_(32, 0), 'inconsistent', txnAt, /n_event/],
  ];
})();

test('variables at or above n_variable are read with a note, as dbcop and PolySI read them (issue 23 item 8)', () => {
  // VeriStrong's converted Galera lost update, in small: n_variable says 1, the variables are 5
  // (through the key cache) and 2^40 (through the big-key path). Both sessions read 5 = 0 (the
  // initial value) and write it: a lost update, which SI forbids. This was refused before.
  const big = 2 ** 40;
  const bytes = encode({
    header: [0, 2, 1, 1, 3],
    sessions: [
      [{ events: [[0, 5, 0, 1], [1, 5, 1, 1], [1, big, 7, 1]] }],
      [{ events: [[0, 5, 0, 1], [1, 5, 2, 1], [1, big, 8, 1]] }],
    ],
  });
  const { history: h, notes } = parseDbcopBincodeDetailed(bytes, 'galera.bincode');
  assert.deepEqual(h.keyLabels, ['5', String(big)]);
  assert.equal(h.opCount, 6);
  assert.deepEqual(notes, [`2 variable(s) are at or above header field n_variable = 1 (largest ${big}, first at byte ${HEADER_END + 25}): read anyway, as dbcop and PolySI do (they ignore the field)`]);
  assert.deepEqual(notesOf(h), notes);
  assert.equal(checkHistory(h, { level: 'si', pruning: true }).verdict, 'violation');
  // Within n_variable: no note.
  assert.deepEqual(parseDbcopBincodeDetailed(encode({ sessions: [[{ events: [[1, 99, 1, 1]] }]] })).notes, []);
});

test('malformed bincode: error code, byte offset and message', () => {
  for (const [what, bytes, code, at, msg] of BAD) {
    assert.throws(() => parseDbcopBincode(bytes, 'bad.bincode'), (e: unknown) => {
      assert.ok(e instanceof InputError, `${what}: ${String(e)}`);
      assert.equal(e.code, code, `${what}: ${e.message}`);
      assert.equal(e.unit, 'byte');
      assert.equal(e.loc, at, `${what}: ${e.message}`);
      assert.match(e.message, new RegExp(`^bad\\.bincode byte ${at}: `));
      if (msg) assert.match(e.message, msg, what);
      return true;
    }, what);
  }
});

test('the writer refuses what dbcop cannot hold, and computes a header otherwise', () => {
  const make = (f: (b: HistoryBuilder, t: number) => void): History => {
    const b = new HistoryBuilder();
    const t = b.beginTxn(b.session('a'), 'x');
    f(b, t);
    return b.build();
  };
  assert.throws(() => writeDbcopBincode(make((b, t) => { b.write(t, 1, 1); b.setStatus(t, TXN_UNKNOWN); })), /unknown outcome/);
  assert.throws(() => writeDbcopBincode(make((b, t) => b.append(t, 1, 1))), /list operation/);
  assert.throws(() => writeDbcopBincode(make((b, t) => b.write(t, -1, 1))), /key -1 is not an unsigned/);
  assert.throws(() => writeDbcopBincode(make((b, t) => b.write(t, 1, 'v'))), /not an unsigned/);
  assert.throws(() => writeDbcopBincode(make((b, t) => b.write(t, 1, 0))), /initial value/);

  const h = make((b, t) => { b.write(t, 41, 3); b.read(t, 7, null); });
  const back = parseDbcopBincodeDetailed(writeDbcopBincode(h), 'w');
  assert.deepEqual(back.header, { id: 0, nNode: 1, nVariable: 42, nTransaction: 1, nEvent: 2, info: '', start: '', end: '' });
  assert.deepEqual(back.history.sessionLabels, ['1']);
  assert.deepEqual(back.history.txnLabelTable.toArray(), ['s1:0']);
  assert.deepEqual(back.history.keyLabels, ['41', '7']);
});
