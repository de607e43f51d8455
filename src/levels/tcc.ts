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
 * Writers of each key grouped by chain, in chain order: `seg*` lists, per key, the segments
 * (chain, range of `writers`), so a read visits only the chains that write its key.
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
  // Stable counting sorts: by position, then chain, then key (LSD radix).
  const byPos = csr(b.n, m, (i) => ch.posOf[txnOfW[i]!]!).items;
  const byChain = csr(ch.count, m, (i) => ch.chainOf[txnOfW[byPos[i]!]!]!).items.map((i) => byPos[i]!);
  const { start: keyStart, items: byKey0 } = csr(nKeys, m, (i) => b.writeKey[byChain[i]!]!);
  const writers = byKey0.map((i) => txnOfW[byChain[i]!]!);
  const keySegStart = new Int32Array(nKeys + 1);
  const segChain: number[] = [], segLo: number[] = [], segHi: number[] = [];
  for (let x = 0; x < nKeys; x++) {
    for (let i = keyStart[x]!; i < keyStart[x + 1]!; i++) {
      if (i === keyStart[x] || ch.chainOf[writers[i - 1]!] !== ch.chainOf[writers[i]!]) {
        segChain.push(ch.chainOf[writers[i]!]!); segLo.push(i); segHi.push(i + 1);
      } else segHi[segHi.length - 1]!++;
    }
    keySegStart[x + 1] = segChain.length;
  }
  return { keySegStart, segChain: Int32Array.from(segChain), segLo: Int32Array.from(segLo), segHi: Int32Array.from(segHi), writers };
}

function deriveTcc(b: LevelBase, g: SatGraph, order: Int32Array, ch: Chains): boolean {
  const v = b.v;
  const C = ch.count;
  const clock = new Int32Array(b.n * C).fill(-1);
  const past = new Int32Array(C);
  const ws = writerSegments(b, ch);
  const join = (p: number) => {
    const base = p * C;
    for (let c = 0; c < C; c++) if (clock[base + c]! > past[c]!) past[c] = clock[base + c]!;
  };
  for (const t3 of order) {
    past.fill(-1);
    if (b.soPrev[t3]! >= 0) join(b.soPrev[t3]!);
    for (let i = b.readStart[t3]!; i < b.readStart[t3 + 1]!; i++) {
      const r = b.readIdx[i]!;
      for (let j = b.obsStart[r]!; j < b.obsStart[r + 1]!; j++) join(b.obs[j]!);
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
        if (!g.derive(ws.writers[lo - 1]!, r, VIA_HB)) return false;
      }
    }
    past[ch.chainOf[t3]!] = ch.posOf[t3]!;
    clock.set(past, t3 * C);
  }
  return true;
}
