// The validation of commit 0813a55, kept as the reference for test/validate/validate-differential.test.ts,
// with issue 23's re-reads applied (a register re-read of another value is one more external read, not INT)
// and issue 22's (a re-read of the same value is one more external read too).
/**
 * Validation: everything about a history that can be decided before any graph work.
 *
 * Takes: a History. Gives: `Validated`: which transactions take part in the check, every
 * external read resolved to the write it read (WR), every transaction's final write per key,
 * and the non-cycle anomalies (INT, G1a, G1b, garbage read, future read).
 * Throws: InputError 'unsupported' when written values are not unique per key (or a write
 * writes the initial value): the checker's read-from inference would be ambiguous; and when a
 * key is used both as a register and as a list.
 *
 * Invariants of the result:
 * - `included[t]` is 1 for committed txns and for unknown-outcome txns that some included txn
 *   read from (transitively); 0 otherwise. Aborted txns are never included. An unknown txn
 *   nobody read from is dropped: treating it as aborted is a legal outcome and the most
 *   permissive one, so dropping it never hides a violation that must exist.
 * - `reads` holds only external reads of included txns (the first read of a key before the
 *   txn's own write of it) that resolve to a final write of an included txn or to the initial
 *   state (writer INIT); every other external read produced an anomaly instead.
 * - `writes` holds, for each included txn and each key it writes, its final write of that key.
 */

import { checkDeadline, DEADLINE_CHECK_MASK } from '../../../src/util/deadline.ts';
import {
  INITIAL_VALUE,
  OP_APPEND,
  OP_READ_LIST,
  OP_WRITE,
  TXN_ABORTED,
  TXN_COMMITTED,
  TXN_UNKNOWN,
  opWhere,
  type History,
} from '../../../src/history/model.ts';
import { GrowableInt32 } from '../../../src/util/growable.ts';
import { INIT_TXN, type NonCycleAnomaly } from '../../../src/result/types.ts';
import { assertKeyKinds, noListFacts, resolveLists, type ListFacts } from '../../../src/validate/lists.ts';
import { WriterIndex } from './writer-index.ts';
import { txnLabelOf, valueLabelOf } from '../labels-compat.ts';

export { WriterIndex };

/** Columnar list of (txn, key, op[, writer]) tuples. */
export interface ReadTable {
  count: number;
  txn: Int32Array;
  key: Int32Array;
  op: Int32Array;
  /** The writer txn, or INIT_TXN for the initial state. */
  writer: Int32Array;
}

export interface WriteTable {
  count: number;
  txn: Int32Array;
  key: Int32Array;
  /** The txn's final write (or append) of the key. */
  op: Int32Array;
}

export interface Validated {
  history: History;
  included: Uint8Array;
  includedCount: number;
  reads: ReadTable;
  writes: WriteTable;
  /** List-append keys: the version order prefixes revealed by list reads. */
  lists: ListFacts;
  anomalies: NonCycleAnomaly[];
}

/** Bounds the anomalies collected, so a badly broken history yields a readable report. */
export const ANOMALIES_MAX_DEFAULT = 100;

/** `deadlineMs` (epoch ms): checked between phases and inside the read loop (TimeLimitError('validate')). */
export function validate(h: History, anomaliesMax = ANOMALIES_MAX_DEFAULT, deadlineMs = Number.POSITIVE_INFINITY): Validated {
  const hasLists = assertKeyKinds(h);
  const writerOf = WriterIndex.build(h);
  checkDeadline(deadlineMs, 'validate');
  const isFinal = markFinalWrites(h);
  const ext = collectExternalReads(h);
  checkDeadline(deadlineMs, 'validate');
  const included = decideIncluded(h, ext, writerOf);
  checkDeadline(deadlineMs, 'validate');
  const anomalies: NonCycleAnomaly[] = ext.intAnomalies.filter((a) => included[a.txn] === 1);
  const add = (a: NonCycleAnomaly) => {
    if (anomalies.length < anomaliesMax) anomalies.push(a);
  };

  // At most one resolved read per external read (register or list): sized once, trimmed at the end.
  const cap = ext.count;
  const rTxn = new Int32Array(cap), rKey = new Int32Array(cap), rOp = new Int32Array(cap), rWriter = new Int32Array(cap);
  let r = 0;
  const extTxn = ext.txn.view(), extOp = ext.op.view();
  for (let i = 0; i < ext.count; i++) {
    if ((i & DEADLINE_CHECK_MASK) === 0) checkDeadline(deadlineMs, 'validate');
    const t = extTxn[i]!;
    if (included[t] !== 1) continue;
    const op = extOp[i]!;
    if (h.opKind[op] === OP_READ_LIST) continue; // resolved by resolveLists
    const key = h.opKey[op]!;
    const writer = resolveRead(h, t, op, key, h.opValue[op]!, writerOf, isFinal, add);
    if (writer === null) continue;
    rTxn[r] = t; rKey[r] = key; rOp[r] = op; rWriter[r] = writer; r++;
  }
  // List reads come after the register reads (and their anomalies after theirs).
  // The current resolveLists, given the old index (same get()): lists are not what is compared.
  const lists = hasLists ? resolveLists(h, included, ext as never, writerOf as never, add) : noListFacts();
  if (r + lists.reads.count > cap) throw new Error('internal error: more resolved reads than external reads');
  rTxn.set(lists.reads.txn, r); rKey.set(lists.reads.key, r); rOp.set(lists.reads.op, r); rWriter.set(lists.reads.writer, r);
  r += lists.reads.count;

  checkDeadline(deadlineMs, 'validate');
  const writes = collectWrites(h, included, isFinal);
  let includedCount = 0;
  for (let t = 0; t < h.txnCount; t++) includedCount += included[t]!;
  return {
    history: h,
    included,
    includedCount,
    reads: { count: r, txn: rTxn.slice(0, r), key: rKey.slice(0, r), op: rOp.slice(0, r), writer: rWriter.slice(0, r) },
    writes,
    lists,
    anomalies,
  };
}

/** `isFinal[op]` = 1 iff op is its txn's last write/append of its key. */
function markFinalWrites(h: History): Uint8Array {
  const isFinal = new Uint8Array(h.opCount);
  const stamp = new Int32Array(h.keyLabels.length).fill(-1);
  for (let t = 0; t < h.txnCount; t++) {
    for (let op = h.txnOpStart[t + 1]! - 1; op >= h.txnOpStart[t]!; op--) {
      const kind = h.opKind[op];
      if (kind !== OP_WRITE && kind !== OP_APPEND) continue;
      const key = h.opKey[op]!;
      if (stamp[key] !== t) {
        stamp[key] = t;
        isFinal[op] = 1;
      }
    }
  }
  return isFinal;
}

export interface ExternalReads {
  count: number;
  txn: GrowableInt32;
  op: GrowableInt32;
  /** INT anomalies, attributed to txns (filtered by inclusion later). */
  intAnomalies: NonCycleAnomaly[];
  /** Per list read op: how many of the txn's own appends precede it (for INT on lists). */
}

/**
 * Walks each txn's ops in program order with a per-key state (stamped arrays, no per-txn
 * allocation): the first read of a key before the txn's own write is external; later reads
 * must agree with the txn's own state (INT).
 */
function collectExternalReads(h: History): ExternalReads {
  const nKeys = h.keyLabels.length;
  const stamp = new Int32Array(nKeys).fill(-1);
  const state = new Uint8Array(nKeys); // 1 = read, 2 = wrote, 3 = appended (list keys)
  const stateValue = new Int32Array(nKeys);
  const txn = new GrowableInt32(), opArr = new GrowableInt32();
  const intAnomalies: NonCycleAnomaly[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const key = h.opKey[op]!, value = h.opValue[op]!, kind = h.opKind[op]!;
      const fresh = stamp[key] !== t;
      if (fresh) { stamp[key] = t; state[key] = 0; }
      if (kind === OP_WRITE) { state[key] = 2; stateValue[key] = value; continue; }
      if (kind === OP_APPEND) { if (state[key] !== 3 && state[key] !== 1) state[key] = 3; continue; }
      if (kind === OP_READ_LIST) {
        // List reads are always recorded; lists.ts checks them against the txn's own appends.
        txn.push(t); opArr.push(op);
        continue;
      }
      if (state[key] === 0 || state[key] === 1) {
        state[key] = 1; stateValue[key] = value;
        txn.push(t); opArr.push(op);
      } else if (state[key] === 2) {
        if (stateValue[key] !== value) {
          intAnomalies.push({
            type: 'non-cycle', name: 'INT', txn: t, op, key, writer: -2,
            message: `${txnLabelOf(h, t)} read ${h.keyLabels[key]}=${valueLabelOf(h, value)} at ${opWhere(h, op)}, ` +
              `but its own last write of ${h.keyLabels[key]} was ${valueLabelOf(h, stateValue[key]!)}`,
          });
        }
      }
    }
  }
  return { count: txn.length, txn, op: opArr, intAnomalies };
}

/**
 * Committed txns are included; an unknown-outcome txn is included iff an included txn reads
 * one of its writes (then it must have committed). Worklist to a fixpoint.
 */
function decideIncluded(h: History, ext: ExternalReads, writerOf: WriterIndex): Uint8Array {
  const included = new Uint8Array(h.txnCount);
  const readStart = new Int32Array(h.txnCount + 1);
  for (let i = 0; i < ext.count; i++) readStart[ext.txn.get(i) + 1]!++;
  for (let t = 0; t < h.txnCount; t++) readStart[t + 1]! += readStart[t]!;
  // ext is filled in txn order, so reads of txn t are ext[readStart[t] .. readStart[t+1]-1].
  const work = new GrowableInt32();
  let unknown = 0;
  for (let t = 0; t < h.txnCount; t++) {
    if (h.txnStatus[t] === TXN_COMMITTED) { included[t] = 1; work.push(t); } else if (h.txnStatus[t] === TXN_UNKNOWN) unknown++;
  }
  // Only unknown-outcome txns can be pulled in: without any, the committed ones are the answer.
  if (unknown === 0) return included;
  const visitWriter = (key: number, value: number) => {
    if (value === INITIAL_VALUE) return;
    const w = writerOf.get(key, value);
    if (w === undefined) return;
    const wt = txnOfOp(h, w);
    if (included[wt] === 0 && h.txnStatus[wt] === TXN_UNKNOWN) { included[wt] = 1; work.push(wt); }
  };
  for (let i = 0; i < work.length; i++) {
    const t = work.get(i);
    for (let j = readStart[t]!; j < readStart[t + 1]!; j++) {
      const op = ext.op.get(j);
      const key = h.opKey[op]!;
      if (h.opKind[op] === OP_READ_LIST) {
        const l = h.opValue[op]!;
        for (let e = h.listStart[l]!; e < h.listStart[l + 1]!; e++) visitWriter(key, h.listElems[e]!);
      } else {
        visitWriter(key, h.opValue[op]!);
      }
    }
  }
  return included;
}

/** `opTxn[op]` per History, built on first use: the txn that owns each op. */
const OP_TXN = new WeakMap<History, Int32Array>();

/** The txn that owns op (O(1) after one O(ops) pass per History). */
export function txnOfOp(h: History, op: number): number {
  let opTxn = OP_TXN.get(h);
  if (opTxn === undefined) {
    opTxn = new Int32Array(h.opCount);
    for (let t = 0; t < h.txnCount; t++) opTxn.fill(t, h.txnOpStart[t]!, h.txnOpStart[t + 1]!);
    OP_TXN.set(h, opTxn);
  }
  return opTxn[op]!;
}

/** Resolves one external register read to its writer txn, or reports why it cannot be. */
export function resolveRead(
  h: History, t: number, op: number, key: number, value: number,
  writerOf: WriterIndex, isFinal: Uint8Array, add: (a: NonCycleAnomaly) => void,
): number | null {
  if (value === INITIAL_VALUE) return INIT_TXN;
  const w = writerOf.get(key, value);
  const wt = w === undefined ? -1 : txnOfOp(h, w);
  if (wt >= 0 && wt !== t && h.txnStatus[wt] !== TXN_ABORTED && isFinal[w!] === 1) return wt; // the common case
  // Built only when an anomaly is reported.
  const what = (): string => `${txnLabelOf(h, t)} read ${h.keyLabels[key]}=${valueLabelOf(h, value)} at ${opWhere(h, op)}`;
  if (w === undefined) {
    add({ type: 'non-cycle', name: 'garbage-read', txn: t, op, key, writer: -2, message: `${what()}, a value no transaction wrote` });
    return null;
  }
  if (wt === t) {
    add({ type: 'non-cycle', name: 'future-read', txn: t, op, key, writer: wt,
      message: `${what()}, a value it writes only later (${opWhere(h, w)})` });
    return null;
  }
  if (h.txnStatus[wt] === TXN_ABORTED) {
    add({ type: 'non-cycle', name: 'G1a', txn: t, op, key, writer: wt,
      message: `${what()}, written by ${txnLabelOf(h, wt)}, which aborted (aborted read)` });
    return null;
  }
  if (isFinal[w] !== 1) {
    add({ type: 'non-cycle', name: 'G1b', txn: t, op, key, writer: wt,
      message: `${what()}, an intermediate value: ${txnLabelOf(h, wt)} overwrote it before committing (intermediate read)` });
    return null;
  }
  return wt;
}

function collectWrites(h: History, included: Uint8Array, isFinal: Uint8Array): WriteTable {
  const txn = new GrowableInt32(), key = new GrowableInt32(), opArr = new GrowableInt32();
  for (let t = 0; t < h.txnCount; t++) {
    if (included[t] !== 1) continue;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      if (isFinal[op] === 1) { txn.push(t); key.push(h.opKey[op]!); opArr.push(op); }
    }
  }
  return { count: txn.length, txn: txn.toArray(), key: key.toArray(), op: opArr.toArray() };
}

