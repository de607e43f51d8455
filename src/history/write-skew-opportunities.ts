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
import { byKey, byStart, Running, timed } from './overlap-sweep.ts';

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

function accessOf(h: History): Access {
  const n = h.txnCount, keyCount = h.keyLabels.length;
  const rStart = new Int32Array(n + 1), wStart = new Int32Array(n + 1);
  // At most one entry per operation: sized so, handed out as views of what was filled.
  const rKey = new Int32Array(h.opCount), rOp = new Int32Array(h.opCount), rBefore = new Uint8Array(h.opCount);
  const wKey = new Int32Array(h.opCount), wOp = new Int32Array(h.opCount);
  let nr = 0, nw = 0;
  // seenR[k] / seenW[k] = t + 1 when txn t has read / written k; posW[k]: its entry in wOp.
  const seenR = new Int32Array(keyCount), seenW = new Int32Array(keyCount), posW = new Int32Array(keyCount);
  for (let t = 0; t < n; t++) {
    rStart[t] = nr;
    wStart[t] = nw;
    if (!timed(h, t)) continue;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = h.opKey[op]!, kind = h.opKind[op]!;
      if (kind === OP_READ || kind === OP_READ_LIST) {
        if (seenR[k] === t + 1) continue;
        seenR[k] = t + 1;
        rKey[nr] = k; rOp[nr] = op; rBefore[nr++] = seenW[k] === t + 1 ? 0 : 1;
      } else if (kind === OP_WRITE || kind === OP_APPEND) {
        if (seenW[k] === t + 1) { wOp[posW[k]!] = op; continue; }
        seenW[k] = t + 1;
        posW[k] = nw;
        wKey[nw] = k; wOp[nw++] = op;
      }
    }
  }
  rStart[n] = nr;
  wStart[n] = nw;
  return {
    rStart, rKey: rKey.subarray(0, nr), rOp: rOp.subarray(0, nr), rBefore: rBefore.subarray(0, nr),
    wStart, wKey: wKey.subarray(0, nw), wOp: wOp.subarray(0, nw),
  };
}

export function writeSkewOpportunities(h: History): WriteSkewOpportunities | null {
  if (h.txnStart === undefined || h.txnEnd === undefined) return null;
  const acc = accessOf(h);
  const keyCount = h.keyLabels.length;
  const order = byStart(h);
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
          if (b !== t) pair.judge(t, b, k, 'a', out);
        }
        activeW.push(wi++);
      } else {
        const t = R.txns[ri]!;
        for (let i = 0; i < activeW.n; i++) {
          const a = W.txns[activeW.items[i]!]!;
          if (a !== t) pair.judge(a, t, k, 'b', out);
        }
        activeR.push(ri++);
      }
    }
  }
  return out;
}

/**
 * One transaction's keys as mark arrays: `w[k] === stamp` when it writes k (`opW[k]`: its last
 * write of it), `r[k] === stamp` when it reads k (`opR[k]`: that read if it came before the
 * transaction's own write of k, else -1). Re-marked only when asked for another transaction.
 */
class Marks {
  txn = -1;
  stamp = 0;
  readonly w: Int32Array; readonly opW: Int32Array; readonly r: Int32Array; readonly opR: Int32Array;

  constructor(keyCount: number) {
    [this.w, this.opW, this.r, this.opR] = Array.from({ length: 4 }, () => new Int32Array(keyCount));
  }

  of(acc: Access, t: number): this {
    if (this.txn === t) return this;
    this.txn = t;
    const s = ++this.stamp;
    for (let i = acc.wStart[t]!; i < acc.wStart[t + 1]!; i++) { this.w[acc.wKey[i]!] = s; this.opW[acc.wKey[i]!] = acc.wOp[i]!; }
    for (let i = acc.rStart[t]!; i < acc.rStart[t + 1]!; i++) { this.r[acc.rKey[i]!] = s; this.opR[acc.rKey[i]!] = acc.rBefore[i] ? acc.rOp[i]! : -1; }
    return this;
  }
}

/**
 * Decides one candidate pair. The sweep offers pairs with one side fixed (the transaction that
 * just started, against each one running), so the side already marked is kept and only the other
 * side's key lists are scanned; both are marked only for a pair that counts.
 */
class PairJudge {
  private readonly A: Marks;
  private readonly B: Marks;
  /** writerOf[v]: the txn that wrote register value v, -1 none, -2 written more than once. */
  private readonly writerOf: Int32Array; private readonly writerKey: Int32Array;

  constructor(private readonly h: History, private readonly acc: Access) {
    const kc = h.keyLabels.length;
    this.A = new Marks(kc);
    this.B = new Marks(kc);
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

  /**
   * A writes key x, B reads it, and they overlap in time: count {A, B} if it is a write-skew pair,
   * once (at its least shared key). `fixed`: which of the two the sweep holds across its calls.
   */
  judge(a: number, b: number, x: number, fixed: 'a' | 'b', out: PairOpportunities): void {
    if (!(fixed === 'b' ? this.shapeSeenFromB(a, b, x) : this.shapeSeenFromA(a, b, x))) return;
    if (!tallyFailed(this.h, a, b, out)) return;
    const A = this.A.of(this.acc, a), B = this.B.of(this.acc, b);
    const ab = this.seen(a, b, B), ba = this.seen(b, a, A);
    if (ab.missed && ba.missed) { out.allowed++; return; }
    const ea = this.h.txnEnd![a]!, eb = this.h.txnEnd![b]!;
    const laterSaw = ea > eb ? ab.saw : eb > ea ? ba.saw : ab.saw || ba.saw;
    out[laterSaw ? 'blocked' : 'other']++;
  }

  /**
   * Is {A, B} of write skew's shape (no common written key, A reads a key B writes) and is x
   * its least shared key (a key one writes and the other reads)? With A's marks, B's lists scanned.
   */
  private shapeSeenFromA(a: number, b: number, x: number): boolean {
    const acc = this.acc, A = this.A.of(acc, a), s = A.stamp;
    let least = x, aReadsB = false;
    for (let i = acc.wStart[b]!; i < acc.wStart[b + 1]!; i++) {
      const k = acc.wKey[i]!;
      if (A.w[k] === s) return false;
      if (A.r[k] === s) { aReadsB = true; if (k < least) least = k; }
    }
    if (!aReadsB) return false;
    for (let i = acc.rStart[b]!; i < acc.rStart[b + 1]!; i++) {
      const k = acc.rKey[i]!;
      if (A.w[k] === s && k < least) least = k;
    }
    return least === x;
  }

  /** The same question with B's marks, A's lists scanned. */
  private shapeSeenFromB(a: number, b: number, x: number): boolean {
    const acc = this.acc, B = this.B.of(acc, b), s = B.stamp;
    let least = x, aReadsB = false;
    for (let i = acc.wStart[a]!; i < acc.wStart[a + 1]!; i++) {
      const k = acc.wKey[i]!;
      if (B.w[k] === s) return false;
      if (B.r[k] === s && k < least) least = k;
    }
    for (let i = acc.rStart[a]!; i < acc.rStart[a + 1]!; i++) {
      const k = acc.rKey[i]!;
      if (B.w[k] === s) { aReadsB = true; if (k < least) least = k; }
    }
    return aReadsB && least === x;
  }

  /** Did `reader` miss (read an older version than) and did it see `writer`'s write of some key it reads? */
  private seen(reader: number, writer: number, W: Marks): { missed: boolean; saw: boolean } {
    const h = this.h, acc = this.acc;
    let missed = false, saw = false;
    for (let i = acc.rStart[reader]!; i < acc.rStart[reader + 1]!; i++) {
      const k = acc.rKey[i]!;
      if (W.w[k] !== W.stamp) continue;
      const r = acc.rOp[i]!, w = W.opW[k]!;
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
      const writerRead = W.r[k] === W.stamp ? W.opR[k]! : -1;
      if (v === INITIAL_VALUE || (writerRead >= 0 && h.opKind[writerRead] === OP_READ && h.opValue[writerRead] === v)) { missed = true; continue; }
      const src = this.writerOf[v]!;
      if (src >= 0 && this.writerKey[v] === k && h.txnEnd![src]! < h.txnStart![writer]!) missed = true;
    }
    return { missed, saw };
  }
}
