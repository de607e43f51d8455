/**
 * The fast path of the JSON Lines reader: one transaction line scanned as bytes.
 *
 * Takes: the UTF-8 bytes of one line (already validated) and the HistoryBuilder. Gives: either
 * `false` (the line is not in the plain shape below: the caller parses it with JSON.parse,
 * the general path, which also produces every error message), or `true` with the transaction
 * in this object's fields (session and txn labels, status, times, error, and per op its kind
 * and where its key and value are in the line); `commitOps` then interns those keys and values,
 * in the order the general path interns them, and adds the ops to the caller's transaction.
 * Invariant: when `scan` returns true, the fields equal what the general path reads from the
 * same line; `scan` changes nothing outside this object, so a line it gives up on (say at a
 * second "ops" field, where JSON.parse keeps the last) reaches the general path untouched.
 *
 * Session and txn names are not made into strings per line: the session's bytes are looked up
 * in a small cache of the sessions seen (`sessionId`), and the txn name is split into a prefix
 * (cached the same way) and a number, the canonical parts the builder stores (labels.ts
 * `splitLabel`, here on bytes), which also key `TxnNameIndex`, the reader's duplicate check.
 *
 * The plain shape is what `polysi run` and `polysi convert` write: an object with the fields
 * session, txn, status, ops, start, end, error, node (each at most once, any order, JSON whitespace
 * between tokens), strings of printable ASCII without escapes, integers of at most 15 digits
 * (safe, so no precision question), start / end any finite JSON number, ops of the form
 * [kind, key, value] with a list of values for reads of lists. Everything else (escapes,
 * non-ASCII, {"int": ...} values, the header, unknown fields, anything wrong) goes to the
 * general path.
 */

import { HistoryBuilder, IntIds, OP_APPEND, OP_READ, OP_READ_LIST, OP_WRITE } from '../history/builder.ts';
import { GrowableFloat64 } from '../util/growable.ts';
import { isCanonicalNumber, splitLabel } from '../history/labels.ts';
import { INITIAL_VALUE, TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type TxnStatus } from '../history/model.ts';
import { CANONICAL_INT, intKey } from './io-int.ts';
import { jsonNumber, numberValue } from './jsonl-num.ts';

const BAIL = -1;
const INT31 = 0x7fffffff;

// Field bits (each field at most once).
const F_SESSION = 1, F_TXN = 2, F_STATUS = 4, F_OPS = 8, F_START = 16, F_END = 32, F_ERROR = 64, F_NODE = 128;

/** Results of `str` / `int`, in module variables so the scanners allocate nothing. */
let strFrom = 0, strTo = 0, numValue = 0;

/** Skips JSON whitespace (a line holds no '\n'). */
function ws(t: Uint8Array, p: number, e: number): number {
  while (p < e) {
    const c = t[p]!;
    if (c !== 32 && c !== 9 && c !== 13) break;
    p++;
  }
  return p;
}

/** A string of printable ASCII without escapes at p: sets strFrom / strTo, returns the end or BAIL. */
function str(t: Uint8Array, p: number, e: number): number {
  if (p >= e || t[p] !== 34) return BAIL;
  for (let q = p + 1; q < e; q++) {
    const c = t[q]!;
    if (c === 34) { strFrom = p + 1; strTo = q; return q + 1; }
    if (c === 92 || c < 32 || c > 126) return BAIL;
  }
  return BAIL;
}

/**
 * An integer `-?(0|[1-9][0-9]*)` of at most 15 digits at p: sets numValue (`-0` is 0), returns
 * the end or BAIL. A fraction, exponent or leading zero is left for the caller's structure check
 * to reject (the next byte is then not ',' ']' or '}').
 */
function int(t: Uint8Array, p: number, e: number): number {
  const neg = p < e && t[p] === 45;
  if (neg) p++;
  const from = p;
  let v = 0;
  while (p < e) {
    const d = t[p]! - 48;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
    p++;
  }
  if (p === from || p - from > 15 || (t[from] === 48 && p - from > 1)) return BAIL;
  numValue = neg ? 0 - v : v;
  return p;
}

const latin1Slice = Buffer.prototype.latin1Slice as (this: Uint8Array, from: number, to: number) => string;

/** The ASCII bytes t[from, to) as a string (native: one allocation). */
function ascii(t: Uint8Array, from: number, to: number): string {
  return latin1Slice.call(t, from, to);
}

/** Whether t[from, to) spells `word` (ASCII). */
function is(t: Uint8Array, from: number, to: number, word: string): boolean {
  if (to - from !== word.length) return false;
  for (let i = 0; i < word.length; i++) if (t[from + i] !== word.charCodeAt(i)) return false;
  return true;
}

// Token tags of keys, values, and session and txn names.
const T_INT = 0, T_STR = 1, T_NULL = 2, T_NONE = 3;

/** Longest digit run of a split label (labels.ts). */
const MAX_LABEL_DIGITS = 15;

/**
 * A direct-mapped cache from ASCII byte strings to ids (session ids, txn label prefix ids):
 * one hash of the bytes, one comparison with the cached string; a miss asks `make`, which
 * may refuse (-1: not cached).
 */
class ByteIds {
  private readonly strings: (string | null)[] = new Array<string | null>(1024).fill(null);
  private readonly ids = new Int32Array(1024);

  constructor(private readonly make: (s: string) => number) {}

  get(t: Uint8Array, from: number, to: number): number {
    let h = 0x811c9dc5;
    for (let i = from; i < to; i++) h = Math.imul(h ^ t[i]!, 0x01000193);
    const slot = (h ^ (h >>> 16)) & 1023;
    const s = this.strings[slot];
    if (s != null && s.length === to - from) {
      let i = 0;
      while (i < s.length && s.charCodeAt(i) === t[from + i]) i++;
      if (i === s.length) return this.ids[slot]!;
    }
    const label = ascii(t, from, to);
    const id = this.make(label);
    if (id >= 0) { this.strings[slot] = label; this.ids[slot] = id; }
    return id;
  }
}

/**
 * The txn names seen so far, by their canonical parts (prefix id, number; NaN for none), with
 * the line of each. Numbers in [0, 2^31) (names like `17`, `3.17`, `s3:17`) are interned per
 * prefix through the builder's integer tables (IntIds), so a recorder's names, numbered in
 * order within each session, are looked up in a direct array walked almost in order; other
 * names go to an open-addressing table of typed arrays, where every lookup is a cache miss
 * (7 % of parsing 355 MB of JSON Lines). A Map keyed by name strings needed one string per txn.
 */
export class TxnNameIndex {
  /** Per prefix id, the ids of its numbers in [0, 2^31); `idLines[id]` is the line of each. */
  private readonly byPrefix: (IntIds | undefined)[] = [];
  private readonly idLines = new GrowableFloat64();
  private pre = new Int32Array(1024).fill(-1);
  private num = new Float64Array(1024);
  private lines = new Float64Array(1024);
  private count = 0;

  /** The line of the txn named (pre, n) if it was seen; otherwise -1, after recording it at `line`. */
  firstLine(pre: number, n: number, line: number): number {
    if (n >= 0 && n <= INT31 && Math.floor(n) === n) {
      const ids = this.byPrefix[pre] ??= new IntIds();
      const next = this.idLines.length;
      const id = ids.intern(n, next);
      if (id !== next) return this.idLines.get(id);
      this.idLines.push(line);
      return -1;
    }
    const key = n !== n ? -1 : n;
    const i = this.find(pre, key);
    if (this.pre[i] !== -1) return this.lines[i]!;
    this.pre[i] = pre;
    this.num[i] = key;
    this.lines[i] = line;
    if (++this.count * 2 > this.pre.length) this.grow();
    return -1;
  }

  private find(pre: number, key: number): number {
    const mask = this.pre.length - 1;
    let i = (Math.imul((key >>> 0) ^ Math.imul(pre, 0x9e3779b1) ^ Math.floor(key / 4294967296), 0x85ebca6b) >>> 7) & mask;
    for (;;) {
      const p = this.pre[i]!;
      if (p === -1 || (p === pre && this.num[i] === key)) return i;
      i = (i + 1) & mask;
    }
  }

  private grow(): void {
    const { pre, num, lines } = this;
    this.pre = new Int32Array(pre.length * 2).fill(-1);
    this.num = new Float64Array(pre.length * 2);
    this.lines = new Float64Array(pre.length * 2);
    for (let j = 0; j < pre.length; j++) {
      if (pre[j] === -1) continue;
      const i = this.find(pre[j]!, num[j]!);
      this.pre[i] = pre[j]!;
      this.num[i] = num[j]!;
      this.lines[i] = lines[j]!;
    }
  }
}

export class JsonlFastScanner {
  // The transaction of the last successful scan. Its session and txn names: T_STR (bytes
  // from..to), T_INT (num), or for the txn T_NONE (no "txn" field).
  private sessTag = T_STR;
  private sessFrom = 0;
  private sessTo = 0;
  private sessNum = 0;
  private txnTag = T_NONE;
  private txnFrom = 0;
  private txnTo = 0;
  private txnNum = 0;
  /** Set by `txnName`: the canonical parts of the txn's label (builder prefix id, number). */
  txnPre = 0;
  txnN = 0;
  status: TxnStatus = TXN_COMMITTED;
  hasTimes = false;
  start = 0;
  end = 0;
  error: string | null = null;
  /** Whether the line has a "node" (its name's bytes: nodeFrom .. nodeTo). */
  hasNode = false;
  private nodeFrom = 0;
  private nodeTo = 0;
  opCount = 0;
  kinds = new Uint8Array(64);
  // Per op, its key token: T_INT (keyNum) or T_STR (bytes keyFrom..keyTo).
  private keyTag = new Uint8Array(64);
  private keyNum = new Float64Array(64);
  private keyFrom = new Int32Array(64);
  private keyTo = new Int32Array(64);
  /** Per op, its value token (scalar) or its list's index (OP_READ_LIST). */
  private opValueTok = new Int32Array(64);
  // Value tokens: T_NULL, T_INT (valNum) or T_STR (bytes valFrom..valTo).
  private valTag = new Uint8Array(64);
  private valNum = new Float64Array(64);
  private valFrom = new Int32Array(64);
  private valTo = new Int32Array(64);
  private valCount = 0;
  /** List i holds value tokens listTokFrom[i] .. listTokTo[i]. */
  private listTokFrom = new Int32Array(16);
  private listTokTo = new Int32Array(16);
  private listCount = 0;
  /** commitOps's scratch: the element ids of one list read. */
  private listElems = new Int32Array(64);

  private readonly sessions: ByteIds;
  private readonly prefixes: ByteIds;
  private readonly nodes: ByteIds;
  private readonly linePrefix: number;

  /** `session(label)`: the builder session of a session name, or -1 if the line may not use it. */
  constructor(private readonly b: HistoryBuilder, private readonly session: (label: string) => number) {
    this.sessions = new ByteIds(session);
    this.prefixes = new ByteIds((s) => b.txnPrefix(s));
    this.nodes = new ByteIds((s) => b.node(s));
    this.linePrefix = b.txnPrefix('L');
  }

  /** The builder session of the scanned line's session name, or -1 (see the constructor). */
  sessionId(t: Uint8Array): number {
    return this.sessTag === T_STR ? this.sessions.get(t, this.sessFrom, this.sessTo) : this.session(String(this.sessNum));
  }

  /** The builder node id of the scanned line's "node" (when `hasNode`). */
  nodeId(t: Uint8Array): number {
    return this.nodes.get(t, this.nodeFrom, this.nodeTo);
  }

  /**
   * Sets txnPre / txnN to the canonical parts of the scanned line's txn name (labels.ts
   * `splitLabel`, on bytes): `L<line>` when the line has none, String(n) for an integer.
   */
  txnName(t: Uint8Array, line: number): void {
    if (this.txnTag === T_NONE) { this.txnPre = this.linePrefix; this.txnN = line; return; }
    if (this.txnTag === T_INT) {
      const n = this.txnNum;
      if (isCanonicalNumber(n)) { this.txnPre = 0; this.txnN = n; return; }
      const [prefix, m] = splitLabel(String(n));
      this.txnPre = this.b.txnPrefix(prefix);
      this.txnN = m;
      return;
    }
    const from = this.txnFrom, to = this.txnTo;
    let j = to;
    while (j > from && j > to - MAX_LABEL_DIGITS && t[j - 1]! >= 48 && t[j - 1]! <= 57) j--;
    if (j === to) { this.txnPre = this.prefixes.get(t, from, to); this.txnN = NaN; return; }
    while (j < to - 1 && t[j] === 48) j++;
    let n = 0;
    for (let i = j; i < to; i++) n = n * 10 + (t[i]! - 48);
    this.txnPre = this.prefixes.get(t, from, j);
    this.txnN = n;
  }

  /** Scans the transaction line t[p, e); true if it had the plain shape (see the header). */
  scan(t: Uint8Array, p: number, e: number): boolean {
    this.opCount = 0;
    this.valCount = 0;
    this.listCount = 0;
    this.txnTag = T_NONE;
    this.status = TXN_COMMITTED;
    this.error = null;
    this.hasNode = false;
    let seen = 0;
    p = ws(t, p, e);
    if (p >= e || t[p] !== 123) return false; // '{'
    p = ws(t, p + 1, e);
    if (p < e && t[p] === 125) return false; // {} lacks session and ops: the general path says so
    for (;;) {
      const bit = field(t, p, e);
      if (bit === 0) return false;
      p = ws(t, fieldEnd, e);
      if (p >= e || t[p] !== 58) return false; // ':'
      p = ws(t, p + 1, e);
      if (bit === F_OPS) {
        if ((seen & bit) !== 0) return false;
        p = this.ops(t, p, e);
      } else if (bit === F_SESSION) {
        p = name(t, p, e);
        if (p === BAIL) return false;
        this.sessTag = nameTag; this.sessFrom = strFrom; this.sessTo = strTo; this.sessNum = numValue;
      } else if (bit === F_TXN) {
        p = name(t, p, e);
        if (p === BAIL) return false;
        this.txnTag = nameTag; this.txnFrom = strFrom; this.txnTo = strTo; this.txnNum = numValue;
      } else if (bit === F_STATUS) {
        p = str(t, p, e);
        if (p === BAIL) return false;
        if (is(t, strFrom, strTo, 'committed')) this.status = TXN_COMMITTED;
        else if (is(t, strFrom, strTo, 'aborted')) this.status = TXN_ABORTED;
        else if (is(t, strFrom, strTo, 'unknown')) this.status = TXN_UNKNOWN;
        else return false;
      } else if (bit === F_NODE) {
        // A non-empty name; anything else (an empty or escaped string, a number) goes the general way.
        p = str(t, p, e);
        if (p === BAIL || strTo === strFrom) return false;
        this.hasNode = true; this.nodeFrom = strFrom; this.nodeTo = strTo;
      } else if (bit === F_START) { p = jsonNumber(t, p, e); this.start = numberValue; }
      else if (bit === F_END) { p = jsonNumber(t, p, e); this.end = numberValue; }
      else {
        p = str(t, p, e);
        if (p !== BAIL) this.error = ascii(t, strFrom, strTo);
      }
      if (p === BAIL || (seen & bit) !== 0) return false;
      seen |= bit;
      p = ws(t, p, e);
      if (p >= e) return false;
      if (t[p] === 44) { p = ws(t, p + 1, e); continue; } // ','
      if (t[p] !== 125) return false; // '}'
      break;
    }
    if (ws(t, p + 1, e) !== e) return false;
    if ((seen & (F_SESSION | F_OPS)) !== (F_SESSION | F_OPS)) return false;
    // Times come in pairs, start <= end; otherwise the general path names the problem.
    const times = seen & (F_START | F_END);
    if (times !== 0 && (times !== (F_START | F_END) || this.end < this.start)) return false;
    this.hasTimes = times !== 0;
    return true;
  }

  /**
   * Adds the ops of the line `scan` accepted (same bytes `t`) to txn, interning as it goes: per
   * op the key, then the value or the list's elements, as the general path does (keys and values
   * are separate id spaces, so each sees op order; the txn's own id is independent of both).
   * One pass: the ids go straight to the builder instead of through per-line id arrays.
   */
  commitOps(t: Uint8Array, txn: number, line: number): void {
    const b = this.b;
    if (this.listElems.length < this.valTag.length) this.listElems = new Int32Array(this.valTag.length);
    const n = this.opCount;
    const { kinds, keyTag, keyNum, opValueTok } = this;
    for (let i = 0; i < n; i++) {
      let key: number;
      if (keyTag[i] === T_INT) {
        const k = keyNum[i]!;
        key = k >= 0 && k <= INT31 ? b.intKey(k) : b.key(k);
      } else {
        const k = ascii(t, this.keyFrom[i]!, this.keyTo[i]!);
        key = b.key(CANONICAL_INT.test(k) ? intKey(k) : k);
      }
      const tok = opValueTok[i]!;
      const kind = kinds[i]!;
      if (kind === OP_READ_LIST) {
        let count = 0;
        for (let v = this.listTokFrom[tok]!; v < this.listTokTo[tok]!; v++) this.listElems[count++] = this.valueId(t, v);
        b.readListIds(txn, key, this.listElems, count, line);
      } else {
        b.pushOp(txn, kind, key, this.valueId(t, tok), line);
      }
    }
  }

  private valueId(t: Uint8Array, v: number): number {
    const tag = this.valTag[v]!;
    if (tag === T_NULL) return INITIAL_VALUE;
    if (tag === T_STR) return this.b.value(ascii(t, this.valFrom[v]!, this.valTo[v]!));
    const x = this.valNum[v]!;
    return x >= 0 && x <= INT31 ? this.b.intValue(x) : this.b.value(x);
  }

  /** The ops array at p, into the scratch columns; its end or BAIL. */
  private ops(t: Uint8Array, p: number, e: number): number {
    if (p >= e || t[p] !== 91) return BAIL; // '['
    p = ws(t, p + 1, e);
    if (p < e && t[p] === 93) return p + 1; // []
    for (;;) {
      if (p >= e || t[p] !== 91) return BAIL;
      const q = this.plainOp(t, p, e);
      if (q !== BAIL) {
        p = q;
      } else {
        p = this.op(t, p, e);
        if (p === BAIL) return BAIL;
      }
      p = ws(t, p, e);
      if (p >= e) return BAIL;
      if (t[p] === 93) return p + 1; // ']' closes the ops
      if (t[p] !== 44) return BAIL;
      p = ws(t, p + 1, e);
    }
  }

  /**
   * The op every recorder writes, `["r",K,null]`, `["r",K,V]` or `["w",K,V]` with K and V
   * integers of 1-9 digits (so in [0, 2^31)) and no blanks, matched byte by byte at p (a '[');
   * its end, or BAIL with nothing stored (the caller then runs `op` from the same '[', which
   * takes every op this takes and stores the same tokens).
   */
  private plainOp(t: Uint8Array, p: number, e: number): number {
    if (p + 8 > e || t[p + 1] !== 34 || t[p + 3] !== 34 || t[p + 4] !== 44) return BAIL;
    const c = t[p + 2]!;
    const kind = c === 114 ? OP_READ : c === 119 ? OP_WRITE : BAIL;
    if (kind === BAIL) return BAIL;
    // The key: 1-9 digits, no leading zero, then ','.
    let q = p + 5;
    let d = t[q]! - 48;
    if (d < 0 || d > 9) return BAIL;
    let k = d;
    const kFrom = q++;
    while (q < e) {
      d = t[q]! - 48;
      if (d < 0 || d > 9) break;
      k = k * 10 + d;
      q++;
    }
    if (q - kFrom > 9 || (t[kFrom] === 48 && q - kFrom > 1) || q + 2 > e || t[q] !== 44) return BAIL;
    q++;
    // The value: null, or 1-9 digits without a leading zero; then ']'.
    let tag: number, x = 0;
    if (t[q] === 110) {
      if (q + 5 > e || t[q + 1] !== 117 || t[q + 2] !== 108 || t[q + 3] !== 108 || t[q + 4] !== 93) return BAIL;
      tag = T_NULL;
      q += 4;
    } else {
      const vFrom = q;
      while (q < e) {
        d = t[q]! - 48;
        if (d < 0 || d > 9) break;
        x = x * 10 + d;
        q++;
      }
      if (q === vFrom || q - vFrom > 9 || (t[vFrom] === 48 && q - vFrom > 1) || q >= e || t[q] !== 93) return BAIL;
      tag = T_INT;
    }
    const i = this.opCount;
    if (i === this.kinds.length) this.growOps();
    const v = this.valCount;
    if (v === this.valTag.length) this.growValues();
    this.keyTag[i] = T_INT;
    this.keyNum[i] = k;
    this.valTag[v] = tag;
    this.valNum[v] = x;
    this.opValueTok[i] = v;
    this.valCount = v + 1;
    this.kinds[i] = kind;
    this.opCount = i + 1;
    return q + 1;
  }

  /** One op `[kind, key, value]` at p (a '['), in any JSON spacing, as the next op; its end or BAIL. */
  private op(t: Uint8Array, p: number, e: number): number {
    p = str(t, ws(t, p + 1, e), e);
    if (p === BAIL) return BAIL;
    let kind: number;
    if (is(t, strFrom, strTo, 'r')) kind = OP_READ;
    else if (is(t, strFrom, strTo, 'w')) kind = OP_WRITE;
    else if (is(t, strFrom, strTo, 'append')) kind = OP_APPEND;
    else return BAIL;
    const i = this.opCount;
    if (i === this.kinds.length) this.growOps();
    p = ws(t, p, e);
    if (p >= e || t[p] !== 44) return BAIL;
    p = ws(t, p + 1, e);
    // The key: an integer, or a string (integer-looking strings are that integer).
    if (p < e && t[p] === 34) {
      p = str(t, p, e);
      if (p === BAIL) return BAIL;
      this.keyTag[i] = T_STR;
      this.keyFrom[i] = strFrom;
      this.keyTo[i] = strTo;
    } else {
      p = int(t, p, e);
      if (p === BAIL) return BAIL;
      this.keyTag[i] = T_INT;
      this.keyNum[i] = numValue;
    }
    p = ws(t, p, e);
    if (p >= e || t[p] !== 44) return BAIL;
    p = ws(t, p + 1, e);
    if (p < e && t[p] === 91) { // a list: only as what a read returns
      if (kind !== OP_READ) return BAIL;
      kind = OP_READ_LIST;
      p = this.list(t, p, e);
      this.opValueTok[i] = this.listCount - 1;
    } else {
      p = this.value(t, p, e);
      this.opValueTok[i] = this.valCount - 1;
    }
    if (p === BAIL) return BAIL;
    p = ws(t, p, e);
    if (p >= e || t[p] !== 93) return BAIL; // ']' closes the op
    this.kinds[i] = kind;
    this.opCount = i + 1;
    return p + 1;
  }

  /** A scalar value at p (null, a string, an integer) as the next value token; its end or BAIL. */
  private value(t: Uint8Array, p: number, e: number): number {
    if (p >= e) return BAIL;
    const v = this.valCount;
    if (v === this.valTag.length) this.growValues();
    const c = t[p]!;
    if (c === 110) { // null
      if (!is(t, p, Math.min(e, p + 4), 'null')) return BAIL;
      this.valTag[v] = T_NULL;
      p += 4;
    } else if (c === 34) {
      p = str(t, p, e);
      if (p === BAIL) return BAIL;
      this.valTag[v] = T_STR;
      this.valFrom[v] = strFrom;
      this.valTo[v] = strTo;
    } else {
      p = int(t, p, e);
      if (p === BAIL) return BAIL;
      this.valTag[v] = T_INT;
      this.valNum[v] = numValue;
    }
    this.valCount = v + 1;
    return p;
  }

  /** A list of scalar values at p, as value tokens and a list; its end or BAIL. */
  private list(t: Uint8Array, p: number, e: number): number {
    const from = this.valCount;
    p = ws(t, p + 1, e);
    if (p < e && t[p] === 93) p++; // []
    else {
      for (;;) {
        p = this.value(t, p, e);
        if (p === BAIL) return BAIL;
        p = ws(t, p, e);
        if (p >= e) return BAIL;
        if (t[p] === 93) { p++; break; }
        if (t[p] !== 44) return BAIL;
        p = ws(t, p + 1, e);
      }
    }
    if (this.listCount === this.listTokFrom.length) {
      this.listTokFrom = grown(this.listTokFrom);
      this.listTokTo = grown(this.listTokTo);
    }
    this.listTokFrom[this.listCount] = from;
    this.listTokTo[this.listCount++] = this.valCount;
    return p;
  }

  private growOps(): void {
    const n = this.kinds.length * 2;
    const kinds = new Uint8Array(n), keyTag = new Uint8Array(n), keyNum = new Float64Array(n);
    kinds.set(this.kinds); keyTag.set(this.keyTag); keyNum.set(this.keyNum);
    this.kinds = kinds; this.keyTag = keyTag; this.keyNum = keyNum;
    this.keyFrom = grown(this.keyFrom); this.keyTo = grown(this.keyTo); this.opValueTok = grown(this.opValueTok);
  }

  private growValues(): void {
    const n = this.valTag.length * 2;
    const tag = new Uint8Array(n), num = new Float64Array(n);
    tag.set(this.valTag); num.set(this.valNum);
    this.valTag = tag; this.valNum = num;
    this.valFrom = grown(this.valFrom); this.valTo = grown(this.valTo);
  }
}

const bytesOf = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
const W_SESSION = bytesOf('session'), W_TXN = bytesOf('txn'), W_STATUS = bytesOf('status'), W_OPS = bytesOf('ops');
const W_START = bytesOf('start'), W_END = bytesOf('end'), W_ERROR = bytesOf('error'), W_NODE = bytesOf('node');

/** Where the field name `field` matched ends (after its closing quote). */
let fieldEnd = 0;

/**
 * The field name at p, a string that is exactly one of the plain shape's eight names: its F_
 * bit, with fieldEnd set; 0 for anything else (another name, an escape, no string). Dispatches
 * on the name's first bytes and compares the rest, instead of scanning a string and comparing
 * it with each name in turn.
 */
function field(t: Uint8Array, p: number, e: number): number {
  if (p + 5 > e || t[p] !== 34) return 0; // the shortest, "ops", is 5 bytes
  let bit: number, word: Uint8Array;
  switch (t[p + 1]) {
    case 115: // s
      if (t[p + 2] === 101) { bit = F_SESSION; word = W_SESSION; }
      else if (t[p + 4] === 114) { bit = F_START; word = W_START; }
      else { bit = F_STATUS; word = W_STATUS; }
      break;
    case 116: bit = F_TXN; word = W_TXN; break; // t
    case 110: bit = F_NODE; word = W_NODE; break; // n
    case 111: bit = F_OPS; word = W_OPS; break; // o
    case 101: // e
      if (t[p + 2] === 110) { bit = F_END; word = W_END; }
      else { bit = F_ERROR; word = W_ERROR; }
      break;
    default: return 0;
  }
  const n = word.length;
  if (p + n + 2 > e || t[p + n + 1] !== 34) return 0;
  for (let i = 1; i < n; i++) if (t[p + 1 + i] !== word[i]) return 0;
  fieldEnd = p + n + 2;
  return bit;
}

/** What `name` found: T_STR (strFrom / strTo) or T_INT (numValue). */
let nameTag = T_STR;

/** A session or txn name at p: a string or an integer (named by its decimal text); its end or BAIL. */
function name(t: Uint8Array, p: number, e: number): number {
  if (p < e && t[p] === 34) { nameTag = T_STR; return str(t, p, e); }
  nameTag = T_INT;
  return int(t, p, e);
}

function grown(a: Int32Array): Int32Array<ArrayBuffer> {
  const next = new Int32Array(a.length * 2);
  next.set(a);
  return next;
}
