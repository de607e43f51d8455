/**
 * Descriptive statistics of a History, for `polysi stat`.
 *
 * Takes: a History. Gives: `HistoryStats`: sessions, transactions by outcome and by shape
 * (read-only / write-only / read-modify-write / empty), operations by kind, keys used (and how:
 * register or list), transaction sizes, and the hottest keys by number of operations; for a
 * history with relations (issue 22) its relations, inserts, deletes, selects and counts.
 * Invariant: a pure function of the History (no I/O, no clock): the same History always gives
 * the same numbers, ties between equally hot keys broken by key id (first seen first).
 */

import {
  OP_APPEND,
  OP_COUNT,
  OP_DELETE,
  OP_INSERT,
  OP_READ,
  OP_SELECT,
  OP_READ_LIST,
  OP_WRITE,
  TXN_ABORTED,
  TXN_COMMITTED,
  type History,
} from './model.ts';

export interface KeyHeat {
  /** The key as the user wrote it. */
  key: string;
  ops: number;
  /** OP_READ and OP_READ_LIST. */
  reads: number;
  /** OP_WRITE, OP_APPEND, OP_INSERT and OP_DELETE. */
  writes: number;
}

/** Relations and their operations (issue 22), for a history that declares relations. */
export interface PredicateStats {
  relations: number;
  /** Keys (rows) of all relations together. */
  relationKeys: number;
  inserts: number;
  deletes: number;
  /** Predicate reads `select(P)`, and the rows they returned together. */
  selects: number;
  rowsReturned: number;
  /** Predicate reads `count(P)`. */
  counts: number;
}

export interface HistoryStats {
  sessions: number;
  transactions: { total: number; committed: number; aborted: number; unknown: number };
  /**
   * By the operations a txn holds: reads only, writes only, both, none (appends, inserts and
   * deletes are writes; list reads, selects and counts are reads).
   */
  shapes: { readOnly: number; writeOnly: number; readModifyWrite: number; empty: number };
  operations: { total: number; read: number; write: number; append: number; readList: number };
  /** Elements in all list reads together (the size of list-append observations). */
  listElementsRead: number;
  /** Keys used by at least one operation; `registerKeys` + `listKeys` + `mixedKeys` = `keys`. */
  keys: { total: number; registerKeys: number; listKeys: number; mixedKeys: number };
  /** Distinct written (or appended) values. */
  writtenValues: number;
  opsPerTxn: { mean: number; max: number };
  txnsPerSession: { min: number; mean: number; max: number };
  /** Up to `top` keys with the most operations, hottest first (selects and counts are not a key's). */
  hottestKeys: KeyHeat[];
  /** Present when the history declares relations. */
  predicates?: PredicateStats;
}

export function historyStats(h: History, top = 10): HistoryStats {
  let committed = 0;
  let aborted = 0;
  let readOnly = 0;
  let writeOnly = 0;
  let rmw = 0;
  let empty = 0;
  let maxOps = 0;
  for (let t = 0; t < h.txnCount; t++) {
    const s = h.txnStatus[t];
    if (s === TXN_COMMITTED) committed++;
    else if (s === TXN_ABORTED) aborted++;
    let reads = 0;
    let writes = 0;
    const a = h.txnOpStart[t]!;
    const b = h.txnOpStart[t + 1]!;
    for (let op = a; op < b; op++) {
      const k = h.opKind[op];
      if (k === OP_READ || k === OP_READ_LIST || k === OP_SELECT || k === OP_COUNT) reads++;
      else writes++;
    }
    if (reads > 0 && writes > 0) rmw++;
    else if (reads > 0) readOnly++;
    else if (writes > 0) writeOnly++;
    else empty++;
    if (b - a > maxOps) maxOps = b - a;
  }

  const nKeys = h.keyLabels.length;
  const keyReads = new Int32Array(nKeys);
  const keyWrites = new Int32Array(nKeys);
  const keyKinds = new Uint8Array(nKeys); // bit 1: register ops, bit 2: list ops
  const written = new Uint8Array(h.valueCount);
  const byKind = [0, 0, 0, 0, 0, 0, 0, 0];
  let listElems = 0;
  for (let op = 0; op < h.opCount; op++) {
    const kind = h.opKind[op]!;
    const k = h.opKey[op]!;
    byKind[kind]!++;
    if (kind === OP_SELECT || kind === OP_COUNT) continue; // its opKey is a relation, not a key
    if (kind === OP_READ || kind === OP_READ_LIST) keyReads[k]!++;
    else {
      keyWrites[k]!++;
      // A delete "writes" the absent row, not a value.
      if (kind !== OP_DELETE) written[h.opValue[op]!] = 1;
    }
    keyKinds[k]! |= kind === OP_APPEND || kind === OP_READ_LIST ? 2 : 1;
    if (kind === OP_READ_LIST) {
      const l = h.opValue[op]!;
      listElems += h.listStart[l + 1]! - h.listStart[l]!;
    }
  }
  let registerKeys = 0;
  let listKeys = 0;
  let mixedKeys = 0;
  for (let k = 0; k < nKeys; k++) {
    if (keyKinds[k] === 1) registerKeys++;
    else if (keyKinds[k] === 2) listKeys++;
    else if (keyKinds[k] === 3) mixedKeys++;
  }
  let writtenValues = 0;
  for (let v = 0; v < written.length; v++) writtenValues += written[v]!;

  const used: number[] = [];
  for (let k = 0; k < nKeys; k++) if (keyKinds[k] !== 0) used.push(k);
  used.sort((x, y) => keyReads[y]! + keyWrites[y]! - (keyReads[x]! + keyWrites[x]!) || x - y);
  const hottestKeys = used.slice(0, Math.max(0, top)).map((k) => ({
    key: h.keyLabels[k]!,
    ops: keyReads[k]! + keyWrites[k]!,
    reads: keyReads[k]!,
    writes: keyWrites[k]!,
  }));

  let minTxns = h.sessionCount > 0 ? Infinity : 0;
  let maxTxns = 0;
  for (let s = 0; s < h.sessionCount; s++) {
    const n = h.sessionTxnStart[s + 1]! - h.sessionTxnStart[s]!;
    if (n < minTxns) minTxns = n;
    if (n > maxTxns) maxTxns = n;
  }

  return {
    sessions: h.sessionCount,
    transactions: { total: h.txnCount, committed, aborted, unknown: h.txnCount - committed - aborted },
    shapes: { readOnly, writeOnly, readModifyWrite: rmw, empty },
    operations: {
      total: h.opCount,
      read: byKind[OP_READ]!,
      write: byKind[OP_WRITE]!,
      append: byKind[OP_APPEND]!,
      readList: byKind[OP_READ_LIST]!,
    },
    listElementsRead: listElems,
    keys: { total: registerKeys + listKeys + mixedKeys, registerKeys, listKeys, mixedKeys },
    writtenValues,
    opsPerTxn: { mean: h.txnCount === 0 ? 0 : h.opCount / h.txnCount, max: maxOps },
    txnsPerSession: { min: minTxns, mean: h.sessionCount === 0 ? 0 : h.txnCount / h.sessionCount, max: maxTxns },
    hottestKeys,
    ...(h.predicates === undefined ? {} : { predicates: predicateStats(h, byKind) }),
  };
}

function predicateStats(h: History, byKind: readonly number[]): PredicateStats {
  const t = h.predicates!;
  return {
    relations: t.relationLabels.length,
    relationKeys: t.relKeys.length,
    inserts: byKind[OP_INSERT]!,
    deletes: byKind[OP_DELETE]!,
    selects: byKind[OP_SELECT]!,
    rowsReturned: t.resultKeys.length,
    counts: byKind[OP_COUNT]!,
  };
}
