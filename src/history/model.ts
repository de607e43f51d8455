/**
 * The history model: what every parser produces and every later stage reads.
 *
 * Takes: nothing (type definitions and constants only).
 * Gives: `History`, a columnar, typed-array representation of sessions, transactions and
 * operations, with keys and values interned to dense integer ids; `valueLabel(h, v)` and
 * `txnLabel(h, t)`, the names the user gave them (made on demand: labels.ts).
 *
 * Invariants (checked by `assertHistory`):
 * - Transactions are numbered so that each session's transactions are contiguous and in
 *   session order: session s owns txns `sessionTxnStart[s] .. sessionTxnStart[s+1]-1`.
 * - Operations are numbered so that each transaction's operations are contiguous and in
 *   program order: txn t owns ops `txnOpStart[t] .. txnOpStart[t+1]-1`.
 * - Value id `INITIAL_VALUE` (0) is the value every key holds before any write (PolySI's
 *   0, dbcop's 0, Elle's nil, Cobra's 0xbebeebee writer). No parser maps a user write to it
 *   silently: a write of the initial value is kept as such and rejected by validation.
 */

import type { LabelTable } from './labels.ts';

/** Operation kinds (`opKind[op]`). */
export const OP_READ = 0;
export const OP_WRITE = 1;
/** List-append: append `opValue[op]` to the list at `opKey[op]`. */
export const OP_APPEND = 2;
/** List read: the list read is `listElems[listStart[opValue[op]] .. listStart[opValue[op]+1]-1]`. */
export const OP_READ_LIST = 3;
/**
 * Insert of row `opKey[op]` with value `opValue[op]` (issue 22): a write whose key must be absent
 * just before it in the key's version order (never inserted, or deleted since).
 */
export const OP_INSERT = 4;
/** Delete of row `opKey[op]`: writes the absent version; `opValue[op]` is INITIAL_VALUE. */
export const OP_DELETE = 5;
/**
 * Predicate read `select(P)` over a relation: `opKey[op]` is the relation id (not a key id) and
 * `opValue[op]` the predicate read's id p in `History.predicates` (its predicate and result).
 */
export const OP_SELECT = 6;
/** Predicate count `count(P) -> n`: as OP_SELECT, its result is `predicates.count[p]`. */
export const OP_COUNT = 7;
export type OpKind =
  | typeof OP_READ | typeof OP_WRITE | typeof OP_APPEND | typeof OP_READ_LIST
  | typeof OP_INSERT | typeof OP_DELETE | typeof OP_SELECT | typeof OP_COUNT;

/**
 * Relations and predicate reads (issue 22; docs/formats.md, "Predicates"), present only when
 * the history has a relation. A relation is a declared set of keys (rows); each key belongs to
 * at most one. A row of a relation starts absent: for such a key the value id INITIAL_VALUE
 * means "absent" (a read of `null` saw no row; OP_DELETE writes it).
 */
export interface PredicateTable {
  /** `relationLabels[r]`: the relation's name. */
  readonly relationLabels: readonly string[];
  /** CSR, length relationCount+1: relation r holds keys `relKeys[relStart[r] .. relStart[r+1]-1]` (ascending key ids). */
  readonly relStart: Int32Array;
  readonly relKeys: Int32Array;
  /** `keyRelation[k]`: the relation of key k, or -1 (a plain key); length = keyLabels.length. */
  readonly keyRelation: Int32Array;
  /** `text[p]`: predicate read p's predicate as written; `parsed[p]` its parse (predicate.ts). */
  readonly text: readonly string[];
  readonly parsed: readonly import('./predicate.ts').Predicate[];
  /**
   * CSR, length predicate reads + 1: select p returned the rows
   * `(resultKeys[i], resultValues[i])` for i in `resultStart[p] .. resultStart[p+1]-1` (in the
   * order returned; value ids as everywhere). Empty for a count.
   */
  readonly resultStart: Int32Array;
  readonly resultKeys: Int32Array;
  readonly resultValues: Int32Array;
  /** `count[p]`: the number a count returned; -1 for a select. */
  readonly count: Int32Array;
}

/**
 * A fault injected during the run (issue 24): kind (`kill`, `pause`, `partition`, ...), the node
 * it hit, and its start and end in the clock of `txnStart` / `txnEnd` (end NaN: never healed).
 */
export interface FaultEvent {
  readonly kind: string;
  readonly node: string;
  readonly start: number;
  readonly end: number;
}

/** Transaction outcomes (`txnStatus[t]`). */
export const TXN_COMMITTED = 0;
export const TXN_ABORTED = 1;
/** The client never learned whether the transaction committed (Jepsen's `:info`). */
export const TXN_UNKNOWN = 2;
export type TxnStatus = typeof TXN_COMMITTED | typeof TXN_ABORTED | typeof TXN_UNKNOWN;

/** The value id of the initial state of every key. */
export const INITIAL_VALUE = 0;

/** What a location number in `opLoc` / `txnLoc` counts. */
export type LocUnit = 'line' | 'byte' | 'record';

export interface History {
  /** Where the history came from (a path, or `<memory>`), for messages. */
  readonly source: string;
  /** The unit of `opLoc` and `txnLoc`: 1-based line numbers, 0-based byte offsets, or record numbers. */
  readonly locUnit: LocUnit;

  readonly sessionCount: number;
  /** `sessionLabels[s]`: the session's name as the user gave it. */
  readonly sessionLabels: readonly string[];
  /** CSR, length sessionCount+1: session s owns txns `sessionTxnStart[s] .. sessionTxnStart[s+1]-1`. */
  readonly sessionTxnStart: Int32Array;

  readonly txnCount: number;
  /** `txnSession[t]`: session of txn t. */
  readonly txnSession: Int32Array;
  /**
   * The transactions' ids as the user gave them (or generated ones): read them with
   * `txnLabel(h, t)`. Labels are made on demand (labels.ts); this table holds their parts.
   */
  readonly txnLabelTable: LabelTable;
  /** `txnStatus[t]`: TXN_COMMITTED, TXN_ABORTED or TXN_UNKNOWN. */
  readonly txnStatus: Uint8Array;
  /** `txnLoc[t]`: location of the transaction's first record in the source, -1 if unknown. */
  readonly txnLoc: Float64Array;
  /** CSR, length txnCount+1: txn t owns ops `txnOpStart[t] .. txnOpStart[t+1]-1`. */
  readonly txnOpStart: Int32Array;

  readonly opCount: number;
  /** `opKind[op]`: OP_READ, OP_WRITE, OP_APPEND, OP_READ_LIST, or (with `predicates`) OP_INSERT .. OP_COUNT. */
  readonly opKind: Uint8Array;
  /** `opKey[op]`: key id. */
  readonly opKey: Int32Array;
  /** `opValue[op]`: value id (OP_READ, OP_WRITE, OP_APPEND) or list id (OP_READ_LIST). */
  readonly opValue: Int32Array;
  /** `opLoc[op]`: location of the operation in the source, -1 if unknown. */
  readonly opLoc: Float64Array;
  /**
   * Set only on a history lowered from predicate reads (validate/predicate-lower.ts):
   * `opStatement[op]` is the input op that op comes from. Item reads sharing it are the rows of
   * one predicate read, observed together by one statement: none of them is earlier than another
   * (levels/rc.ts). Absent: every op is its own statement.
   */
  readonly opStatement?: Int32Array;

  /** `keyLabels[k]`: the key as the user wrote it. */
  readonly keyLabels: readonly string[];
  /** Number of distinct values, the initial value (id 0) included: value ids are 0 .. valueCount-1. */
  readonly valueCount: number;
  /**
   * The values as the user wrote them, made on demand: read them with `valueLabel(h, v)`;
   * `valueLabel(h, 0)` names the initial value.
   */
  readonly valueLabelTable: LabelTable;

  /**
   * Optional per-txn columns, present when the source recorded them (`polysi run`, JSONL
   * `"start"` / `"end"` / `"error"`, Elle's `:time`): `txnStart[t]` / `txnEnd[t]` are the invocation
   * and completion times in milliseconds of the recorder's monotonic clock (Elle: its `:time`
   * unit, nanoseconds; NaN when not recorded for t; the strict levels read them), and
   * `txnError[t]` the database's error code for an aborted or unknown txn ('' when none).
   */
  readonly txnStart?: Float64Array;
  readonly txnEnd?: Float64Array;
  readonly txnError?: readonly string[];

  /**
   * Where each transaction ran (issue 24; JSONL `"node"`): `txnNode[t]` indexes `nodeLabels`, -1
   * when not recorded for t. Both present or both absent.
   */
  readonly txnNode?: Int32Array;
  readonly nodeLabels?: readonly string[];
  /** Faults injected during the run, in start order (issue 24; JSONL `{"fault": ...}` lines). */
  readonly faults?: readonly FaultEvent[];
  /** Relations and predicate reads (issue 22); absent for a key-value history. */
  readonly predicates?: PredicateTable;

  /** CSR over lists read by OP_READ_LIST: list l is `listElems[listStart[l] .. listStart[l+1]-1]`. */
  readonly listStart: Int32Array;
  readonly listElems: Int32Array;
}

/** Value v as the user wrote it (v = INITIAL_VALUE: the name of the initial value, e.g. `init`). */
export function valueLabel(h: History, v: number): string {
  return h.valueLabelTable.get(v);
}

/** Transaction t's id as the user gave it (or the one the parser made up). */
export function txnLabel(h: History, t: number): string {
  return h.txnLabelTable.get(t);
}

/** The node transaction t ran on (issue 24), or null when the history does not say. */
export function txnNodeLabel(h: History, t: number): string | null {
  const n = h.txnNode?.[t] ?? -1;
  return n < 0 ? null : h.nodeLabels![n]!;
}

/** A user-facing description of where transaction t comes from, e.g. `"h.txt line 12"`. */
export function txnWhere(h: History, t: number): string {
  const loc = h.txnLoc[t] ?? -1;
  return loc < 0 ? h.source : `${h.source} ${h.locUnit} ${loc}`;
}

/** A user-facing description of where operation op comes from. */
export function opWhere(h: History, op: number): string {
  const loc = h.opLoc[op] ?? -1;
  return loc < 0 ? h.source : `${h.source} ${h.locUnit} ${loc}`;
}

/**
 * An operation rendered for people: `w(x,1)`, `r(y,0)`, `r(l,[1 2])`, and for relations (issue
 * 22) `ins(k,v)`, `del(k)`, `r(k,absent)` (a read that saw no row), `select(R, P) -> {k:v, ...}`
 * (rows in the order returned), `count(R, P) -> n`.
 */
export function describeOp(h: History, op: number): string {
  const kind = h.opKind[op]!;
  const v = h.opValue[op]!;
  if (kind === OP_SELECT || kind === OP_COUNT) return describePredicateRead(h, op);
  const k = h.keyLabels[h.opKey[op]!]!;
  switch (kind) {
    case OP_READ: return `r(${k},${v === INITIAL_VALUE && isRelationKey(h, h.opKey[op]!) ? 'absent' : valueLabel(h, v)})`;
    case OP_WRITE: return `w(${k},${valueLabel(h, v)})`;
    case OP_APPEND: return `append(${k},${valueLabel(h, v)})`;
    case OP_INSERT: return `ins(${k},${valueLabel(h, v)})`;
    case OP_DELETE: return `del(${k})`;
    default: {
      const elems: string[] = [];
      for (let i = h.listStart[v]!; i < h.listStart[v + 1]!; i++) elems.push(valueLabel(h, h.listElems[i]!));
      return `r(${k},[${elems.join(' ')}])`;
    }
  }
}

/** Whether key k is a row of a relation (its initial value is then the absent row). */
function isRelationKey(h: History, k: number): boolean {
  return h.predicates !== undefined && h.predicates.keyRelation[k]! >= 0;
}

/** `select(R, P) -> {k:v, ...}` or `count(R, P) -> n` (P as written). */
function describePredicateRead(h: History, op: number): string {
  const t = h.predicates!;
  const p = h.opValue[op]!;
  const head = `(${t.relationLabels[h.opKey[op]!]}, ${t.text[p]})`;
  if (h.opKind[op] === OP_COUNT) return `count${head} -> ${t.count[p]}`;
  const rows: string[] = [];
  for (let i = t.resultStart[p]!; i < t.resultStart[p + 1]!; i++) rows.push(`${h.keyLabels[t.resultKeys[i]!]}:${valueLabel(h, t.resultValues[i]!)}`);
  return `select${head} -> {${rows.join(', ')}}`;
}

/** Checks the structural invariants above; throws on a violation (a bug in a parser). */
export function assertHistory(h: History): void {
  const fail = (what: string): never => {
    throw new Error(`internal error: malformed History from ${h.source}: ${what}`);
  };
  // Columns in locals: these loops run once per parse over every txn and op.
  const { sessionTxnStart, txnSession, txnOpStart, txnStatus, opKind, opKey, opValue, listStart } = h;
  const nSess = h.sessionCount, nTxn = h.txnCount, nOp = h.opCount;
  if (sessionTxnStart.length !== nSess + 1) fail('sessionTxnStart length');
  if (sessionTxnStart[0] !== 0 || sessionTxnStart[nSess] !== nTxn) fail('sessionTxnStart bounds');
  if (txnSession.length !== nTxn || txnStatus.length !== nTxn || h.txnLoc.length !== nTxn) fail('txn column length');
  // Each loop in a helper of its own that returns the first bad index (-1 if none): V8 compiles
  // the whole function holding a hot loop, and a small one early (this runs once per parse, cold).
  let bad = badSessionRange(sessionTxnStart, txnSession, nSess);
  if (bad >= 0) fail(`session ${bad} txn range (reversed, or holding a txn of another session in txnSession)`);
  if (txnOpStart.length !== nTxn + 1) fail('txnOpStart length');
  if (txnOpStart[0] !== 0 || txnOpStart[nTxn] !== nOp) fail('txnOpStart bounds');
  bad = badTxn(txnOpStart, txnStatus, nTxn);
  if (bad >= 0) fail(txnStatus[bad]! > TXN_UNKNOWN ? `txnStatus[${bad}]` : `txn ${bad} op range`);
  if (h.txnLabelTable.count !== nTxn) fail('txnLabelTable size');
  if (h.valueLabelTable.count !== h.valueCount || h.valueCount < 1) fail('valueLabelTable size');
  if (opKind.length !== nOp || opKey.length !== nOp || opValue.length !== nOp || h.opLoc.length !== nOp) fail('op column length');
  const keys = h.keyLabels.length, values = h.valueCount, lists = listStart.length - 1;
  if (h.predicates === undefined) {
    // Key-value histories (almost all) keep the one tight loop over the four item kinds.
    bad = badOp(opKind, opKey, opValue, nOp, keys, values, lists);
    if (bad >= 0) fail(opKind[bad]! > OP_READ_LIST ? `opKind[${bad}]` : opKey[bad]! < 0 || opKey[bad]! >= keys ? `opKey[${bad}]` : `opValue[${bad}]`);
  } else {
    const what = badPredicateHistory(h, keys, values, lists);
    if (what !== null) fail(what);
  }
  for (const col of [h.txnStart, h.txnEnd, h.txnError]) if (col !== undefined && col.length !== h.txnCount) fail('optional txn column length');
  if (h.txnNode !== undefined || h.nodeLabels !== undefined) assertNodes(h, fail);
  const listElems = h.listElems;
  for (let i = 0; i < listElems.length; i++) {
    if (listElems[i]! < 0 || listElems[i]! >= values) fail(`listElems[${i}]`);
  }
}

/** txnNode and nodeLabels: both present, one entry per txn, each -1 or a node id. */
function assertNodes(h: History, fail: (what: string) => never): void {
  const { txnNode, nodeLabels } = h;
  if (txnNode === undefined || nodeLabels === undefined) return fail('txnNode without nodeLabels or the reverse');
  if (txnNode.length !== h.txnCount) fail('txnNode length');
  for (let t = 0; t < txnNode.length; t++) if (txnNode[t]! < -1 || txnNode[t]! >= nodeLabels.length) fail(`txnNode[${t}]`);
}

/** The first session whose txn range is reversed or holds a txn of another session, or -1. */
function badSessionRange(sessionTxnStart: Int32Array, txnSession: Int32Array, nSess: number): number {
  for (let s = 0; s < nSess; s++) {
    const a = sessionTxnStart[s]!, b = sessionTxnStart[s + 1]!;
    if (b < a) return s;
    for (let t = a; t < b; t++) if (txnSession[t] !== s) return s;
  }
  return -1;
}

/** The first txn whose op range is reversed or whose status is not one of the three, or -1. */
function badTxn(txnOpStart: Int32Array, txnStatus: Uint8Array, nTxn: number): number {
  for (let t = 0; t < nTxn; t++) if (txnOpStart[t + 1]! < txnOpStart[t]! || txnStatus[t]! > TXN_UNKNOWN) return t;
  return -1;
}

/**
 * What is wrong with a history with relations (issue 22), or null: the PredicateTable's shape,
 * and each op's kind, key (relation id for a predicate read) and value (predicate read id) in
 * range; inserts and deletes on relation keys (insert: a value, delete: INITIAL_VALUE); a
 * select's rows keys of its relation, each once, with values; a count >= 0 with no rows.
 */
function badPredicateHistory(h: History, keys: number, values: number, lists: number): string | null {
  const t = h.predicates!;
  const nRel = t.relationLabels.length, nPred = t.text.length;
  if (t.relStart.length !== nRel + 1 || t.relStart[0] !== 0 || t.relStart[nRel] !== t.relKeys.length) return 'predicates.relStart';
  if (t.keyRelation.length !== keys) return 'predicates.keyRelation length';
  for (let r = 0; r < nRel; r++) {
    for (let i = t.relStart[r]!; i < t.relStart[r + 1]!; i++) {
      const k = t.relKeys[i]!;
      if (k < 0 || k >= keys || t.keyRelation[k] !== r || (i > t.relStart[r]! && k <= t.relKeys[i - 1]!)) return `predicates.relKeys[${i}]`;
    }
  }
  let inRelations = 0;
  for (let k = 0; k < keys; k++) if (t.keyRelation[k]! >= 0) inRelations++;
  if (inRelations !== t.relKeys.length) return 'predicates.keyRelation (a key not in its relation)';
  if (t.parsed.length !== nPred || t.resultStart.length !== nPred + 1 || t.count.length !== nPred) return 'predicates read column length';
  if (t.resultStart[0] !== 0 || t.resultStart[nPred] !== t.resultKeys.length || t.resultValues.length !== t.resultKeys.length) return 'predicates.resultStart bounds';
  const stamp = new Int32Array(keys);
  const { opKind, opKey, opValue } = h;
  for (let op = 0; op < h.opCount; op++) {
    const kind = opKind[op]!, k = opKey[op]!, v = opValue[op]!;
    if (kind === OP_SELECT || kind === OP_COUNT) {
      if (k < 0 || k >= nRel) return `opKey[${op}] (relation id)`;
      if (v < 0 || v >= nPred) return `opValue[${op}] (predicate read id)`;
      const a = t.resultStart[v]!, b = t.resultStart[v + 1]!;
      if (b < a) return `predicates.resultStart[${v}]`;
      if (kind === OP_COUNT ? t.count[v]! < 0 || b > a : t.count[v] !== -1) return `predicates.count[${v}]`;
      for (let i = a; i < b; i++) {
        const rk = t.resultKeys[i]!, rv = t.resultValues[i]!;
        if (rk < 0 || rk >= keys || t.keyRelation[rk] !== k || stamp[rk] === v + 1) return `predicates.resultKeys[${i}]`;
        if (rv <= INITIAL_VALUE || rv >= values) return `predicates.resultValues[${i}]`;
        stamp[rk] = v + 1;
      }
      continue;
    }
    if (kind > OP_COUNT) return `opKind[${op}]`;
    if (k < 0 || k >= keys) return `opKey[${op}]`;
    if (v < 0 || v >= (kind === OP_READ_LIST ? lists : values)) return `opValue[${op}]`;
    if ((kind === OP_INSERT || kind === OP_DELETE) && t.keyRelation[k]! < 0) return `opKey[${op}] (insert/delete of a key in no relation)`;
    if (kind === OP_DELETE ? v !== INITIAL_VALUE : kind === OP_INSERT && v === INITIAL_VALUE) return `opValue[${op}]`;
  }
  return null;
}

/** The first op with a kind, key or value (list, for list reads) out of range, or -1. */
function badOp(opKind: Uint8Array, opKey: Int32Array, opValue: Int32Array, nOp: number, keys: number, values: number, lists: number): number {
  for (let op = 0; op < nOp; op++) {
    const kind = opKind[op]!, k = opKey[op]!, v = opValue[op]!;
    if (kind > OP_READ_LIST || k < 0 || k >= keys || v < 0 || v >= (kind === OP_READ_LIST ? lists : values)) return op;
  }
  return -1;
}
