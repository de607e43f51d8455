/**
 * Transactional causal consistency (Biswas & Enea's axiom; Cerone et al.'s CC): a transaction
 * never reads a version older than one in its causal past. With hb = (SO ∪ WR)+:
 *   t1 -WR(x)-> t3,  t2 -hb-> t3,  t2 writes x,  t1 ≠ t2   ⟹   t2 -CO-> t1.
 *
 * Takes: a Validated history. Gives: a LevelOutcome.
 * How (after AWDIT): the causal past of a txn is represented by a vector clock over a chain
 * cover (each session's committed txns form a chain, each included txn of unknown outcome its own
 * chain, since nothing follows it in its session): `clock[t][c]` is the last position of chain c
 * in t's past. Clocks are joined along SO ∪ WR in topological order. For a read of x by t3, in
 * each chain only the last writer of x inside t3's past needs an edge (earlier writers of the
 * chain precede it in hb), found by binary search in that chain's writers of x.
 * Cost: O((txns + WR) × chains) for the clocks (`CLOCK_CELLS_MAX` bounds their memory) and
 * O(reads × chains writing the key × log) for the edges.
 */

import { TXN_COMMITTED } from '../history/model.ts';
import { INIT_TXN } from '../result/types.ts';
import type { Validated } from '../validate/validate.ts';
import { buildBase, csr, type LevelBase } from './base.ts';
import { outcomeOf, type LevelOutcome } from './outcome.ts';
import { findCycle, SatGraph, VIA_HB } from './saturate.ts';

/** Memory bound of the vector clocks, in Int32 cells (default 200M = 800 MB). */
export const CLOCK_CELLS_MAX = 200_000_000;

export function checkTcc(v: Validated, clockCellsMax = CLOCK_CELLS_MAX): LevelOutcome {
  const base = buildBase(v);
  const g = new SatGraph(base);
  const order = causalOrder(base);
  // SO ∪ WR is cyclic: a cycle of the whole graph exists (G1c or worse), nothing to derive.
  if (order === null) return outcomeOf('tcc', g, findCycle(base.n, g));
  const chains = chainCover(base);
  if (base.n * chains.count > clockCellsMax) {
    return {
      ...outcomeOf('tcc', g, null), verdict: 'unknown',
      unknownReason: `causal consistency needs ${base.n} × ${chains.count} clock cells, more than the limit of ${clockCellsMax}`,
    };
  }
  if (!deriveTcc(base, g, order, chains)) return outcomeOf('tcc', g, null);
  return outcomeOf('tcc', g, findCycle(base.n, g));
}

/** Included txns in a topological order of SO ∪ WR, or null if that relation is cyclic. */
function causalOrder(b: LevelBase): Int32Array | null {
  const v = b.v;
  // Edges (pred -> t): soPrev, and every observation of t's reads.
  const edgeCount = b.obs.length + b.n;
  const eFrom = new Int32Array(edgeCount), eTo = new Int32Array(edgeCount);
  let m = 0;
  for (let t = 0; t < b.n; t++) if (b.soPrev[t]! >= 0) { eFrom[m] = b.soPrev[t]!; eTo[m++] = t; }
  for (let r = 0; r < v.reads.count; r++) {
    for (let j = b.obsStart[r]!; j < b.obsStart[r + 1]!; j++) { eFrom[m] = b.obs[j]!; eTo[m++] = v.reads.txn[r]!; }
  }
  const { start, items } = csr(b.n, m, (e) => eFrom[e]!);
  const indeg = new Int32Array(b.n);
  for (let e = 0; e < m; e++) indeg[eTo[e]!]!++;
  const order = new Int32Array(v.includedCount);
  let tail = 0;
  for (let t = 0; t < b.n; t++) if (v.included[t] === 1 && indeg[t] === 0) order[tail++] = t;
  for (let head = 0; head < tail; head++) {
    const u = order[head]!;
    for (let i = start[u]!; i < start[u + 1]!; i++) if (--indeg[eTo[items[i]!]!]! === 0) order[tail++] = eTo[items[i]!]!;
  }
  return tail === order.length ? order : null;
}

interface Chains {
  count: number;
  /** `chainOf[t]`, `posOf[t]` for included txns (-1 otherwise). */
  chainOf: Int32Array;
  posOf: Int32Array;
}

function chainCover(b: LevelBase): Chains {
  const h = b.v.history;
  const chainOf = new Int32Array(b.n).fill(-1), posOf = new Int32Array(b.n).fill(-1);
  let count = 0;
  for (let s = 0; s < h.sessionCount; s++) {
    let session = -1, pos = 0;
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      if (b.v.included[t] !== 1) continue;
      if (h.txnStatus[t] === TXN_COMMITTED) {
        if (session === -1) session = count++;
        chainOf[t] = session; posOf[t] = pos++;
      } else {
        chainOf[t] = count++; posOf[t] = 0;
      }
    }
  }
  return { count, chainOf, posOf };
}

/**
 * Writers of each key in txn order, cut into segments of one chain each: `seg*` lists, per key,
 * the segments (chain, range of `writers`), so a read visits only the chains that write its key.
 * Within a session txn ids follow session order, so a segment is in chain order; a session's
 * writers may be cut in two by an unknown-outcome txn of the session (its own chain), which only
 * means two lookups in that chain, the earlier one giving a redundant edge.
 */
interface WriterSegments {
  keySegStart: Int32Array;
  segChain: Int32Array;
  segLo: Int32Array;
  segHi: Int32Array;
  writers: Int32Array;
}

function writerSegments(b: LevelBase, ch: Chains): WriterSegments {
  const nKeys = b.v.history.keyLabels.length;
  const m = b.writeKey.length;
  const txnOfW = new Int32Array(m);
  for (let t = 0; t < b.n; t++) for (let k = b.writeStart[t]!; k < b.writeStart[t + 1]!; k++) txnOfW[k] = t;
  // One stable counting sort by key of the writes, which are in txn order.
  const keyStart = new Int32Array(nKeys + 1);
  for (let i = 0; i < m; i++) keyStart[b.writeKey[i]! + 1]!++;
  for (let x = 0; x < nKeys; x++) keyStart[x + 1]! += keyStart[x]!;
  const fill = keyStart.slice(0, nKeys);
  const writers = new Int32Array(m);
  for (let i = 0; i < m; i++) writers[fill[b.writeKey[i]!]!++] = txnOfW[i]!;
  const newSeg = (x: number, i: number) => i === keyStart[x] || ch.chainOf[writers[i - 1]!] !== ch.chainOf[writers[i]!];
  let segs = 0;
  for (let x = 0; x < nKeys; x++) for (let i = keyStart[x]!; i < keyStart[x + 1]!; i++) if (newSeg(x, i)) segs++;
  const keySegStart = new Int32Array(nKeys + 1);
  const segChain = new Int32Array(segs), segLo = new Int32Array(segs), segHi = new Int32Array(segs);
  let s = -1;
  for (let x = 0; x < nKeys; x++) {
    for (let i = keyStart[x]!; i < keyStart[x + 1]!; i++) {
      if (newSeg(x, i)) { s++; segChain[s] = ch.chainOf[writers[i]!]!; segLo[s] = i; }
      segHi[s] = i + 1;
    }
    keySegStart[x + 1] = s + 1;
  }
  return { keySegStart, segChain, segLo, segHi, writers };
}

function deriveTcc(b: LevelBase, g: SatGraph, order: Int32Array, ch: Chains): boolean {
  const v = b.v;
  const C = ch.count;
  const clock = new Int32Array(b.n * C).fill(-1);
  const past = new Int32Array(C);
  const ws = writerSegments(b, ch);
  for (let o = 0; o < order.length; o++) {
    const t3 = order[o]!;
    past.fill(-1);
    const sp = b.soPrev[t3]!;
    if (sp >= 0) joinClock(past, clock, sp * C, C);
    for (let i = b.readStart[t3]!; i < b.readStart[t3 + 1]!; i++) {
      const r = b.readIdx[i]!;
      for (let j = b.obsStart[r]!; j < b.obsStart[r + 1]!; j++) joinClock(past, clock, b.obs[j]! * C, C);
    }
    for (let i = b.readStart[t3]!; i < b.readStart[t3 + 1]!; i++) {
      const r = b.readIdx[i]!, x = v.reads.key[r]!;
      for (let s = ws.keySegStart[x]!; s < ws.keySegStart[x + 1]!; s++) {
        const p = past[ws.segChain[s]!]!;
        if (p < 0) continue;
        // The last writer of x in this chain at a position <= p.
        let lo = ws.segLo[s]!, hi = ws.segHi[s]!;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (ch.posOf[ws.writers[mid]!]! <= p) lo = mid + 1; else hi = mid;
        }
        if (lo === ws.segLo[s]) continue;
        const w = ws.writers[lo - 1]!, t1 = v.reads.writer[r]!;
        // Already w -hb-> t1 (t1's clock is final: it precedes t3 in the order): nothing to add.
        // In a valid history almost every edge is of this kind, and skipping it keeps the graph small.
        if (t1 !== INIT_TXN && t1 !== w && clock[t1 * C + ch.chainOf[w]!]! >= ch.posOf[w]!) continue;
        if (!g.derive(w, r, VIA_HB)) return false;
      }
    }
    past[ch.chainOf[t3]!] = ch.posOf[t3]!;
    clock.set(past, t3 * C);
  }
  return true;
}

/** past = max(past, clock[base .. base+C-1]), pointwise. */
function joinClock(past: Int32Array, clock: Int32Array, base: number, C: number): void {
  for (let c = 0; c < C; c++) {
    const x = clock[base + c]!;
    if (x > past[c]!) past[c] = x;
  }
}
