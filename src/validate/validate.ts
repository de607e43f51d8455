/**
 * Validation: everything about a history that can be decided before any graph work.
 *
 * Takes: a History. Gives: `Validated`: which transactions take part in the check, every
 * external read resolved to the write it read (WR), every transaction's final write per key,
 * and the non-cycle anomalies (INT, G1a, G1b, garbage read, future read).
 * Throws: InputError 'unsupported' when written values are not unique per key (or a write
 * writes the initial value): the checker's read-from inference would be ambiguous; and when a
 * key is used both as a register and as a list. Predicate reads, inserts and deletes never reach
 * it: the checker lowers them to reads and writes first (predicate-lower.ts, check/predicates.ts).
 *
 * Invariants of the result:
 * - `included[t]` is 1 for committed txns and for unknown-outcome txns that some included txn
 *   read from (transitively); 0 otherwise. Aborted txns are never included. An unknown txn
 *   nobody read from is dropped: treating it as aborted is a legal outcome and the most
 *   permissive one, so dropping it never hides a violation that must exist.
 * - `reads` holds only external reads of included txns (every read of a key before the txn's own
 *   write of it, a re-read of the same version included: read committed judges it by what the
 *   txn observed in between) that resolve to a final write of an included txn or to the initial
 *   state (writer INIT); every other external read produced an anomaly instead.
 * - `writes` holds, for each included txn and each key it writes, its final write of that key.
 */

import { checkDeadline, DEADLINE_CHECK_MASK } from '../util/deadline.ts';
import {
  INITIAL_VALUE,
  OP_APPEND,
  OP_READ_LIST,
  OP_WRITE,
  opWhere,
  TXN_ABORTED,
  TXN_COMMITTED,
  TXN_UNKNOWN,
  txnLabel,
  valueLabel,
  type History,
} from '../history/model.ts';
import { GrowableInt32 } from '../util/growable.ts';
import { INIT_TXN, type NonCycleAnomaly } from '../result/types.ts';
import { assertKeyKinds, noListFacts, resolveLists, type ListFacts } from './lists.ts';
import { WriterIndex } from './writer-index.ts';

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
  const isFinal = new Uint8Array(h.opCount);
  const ext = collectExternalReads(h, isFinal);
  checkDeadline(deadlineMs, 'validate');
  const included = decideIncluded(h, ext, writerOf);
  checkDeadline(deadlineMs, 'validate');
  const anomalies: NonCycleAnomaly[] = ext.intAnomalies.filter((a) => included[a.txn] === 1);
  // The bound never hides a class (issue 23): past it, the first anomaly of each new name is
  // still kept, so 100 aborted reads cannot hide an intermediate read.
  const names = new Set(anomalies.map((a) => a.name));
  const add = (a: NonCycleAnomaly) => {
    if (anomalies.length < anomaliesMax || !names.has(a.name)) { anomalies.push(a); names.add(a.name); }
  };

  // At most one resolved read per external read (register or list): sized once, trimmed at the end.
  const cap = ext.count;
  const rTxn = new Int32Array(cap), rKey = new Int32Array(cap), rOp = new Int32Array(cap), rWriter = new Int32Array(cap);
  const out: ResolvedReads = { txn: rTxn, key: rKey, op: rOp, writer: rWriter };
  let r = resolveRegisterReads(h, ext, included, writerOf, isFinal, add, deadlineMs, out);
  // List reads come after the register reads (and their anomalies after theirs).
  const lists = hasLists ? resolveLists(h, included, ext, writerOf, add) : noListFacts();
  if (r + lists.reads.count > cap) throw new Error('internal error: more resolved reads than external reads');
  rTxn.set(lists.reads.txn, r); rKey.set(lists.reads.key, r); rOp.set(lists.reads.op, r); rWriter.set(lists.reads.writer, r);
  r += lists.reads.count;

  checkDeadline(deadlineMs, 'validate');
  const writes = collectWrites(h, included, isFinal, ext.finalCount);
  const includedCount = countOnes(included);
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

/** How many 1s `a` holds (a loop of its own: validate() would be compiled whole for it). */
function countOnes(a: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) n += a[i]!;
  return n;
}

/** Where resolved reads go (sized for every external read). */
interface ResolvedReads { txn: Int32Array; key: Int32Array; op: Int32Array; writer: Int32Array }

/**
 * Resolves the included txns' external register reads into `out` from index 0, in read order;
 * returns how many. Anomalies go to `add`. A function of its own: the loop runs once per check,
 * and an on-stack replacement compiles the whole function that holds it.
 */
function resolveRegisterReads(
  h: History, ext: ExternalReads, included: Uint8Array, writerOf: WriterIndex, isFinal: Uint8Array,
  add: (a: NonCycleAnomaly) => void, deadlineMs: number, out: ResolvedReads,
): number {
  let r = 0;
  const rTxn = out.txn, rKey = out.key, rOp = out.op, rWriter = out.writer;
  const extTxn = ext.txn.view(), extOp = ext.op.view();
  // With few values written once (dbcop: fig8 30 %), the table would answer few reads and cost a
  // pass over the ops: not built (bound 0: no probe; every read takes the inline path below).
  const fast = writerOf.mostlySole ? soleFinalWriters(h, writerOf, isFinal) : NO_SOLE, bound = writerOf.mostlySole ? writerOf.valueBound : 0;
  const opKind = h.opKind, opKey = h.opKey, opValue = h.opValue, txnStatus = h.txnStatus;
  let opTxn: Int32Array | null = null;
  checkDeadline(deadlineMs, 'validate');
  for (let i = 0; i < ext.count; i++) {
    if ((i & DEADLINE_CHECK_MASK) === 0) checkDeadline(deadlineMs, 'validate');
    const t = extTxn[i]!;
    if (included[t] !== 1) continue;
    const op = extOp[i]!;
    if (opKind[op] === OP_READ_LIST) continue; // resolved by resolveLists
    const key = opKey[op]!, value = opValue[op]!;
    // The common case in one probe (see soleFinalWriters); resolveRead decides the rest.
    let writer: number | null = value < bound ? fast[2 * value + 1]! : -1;
    if (writer < 0 || fast[2 * value] !== key || writer === t) {
      // Values written to several keys (dbcop's histories write a txn's value to each of its
      // keys: fig8 30 % misses the probe on all of its 23,882 reads): the common case inline,
      // resolveRead only for the initial value and anomalies.
      writer = -1;
      if (value !== INITIAL_VALUE) {
        const w = writerOf.get(key, value);
        if (w !== undefined) {
          opTxn ??= opTxnIndex(h);
          const wt = opTxn[w]!;
          if (wt !== t && txnStatus[wt] !== TXN_ABORTED && isFinal[w] === 1) writer = wt;
        }
      }
      // A read of the initial value resolves to INIT_TXN (-1, as writer is here) without the
      // call: a call met only on a rare path after the loop was compiled has no type feedback
      // and would throw the compiled loop away (fig8 30 %: its first such read did).
      if (writer === -1 && value !== INITIAL_VALUE) writer = resolveRead(h, t, op, key, value, writerOf, isFinal, add);
    }
    if (writer === null) continue;
    rTxn[r] = t; rKey[r] = key; rOp[r] = op; rWriter[r] = writer; r++;
  }
  return r;
}

const NO_SOLE = new Int32Array(0);

/**
 * Per value id v, `[2v]` = a key and `[2v+1]` = a txn t such that a read of v from that key by
 * any txn other than t resolves to t without an anomaly: v's only write (to any key) is t's final
 * write of the key and t did not abort. -1 in both otherwise, and for the initial value: such
 * reads go through resolveRead. Key and txn side by side: one cache line per read. Values at or
 * above `writerOf.valueBound` were never written: not in the table.
 */
function soleFinalWriters(h: History, writerOf: WriterIndex, isFinal: Uint8Array): Int32Array {
  const fast = new Int32Array(2 * writerOf.valueBound).fill(-1);
  for (let t = 0; t < h.txnCount; t++) {
    if (h.txnStatus[t] === TXN_ABORTED) continue;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      if (isFinal[op] !== 1) continue; // only writes and appends are final
      const v = h.opValue[op]!;
      if (writerOf.soleWriter(v) !== op) continue;
      fast[2 * v] = h.opKey[op]!;
      fast[2 * v + 1] = t;
    }
  }
  return fast;
}

export interface ExternalReads {
  count: number;
  /** Writes and appends that are their txn's last of their key (all txns, included or not). */
  finalCount: number;
  txn: GrowableInt32;
  op: GrowableInt32;
  /** INT anomalies, attributed to txns (filtered by inclusion later). */
  intAnomalies: NonCycleAnomaly[];
  /** Per list read op: how many of the txn's own appends precede it (for INT on lists). */
}

/**
 * Walks each txn's ops in program order with a per-key state (stamped arrays, no per-txn
 * allocation): the first read of a key before the txn's own write is external, and so is each
 * later read (before that write) that returns a different value than the read before it; reads
 * after the txn's own write must return that write (INT). Marks in `isFinal` (all 0 on entry) each txn's last
 * write or append of each key it writes: one pass over the ops for both (a pass costs fig8 30 %
 * a few ms in a fresh process, most of it before V8 compiles the loop), and the external reads
 * written into their columns directly (no push call per read).
 */
function collectExternalReads(h: History, isFinal: Uint8Array): ExternalReads {
  const nKeys = h.keyLabels.length;
  const stamp = new Int32Array(nKeys).fill(-1);
  const state = new Uint8Array(nKeys); // 1 = read, 2 = wrote, 3 = appended (list keys)
  const stateValue = new Int32Array(nKeys);
  /** The txn's latest write or append of the key so far, -1 if none (valid while stamped). */
  const lastWrite = new Int32Array(nKeys);
  const txn = new GrowableInt32(), opArr = new GrowableInt32();
  const extTxn = txn.spare(h.opCount), extOp = opArr.spare(h.opCount);
  const opKey = h.opKey, opValue = h.opValue, opKind = h.opKind, txnOpStart = h.txnOpStart;
  const intAnomalies: NonCycleAnomaly[] = [];
  let n = 0, finalCount = 0;
  for (let t = 0; t < h.txnCount; t++) {
    const o1 = txnOpStart[t + 1]!;
    for (let op = txnOpStart[t]!; op < o1; op++) {
      const key = opKey[op]!, value = opValue[op]!, kind = opKind[op]!;
      if (stamp[key] !== t) { stamp[key] = t; state[key] = 0; lastWrite[key] = -1; }
      if (kind === OP_WRITE || kind === OP_APPEND) {
        // Unmarks the txn's earlier write of the key, if any, without a branch that only a
        // txn writing a key twice takes (code that never ran would deoptimise the loop).
        const lw = lastWrite[key]!;
        isFinal[lw >= 0 ? lw : op] = 0;
        isFinal[op] = 1;
        lastWrite[key] = op;
        finalCount += lw >= 0 ? 0 : 1;
        if (kind === OP_WRITE) { state[key] = 2; stateValue[key] = value; } else if (state[key] !== 3 && state[key] !== 1) state[key] = 3;
        continue;
      }
      if (kind === OP_READ_LIST) {
        // List reads are always recorded; lists.ts checks them against the txn's own appends.
        extTxn[n] = t; extOp[n] = op; n++;
        continue;
      }
      // Every read before the txn's own write is external, a re-read too, whatever it returns
      // (one more external read with its own writer, judged by each level's definition,
      // docs/levels.md "Re-reads"): Biswas & Enea's RC forbids even a re-read of the same version
      // after the txn observed a newer writer of the key in between. Only a read that disagrees
      // with the txn's own earlier write is INT.
      if (state[key] === 0 || state[key] === 1) {
        state[key] = 1; stateValue[key] = value;
        extTxn[n] = t; extOp[n] = op; n++;
      } else if (state[key] === 2 && stateValue[key] !== value) {
        intAnomalies.push(intAnomaly(h, t, op, key, value, stateValue[key]!));
      }
    }
  }
  txn.length = n;
  opArr.length = n;
  return { count: n, finalCount, txn, op: opArr, intAnomalies };
}

/** INT: txn t read `value` of key at op, but its own last write of the key was `had`. */
function intAnomaly(h: History, t: number, op: number, key: number, value: number, had: number): NonCycleAnomaly {
  return {
    type: 'non-cycle', name: 'INT', txn: t, op, key, writer: -2,
    message: `${txnLabel(h, t)} read ${h.keyLabels[key]}=${valueLabel(h, value)} at ${opWhere(h, op)}, ` +
      `but its own last write of ${h.keyLabels[key]} was ${valueLabel(h, had)}`,
  };
}

/**
 * Committed txns are included; an unknown-outcome txn is included iff an included txn reads
 * one of its writes (then it must have committed). Worklist to a fixpoint.
 */
function decideIncluded(h: History, ext: ExternalReads, writerOf: WriterIndex): Uint8Array {
  const included = new Uint8Array(h.txnCount);
  const txnStatus = h.txnStatus;
  let unknown = 0;
  for (let t = 0; t < h.txnCount; t++) {
    const status = txnStatus[t];
    included[t] = status === TXN_COMMITTED ? 1 : 0;
    unknown += status === TXN_UNKNOWN ? 1 : 0;
  }
  // Only unknown-outcome txns can be pulled in: without any, the committed ones are the answer.
  if (unknown === 0) return included;
  const readStart = new Int32Array(h.txnCount + 1);
  for (let i = 0; i < ext.count; i++) readStart[ext.txn.get(i) + 1]!++;
  for (let t = 0; t < h.txnCount; t++) readStart[t + 1]! += readStart[t]!;
  // ext is filled in txn order, so reads of txn t are ext[readStart[t] .. readStart[t+1]-1].
  const work = new GrowableInt32();
  for (let t = 0; t < h.txnCount; t++) if (included[t] === 1) work.push(t);
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
  return opTxnIndex(h)[op]!;
}

/** `opTxn` of `h` (see OP_TXN), built on first use. */
function opTxnIndex(h: History): Int32Array {
  let opTxn = OP_TXN.get(h);
  if (opTxn === undefined) {
    opTxn = new Int32Array(h.opCount);
    for (let t = 0; t < h.txnCount; t++) opTxn.fill(t, h.txnOpStart[t]!, h.txnOpStart[t + 1]!);
    OP_TXN.set(h, opTxn);
  }
  return opTxn;
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
  const what = (): string => `${txnLabel(h, t)} read ${h.keyLabels[key]}=${valueLabel(h, value)} at ${opWhere(h, op)}`;
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
      message: `${what()}, written by ${txnLabel(h, wt)}, which aborted (aborted read)` });
    return null;
  }
  if (isFinal[w] !== 1) {
    add({ type: 'non-cycle', name: 'G1b', txn: t, op, key, writer: wt,
      message: `${what()}, an intermediate value: ${txnLabel(h, wt)} overwrote it before committing (intermediate read)` });
    return null;
  }
  return wt;
}

/**
 * The final writes of included txns, in txn and program order. Written into arrays sized by the
 * final writes of all txns (`finalCount`, counted while marking them): no push call per write and
 * no counting pass; trimmed (a copy) only when some txn is not included.
 */
function collectWrites(h: History, included: Uint8Array, isFinal: Uint8Array, finalCount: number): WriteTable {
  let txn = new Int32Array(finalCount), key = new Int32Array(finalCount), opArr = new Int32Array(finalCount);
  const count = fillFinalWrites(h.txnOpStart, h.txnCount, h.opKey, included, isFinal, txn, key, opArr);
  if (count > finalCount) throw new Error(`internal error: ${count} final writes, more than the ${finalCount} marked`);
  if (count < finalCount) { txn = txn.slice(0, count); key = key.slice(0, count); opArr = opArr.slice(0, count); }
  return { count, txn, key, op: opArr };
}

/** Writes the final writes of included txns into txn / key / opArr; returns how many. */
function fillFinalWrites(
  txnOpStart: Int32Array, txnCount: number, opKey: Int32Array, included: Uint8Array, isFinal: Uint8Array, txn: Int32Array, key: Int32Array, opArr: Int32Array,
): number {
  let i = 0;
  for (let t = 0; t < txnCount; t++) {
    if (included[t] !== 1) continue;
    for (let op = txnOpStart[t]!; op < txnOpStart[t + 1]!; op++) {
      if (isFinal[op] === 1) { txn[i] = t; key[i] = opKey[op]!; opArr[i] = op; i++; }
    }
  }
  return i;
}

