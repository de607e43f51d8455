/**
 * HistoryBuilder: the one way parsers (and tests) construct a `History`.
 *
 * Takes: sessions, transactions and operations in any interleaving (file order), with keys and
 * values as the user wrote them. Gives: a `History` whose sessions, txns and ops are renumbered
 * into contiguous CSR ranges (see model.ts), keys and values interned to dense ids.
 * Invariant: a session's transactions keep the order in which `beginTxn` was called for that
 * session; a transaction's operations keep the order in which they were added.
 *
 * Raw values: `null` means the initial value (id 0). Numbers and strings are distinct raw values
 * (`1` and `"1"` are different), and so are keys. Parsers whose formats spell the initial value
 * as a number (PolySI's 0, dbcop's 0) pass `null` for it.
 */

import { GrowableFloat64, GrowableInt32 } from '../util/growable.ts';
import {
  assertHistory,
  INITIAL_VALUE,
  OP_APPEND,
  OP_READ,
  OP_READ_LIST,
  OP_WRITE,
  TXN_COMMITTED,
  type History,
  type LocUnit,
  type TxnStatus,
} from './model.ts';

export type RawKey = string | number;
export type RawValue = string | number | bigint | null;

export class HistoryBuilder {
  private readonly sessionIndex = new Map<string, number>();
  private readonly sessionLabels: string[] = [];
  private readonly keyIndex = new Map<RawKey, number>();
  private readonly keyLabels: string[] = [];
  private readonly valueIndex = new Map<string | number | bigint, number>();
  private readonly valueLabels: string[];
  /** smallValue's table: `smallKeys[i]` a value (-1 = empty slot), `smallIds[i]` its id. */
  private smallBits = 10;
  private smallKeys = new Int32Array(1 << 10).fill(-1);
  private smallIds = new Int32Array(1 << 10);
  private smallCount = 0;

  // Per txn, in creation order.
  private readonly txnSessionArr = new GrowableInt32();
  private readonly txnStatusArr = new GrowableInt32();
  private readonly txnLocArr = new GrowableFloat64();
  private readonly txnLabelArr: string[] = [];

  // Per op, in arrival order.
  private readonly opTxnArr = new GrowableInt32();
  private readonly opKindArr = new GrowableInt32();
  private readonly opKeyArr = new GrowableInt32();
  private readonly opValueArr = new GrowableInt32();
  private readonly opLocArr = new GrowableFloat64();

  private readonly listStartArr = new GrowableInt32();
  private readonly listElemsArr = new GrowableInt32();
  private readonly omitted = new Set<number>();
  // Optional per-txn columns (model.ts), allocated on first use; indexed by builder txn id.
  private txnStartArr: number[] | null = null;
  private txnEndArr: number[] | null = null;
  private txnErrorArr: string[] | null = null;

  constructor(
    readonly source: string = '<memory>',
    readonly locUnit: LocUnit = 'line',
    initialValueLabel = 'init',
  ) {
    this.valueLabels = [initialValueLabel];
    this.listStartArr.push(0);
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

  get opCount(): number {
    return this.opTxnArr.length;
  }

  /** Starts a transaction at the end of `session`; returns its builder id (creation order). */
  beginTxn(session: number, label?: string | number, status: TxnStatus = TXN_COMMITTED, loc = -1): number {
    const t = this.txnLabelArr.length;
    this.txnLabelArr.push(label === undefined ? `t${t}` : String(label));
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
    return this.txnLabelArr[txn]!;
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
    let k = this.keyIndex.get(raw);
    if (k === undefined) {
      k = this.keyLabels.length;
      this.keyIndex.set(raw, k);
      this.keyLabels.push(String(raw));
    }
    return k;
  }

  /** Interns a value; `null` is the initial value. */
  value(raw: RawValue): number {
    if (raw === null) return INITIAL_VALUE;
    // Non-negative 31-bit integers (what every generator writes) skip the Map: see smallValue.
    if (typeof raw === 'number' && (raw | 0) === raw && raw >= 0) return this.smallValue(raw);
    let v = this.valueIndex.get(raw);
    if (v === undefined) {
      v = this.valueLabels.length;
      this.valueIndex.set(raw, v);
      this.valueLabels.push(typeof raw === 'string' ? JSON.stringify(raw) : String(raw));
    }
    return v;
  }

  /**
   * Interns a non-negative 31-bit integer through an open-addressing table of typed arrays
   * (Fibonacci hashing, linear probing, at most half full). Parsers intern one value per
   * operation, and histories write each value once, so a Map insertion per operation was the
   * largest single cost of parsing (a quarter of the text parser's time). Every such number
   * goes through this table and no other number does, so ids stay unique per value.
   */
  private smallValue(x: number): number {
    const keys = this.smallKeys;
    const shift = 32 - this.smallBits;
    let i = Math.imul(x, 0x9e3779b1) >>> shift;
    const mask = keys.length - 1;
    for (;;) {
      const k = keys[i]!;
      if (k === x) return this.smallIds[i]!;
      if (k === -1) break;
      i = (i + 1) & mask;
    }
    const v = this.valueLabels.length;
    this.valueLabels.push(String(x));
    keys[i] = x;
    this.smallIds[i] = v;
    if (++this.smallCount * 2 > keys.length) this.growSmall();
    return v;
  }

  private growSmall(): void {
    const oldKeys = this.smallKeys, oldIds = this.smallIds;
    this.smallBits++;
    const keys = new Int32Array(1 << this.smallBits).fill(-1), ids = new Int32Array(1 << this.smallBits);
    const shift = 32 - this.smallBits, mask = keys.length - 1;
    for (let j = 0; j < oldKeys.length; j++) {
      const x = oldKeys[j]!;
      if (x === -1) continue;
      let i = Math.imul(x, 0x9e3779b1) >>> shift;
      while (keys[i] !== -1) i = (i + 1) & mask;
      keys[i] = x;
      ids[i] = oldIds[j]!;
    }
    this.smallKeys = keys;
    this.smallIds = ids;
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

  /** Fast path for parsers that intern themselves: ids must come from `key()` / `value()`. */
  pushOp(txn: number, kind: number, keyId: number, valueId: number, loc = -1): void {
    this.opTxnArr.push(txn);
    this.opKindArr.push(kind);
    this.opKeyArr.push(keyId);
    this.opValueArr.push(valueId);
    this.opLocArr.push(loc);
  }

  /**
   * Renumbers transactions by session (stable), operations by transaction (stable),
   * and returns the immutable History.
   */
  build(): History {
    const nTxnAll = this.txnLabelArr.length;
    const nOp0 = this.opTxnArr.length;
    const omit = new Uint8Array(nTxnAll);
    for (const t of this.omitted) omit[t] = 1;

    // Sessions that keep at least one txn, renumbered densely in creation order.
    const sessionKeeps = new Uint8Array(this.sessionLabels.length);
    const sessionHasOmitted = new Uint8Array(this.sessionLabels.length);
    for (let t = 0; t < nTxnAll; t++) {
      if (omit[t] === 1) sessionHasOmitted[this.txnSessionArr.get(t)] = 1;
      else sessionKeeps[this.txnSessionArr.get(t)] = 1;
    }
    const sessionNewId = new Int32Array(this.sessionLabels.length).fill(-1);
    const sessionLabels: string[] = [];
    for (let s = 0; s < this.sessionLabels.length; s++) {
      if (sessionKeeps[s] === 1 || sessionHasOmitted[s] === 0) { sessionNewId[s] = sessionLabels.length; sessionLabels.push(this.sessionLabels[s]!); }
    }
    const nSess = sessionLabels.length;
    let nTxn = 0;
    for (let t = 0; t < nTxnAll; t++) if (omit[t] !== 1) nTxn++;
    let nOp = 0;
    for (let op = 0; op < nOp0; op++) if (omit[this.opTxnArr.get(op)] !== 1) nOp++;

    // Counting sort of kept txns by session, stable in creation order (-1 = omitted).
    const sessionTxnStart = new Int32Array(nSess + 1);
    for (let t = 0; t < nTxnAll; t++) if (omit[t] !== 1) sessionTxnStart[sessionNewId[this.txnSessionArr.get(t)]! + 1]!++;
    for (let s = 0; s < nSess; s++) sessionTxnStart[s + 1]! += sessionTxnStart[s]!;
    const txnNewId = new Int32Array(nTxnAll).fill(-1);
    const fill = sessionTxnStart.slice(0, nSess);
    for (let t = 0; t < nTxnAll; t++) if (omit[t] !== 1) txnNewId[t] = fill[sessionNewId[this.txnSessionArr.get(t)]!]!++;

    const txnSession = new Int32Array(nTxn);
    const txnStatus = new Uint8Array(nTxn);
    const txnLoc = new Float64Array(nTxn);
    const txnLabels: string[] = new Array<string>(nTxn);
    const txnStart = this.txnStartArr === null ? undefined : new Float64Array(nTxn).fill(NaN);
    const txnEnd = this.txnEndArr === null ? undefined : new Float64Array(nTxn).fill(NaN);
    const txnError = this.txnErrorArr === null ? undefined : new Array<string>(nTxn).fill('');
    for (let t = 0; t < nTxnAll; t++) {
      const nt = txnNewId[t]!;
      if (nt < 0) continue;
      if (txnStart !== undefined && t < this.txnStartArr!.length) { txnStart[nt] = this.txnStartArr![t]!; txnEnd![nt] = this.txnEndArr![t]!; }
      if (txnError !== undefined && t < this.txnErrorArr!.length) txnError[nt] = this.txnErrorArr![t]!;
      txnSession[nt] = sessionNewId[this.txnSessionArr.get(t)]!;
      txnStatus[nt] = this.txnStatusArr.get(t);
      txnLoc[nt] = this.txnLocArr.get(t);
      txnLabels[nt] = this.txnLabelArr[t]!;
    }

    // Counting sort of ops by new txn id, stable in arrival order.
    const txnOpStart = new Int32Array(nTxn + 1);
    for (let op = 0; op < nOp0; op++) {
      const nt = txnNewId[this.opTxnArr.get(op)]!;
      if (nt >= 0) txnOpStart[nt + 1]!++;
    }
    for (let t = 0; t < nTxn; t++) txnOpStart[t + 1]! += txnOpStart[t]!;
    const opFill = txnOpStart.slice(0, nTxn);
    const opKind = new Uint8Array(nOp);
    const opKey = new Int32Array(nOp);
    const opValue = new Int32Array(nOp);
    const opLoc = new Float64Array(nOp);
    for (let op = 0; op < nOp0; op++) {
      const nt = txnNewId[this.opTxnArr.get(op)]!;
      if (nt < 0) continue;
      const at = opFill[nt]!++;
      opKind[at] = this.opKindArr.get(op);
      opKey[at] = this.opKeyArr.get(op);
      opValue[at] = this.opValueArr.get(op);
      opLoc[at] = this.opLocArr.get(op);
    }

    const h: History = {
      source: this.source,
      locUnit: this.locUnit,
      sessionCount: nSess,
      sessionLabels,
      sessionTxnStart,
      txnCount: nTxn,
      txnSession,
      txnLabels,
      txnStatus,
      txnLoc,
      txnOpStart,
      opCount: nOp,
      opKind,
      opKey,
      opValue,
      opLoc,
      keyLabels: this.keyLabels.slice(),
      valueLabels: this.valueLabels.slice(),
      listStart: this.listStartArr.toArray(),
      listElems: this.listElemsArr.toArray(),
      ...(txnStart === undefined ? {} : { txnStart, txnEnd: txnEnd! }),
      ...(txnError === undefined ? {} : { txnError }),
    };
    assertHistory(h);
    return h;
  }
}

/** Op kinds re-exported for parsers that use `pushOp`. */
export { OP_READ, OP_WRITE, OP_APPEND, OP_READ_LIST };
