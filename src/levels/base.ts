/**
 * The facts every saturation level starts from (Biswas & Enea, OOPSLA 2019, §3): session order
 * (SO), write-read (WR) and the version order that list reads reveal (known WW), laid out as
 * typed arrays indexed by transaction.
 *
 * Takes: a `Validated` history without non-cycle anomalies. Gives: `LevelBase`:
 * - `soPrev[t]`: the last committed included txn before t in its session (-1 if none). As in
 *   the polygraph (docs/checking.md, "Session order"), a txn of unknown outcome orders nothing
 *   after it, so the session order of t is the chain of committed txns ending in soPrev[t].
 * - each txn's external reads sorted in program order (`readStart` CSR over `v.reads` indices)
 *   and its final writes (`writeStart` CSR over keys);
 * - `observed`: CSR of the txns each read observes. A register read observes its writer; a list
 *   read observes the writer of every element it returned (it saw all of their appends), so a
 *   reader of [1 2] has seen the appender of 1 too (Cerone et al.'s visibility);
 * - `knownWw`: the WW edges list reads force (along each key's chain, and from the chain's end
 *   to every appender no read saw), exactly as the polygraph takes them.
 * Invariant: every txn index is an included txn; INIT_TXN never appears as a node (it precedes
 * everything, so a cycle can never pass through it).
 */

import { TXN_COMMITTED } from '../history/model.ts';
import { INIT_TXN } from '../result/types.ts';
import type { Validated } from '../validate/validate.ts';
import { GrowableInt32 } from '../util/growable.ts';

export interface LevelBase {
  v: Validated;
  n: number;
  soPrev: Int32Array;
  /** CSR over txns: `readIdx[readStart[t] .. readStart[t+1]-1]` are t's reads (v.reads indices) in program order. */
  readStart: Int32Array;
  readIdx: Int32Array;
  /** CSR over v.reads: `obs[obsStart[r] .. obsStart[r+1]-1]` are the txns read r observed (never INIT, never the reader). */
  obsStart: Int32Array;
  obs: Int32Array;
  /** CSR over txns: `writeKey[writeStart[t] .. writeStart[t+1]-1]` are the keys t finally writes. */
  writeStart: Int32Array;
  writeKey: Int32Array;
  /** Known WW edges (list keys). */
  wwFrom: Int32Array;
  wwTo: Int32Array;
  wwKey: Int32Array;
}

export function buildBase(v: Validated): LevelBase {
  const h = v.history;
  const n = h.txnCount;
  const soPrev = sessionOrder(v);
  const { start: readStart, items: readIdx } = csr(n, v.reads.count, (i) => v.reads.txn[i]!);
  for (let t = 0; t < n; t++) sortBy(readIdx, readStart[t]!, readStart[t + 1]!, (i) => v.reads.op[i]!);
  const { start: writeStart, items: wIdx } = csr(n, v.writes.count, (i) => v.writes.txn[i]!);
  const writeKey = new Int32Array(wIdx.length);
  for (let i = 0; i < wIdx.length; i++) writeKey[i] = v.writes.key[wIdx[i]!]!;
  const { obsStart, obs } = observations(v);
  const ww = knownWw(v, writeStart, writeKey);
  return { v, n, soPrev, readStart, readIdx, obsStart, obs, writeStart, writeKey, ...ww };
}

/** `soPrev[t]` for every included txn (see the module comment). */
function sessionOrder(v: Validated): Int32Array {
  const h = v.history;
  const soPrev = new Int32Array(h.txnCount).fill(-1);
  for (let s = 0; s < h.sessionCount; s++) {
    let last = -1;
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      if (v.included[t] !== 1) continue;
      soPrev[t] = last;
      if (h.txnStatus[t] === TXN_COMMITTED) last = t;
    }
  }
  return soPrev;
}

/** Items 0..m-1 grouped by `group(i)` in 0..n-1 (stable counting sort). */
export function csr(n: number, m: number, group: (i: number) => number): { start: Int32Array; items: Int32Array } {
  const start = new Int32Array(n + 1);
  for (let i = 0; i < m; i++) start[group(i) + 1]!++;
  for (let t = 0; t < n; t++) start[t + 1]! += start[t]!;
  const fill = start.slice(0, n);
  const items = new Int32Array(m);
  for (let i = 0; i < m; i++) items[fill[group(i)]!++] = i;
  return { start, items };
}

/** Insertion sort of a[lo..hi) by key (each txn has a handful of reads). */
function sortBy(a: Int32Array, lo: number, hi: number, key: (x: number) => number): void {
  for (let i = lo + 1; i < hi; i++) {
    const x = a[i]!, kx = key(x);
    let j = i - 1;
    while (j >= lo && key(a[j]!) > kx) { a[j + 1] = a[j]!; j--; }
    a[j + 1] = x;
  }
}

/** Per read, the txns it observed: its writer, and for a list read every earlier writer of the key's chain. */
function observations(v: Validated): { obsStart: Int32Array; obs: Int32Array } {
  const chainPos = new Map<number, Map<number, number>>();
  const posIn = (key: number): Map<number, number> | undefined => {
    const chain = v.lists.chains.get(key);
    if (chain === undefined) return undefined;
    let m = chainPos.get(key);
    if (m === undefined) { m = new Map(); chain.forEach((t, i) => m!.set(t, i)); chainPos.set(key, m); }
    return m;
  };
  const obsStart = new Int32Array(v.reads.count + 1);
  const obs = new GrowableInt32(v.reads.count + 16);
  for (let r = 0; r < v.reads.count; r++) {
    const w = v.reads.writer[r]!, t = v.reads.txn[r]!, key = v.reads.key[r]!;
    if (w !== INIT_TXN) {
      const pos = v.lists.chains.has(key) ? posIn(key)!.get(w) : undefined;
      if (pos === undefined) {
        if (w !== t) obs.push(w);
      } else {
        // A list read returns a prefix of the chain: it saw the appends of every writer up to w.
        const chain = v.lists.chains.get(key)!;
        for (let i = 0; i <= pos; i++) if (chain[i] !== t) obs.push(chain[i]!);
      }
    }
    obsStart[r + 1] = obs.length;
  }
  return { obsStart, obs: obs.toArray() };
}

/** The WW edges list reads force: along each chain, and from its end to every other appender of the key. */
function knownWw(v: Validated, writeStart: Int32Array, writeKey: Int32Array): { wwFrom: Int32Array; wwTo: Int32Array; wwKey: Int32Array } {
  const from = new GrowableInt32(), to = new GrowableInt32(), key = new GrowableInt32();
  if (v.lists.chains.size === 0) return { wwFrom: from.toArray(), wwTo: to.toArray(), wwKey: key.toArray() };
  const inChain = new Set<string>();
  for (const [k, chain] of v.lists.chains) {
    for (let i = 0; i < chain.length; i++) {
      inChain.add(`${k}/${chain[i]}`);
      if (i > 0) { from.push(chain[i - 1]!); to.push(chain[i]!); key.push(k); }
    }
  }
  for (let t = 0; t < v.history.txnCount; t++) {
    for (let i = writeStart[t]!; i < writeStart[t + 1]!; i++) {
      const k = writeKey[i]!;
      const chain = v.lists.chains.get(k);
      if (chain === undefined || chain.length === 0 || inChain.has(`${k}/${t}`)) continue;
      from.push(chain[chain.length - 1]!); to.push(t); key.push(k);
    }
  }
  return { wwFrom: from.toArray(), wwTo: to.toArray(), wwKey: key.toArray() };
}
