/**
 * dbcop bincode histories (Rust bincode v1: little-endian, u64 lengths), as written by dbcop.
 *
 * Layout: 5 x u64 header (id, n_node, n_variable, n_transaction, n_event); three strings
 * (u64 length + UTF-8: info, start, end); Vec<Session> (u64 count); Session = Vec<Txn>;
 * Txn = Vec<Event> then `success: u8`; Event = `write: u8, variable: u64, value: u64, success: u8`.
 *
 * Takes: the file's bytes. Gives: a History with locUnit 'byte' (0-based offsets: a txn's loc is
 * its event-count field, an op's loc is its event), sessions labelled 1..n in file order (dbcop's
 * own numbering; its session 0 is the implicit initial txn), txns labelled `s{session}:{index}`
 * with a 0-based index, value 0 mapped to INITIAL_VALUE (reads and writes), txn success=0 →
 * TXN_ABORTED. Events with success=0 did not happen: they are not operations, but they are
 * counted (`droppedEvents`) and reported as a parse note, never silently lost. A variable at or
 * above the header's n_variable is read (dbcop and PolySI ignore the field, and VeriStrong's
 * converted Galera and YugabyteDB histories have such variables; issue 23 item 8), with a note.
 * Invariant: every byte is accounted for: a short file, a length that cannot fit in the bytes
 * left, a bool byte other than 0/1, invalid UTF-8 or trailing bytes are InputErrors with the
 * byte offset; no allocation is sized by an unchecked length.
 */

import { HistoryBuilder, OP_READ, OP_WRITE } from '../history/builder.ts';
import { InputError } from '../history/errors.ts';
import {
  INITIAL_VALUE,
  TXN_ABORTED,
  TXN_COMMITTED,
  TXN_UNKNOWN,
  txnLabel,
  type History,
} from '../history/model.ts';
import { u64OfLabel } from './io-int.ts';
import { attachNotes } from './io-notes.ts';
import { HEAD_BYTES, withInput, type HistoryInput } from './io-read.ts';
import type { FormatModule } from './types.ts';
import { predicateRefusal } from './io-predicates.ts';

/** A u64 as read: a number when it is a safe integer, else an exact bigint. */
export type U64 = number | bigint;

export interface DbcopHeader {
  readonly id: U64;
  /** Number of client nodes; in every dbcop file we have, the number of sessions. */
  readonly nNode: U64;
  /** Number of variables (keys) the generator drew from. */
  readonly nVariable: U64;
  /** Transactions per session the generator was asked for. */
  readonly nTransaction: U64;
  /** Events per transaction the generator was asked for. */
  readonly nEvent: U64;
  readonly info: string;
  readonly start: string;
  readonly end: string;
}

export interface DbcopParse {
  readonly history: History;
  readonly header: DbcopHeader;
  /** Events with success=0: not in the History (they did not happen). */
  readonly droppedEvents: number;
  /** Of those, how many sat in committed transactions. */
  readonly droppedInCommitted: number;
  /** Human-readable notes (also attached to the History, see io-notes.ts). */
  readonly notes: readonly string[];
}

const EVENT_BYTES = 18; // write u8 + variable u64 + value u64 + success u8
const TXN_MIN_BYTES = 9; // event count u64 + success u8
const SESSION_MIN_BYTES = 8; // txn count u64
const TWO32 = 4294967296;
/** Variables and values below this are interned through flat arrays (see the parse loop). */
const CACHE_SIZE = 1 << 16;
/** Values below this (and below the file's event count) are interned through a flat array. */
const VALUE_CACHE_SIZE = 1 << 20;

/** Headers of histories parsed here, so writing one back reproduces the original file. */
const HEADERS = new WeakMap<History, DbcopHeader>();

/** The dbcop header a History was parsed from, if it came from `parseDbcopBincode*`. */
export function dbcopHeaderOf(h: History): DbcopHeader | undefined {
  return HEADERS.get(h);
}

/**
 * Names the thing being read, for error messages only. Messages are built lazily from
 * (describe, a, b) so the hot loops pass a constant function and two numbers: no string is
 * built per transaction unless something is wrong.
 */
type Describe = (a: number, b: number) => string;
const fixed = (text: string): Describe => () => text;
const SESSION_TXNS: Describe = (s) => `the txn list of session ${s}`;
const TXN_EVENTS: Describe = (s, i) => `the event list of txn s${s}:${i}`;
const TXN_SUCCESS: Describe = (s, i) => `the success flag of txn s${s}:${i}`;
const EVENT_WRITE: Describe = (s, i) => `the write flag of an event of txn s${s}:${i}`;
const EVENT_SUCCESS: Describe = (s, i) => `the success flag of an event of txn s${s}:${i}`;

/** A little-endian cursor that turns every overrun into an InputError with the byte offset. */
class Reader {
  pos = 0;
  readonly view: DataView;

  constructor(readonly bytes: Uint8Array, readonly source: string) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  need(n: number, what: Describe, a = 0, b = 0): void {
    const left = this.bytes.length - this.pos;
    if (left < n) {
      throw new InputError('truncated', this.source, 'byte', this.pos,
        `expected ${what(a, b)} (${n} byte${n === 1 ? '' : 's'}), but the file ends ` +
        `${left === 0 ? 'here' : `after ${left} more byte(s)`}`);
    }
  }

  /** u64 at `at` (bounds already checked). */
  u64At(at: number): U64 {
    const lo = this.view.getUint32(at, true);
    const hi = this.view.getUint32(at + 4, true);
    if (hi === 0) return lo;
    if (hi < 0x200000) return hi * TWO32 + lo; // < 2^53: exact as a double
    return this.view.getBigUint64(at, true);
  }

  u64(what: Describe, a = 0, b = 0): U64 {
    this.need(8, what, a, b);
    const v = this.u64At(this.pos);
    this.pos += 8;
    return v;
  }

  /**
   * A u64 element count, checked against the bytes left: `count` elements of at least
   * `minBytes` each must fit, so a corrupt length can never drive a loop or an allocation.
   */
  count(minBytes: number, what: Describe, a = 0, b = 0): number {
    const at = this.pos;
    if (this.bytes.length - at < 8) {
      throw new InputError('truncated', this.source, 'byte', at,
        `expected 8-byte length of ${what(a, b)}, but the file ends ` +
        `${at === this.bytes.length ? 'here' : `after ${this.bytes.length - at} more byte(s)`}`);
    }
    const n = this.u64At(at);
    this.pos = at + 8;
    const left = this.bytes.length - this.pos;
    if (typeof n === 'bigint' || n * minBytes > left) {
      throw new InputError('truncated', this.source, 'byte', at,
        // In BigInt: a u64 length times the element size can pass 2^53, where doubles round.
        `length ${String(n)} of ${what(a, b)} needs at least ${String(BigInt(n) * BigInt(minBytes))} ` +
        `bytes but only ${left} remain (the file is truncated or the length is corrupt)`);
    }
    return n;
  }

  /** A bool byte at `at` (bounds already checked): 0 or 1, anything else is an error. */
  boolAt(at: number, what: Describe, a = 0, b = 0): boolean {
    const v = this.bytes[at]!;
    if (v > 1) {
      throw new InputError('syntax', this.source, 'byte', at,
        `expected 0 or 1 for ${what(a, b)}, found 0x${v.toString(16).padStart(2, '0')}`);
    }
    return v === 1;
  }

  str(what: string): string {
    const n = this.count(1, fixed(`the ${what} string`));
    const at = this.pos;
    this.pos += n;
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes.subarray(at, at + n));
    } catch {
      throw new InputError('syntax', this.source, 'byte', at, `expected UTF-8 text for the ${what} string`);
    }
  }
}

/** Parses dbcop bincode and returns the History together with the header and drop counts. */
export function parseDbcopBincodeDetailed(bytes: Uint8Array, source = '<memory>'): DbcopParse {
  const r = new Reader(bytes, source);
  const header: DbcopHeader = {
    id: r.u64(fixed('header field id')),
    nNode: r.u64(fixed('header field n_node')),
    nVariable: r.u64(fixed('header field n_variable')),
    nTransaction: r.u64(fixed('header field n_transaction')),
    nEvent: r.u64(fixed('header field n_event')),
    info: r.str('info'),
    start: r.str('start'),
    end: r.str('end'),
  };

  const b = new HistoryBuilder(source, 'byte');
  // Sized once from the file (a bound: every event takes EVENT_BYTES) rather than by doubling.
  const maxOps = Math.floor(bytes.length / EVENT_BYTES);
  b.reserve(maxOps, Math.min(Math.floor(bytes.length / TXN_MIN_BYTES), limit(header.nNode) * limit(header.nTransaction)), maxOps >> 1);
  // Header checks: only what holds in every real dbcop file we have (PolySI's fig7, fig8 and the
  // Dgraph history). There n_node = sessions, and every session has exactly n_transaction txns of
  // exactly n_event events, all variables below n_variable; the last three are enforced as upper
  // bounds only, so a shorter run (or a History we wrote with computed maxima) still reads.
  const maxTxns = limit(header.nTransaction), maxEvents = limit(header.nEvent), nVar = limit(header.nVariable);
  const sessAt = r.pos;
  const nSess = r.count(SESSION_MIN_BYTES, fixed('the session list'));
  if (header.nNode !== nSess) {
    throw new InputError('inconsistent', source, 'byte', sessAt,
      `the file holds ${nSess} session(s) but header field n_node (byte 8) says ${String(header.nNode)}`);
  }

  // Small variables are interned through this array (dbcop draws them from a small range), and
  // small values through the other (id + 1, 0 = not seen yet), so most events make no call.
  // Sized without n_variable, which does not bound the variables (see outOfRange).
  const keyCache = new Int32Array(CACHE_SIZE).fill(-1);
  const valueCache = new Int32Array(Math.min(maxOps + 1, VALUE_CACHE_SIZE));
  valueCache[0] = INITIAL_VALUE + 1;
  // Every event fits (maxOps bounds them), so the columns are fetched once.
  const cols = b.opColumns(maxOps);
  const tally = { dropped: 0, droppedInCommitted: 0 };
  const ctx: EventContext = {
    r, b, nVariable: header.nVariable, nVar, keyCache, valueCache, kind: cols.kind, key: cols.key, value: cols.value, loc: cols.loc,
    outOfRange: { count: 0, largest: 0, firstAt: -1 },
  };
  for (let s = 1; s <= nSess; s++) {
    const sessionId = b.session(String(s));
    const labelPrefix = b.txnPrefix(`s${s}:`); // txn i of session s is labelled s<s>:<i>
    const listAt = r.pos;
    const nTxn = r.count(TXN_MIN_BYTES, SESSION_TXNS, s);
    if (nTxn > maxTxns) {
      throw new InputError('inconsistent', source, 'byte', listAt,
        `session ${s} holds ${nTxn} txns but header field n_transaction (byte 24) says at most ${maxTxns}`);
    }
    readTxns(ctx, s, sessionId, labelPrefix, nTxn, maxEvents, tally);
  }
  const dropped = tally.dropped, droppedInCommitted = tally.droppedInCommitted;
  if (r.pos !== bytes.length) {
    throw new InputError('syntax', source, 'byte', r.pos,
      `expected the end of the file after the last session, found ${bytes.length - r.pos} more byte(s)`);
  }

  const notes: string[] = [];
  if (dropped > 0) {
    notes.push(`dropped ${dropped} event(s) with success=0 (dbcop: they did not happen)` +
      (droppedInCommitted > 0 ? `, ${droppedInCommitted} of them in committed transactions` : ''));
  }
  const oor = ctx.outOfRange;
  if (oor.count > 0) {
    notes.push(`${oor.count} variable(s) are at or above header field n_variable = ${String(header.nVariable)} ` +
      `(largest ${String(oor.largest)}, first at byte ${oor.firstAt}): read anyway, as dbcop and PolySI do (they ignore the field)`);
  }
  const history = attachNotes(b.build(), notes);
  HEADERS.set(history, header);
  return { history, header, droppedEvents: dropped, droppedInCommitted, notes };
}

/** What the txn and event loops share: the reader, the builder, the interning caches, the op columns. */
interface EventContext {
  readonly r: Reader;
  readonly b: HistoryBuilder;
  readonly nVariable: U64;
  /** n_variable as a bound (Infinity when it does not fit a number). */
  readonly nVar: number;
  readonly keyCache: Int32Array;
  readonly valueCache: Int32Array;
  readonly kind: Uint8Array;
  readonly key: Int32Array;
  readonly value: Int32Array;
  readonly loc: Float64Array;
  /** Distinct variables at or above n_variable: how many, the largest, the first one's byte. */
  readonly outOfRange: { count: number; largest: U64; firstAt: number };
}

/**
 * The `nTxn` txns of session s, from `ctx.r.pos`. A function of its own, and the events of a txn
 * another: each loop is compiled early in a fresh process (V8 compiles the whole function
 * holding a hot loop, and a large one late: the parse loop as one function was ~17 ms of fig8 30 %'s
 * ~40 ms parse).
 */
function readTxns(ctx: EventContext, s: number, sessionId: number, labelPrefix: number, nTxn: number, maxEvents: number, tally: { dropped: number; droppedInCommitted: number }): void {
  const r = ctx.r, b = ctx.b;
  for (let i = 0; i < nTxn; i++) {
    const txnAt = r.pos;
    const nEv = r.count(EVENT_BYTES, TXN_EVENTS, s, i);
    if (nEv > maxEvents) {
      throw new InputError('inconsistent', r.source, 'byte', txnAt,
        `txn s${s}:${i} holds ${nEv} events but header field n_event (byte 32) says at most ${maxEvents}`);
    }
    const t = b.beginTxnNumbered(sessionId, labelPrefix, i, TXN_COMMITTED, txnAt);
    // count() proved all nEv events fit, so the events are read without per-field bounds checks.
    const added = readEvents(ctx, r.pos, nEv, b.opCount, s, i);
    b.addOps(t, added);
    const droppedHere = nEv - added;
    r.pos += nEv * EVENT_BYTES;
    r.need(1, TXN_SUCCESS, s, i);
    const ok = r.boolAt(r.pos++, TXN_SUCCESS, s, i);
    if (!ok) b.setStatus(t, TXN_ABORTED);
    tally.dropped += droppedHere;
    if (ok) tally.droppedInCommitted += droppedHere;
  }
}

/**
 * The `nEv` events at byte `at` (all within the file) of txn s:i, written as ops into the
 * columns from index `base`; returns how many were ops (events with success=0 are not).
 */
function readEvents(ctx: EventContext, at: number, nEv: number, base: number, s: number, i: number): number {
  const r = ctx.r, bytes = r.bytes, view = r.view, keyCache = ctx.keyCache, valueCache = ctx.valueCache;
  const kindCol = ctx.kind, keyCol = ctx.key, valueCol = ctx.value, locCol = ctx.loc;
  let o = base;
  for (let e = 0; e < nEv; e++, at += EVENT_BYTES) {
    const w = bytes[at]!;
    if (w > 1) r.boolAt(at, EVENT_WRITE, s, i); // throws
    const ok = bytes[at + 17]!;
    if (ok !== 1) {
      r.boolAt(at + 17, EVENT_SUCCESS, s, i);
      continue;
    }
    let keyId: number;
    const klo = view.getUint32(at + 1, true), khi = view.getUint32(at + 5, true);
    if (khi === 0 && klo < keyCache.length) {
      keyId = keyCache[klo]!;
      if (keyId < 0) {
        keyId = keyCache[klo] = ctx.b.intKey(klo);
        if (klo >= ctx.nVar) outOfRange(ctx, klo, at + 1);
      }
    } else {
      keyId = bigKey(ctx, at + 1);
    }
    let valueId: number;
    const vlo = view.getUint32(at + 9, true), vhi = view.getUint32(at + 13, true);
    if (vhi === 0 && vlo < valueCache.length) {
      valueId = valueCache[vlo]! - 1;
      if (valueId < 0) { valueId = ctx.b.intValue(vlo); valueCache[vlo] = valueId + 1; }
    } else if (vhi === 0 && vlo <= 0x7fffffff) valueId = ctx.b.intValue(vlo);
    else valueId = ctx.b.value(r.u64At(at + 9));
    kindCol[o] = w === 1 ? OP_WRITE : OP_READ;
    keyCol[o] = keyId;
    valueCol[o] = valueId;
    locCol[o] = at;
    o++;
  }
  return o - base;
}

/** The key id of a variable outside the key cache (at byte `at`), counted if at or above n_variable. */
function bigKey(ctx: EventContext, at: number): number {
  const k = ctx.r.u64At(at);
  const before = ctx.b.keyCount;
  const id = ctx.b.key(typeof k === 'bigint' ? k.toString() : k);
  if (ctx.b.keyCount > before && k >= ctx.nVariable) outOfRange(ctx, k, at);
  return id;
}

/** Counts variable `k` (first seen at byte `at`) as one at or above n_variable. */
function outOfRange(ctx: EventContext, k: U64, at: number): void {
  const o = ctx.outOfRange;
  if (o.count === 0) o.firstAt = at;
  o.count++;
  if (k > o.largest) o.largest = k;
}

/** A header count as a bound for the checks (a bigint bound can never be exceeded by a count we hold). */
function limit(v: U64): number {
  return typeof v === 'bigint' ? Infinity : v;
}

/** Parses dbcop bincode; the drop count is attached as a note (see `notesOf`). */
export function parseDbcopBincode(bytes: Uint8Array, source = '<memory>'): History {
  return parseDbcopBincodeDetailed(bytes, source).history;
}

/** True if `head` starts like a dbcop file: a header and three strings whose lengths fit. */
export function sniffDbcopBincode(head: Uint8Array, _path: string, isDir: boolean): boolean {
  if (isDir || head.length < 72) return false;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const whole = head.length < HEAD_BYTES; // the head is the entire file
  // n_node, n_transaction and n_event count things in the file, so they are below 2^32; a text
  // file's bytes read as u64 are not. (id and n_variable may be anything.)
  for (const at of [8, 24, 32]) if (view.getUint32(at + 4, true) !== 0) return false;
  // No sessions means a file of a few dozen bytes: a long head of zeros (/dev/zero) is not one.
  if (!whole && view.getUint32(8, true) === 0) return false;
  let at = 40;
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  for (let i = 0; i < 3; i++) {
    if (at + 8 > head.length) return !whole;
    if (view.getUint32(at + 4, true) !== 0) return false;
    const n = view.getUint32(at, true);
    at += 8;
    if (n > 1 << 20 || (whole && at + n > head.length)) return false;
    if (at + n <= head.length) {
      try {
        utf8.decode(head.subarray(at, at + n));
      } catch {
        return false;
      }
    }
    at += n;
  }
  if (at + 8 > head.length) return !whole;
  // The session count equals n_node in every dbcop file (the parser enforces it).
  return view.getUint32(at + 4, true) === 0 && view.getUint32(at, true) === view.getUint32(8, true);
}

/**
 * Renders a History as dbcop bincode. Throws an Error saying why if dbcop cannot hold it:
 * an unknown-outcome txn, a list operation, a key or value that is not a u64, a non-initial
 * value labelled 0. Session and txn labels are not stored (dbcop numbers them by position).
 * The header is the one the History was parsed from, else computed (id 0, n_node = sessions,
 * n_variable = largest key + 1, n_transaction / n_event = the largest session / txn, empty strings).
 */
export function writeDbcopBincode(h: History): Uint8Array {
  const why = (msg: string): never => {
    throw new Error(`cannot write ${h.source} as dbcop bincode: ${msg}`);
  };
  const predicates = predicateRefusal(h);
  if (predicates !== null) why(predicates);
  const keys = h.keyLabels.map((l) => u64OfLabel(l) ?? why(`key ${l} is not an unsigned 64-bit integer`));
  const values: U64[] = h.valueLabelTable.toArray().map((l, v) => {
    if (v === INITIAL_VALUE) return 0;
    const u = u64OfLabel(l) ?? why(`value ${l} is not an unsigned 64-bit integer`);
    if (u === 0) why('a written value 0 would read back as the initial value');
    return u;
  });

  let maxTxns = 0, maxOps = 0;
  for (let s = 0; s < h.sessionCount; s++) maxTxns = Math.max(maxTxns, h.sessionTxnStart[s + 1]! - h.sessionTxnStart[s]!);
  for (let t = 0; t < h.txnCount; t++) maxOps = Math.max(maxOps, h.txnOpStart[t + 1]! - h.txnOpStart[t]!);
  // n_variable must exceed every variable (the reader checks it): max + 1 of the keys.
  let nVariable: U64 = 0;
  for (const k of keys) {
    const next = typeof k === 'bigint' ? k + 1n : k + 1 > Number.MAX_SAFE_INTEGER ? BigInt(k) + 1n : k + 1;
    if (next > nVariable) nVariable = next;
  }
  if (typeof nVariable === 'bigint' && nVariable >= 1n << 64n) why('key 2^64-1 leaves no room for n_variable');
  const header: DbcopHeader = HEADERS.get(h) ?? {
    id: 0, nNode: h.sessionCount, nVariable, nTransaction: maxTxns, nEvent: maxOps,
    info: '', start: '', end: '',
  };
  const enc = new TextEncoder();
  const strs = [enc.encode(header.info), enc.encode(header.start), enc.encode(header.end)];

  const size = 40 + strs.reduce((a, s) => a + 8 + s.length, 0) + 8 +
    h.sessionCount * SESSION_MIN_BYTES + h.txnCount * TXN_MIN_BYTES + h.opCount * EVENT_BYTES;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  const u64 = (v: U64): void => {
    if (typeof v === 'bigint') view.setBigUint64(at, v, true);
    else {
      view.setUint32(at, v % TWO32, true);
      view.setUint32(at + 4, Math.floor(v / TWO32), true);
    }
    at += 8;
  };
  for (const v of [header.id, header.nNode, header.nVariable, header.nTransaction, header.nEvent]) u64(v);
  for (const s of strs) {
    u64(s.length);
    out.set(s, at);
    at += s.length;
  }
  u64(h.sessionCount);
  for (let s = 0; s < h.sessionCount; s++) {
    const t0 = h.sessionTxnStart[s]!, t1 = h.sessionTxnStart[s + 1]!;
    u64(t1 - t0);
    for (let t = t0; t < t1; t++) {
      const status = h.txnStatus[t];
      if (status === TXN_UNKNOWN) why(`txn ${txnLabel(h, t)} has an unknown outcome; dbcop records success or failure`);
      const o0 = h.txnOpStart[t]!, o1 = h.txnOpStart[t + 1]!;
      u64(o1 - o0);
      for (let op = o0; op < o1; op++) {
        const kind = h.opKind[op];
        if (kind !== OP_READ && kind !== OP_WRITE) why(`txn ${txnLabel(h, t)} has a list operation`);
        out[at++] = kind === OP_WRITE ? 1 : 0;
        u64(keys[h.opKey[op]!]!);
        u64(values[h.opValue[op]!]!);
        out[at++] = 1; // every event in a History happened
      }
      out[at++] = status === TXN_COMMITTED ? 1 : 0;
    }
  }
  return out;
}

export const dbcopBincodeFormat: FormatModule = {
  name: 'dbcop',
  description: 'dbcop bincode history (Rust bincode v1, as written by dbcop / PolySI experiments)',
  binary: true,
  sniff: sniffDbcopBincode,
  read: (input: string | HistoryInput): Promise<History> =>
    withInput(input, async (inp) => parseDbcopBincode(await inp.readAll(), inp.source)),
  write: writeDbcopBincode,
};
