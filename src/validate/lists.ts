/**
 * List-append keys: what list reads reveal (Elle §4; PolySI-List, Appendix F).
 *
 * Takes: a History with OP_APPEND / OP_READ_LIST ops, the included txns and the write index.
 * Gives: `ListFacts`: for each list key the known prefix of its version order as a chain of
 * writer txns (from the longest list read), and each list read's WR source (the writer of the
 * last element, or INIT for the empty list). Reports non-cycle anomalies: garbage read
 * (element nobody appended), G1a (element from an aborted txn), G1b (a read that shows only
 * part of a txn's appends), duplicate-elements, incompatible-order (two reads of a key that
 * are not prefixes of one another, or a read that shows one writer's appends out of the order it
 * made them), INT (a read that does not end with the txn's own appends).
 * `assertKeyKinds` rejects a key used both as a register and as a list (InputError 'unsupported').
 *
 * Invariant: every list read of an included txn either contributes to `reads` or produced an
 * anomaly. The chain is a prefix of every legal version order, so WW edges along it (and from
 * its end to every unobserved appender) are known edges, not constraints.
 */

import { GrowableInt32 } from '../util/growable.ts';
import { InputError } from '../history/errors.ts';
import { describeOp, OP_APPEND, OP_READ_LIST, TXN_ABORTED, opWhere, type History, valueLabel, txnLabel } from '../history/model.ts';
import { INIT_TXN, type NonCycleAnomaly } from '../result/types.ts';
import { txnOfOp, type ExternalReads, type ReadTable, type WriterIndex } from './validate.ts';

export interface ListFacts {
  reads: ReadTable;
  /** key -> known version-order chain of distinct writer txns (INIT excluded), for list keys. */
  chains: Map<number, Int32Array>;
}

export function resolveLists(
  h: History, included: Uint8Array, ext: ExternalReads, writerOf: WriterIndex,
  add: (a: NonCycleAnomaly) => void,
): ListFacts {
  const rTxn = new GrowableInt32(), rKey = new GrowableInt32(), rOp = new GrowableInt32(), rWriter = new GrowableInt32();
  const longest = new Map<number, { op: number; start: number; len: number }>();
  const split: { t: number; op: number; key: number; start: number; len: number }[] = [];
  const appendFacts = countAppends(h);
  // Per value and per txn, the last list read (index into ext) that saw it: duplicate elements
  // and split runs are found with one typed-array probe per element, no set per read.
  const stamps = { value: new Int32Array(h.valueCount).fill(-1), txn: new Int32Array(h.txnCount).fill(-1) };

  for (let i = 0; i < ext.count; i++) {
    const t = ext.txn.get(i);
    if (included[t] !== 1) continue;
    const op = ext.op.get(i);
    if (h.opKind[op] !== OP_READ_LIST) continue;
    const key = h.opKey[op]!;
    const l = h.opValue[op]!;
    const start = h.listStart[l]!, end = h.listStart[l + 1]!;
    // Built only when an anomaly is reported: this runs once per list read of the history.
    const what = (): string => `${txnLabel(h, t)} read ${h.keyLabels[key]}=[${listText(h, start, end)}] at ${opWhere(h, op)}`;

    // The txn's own appends before this read must be the list's suffix (INT).
    const own = ownAppendsBefore(h, t, op, key);
    let extEnd = end - own.length;
    let ownOk = extEnd >= start;
    for (let j = 0; ownOk && j < own.length; j++) ownOk = h.listElems[extEnd + j] === own[j];
    if (!ownOk) {
      add({ type: 'non-cycle', name: 'INT', txn: t, op, key, writer: -2,
        message: `${what()}, which does not end with its own earlier appends [${own.map((v) => valueLabel(h, v)).join(' ')}]` });
      continue;
    }
    // A re-read is one more external read with its own writer, judged by each level's definition
    // (a fuzzy read: docs/levels.md "Re-reads"), like any read; even one showing the same list
    // counts, as Biswas & Enea's RC forbids it after the txn observed another appender between.
    const usable = checkElements(h, t, op, key, start, extEnd, what, writerOf, { ...appendFacts, stamps, readId: i }, add);
    if (usable === 'split') split.push({ t, op, key, start, len: extEnd - start });
    if (usable !== true) continue;

    const lastWriter = extEnd === start ? INIT_TXN : txnOfOp(h, writerOf.get(key, h.listElems[extEnd - 1]!)!);
    rTxn.push(t); rKey.push(key); rOp.push(op); rWriter.push(lastWriter);

    const best = longest.get(key);
    const len = extEnd - start;
    if (best === undefined) { longest.set(key, { op, start, len }); continue; }
    const [short, long] = best.len <= len ? [best, { op, start, len }] : [{ op, start, len }, best];
    if (!sameElems(h, short.start, short.len, long.start, short.len)) {
      add({ type: 'non-cycle', name: 'incompatible-order', txn: t, op, key, writer: -2,
        message: `${what()}; ${txnLabel(h, txnOfOp(h, best.op))} read [${listText(h, best.start, best.start + best.len)}] ` +
          `at ${opWhere(h, best.op)}: neither is a prefix of the other, so no single order of appends explains both` });
      continue;
    }
    longest.set(key, long);
  }

  // A read that split a writer's appends (G1b) gives no chain of writers, but a list only grows
  // at its end: its elements must still be in the order every other read shows them.
  for (const r of split) {
    const best = longest.get(r.key);
    if (best === undefined) continue;
    const n = Math.min(best.len, r.len);
    if (sameElems(h, best.start, n, r.start, n)) continue;
    add({ type: 'non-cycle', name: 'incompatible-order', txn: r.t, op: r.op, key: r.key, writer: -2,
      message: `${txnLabel(h, r.t)} read ${h.keyLabels[r.key]}=[${listText(h, r.start, r.start + r.len)}] at ${opWhere(h, r.op)}; ` +
        `${txnLabel(h, txnOfOp(h, best.op))} read [${listText(h, best.start, best.start + best.len)}] at ${opWhere(h, best.op)}: ` +
        'neither is a prefix of the other, so no single order of appends explains both' });
  }

  const chains = new Map<number, Int32Array>();
  for (const [key, best] of longest) {
    const chain = new GrowableInt32();
    for (let e = best.start; e < best.start + best.len; e++) {
      const w = txnOfOp(h, writerOf.get(key, h.listElems[e]!)!);
      if (chain.length === 0 || chain.get(chain.length - 1) !== w) chain.push(w);
    }
    chains.set(key, chain.toArray());
  }
  // Keys that are appended to but never read still need an (empty) chain entry: they are list keys.
  for (let op = 0; op < h.opCount; op++) {
    if (h.opKind[op] === OP_APPEND && !chains.has(h.opKey[op]!)) chains.set(h.opKey[op]!, new Int32Array(0));
  }
  return {
    reads: { count: rTxn.length, txn: rTxn.toArray(), key: rKey.toArray(), op: rOp.toArray(), writer: rWriter.toArray() },
    chains,
  };
}

/**
 * Checks each element of an external list read; false (with anomalies added) if unusable.
 * The elements of one writer must form one run holding all its appends to the key (else G1b),
 * in the order it appended them (else incompatible-order: a txn's appends are applied in
 * program order, so no version order shows them otherwise).
 */
function checkElements(
  h: History, t: number, op: number, key: number, start: number, end: number, what: () => string,
  writerOf: WriterIndex, appends: AppendFacts & ReadStamps, add: (a: NonCycleAnomaly) => void,
): boolean | 'split' {
  const { stamps, readId } = appends;
  // Problems of closed runs wait for the end of the read: a writer whose elements turn up in two
  // runs is reported once, as split, rather than as two partial runs.
  const pending: NonCycleAnomaly[] = [];
  let runWriter = -3, runOp = -1, runLen = 0, runInOrder = true;
  const closeRun = (): void => {
    if (runWriter < 0) return;
    stamps.txn[runWriter] = readId;
    const total = appends.total[runOp]!;
    if (runLen !== total) {
      pending.push({ type: 'non-cycle', name: 'G1b', txn: t, op, key, writer: runWriter,
        message: `${what()}, which shows ${runLen} of the ${total} elements ${txnLabel(h, runWriter)} appended to ${h.keyLabels[key]} (intermediate read)` });
    } else if (!runInOrder) {
      const own = appendsOf(h, runWriter, key).map((v) => valueLabel(h, v)).join(' ');
      pending.push({ type: 'non-cycle', name: 'incompatible-order', txn: t, op, key, writer: runWriter,
        message: `${what()}, but ${txnLabel(h, runWriter)} appended [${own}] to ${h.keyLabels[key]} in that order: ` +
          'no order of appends puts its elements as this read shows them' });
    }
  };
  const fail = (a: NonCycleAnomaly): false => {
    for (const p of pending) add(p);
    add(a);
    return false;
  };
  for (let e = start; e < end; e++) {
    const v = h.listElems[e]!;
    if (stamps.value[v] === readId) {
      return fail({ type: 'non-cycle', name: 'duplicate-elements', txn: t, op, key, writer: -2,
        message: `${what()}, in which ${valueLabel(h, v)} appears more than once` });
    }
    stamps.value[v] = readId;
    const w = writerOf.get(key, v);
    if (w === undefined) {
      return fail({ type: 'non-cycle', name: 'garbage-read', txn: t, op, key, writer: -2,
        message: `${what()}, but no transaction appended ${valueLabel(h, v)} to ${h.keyLabels[key]}` });
    }
    const wt = txnOfOp(h, w);
    if (h.txnStatus[wt] === TXN_ABORTED) {
      return fail({ type: 'non-cycle', name: 'G1a', txn: t, op, key, writer: wt,
        message: `${what()}, but ${valueLabel(h, v)} was appended by ${txnLabel(h, wt)}, which aborted (aborted read)` });
    }
    if (wt === t) {
      return fail({ type: 'non-cycle', name: 'future-read', txn: t, op, key, writer: wt,
        message: `${what()}, which contains ${valueLabel(h, v)}, an element it appends only later` });
    }
    if (wt !== runWriter) {
      closeRun();
      if (stamps.txn[wt] === readId) {
        // Its appends are applied together, so another writer's element cannot sit among them:
        // the read saw a state in the middle of the writer's appends.
        add({ type: 'non-cycle', name: 'G1b', txn: t, op, key, writer: wt,
          message: `${what()}, in which the elements ${txnLabel(h, wt)} appended to ${h.keyLabels[key]} are split by ` +
            `another transaction's (intermediate read)` });
        return 'split';
      }
      runWriter = wt; runOp = w; runLen = 0; runInOrder = true;
    }
    if (appends.ordinal[w] !== runLen) runInOrder = false;
    runLen++;
  }
  closeRun();
  for (const p of pending) add(p);
  return pending.length === 0;
}

interface ReadStamps {
  stamps: { value: Int32Array; txn: Int32Array };
  /** Identifies the list read being checked, for `stamps`. */
  readId: number;
}

/** Per append op, its place among its txn's appends to the same key (typed arrays, no map). */
interface AppendFacts {
  /** `ordinal[op]`: how many appends of the same key its txn made before it. */
  ordinal: Int32Array;
  /** `total[op]`: how many appends of the same key its txn makes in all. */
  total: Int32Array;
}

function countAppends(h: History): AppendFacts {
  const ordinal = new Int32Array(h.opCount), total = new Int32Array(h.opCount);
  const stamp = new Int32Array(h.keyLabels.length).fill(-1), count = new Int32Array(h.keyLabels.length);
  for (let t = 0; t < h.txnCount; t++) {
    const a = h.txnOpStart[t]!, b = h.txnOpStart[t + 1]!;
    for (let op = a; op < b; op++) {
      if (h.opKind[op] !== OP_APPEND) continue;
      const k = h.opKey[op]!;
      if (stamp[k] !== t) { stamp[k] = t; count[k] = 0; }
      ordinal[op] = count[k]!++;
    }
    for (let op = a; op < b; op++) if (h.opKind[op] === OP_APPEND) total[op] = count[h.opKey[op]!]!;
  }
  return { ordinal, total };
}

/** The values txn t appends to key, in program order (for messages). */
function appendsOf(h: History, t: number, key: number): number[] {
  return ownAppendsBefore(h, t, h.txnOpStart[t + 1]!, key);
}

/**
 * A key is a register (writes, single-value reads) or a list (appends, list reads), never both:
 * reads are resolved by value, and a register read of a list (or the reverse) would be checked
 * as something the user did not mean. Throws InputError 'unsupported' naming one operation of
 * each kind; aborted and unknown txns count too, since the mix is in the input either way.
 */
export function assertKeyKinds(h: History): boolean {
  // Register-only histories (the common case) pay two native scans of the kind column (a loop
  // here ran mostly in the interpreter: once per check, cold).
  const lists = h.opKind.indexOf(OP_APPEND) >= 0 || h.opKind.indexOf(OP_READ_LIST) >= 0;
  if (!lists) return false;
  const firstRegister = new Int32Array(h.keyLabels.length).fill(-1);
  const firstList = new Int32Array(h.keyLabels.length).fill(-1);
  for (let op = 0; op < h.opCount; op++) {
    const key = h.opKey[op]!;
    const list = h.opKind[op] === OP_APPEND || h.opKind[op] === OP_READ_LIST;
    const mine = list ? firstList : firstRegister, other = list ? firstRegister : firstList;
    if (mine[key] === -1) mine[key] = op;
    const o = other[key]!;
    if (o === -1) continue;
    throw new InputError('unsupported', h.source, h.locUnit, h.opLoc[op]!,
      `key ${h.keyLabels[key]} is used both as a register and as a list: ${describeOp(h, o)} at ${opWhere(h, o)} ` +
      `and ${describeOp(h, op)} at ${opWhere(h, op)}; the checker needs each key to be one or the other ` +
      '(writes and single-value reads, or appends and list reads; an empty list reads as [])');
  }
  return true;
}

/** The ListFacts of a history without list operations: nothing to resolve. */
export function noListFacts(): ListFacts {
  const none = new Int32Array(0);
  return { reads: { count: 0, txn: none, key: none, op: none, writer: none }, chains: new Map() };
}

function ownAppendsBefore(h: History, t: number, op: number, key: number): number[] {
  const own: number[] = [];
  for (let o = h.txnOpStart[t]!; o < op; o++) {
    if (h.opKind[o] === OP_APPEND && h.opKey[o] === key) own.push(h.opValue[o]!);
  }
  return own;
}

function sameElems(h: History, a: number, alen: number, b: number, blen: number): boolean {
  if (alen !== blen) return false;
  for (let i = 0; i < alen; i++) if (h.listElems[a + i] !== h.listElems[b + i]) return false;
  return true;
}

function listText(h: History, start: number, end: number): string {
  const parts: string[] = [];
  for (let e = start; e < end && parts.length < 12; e++) parts.push(valueLabel(h, h.listElems[e]!));
  if (end - start > 12) parts.push(`... (${end - start} elements)`);
  return parts.join(' ');
}
