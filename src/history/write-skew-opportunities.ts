/**
 * Opportunities for a write skew in a recorded history (G2-item's two-transaction shape, Adya;
 * Berenson et al.'s A5B): how often two transactions that each read what the other writes, and
 * write disjoint keys, ran at the same time, and what the database made of it (docs/workloads.md,
 * "Opportunities").
 *
 * Takes: a History with transaction times (`txnStart` / `txnEnd`). Gives:
 * `WriteSkewOpportunities`, or null without times.
 * Definitions. R(T): the keys T reads (a register read or a list read); W(T): the keys T writes
 * or appends to. An opportunity: an unordered pair {A, B} of transactions whose [start, end]
 * intervals overlap, with W(A) ∩ W(B) empty (a common written key is a lost update's or a write
 * conflict's shape instead), R(A) ∩ W(B) non-empty and R(B) ∩ W(A) non-empty. Each pair counts
 * once, however many keys it shares. Under serializability one of the two must come first, and
 * the second then reads the first's write: if both commit, one of them waited (blocked) or they
 * did not both miss each other. A *missed* B's write of y when A's first read of y returned a
 * version older than B's write:
 * - a list read without B's element (a list read is a prefix of the list's version order);
 * - a register read of the initial value, or of the very version B read of y before writing it
 *   (the version B's write replaced), or of a value whose writer ended before B started (a version
 *   committed before B began; other versions cannot be placed from the file alone).
 * A *saw* B's write when it read it (the register value B wrote last, a list holding B's element).
 * Outcome (after `tallyFailed`: aborted, unknown): `allowed` when both committed and each missed
 * the other's write of some key (a cycle A -RW-> B -RW-> A: G2-item, a write skew happened);
 * else `blocked` when the one that ended later (either, when both ended at once) saw the other's
 * write of some key; else `other`.
 * Cost: per key, a sweep over its writers and readers sorted by start (each pair of overlapping
 * writer and reader of the key is looked at once, O(|R(A)| + |W(A)| + |R(B)| + |W(B)|) each, with
 * mark arrays instead of sets); the pairs looked at are bounded by the transactions overlapping
 * each one (the sessions), never all pairs. Plus one sort of the transactions by start.
 */

import { INITIAL_VALUE, OP_APPEND, OP_READ, OP_READ_LIST, OP_WRITE, type History } from './model.ts';
import { emptyOpportunities, tallyFailed, type PairOpportunities } from './opportunity-outcome.ts';

export type WriteSkewOpportunities = PairOpportunities;

/** Per transaction, its reads and writes by key (CSR over transactions, keys in first-op order). */
interface Access {
  /** Reads of txn t: entries rStart[t] .. rStart[t+1]-1; rKey the key, rOp its first read of it. */
  rStart: Int32Array; rKey: Int32Array; rOp: Int32Array;
  /** rBefore[i] = 1 when that read came before the txn's first write of the key. */
  rBefore: Uint8Array;
  /** Writes of txn t: wStart[t] .. wStart[t+1]-1; wOp its last write or append of the key. */
  wStart: Int32Array; wKey: Int32Array; wOp: Int32Array;
}

function accessOf(h: History, timed: (t: number) => boolean): Access {
  const n = h.txnCount, keyCount = h.keyLabels.length;
  const rStart = new Int32Array(n + 1), wStart = new Int32Array(n + 1);
  const rKey: number[] = [], rOp: number[] = [], rBefore: number[] = [], wKey: number[] = [], wOp: number[] = [];
  // seenR[k] / seenW[k] = t + 1 when txn t has read / written k; posW[k]: its entry in wOp.
  const seenR = new Int32Array(keyCount), seenW = new Int32Array(keyCount), posW = new Int32Array(keyCount);
  for (let t = 0; t < n; t++) {
    rStart[t] = rKey.length;
    wStart[t] = wKey.length;
    if (!timed(t)) continue;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = h.opKey[op]!, kind = h.opKind[op]!;
      if (kind === OP_READ || kind === OP_READ_LIST) {
        if (seenR[k] === t + 1) continue;
        seenR[k] = t + 1;
        rKey.push(k); rOp.push(op); rBefore.push(seenW[k] === t + 1 ? 0 : 1);
      } else if (kind === OP_WRITE || kind === OP_APPEND) {
        if (seenW[k] === t + 1) { wOp[posW[k]!] = op; continue; }
        seenW[k] = t + 1;
        posW[k] = wKey.length;
        wKey.push(k); wOp.push(op);
      }
    }
  }
  rStart[n] = rKey.length;
  wStart[n] = wKey.length;
  return {
    rStart, rKey: Int32Array.from(rKey), rOp: Int32Array.from(rOp), rBefore: Uint8Array.from(rBefore),
    wStart, wKey: Int32Array.from(wKey), wOp: Int32Array.from(wOp),
  };
}

/**
 * CSR over keys of transactions, each key's in start order: entries `at[k] .. at[k+1]-1` of
 * `txns`, with their start and end times beside them (`ts`, `te`) so that the sweep reads
 * memory in order instead of jumping through the per-transaction columns.
 */
interface KeyLists { at: Int32Array; txns: Int32Array; ts: Float64Array; te: Float64Array }

function byKey(h: History, order: Int32Array, start: Int32Array, keys: Int32Array, keyCount: number): KeyLists {
  const at = new Int32Array(keyCount + 1);
  for (let i = 0; i < keys.length; i++) at[keys[i]! + 1]!++;
  for (let k = 0; k < keyCount; k++) at[k + 1]! += at[k]!;
  const fill = at.slice(0, keyCount), txns = new Int32Array(keys.length);
  const ts = new Float64Array(keys.length), te = new Float64Array(keys.length);
  for (const t of order) {
    const s = h.txnStart![t]!, e = h.txnEnd![t]!;
    for (let i = start[t]!; i < start[t + 1]!; i++) {
      const at = fill[keys[i]!]!++;
      txns[at] = t; ts[at] = s; te[at] = e;
    }
  }
  return { at, txns, ts, te };
}

/** The entries (indices into one KeyLists) of transactions still running; a growable stack. */
class Running {
  items = new Int32Array(64);
  n = 0;

  push(i: number): void {
    if (this.n === this.items.length) {
      const grown = new Int32Array(2 * this.n);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.n++] = i;
  }

  /** Keeps the entries that end at or after time s. */
  keepRunningAt(l: KeyLists, s: number): void {
    let j = 0;
    for (let i = 0; i < this.n; i++) if (l.te[this.items[i]!]! >= s) this.items[j++] = this.items[i]!;
    this.n = j;
  }
}

/** The transactions with both times, by start (ties by index). */
function byStart(h: History, timed: (t: number) => boolean): Int32Array {
  const start = h.txnStart!;
  const ids: number[] = [];
  for (let t = 0; t < h.txnCount; t++) if (timed(t)) ids.push(t);
  // A recording lists transactions as they end, nearly in start order: the merge sort is near linear.
  ids.sort((a, b) => start[a]! - start[b]! || a - b);
  return Int32Array.from(ids);
}

export function writeSkewOpportunities(h: History): WriteSkewOpportunities | null {
  const start = h.txnStart, end = h.txnEnd;
  if (start === undefined || end === undefined) return null;
  const timed = (t: number) => !Number.isNaN(start[t]!) && !Number.isNaN(end[t]!);
  const acc = accessOf(h, timed);
  const keyCount = h.keyLabels.length;
  const order = byStart(h, timed);
  const W = byKey(h, order, acc.wStart, acc.wKey, keyCount);
  const R = byKey(h, order, acc.rStart, acc.rKey, keyCount);
  const pair = new PairJudge(h, acc);
  const out = emptyOpportunities();
  const activeW = new Running(), activeR = new Running();
  for (let k = 0; k < keyCount; k++) {
    // Merge the key's writers and readers by start; a pair is looked at when its later-starting
    // member arrives and the other is still running (ends no earlier than this start).
    let wi = W.at[k]!, ri = R.at[k]!;
    const wEnd = W.at[k + 1]!, rEnd = R.at[k + 1]!;
    activeW.n = 0;
    activeR.n = 0;
    while (wi < wEnd || ri < rEnd) {
      const takeW = ri >= rEnd || (wi < wEnd && W.ts[wi]! <= R.ts[ri]!);
      const s = takeW ? W.ts[wi]! : R.ts[ri]!;
      activeW.keepRunningAt(W, s);
      activeR.keepRunningAt(R, s);
      if (takeW) {
        const t = W.txns[wi]!;
        for (let i = 0; i < activeR.n; i++) {
          const b = R.txns[activeR.items[i]!]!;
          if (b !== t) pair.judge(t, b, k, out);
        }
        activeW.push(wi++);
      } else {
        const t = R.txns[ri]!;
        for (let i = 0; i < activeW.n; i++) {
          const a = W.txns[activeW.items[i]!]!;
          if (a !== t) pair.judge(a, t, k, out);
        }
        activeR.push(ri++);
      }
    }
  }
  return out;
}

/** Decides one candidate pair; mark arrays (stamped per pair) stand in for per-pair key sets. */
class PairJudge {
  private stamp = 0;
  /** markWA[k] = stamp when A writes k (opWA[k]: A's last write of it); likewise for B and reads. */
  private readonly markWA: Int32Array; private readonly opWA: Int32Array;
  private readonly markWB: Int32Array; private readonly opWB: Int32Array;
  private readonly markRA: Int32Array; private readonly opRA: Int32Array;
  private readonly markRB: Int32Array; private readonly opRB: Int32Array;
  /** writerOf[v]: the txn that wrote register value v, -1 none, -2 written more than once. */
  private readonly writerOf: Int32Array; private readonly writerKey: Int32Array;

  constructor(private readonly h: History, private readonly acc: Access) {
    const kc = h.keyLabels.length;
    [this.markWA, this.opWA, this.markWB, this.opWB, this.markRA, this.opRA, this.markRB, this.opRB] =
      Array.from({ length: 8 }, () => new Int32Array(kc));
    this.writerOf = new Int32Array(h.valueCount).fill(-1);
    this.writerKey = new Int32Array(h.valueCount);
    for (let t = 0; t < h.txnCount; t++) {
      for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
        if (h.opKind[op] !== OP_WRITE) continue;
        const v = h.opValue[op]!;
        this.writerOf[v] = this.writerOf[v] === -1 ? t : -2;
        this.writerKey[v] = h.opKey[op]!;
      }
    }
  }

  private mark(t: number, markW: Int32Array, opW: Int32Array, markR: Int32Array, opR: Int32Array): void {
    const a = this.acc;
    for (let i = a.wStart[t]!; i < a.wStart[t + 1]!; i++) { markW[a.wKey[i]!] = this.stamp; opW[a.wKey[i]!] = a.wOp[i]!; }
    // opR: the read before the txn's own write of the key, -1 when it wrote first.
    for (let i = a.rStart[t]!; i < a.rStart[t + 1]!; i++) { markR[a.rKey[i]!] = this.stamp; opR[a.rKey[i]!] = a.rBefore[i] ? a.rOp[i]! : -1; }
  }

  /** A writes key x, B reads it, and they overlap in time: count {A, B} if it is a write-skew pair, once (at its least shared key). */
  judge(a: number, b: number, x: number, out: PairOpportunities): void {
    const acc = this.acc;
    this.stamp++;
    this.mark(a, this.markWA, this.opWA, this.markRA, this.opRA);
    this.mark(b, this.markWB, this.opWB, this.markRB, this.opRB);
    let least = x, aReadsB = false;
    for (let i = acc.wStart[b]!; i < acc.wStart[b + 1]!; i++) {
      const k = acc.wKey[i]!;
      if (this.markWA[k] === this.stamp) return; // a common written key: not write skew's shape
      if (this.markRA[k] === this.stamp) { aReadsB = true; if (k < least) least = k; }
    }
    if (!aReadsB) return;
    for (let i = acc.rStart[b]!; i < acc.rStart[b + 1]!; i++) {
      const k = acc.rKey[i]!;
      if (this.markWA[k] === this.stamp && k < least) least = k;
    }
    if (least !== x) return; // counted when the sweep of its least shared key meets it
    if (!tallyFailed(this.h, a, b, out)) return;
    const ab = this.seen(a, b, this.markWB, this.opWB, this.markRB, this.opRB);
    const ba = this.seen(b, a, this.markWA, this.opWA, this.markRA, this.opRA);
    if (ab.missed && ba.missed) { out.allowed++; return; }
    const ea = this.h.txnEnd![a]!, eb = this.h.txnEnd![b]!;
    const laterSaw = ea > eb ? ab.saw : eb > ea ? ba.saw : ab.saw || ba.saw;
    out[laterSaw ? 'blocked' : 'other']++;
  }

  /** Did `reader` miss (read an older version than) and did it see `writer`'s write of some key it reads? */
  private seen(reader: number, writer: number, markW: Int32Array, opW: Int32Array, markR: Int32Array, opR: Int32Array): { missed: boolean; saw: boolean } {
    const h = this.h, acc = this.acc;
    let missed = false, saw = false;
    for (let i = acc.rStart[reader]!; i < acc.rStart[reader + 1]!; i++) {
      const k = acc.rKey[i]!;
      if (markW[k] !== this.stamp) continue;
      const r = acc.rOp[i]!, w = opW[k]!;
      if (h.opKind[r] === OP_READ_LIST) {
        if (h.opKind[w] !== OP_APPEND) continue;
        const l = h.opValue[r]!, elem = h.opValue[w]!;
        let has = false;
        for (let j = h.listStart[l]!; j < h.listStart[l + 1]! && !has; j++) has = h.listElems[j] === elem;
        if (has) saw = true; else missed = true;
        continue;
      }
      const v = h.opValue[r]!;
      if (v === h.opValue[w]!) { saw = true; continue; }
      const writerRead = markR[k] === this.stamp ? opR[k]! : -1;
      if (v === INITIAL_VALUE || (writerRead >= 0 && h.opKind[writerRead] === OP_READ && h.opValue[writerRead] === v)) { missed = true; continue; }
      const src = this.writerOf[v]!;
      if (src >= 0 && this.writerKey[v] === k && h.txnEnd![src]! < h.txnStart![writer]!) missed = true;
    }
    return { missed, saw };
  }
}
