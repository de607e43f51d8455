/**
 * HistoryBuilder: the one way parsers (and tests) construct a `History`.
 *
 * Takes: sessions, transactions and operations in any interleaving (file order), with keys and
 * values as the user wrote them. Gives: a `History` whose sessions, txns and ops are renumbered
 * into contiguous CSR ranges (see model.ts), keys and values interned to dense ids.
 * Invariant: a session's transactions keep the order in which `beginTxn` was called for that
 * session; a transaction's operations keep the order in which they were added.
 *
 * Speed: per-op columns are typed arrays of the History's own element types, grown by doubling
 * at one place (pushOp); non-negative 31-bit integer keys and values are interned through
 * open-addressing tables (IntIds) instead of Maps; and when transactions arrive session by
 * session and operations transaction by transaction (dbcop, most text files), `build` copies
 * the columns instead of sorting them. Labels of values and transactions are kept as parts
 * (labels.ts) and made into strings only when read.
 *
 * Raw values: `null` means the initial value (id 0). Numbers and strings are distinct raw values
 * (`1` and `"1"` are different), and so are keys. Parsers whose formats spell the initial value
 * as a number (PolySI's 0, dbcop's 0) pass `null` for it.
 */

import { GrowableFloat64, GrowableInt32 } from '../util/growable.ts';
import { isCanonicalNumber, LabelColumn } from './labels.ts';
import { PredicateTableBuilder } from './predicate-table.ts';
import { predicateText as predicateTextCanonical, type Predicate } from './predicate.ts';
import {
  assertHistory,
  INITIAL_VALUE,
  OP_APPEND,
  OP_COUNT,
  OP_DELETE,
  OP_INSERT,
  OP_READ,
  OP_READ_LIST,
  OP_SELECT,
  OP_WRITE,
  TXN_COMMITTED,
  type History,
  type LocUnit,
  type TxnStatus,
} from './model.ts';

export type RawKey = string | number;
export type RawValue = string | number | bigint | null;

/**
 * Ids of non-negative 31-bit integers: an open-addressing table of typed arrays (linear
 * probing, at most half full). Parsers intern one key and one value per operation and
 * histories write each value once, so a Map insertion per operation was the largest single cost
 * of parsing. The builder sends every such integer through its table and no other raw value,
 * so ids stay unique per value.
 *
 * The slot is first `x ^ (x >>> bits)`: generators write values in rising order and read recent
 * ones, so neighbouring integers land in neighbouring slots and the table is walked almost
 * sequentially (a scattering hash made every lookup a cache miss: 3x slower at 10^5 values).
 * Inputs that cluster under it (a probe run longer than MAX_PROBES) switch the table for good
 * to Fibonacci hashing, which scatters any pattern, so no input makes interning quadratic.
 *
 * Before the table comes a direct array over [0, dense.length): generators number values (and
 * keys) 1, 2, 3, ..., so most integers are small and dense, and one array access replaces the
 * hash probe (3-4x faster on 10^5-10^6 values). The array grows to cover x only while it stays
 * at most DENSE_SPREAD times the integers seen (plus DENSE_MIN), and at most DENSE_MAX long, so
 * its memory stays within a small factor of the table's; everything else goes to the table.
 */
export class IntIds {
  /** `dense[x]`: 1 + the id of x, 0 if x was not seen (x < dense.length). */
  private dense = new Int32Array(DENSE_MIN);
  private denseCount = 0;
  private bits = 10;
  /** `keys[i]`: an integer (-1 = empty slot); `ids[i]` its id. */
  private keys = new Int32Array(1 << 10).fill(-1);
  private ids = new Int32Array(1 << 10);
  private count = 0;
  private scatter = false;

  /**
   * Sizes the direct array for about `n` distinct integers (at most DENSE_MAX), as growDense
   * would once that many were seen: a parser that knows its input's size saves the doublings.
   */
  reserve(n: number): void {
    const len = Math.min(DENSE_MAX, n + DENSE_MIN);
    if (len > this.dense.length) this.growDense(len - 1);
  }

  private slot(x: number): number {
    return this.scatter ? Math.imul(x, 0x9e3779b1) >>> (32 - this.bits) : (x ^ (x >>> this.bits)) & ((1 << this.bits) - 1);
  }

  /** The id of `x`, or `next` after recording `x` with that id if `x` is new. */
  intern(x: number, next: number): number {
    const dense = this.dense;
    if (x < dense.length) {
      const id = dense[x]!;
      if (id !== 0) return id - 1;
      dense[x] = next + 1;
      this.denseCount++;
      return next;
    }
    if (x < DENSE_MAX && x < DENSE_SPREAD * (this.denseCount + this.count) + DENSE_MIN) {
      this.growDense(x);
      return this.intern(x, next);
    }
    return this.internSparse(x, next);
  }

  /** Extends the direct array to cover x, moving there the table's integers it now covers. */
  private growDense(x: number): void {
    let len = this.dense.length * 2;
    while (len <= x) len *= 2;
    const dense = new Int32Array(len);
    dense.set(this.dense);
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      // Left in the table too: lookups below dense.length never reach it.
      if (k >= this.dense.length && k < len) { dense[k] = this.ids[i]! + 1; this.denseCount++; }
    }
    this.dense = dense;
  }

  private internSparse(x: number, next: number): number {
    const keys = this.keys;
    const mask = keys.length - 1;
    let i = this.slot(x);
    for (let probes = 0; ; probes++) {
      const k = keys[i]!;
      if (k === x) return this.ids[i]!;
      if (k === -1) break;
      i = (i + 1) & mask;
      if (probes === MAX_PROBES && !this.scatter) {
        this.scatter = true;
        this.rehash(this.bits);
        return this.internSparse(x, next);
      }
    }
    keys[i] = x;
    this.ids[i] = next;
    if (++this.count * 2 > keys.length) this.rehash(this.bits + 1);
    return next;
  }

  private rehash(bits: number): void {
    const oldKeys = this.keys, oldIds = this.ids;
    this.bits = bits;
    const keys = new Int32Array(1 << bits).fill(-1), ids = new Int32Array(1 << bits);
    const mask = keys.length - 1;
    for (let j = 0; j < oldKeys.length; j++) {
      const x = oldKeys[j]!;
      if (x === -1) continue;
      let i = this.slot(x);
      while (keys[i] !== -1) i = (i + 1) & mask;
      keys[i] = x;
      ids[i] = oldIds[j]!;
    }
    this.keys = keys;
    this.ids = ids;
  }
}

/** Longest probe run IntIds accepts before it switches to scattering its slots. */
const MAX_PROBES = 48;
/** IntIds' direct array: its first length, how sparse it may get, and its longest length (64 MB). */
const DENSE_MIN = 4096;
const DENSE_SPREAD = 4;
const DENSE_MAX = 1 << 24;

/** The txn columns build() makes before the ops: `txnNewId` / `txnOldId` null when ids do not change. */
interface TxnColumns {
  nSess: number;
  sessionLabels: string[];
  sessionTxnStart: Int32Array;
  nTxn: number;
  /** Per builder txn, its History id (-1: omitted). */
  txnNewId: Int32Array | null;
  txnSession: Int32Array;
  txnStatus: Uint8Array;
  txnLoc: Float64Array;
  /** Per History txn, its builder id. */
  txnOldId: Int32Array | null;
  txnStart: Float64Array | undefined;
  txnEnd: Float64Array | undefined;
  txnError: string[] | undefined;
}

/** `counts[x + 1]++` for each of `of[0 .. n-1]` (a loop of its own: see IntIds on cold loops). */
function countInto(of: Int32Array, n: number, counts: Int32Array): void {
  for (let i = 0; i < n; i++) counts[of[i]! + 1]!++;
}

export class HistoryBuilder {
  private readonly sessionIndex = new Map<string, number>();
  private readonly sessionLabels: string[] = [];
  private readonly keyIndex = new Map<RawKey, number>();
  private readonly keyLabels: string[] = [];
  private readonly smallKeys = new IntIds();
  private readonly valueIndex = new Map<string | number | bigint, number>();
  private readonly valueLabels = new LabelColumn();
  private readonly smallValues = new IntIds();

  // Per txn, in creation order.
  private readonly txnSessionArr = new GrowableInt32();
  private readonly txnStatusArr = new GrowableInt32();
  private readonly txnLocArr = new GrowableFloat64();
  private readonly txnLabelArr = new LabelColumn();
  /** Prefix id of the generated labels `t<builder id>`. */
  private readonly generatedPrefix = this.txnLabelArr.prefix('t');
  /** Whether every txn so far was begun in a session at or after the previous txn's session. */
  private txnsInSessionOrder = true;

  // Per op, in arrival order: typed arrays of capacity `opTxn.length`, the first `opN` used.
  private opN = 0;
  private opTxn = new Int32Array(1024);
  private opKind = new Uint8Array(1024);
  private opKey = new Int32Array(1024);
  private opValue = new Int32Array(1024);
  private opLoc = new Float64Array(1024);
  /** Whether every op so far belongs to the same txn as the previous op or a later-created one. */
  private opsInTxnOrder = true;

  private readonly listStartArr = new GrowableInt32();
  private readonly listElemsArr = new GrowableInt32();
  private readonly omitted = new Set<number>();
  // Optional per-txn columns (model.ts), allocated on first use; indexed by builder txn id.
  private txnStartArr: number[] | null = null;
  private txnEndArr: number[] | null = null;
  private txnErrorArr: string[] | null = null;
  /** Relations and predicate reads (issue 22), made on first use. */
  private preds: PredicateTableBuilder | null = null;

  constructor(
    readonly source: string = '<memory>',
    readonly locUnit: LocUnit = 'line',
    initialValueLabel = 'init',
  ) {
    this.valueLabels.pushNumber(this.valueLabels.prefix(initialValueLabel), NaN);
    this.listStartArr.push(0);
  }

  /**
   * Makes room for at least `ops` operations, `txns` transactions and `values` values, so that
   * a parser that knows its input's size (io-read.ts `HistoryInput.size`) can size the columns
   * once instead of doubling them from 1024 (at 10^7 ops the doublings and their copies were 13 %
   * of parsing PolySI text). A guess, not a limit: the columns still grow past it. Memory a
   * generous guess leaves unused costs address space only: fresh typed arrays are zero pages
   * until written.
   */
  reserve(ops: number, txns: number, values: number): void {
    try {
      if (ops > this.opTxn.length) this.growOps(ops);
      this.txnSessionArr.reserve(txns);
      this.txnStatusArr.reserve(txns);
      this.txnLocArr.reserve(txns);
      this.txnLabelArr.reserve(txns);
      this.valueLabels.reserve(values);
      this.smallValues.reserve(values);
    } catch (err) {
      // A guess too large for this machine's address space ("Array buffer allocation failed")
      // only loses the head start: the columns grow as the input turns out to need.
      if (!(err instanceof RangeError)) throw err;
    }
  }

  /** The session id for a label, created on first use. */
  session(label: string | number): number {
    const key = String(label);
    let s = this.sessionIndex.get(key);
    if (s === undefined) {
      s = this.sessionLabels.length;
      this.sessionIndex.set(key, s);
      this.sessionLabels.push(key);
    }
    return s;
  }

  get txnCount(): number {
    return this.txnLabelArr.length;
  }

  /** Keys interned so far (a new key gets this id). */
  get keyCount(): number {
    return this.keyLabels.length;
  }

  get opCount(): number {
    return this.opN;
  }

  /**
   * Starts a transaction at the end of `session`; returns its builder id (creation order). Its
   * label is String(label), or `t<builder id>` when none is given.
   */
  beginTxn(session: number, label?: string | number, status: TxnStatus = TXN_COMMITTED, loc = -1): number {
    const t = this.txnLabelArr.length;
    if (label === undefined) this.txnLabelArr.pushNumber(this.generatedPrefix, t);
    else if (typeof label === 'number' && isCanonicalNumber(label)) this.txnLabelArr.pushNumber(0, label);
    else this.txnLabelArr.pushSplit(String(label));
    return this.addTxn(t, session, status, loc);
  }

  /**
   * `beginTxn` for parsers that split labels themselves: the label is the prefix (from
   * `txnPrefix`) followed by String(n) (nothing when n is NaN), and (prefix, n) must be what
   * labels.ts `splitLabel` makes of that label (e.g. ('', n) for an integer n in [0, 10^15),
   * ('s3:', n) for `s3:<n>`), so that a History does not depend on the path that built it.
   */
  beginTxnNumbered(session: number, prefixId: number, n: number, status: TxnStatus = TXN_COMMITTED, loc = -1): number {
    const t = this.txnLabelArr.length;
    this.txnLabelArr.pushNumber(prefixId, n);
    return this.addTxn(t, session, status, loc);
  }

  /** The id of a txn label prefix for `beginTxnNumbered` ('' is 0). */
  txnPrefix(prefix: string): number {
    return this.txnLabelArr.prefix(prefix);
  }

  private addTxn(t: number, session: number, status: TxnStatus, loc: number): number {
    if (t > 0 && session < this.txnSessionArr.get(t - 1)) this.txnsInSessionOrder = false;
    this.txnSessionArr.push(session);
    this.txnStatusArr.push(status);
    this.txnLocArr.push(loc);
    return t;
  }

  /**
   * Leaves txn (and its ops) out of the built History; a session left with no txns because of
   * it is left out too. For formats that spell the initial state as an explicit transaction.
   */
  omitTxn(txn: number): void {
    this.omitted.add(txn);
  }

  txnLabel(txn: number): string {
    return this.txnLabelArr.get(txn);
  }

  /** Records txn's invocation and completion times (ms, monotonic); NaN for "not recorded". */
  setTimes(txn: number, start: number, end: number): void {
    if (this.txnStartArr === null) { this.txnStartArr = []; this.txnEndArr = []; }
    while (this.txnStartArr.length <= txn) { this.txnStartArr.push(NaN); this.txnEndArr!.push(NaN); }
    this.txnStartArr[txn] = start;
    this.txnEndArr![txn] = end;
  }

  /** Records the database's error code for an aborted or unknown txn. */
  setError(txn: number, code: string): void {
    if (this.txnErrorArr === null) this.txnErrorArr = [];
    while (this.txnErrorArr.length <= txn) this.txnErrorArr.push('');
    this.txnErrorArr[txn] = code;
  }

  setStatus(txn: number, status: TxnStatus): void {
    this.txnStatusArr.set(txn, status);
  }

  statusOf(txn: number): TxnStatus {
    return this.txnStatusArr.get(txn) as TxnStatus;
  }

  /** Interns a key. */
  key(raw: RawKey): number {
    // Non-negative 31-bit integers (what every generator writes) skip the Map: see IntIds.
    if (typeof raw === 'number' && (raw | 0) === raw && raw >= 0) return this.intKey(raw);
    let k = this.keyIndex.get(raw);
    if (k === undefined) {
      k = this.keyLabels.length;
      this.keyIndex.set(raw, k);
      this.keyLabels.push(String(raw));
    }
    return k;
  }

  /** `key(x)` for an integer x known to be in [0, 2^31): the parsers' fast path. */
  intKey(x: number): number {
    const next = this.keyLabels.length;
    const k = this.smallKeys.intern(x, next);
    if (k === next) this.keyLabels.push(String(x));
    return k;
  }

  /** Interns a value; `null` is the initial value. */
  value(raw: RawValue): number {
    if (raw === null) return INITIAL_VALUE;
    if (typeof raw === 'number' && (raw | 0) === raw && raw >= 0) return this.intValue(raw);
    let v = this.valueIndex.get(raw);
    if (v === undefined) {
      v = this.valueLabels.length;
      this.valueIndex.set(raw, v);
      if (typeof raw === 'number' && raw === raw) this.valueLabels.pushNumber(0, raw);
      else this.valueLabels.pushText(typeof raw === 'string' ? JSON.stringify(raw) : String(raw));
    }
    return v;
  }

  /** `value(x)` for an integer x known to be in [0, 2^31): the parsers' fast path. */
  intValue(x: number): number {
    const next = this.valueLabels.length;
    const v = this.smallValues.intern(x, next);
    if (v === next) this.valueLabels.pushNumber(0, x);
    return v;
  }

  read(txn: number, key: RawKey, value: RawValue, loc = -1): void {
    this.pushOp(txn, OP_READ, this.key(key), this.value(value), loc);
  }

  write(txn: number, key: RawKey, value: RawValue, loc = -1): void {
    this.pushOp(txn, OP_WRITE, this.key(key), this.value(value), loc);
  }

  append(txn: number, key: RawKey, value: RawValue, loc = -1): void {
    this.pushOp(txn, OP_APPEND, this.key(key), this.value(value), loc);
  }

  /** A read of a list-append key; `values` in list order (empty = the initial empty list). */
  readList(txn: number, key: RawKey, values: readonly RawValue[], loc = -1): void {
    const list = this.listStartArr.length - 1;
    for (const v of values) this.listElemsArr.push(this.value(v));
    this.listStartArr.push(this.listElemsArr.length);
    this.pushOp(txn, OP_READ_LIST, this.key(key), list, loc);
  }

  /** `readList` for element ids the parser interned itself (through `value` / `intValue`). */
  readListIds(txn: number, keyId: number, elems: ArrayLike<number>, count: number, loc = -1): void {
    const list = this.listStartArr.length - 1;
    for (let i = 0; i < count; i++) this.listElemsArr.push(elems[i]!);
    this.listStartArr.push(this.listElemsArr.length);
    this.pushOp(txn, OP_READ_LIST, keyId, list, loc);
  }

  // Relations, inserts, deletes and predicate reads (issue 22; model.ts PredicateTable). These
  // throw an Error on a call the model forbids (a key in two relations, an insert of a plain
  // key, a result row outside its relation ...): parsers check first and say which line.

  private predTable(): PredicateTableBuilder {
    return (this.preds ??= new PredicateTableBuilder());
  }

  /**
   * Declares relation `name` with rows `keys` (or adds them to it); returns the relation's id.
   * A row of a relation starts absent (a read of `null` on it saw no row).
   */
  relation(name: string, keys: Iterable<RawKey> = []): number {
    const ids: number[] = [];
    for (const k of keys) ids.push(this.key(k));
    return this.predTable().relation(name, ids, this.keyLabelOf);
  }

  /** The id of relation `name`, or -1 if it was not declared. */
  relationId(name: string): number {
    return this.preds === null ? -1 : this.preds.relationId(name);
  }

  /** The relation of key id k (from `key()`), or -1 for a plain key. */
  relationOfKey(k: number): number {
    return this.preds === null ? -1 : this.preds.relationOfKey(k);
  }

  private readonly keyLabelOf = (k: number): string => this.keyLabels[k]!;

  private relationKey(key: RawKey, what: string): number {
    const k = this.key(key);
    if (this.relationOfKey(k) < 0) throw new Error(`${what} of key ${this.keyLabels[k]}, which is in no relation`);
    return k;
  }

  /** Insert of row `key` (a key of a relation) with `value` (not null). */
  insert(txn: number, key: RawKey, value: RawValue, loc = -1): void {
    const k = this.relationKey(key, 'insert');
    if (value === null) throw new Error(`insert of key ${this.keyLabels[k]} with no value`);
    this.pushOp(txn, OP_INSERT, k, this.value(value), loc);
  }

  /** Delete of row `key` (a key of a relation): writes the absent version. */
  delete(txn: number, key: RawKey, loc = -1): void {
    this.pushOp(txn, OP_DELETE, this.relationKey(key, 'delete'), INITIAL_VALUE, loc);
  }

  /**
   * Predicate read `select(P)` over relation `relation` (its name or id) that returned `rows`
   * (key, value) in that order; returns the predicate read's id. `predicate` is the text as
   * written (parsed here: a bad one throws predicate.ts's PredicateSyntaxError) or a parsed
   * predicate with its text.
   */
  select(txn: number, relation: string | number, predicate: string | Predicate, rows: Iterable<readonly [RawKey, RawValue]>, loc = -1,
    text?: string): number {
    const r = this.relationOf(relation);
    const ids: [number, number][] = [];
    for (const [k, v] of rows) ids.push([this.key(k), this.value(v)]);
    const p = this.predTable().read(r, predicate, predicateTextOf(predicate, text), ids, -1, this.keyLabelOf);
    this.pushOp(txn, OP_SELECT, r, p, loc);
    return p;
  }

  /** Predicate count `count(P) -> n` over `relation`; as `select`. */
  count(txn: number, relation: string | number, predicate: string | Predicate, n: number, loc = -1, text?: string): number {
    const r = this.relationOf(relation);
    if (!(Number.isInteger(n) && n >= 0)) throw new Error(`count over ${String(relation)} returned ${n}, not a count`);
    const p = this.predTable().read(r, predicate, predicateTextOf(predicate, text), [], n, this.keyLabelOf);
    this.pushOp(txn, OP_COUNT, r, p, loc);
    return p;
  }

  private relationOf(relation: string | number): number {
    const r = typeof relation === 'number' ? relation : this.relationId(relation);
    if (r < 0 || this.preds === null) throw new Error(`predicate read over relation ${String(relation)}, which is not declared`);
    return r;
  }

  /** Fast path for parsers that intern themselves: ids must come from `key()` / `value()`. */
  pushOp(txn: number, kind: number, keyId: number, valueId: number, loc = -1): void {
    const i = this.opN;
    if (i === this.opTxn.length) this.growOps();
    if (i > 0 && txn < this.opTxn[i - 1]!) this.opsInTxnOrder = false;
    this.opTxn[i] = txn;
    this.opKind[i] = kind;
    this.opKey[i] = keyId;
    this.opValue[i] = valueId;
    this.opLoc[i] = loc;
    this.opN = i + 1;
  }

  /**
   * For parsers that write operations in bulk (dbcop bincode): room for `n` more operations, and
   * the op columns to write them into at `opCount ..`, then taken in with `addOps`. No call per
   * operation: a parser's loop stays simple enough to be compiled early in a fresh process.
   * The columns are valid until the next pushOp or opColumns.
   */
  opColumns(n: number): { kind: Uint8Array; key: Int32Array; value: Int32Array; loc: Float64Array } {
    if (this.opN + n > this.opTxn.length) this.growOps(this.opN + n);
    return { kind: this.opKind, key: this.opKey, value: this.opValue, loc: this.opLoc };
  }

  /**
   * Takes in `count` operations of `txn` written at `opCount .. opCount + count - 1` into the
   * columns `opColumns` gave (ids from `key()` / `value()`, as for pushOp).
   */
  addOps(txn: number, count: number): void {
    const i = this.opN;
    if (i + count > this.opTxn.length) throw new Error(`internal error: ${count} ops added past the room opColumns made`);
    if (count === 0) return;
    if (i > 0 && txn < this.opTxn[i - 1]!) this.opsInTxnOrder = false;
    this.opTxn.fill(txn, i, i + count);
    this.opN = i + count;
  }

  private growOps(min = 0): void {
    const cap = Math.max(min, this.opTxn.length * 2);
    const txn = new Int32Array(cap), kind = new Uint8Array(cap), key = new Int32Array(cap);
    const value = new Int32Array(cap), loc = new Float64Array(cap);
    txn.set(this.opTxn); kind.set(this.opKind); key.set(this.opKey); value.set(this.opValue); loc.set(this.opLoc);
    this.opTxn = txn; this.opKind = kind; this.opKey = key; this.opValue = value; this.opLoc = loc;
  }

  /** The txn columns of build's general case: sessions left with no txns dropped, txns renumbered by session (stable). */
  private renumberTxns(): TxnColumns {
    const nTxnAll = this.txnLabelArr.length;
    const txnSessionAll = this.txnSessionArr.view();
    const omit = new Uint8Array(nTxnAll);
    for (const t of this.omitted) omit[t] = 1;

    // Sessions that keep at least one txn, renumbered densely in creation order.
    const sessionKeeps = new Uint8Array(this.sessionLabels.length);
    const sessionHasOmitted = new Uint8Array(this.sessionLabels.length);
    for (let t = 0; t < nTxnAll; t++) {
      if (omit[t] === 1) sessionHasOmitted[txnSessionAll[t]!] = 1;
      else sessionKeeps[txnSessionAll[t]!] = 1;
    }
    const sessionNewId = new Int32Array(this.sessionLabels.length).fill(-1);
    const sessionLabels: string[] = [];
    for (let s = 0; s < this.sessionLabels.length; s++) {
      if (sessionKeeps[s] === 1 || sessionHasOmitted[s] === 0) { sessionNewId[s] = sessionLabels.length; sessionLabels.push(this.sessionLabels[s]!); }
    }
    const nSess = sessionLabels.length;
    let nTxn = 0;
    for (let t = 0; t < nTxnAll; t++) if (omit[t] !== 1) nTxn++;

    // Counting sort of kept txns by session, stable in creation order (-1 = omitted).
    const sessionTxnStart = new Int32Array(nSess + 1);
    for (let t = 0; t < nTxnAll; t++) if (omit[t] !== 1) sessionTxnStart[sessionNewId[txnSessionAll[t]!]! + 1]!++;
    for (let s = 0; s < nSess; s++) sessionTxnStart[s + 1]! += sessionTxnStart[s]!;
    const txnNewId = new Int32Array(nTxnAll).fill(-1);
    const fill = sessionTxnStart.slice(0, nSess);
    for (let t = 0; t < nTxnAll; t++) if (omit[t] !== 1) txnNewId[t] = fill[sessionNewId[txnSessionAll[t]!]!]!++;

    const txnSession = new Int32Array(nTxn);
    const txnStatus = new Uint8Array(nTxn);
    const txnLoc = new Float64Array(nTxn);
    /** `txnOldId[nt]`: the builder id of new txn nt. */
    const txnOldId = new Int32Array(nTxn);
    const txnStart = this.txnStartArr === null ? undefined : new Float64Array(nTxn).fill(NaN);
    const txnEnd = this.txnEndArr === null ? undefined : new Float64Array(nTxn).fill(NaN);
    const txnError = this.txnErrorArr === null ? undefined : new Array<string>(nTxn).fill('');
    const statusAll = this.txnStatusArr.view(), locAll = this.txnLocArr.toArray();
    for (let t = 0; t < nTxnAll; t++) {
      const nt = txnNewId[t]!;
      if (nt < 0) continue;
      txnSession[nt] = sessionNewId[txnSessionAll[t]!]!;
      txnStatus[nt] = statusAll[t]!;
      txnLoc[nt] = locAll[t]!;
      txnOldId[nt] = t;
    }
    if (txnStart !== undefined) {
      for (let t = 0; t < this.txnStartArr!.length; t++) {
        const nt = txnNewId[t]!;
        if (nt >= 0) { txnStart[nt] = this.txnStartArr![t]!; txnEnd![nt] = this.txnEndArr![t]!; }
      }
    }
    if (txnError !== undefined) {
      for (let t = 0; t < this.txnErrorArr!.length; t++) if (txnNewId[t]! >= 0) txnError[txnNewId[t]!] = this.txnErrorArr![t]!;
    }

    return { nSess, sessionLabels, sessionTxnStart, nTxn, txnNewId, txnSession, txnStatus, txnLoc, txnOldId, txnStart, txnEnd, txnError };
  }

  /** The txn columns of build when nothing moves (see build): copies of the builder's, and sessions counted. */
  private txnsInPlace(): TxnColumns {
    const nTxn = this.txnLabelArr.length, nSess = this.sessionLabels.length;
    const txnSession = this.txnSessionArr.toArray();
    const txnStatus = new Uint8Array(nTxn);
    txnStatus.set(this.txnStatusArr.view());
    const txnLoc = this.txnLocArr.toArray();
    const sessionTxnStart = new Int32Array(nSess + 1);
    countInto(txnSession, nTxn, sessionTxnStart);
    for (let x = 0; x < nSess; x++) sessionTxnStart[x + 1]! += sessionTxnStart[x]!;
    const txnStart = this.txnStartArr === null ? undefined : new Float64Array(nTxn).fill(NaN);
    const txnEnd = this.txnEndArr === null ? undefined : new Float64Array(nTxn).fill(NaN);
    const txnError = this.txnErrorArr === null ? undefined : new Array<string>(nTxn).fill('');
    if (txnStart !== undefined) { txnStart.set(this.txnStartArr!); txnEnd!.set(this.txnEndArr!); }
    if (txnError !== undefined) for (let x = 0; x < this.txnErrorArr!.length; x++) txnError[x] = this.txnErrorArr![x]!;
    return {
      nSess, sessionLabels: this.sessionLabels.slice(), sessionTxnStart, nTxn, txnNewId: null, txnSession, txnStatus, txnLoc,
      txnOldId: null, txnStart, txnEnd, txnError,
    };
  }

  /**
   * Renumbers transactions by session (stable), operations by transaction (stable),
   * and returns the immutable History.
   */
  build(): History {
    const nOp0 = this.opN;
    const opTxnAll = this.opTxn;
    // Txns begun session by session with none omitted (every parser but the ones of formats with
    // an explicit initial txn): ids, sessions and columns stay as they are, copied natively.
    const txnsKeepIds = this.omitted.size === 0 && this.txnsInSessionOrder;
    const t = txnsKeepIds ? this.txnsInPlace() : this.renumberTxns();
    const { nTxn, txnNewId, txnStart, txnEnd, txnError } = t;

    // Ops per new txn, then the ops themselves in (new txn, arrival) order.
    const txnOpStart = new Int32Array(nTxn + 1);
    if (txnNewId === null) {
      countInto(opTxnAll, nOp0, txnOpStart); // txnNewId is the identity
    } else {
      for (let op = 0; op < nOp0; op++) {
        const nt = txnNewId[opTxnAll[op]!]!;
        if (nt >= 0) txnOpStart[nt + 1]!++;
      }
    }
    for (let x = 0; x < nTxn; x++) txnOpStart[x + 1]! += txnOpStart[x]!;
    const nOp = txnOpStart[nTxn]!;
    let opKind: Uint8Array, opKey: Int32Array, opValue: Int32Array, opLoc: Float64Array;
    if (txnNewId === null && this.opsInTxnOrder) {
      // Txns were begun session by session (so txnNewId is the identity) and ops arrived txn by
      // txn: arrival order is already the History's order. The columns are handed over as views
      // (no copy of 21 bytes per op): the builder only ever writes past opN, outside the views,
      // or into new arrays (growOps), so the History cannot change if the builder is used on.
      opKind = this.opKind.subarray(0, nOp);
      opKey = this.opKey.subarray(0, nOp);
      opValue = this.opValue.subarray(0, nOp);
      opLoc = this.opLoc.subarray(0, nOp);
    } else {
      // Counting sort of ops by new txn id, stable in arrival order.
      const opFill = txnOpStart.slice(0, nTxn);
      opKind = new Uint8Array(nOp);
      opKey = new Int32Array(nOp);
      opValue = new Int32Array(nOp);
      opLoc = new Float64Array(nOp);
      const kindAll = this.opKind, keyAll = this.opKey, valueAll = this.opValue, locOpAll = this.opLoc;
      for (let op = 0; op < nOp0; op++) {
        const nt = txnNewId === null ? opTxnAll[op]! : txnNewId[opTxnAll[op]!]!;
        if (nt < 0) continue;
        const at = opFill[nt]!++;
        opKind[at] = kindAll[op]!;
        opKey[at] = keyAll[op]!;
        opValue[at] = valueAll[op]!;
        opLoc[at] = locOpAll[op]!;
      }
    }

    const h: History = {
      source: this.source,
      locUnit: this.locUnit,
      sessionCount: t.nSess,
      sessionLabels: t.sessionLabels,
      sessionTxnStart: t.sessionTxnStart,
      txnCount: nTxn,
      txnSession: t.txnSession,
      txnLabelTable: this.txnLabelArr.freeze(t.txnOldId),
      txnStatus: t.txnStatus,
      txnLoc: t.txnLoc,
      txnOpStart,
      opCount: nOp,
      opKind,
      opKey,
      opValue,
      opLoc,
      keyLabels: this.keyLabels.slice(),
      valueCount: this.valueLabels.length,
      valueLabelTable: this.valueLabels.freeze(),
      listStart: this.listStartArr.toArray(),
      listElems: this.listElemsArr.toArray(),
      ...(txnStart === undefined ? {} : { txnStart, txnEnd: txnEnd! }),
      ...(txnError === undefined ? {} : { txnError }),
      ...(this.preds?.used === true ? { predicates: this.preds.build(this.keyLabels.length) } : {}),
    };
    assertHistory(h);
    return h;
  }
}

/** The text recorded for a predicate read: as written, or the given/canonical text of a parsed one. */
function predicateTextOf(predicate: string | Predicate, text: string | undefined): string {
  if (typeof predicate === 'string') return predicate;
  return text ?? predicateTextCanonical(predicate);
}

/** Op kinds re-exported for parsers that use `pushOp`. */
export { OP_READ, OP_WRITE, OP_APPEND, OP_READ_LIST, OP_INSERT, OP_DELETE, OP_SELECT, OP_COUNT };
