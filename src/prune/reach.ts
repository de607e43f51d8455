/**
 * Exact reachability for pruning, in O(nodes x sessions) memory (no n x n matrix).
 *
 * Takes: an acyclic split graph with its topological order, and the sessions of the History.
 * Gives: `Reach`, answering "does split node u reach t.d?" in O(1) and "does u reach t.n?" in
 * O(sessions).
 * Why it is exact: SO is a chain per session through the .d nodes (t_i.d -> t_{i+1}.d for
 * consecutive included txns), so the .d nodes a node reaches within one session form a suffix
 * of it. `minPos[u*S + s]` = the smallest session position p such that u reaches (or is) the .d
 * node of the txn at position p of session s; INF if none. Entering t.n only happens through an
 * RW edge c.d -> t.n, so u reaches t.n iff u reaches c.d for some RW predecessor c of t: with
 * `rwPredMax[t*S + s]` = the largest position of an RW predecessor of t in session s,
 * u reaches t.n iff minPos[u*S+s] <= rwPredMax[t*S+s] for some s.
 * Memory bound: with more than `cellsMax / (2 x txns)` sessions, only that many of the largest
 * sessions get a column; a txn of an untracked session is then reported unreachable. That
 * under-approximates, which costs pruning power but never soundness.
 * Invariant: never over-approximates (pruning soundness depends on it).
 */

import type { History } from '../history/model.ts';
import type { SplitGraph } from '../graph/split.ts';

const INF = 0x7fffffff;

export interface Reach {
  /** Does split node u reach t.d (u = t.d counts)? */
  reachesD(u: number, t: number): boolean;
  /** Does split node u reach t.n? (SI only; always false when there are no RW edges.) */
  reachesN(u: number, t: number): boolean;
}

/** Memory bound: minPos has (2 x txns x tracked sessions) Int32 cells; 600 MB by default. */
export const REACH_CELLS_MAX = 150_000_000;

/**
 * Which sessions get a reachability column: all of them if the table fits in `cellsMax`,
 * else the largest ones that fit (at least one). `column[s]` is -1 for an untracked session.
 */
export function trackedSessions(h: History, cellsMax: number): { column: Int32Array; tracked: number } {
  const S = h.sessionCount;
  const column = new Int32Array(S).fill(-1);
  const fit = Math.max(1, Math.floor(cellsMax / Math.max(1, 2 * h.txnCount)));
  const order = Array.from({ length: S }, (_, s) => s);
  if (S > fit) order.sort((a, b) => (h.sessionTxnStart[b + 1]! - h.sessionTxnStart[b]!) - (h.sessionTxnStart[a + 1]! - h.sessionTxnStart[a]!) || a - b);
  const tracked = Math.min(S, fit);
  for (let i = 0; i < tracked; i++) column[order[i]!] = i;
  return { column, tracked };
}

export function computeReach(
  h: History, g: SplitGraph, order: Int32Array,
  rwCount: number, rwFrom: (i: number) => number, rwTo: (i: number) => number,
  cellsMax = REACH_CELLS_MAX,
): Reach {
  const { column, tracked } = trackedSessions(h, cellsMax);
  const S = Math.max(1, tracked);
  const n = h.txnCount;
  // sess[t]: t's column, or -1 if its session is untracked; pos[t]: its position in the session.
  const pos = new Int32Array(n), sess = new Int32Array(n);
  for (let t = 0; t < n; t++) { sess[t] = column[h.txnSession[t]!]!; pos[t] = t - h.sessionTxnStart[h.txnSession[t]!]!; }

  // Every split edge out of t.n is a Dep edge to some x.d, and t.d has exactly the same Dep
  // edges plus its RW edges (which enter .n nodes). So row(t.d) = row(t.n), plus t's own
  // position, plus the rows of t.d's RW successors: each Dep edge is merged once, not twice.
  const minPos = new Int32Array(g.nodeCount * S).fill(INF);
  const done = new Uint8Array(g.nodeCount);
  const mergeRow = (row: number, vrow: number): void => {
    for (let s = 0; s < S; s++) {
      const x = minPos[vrow + s]!;
      if (x < minPos[row + s]!) minPos[row + s] = x;
    }
  };
  for (let i = g.nodeCount - 1; i >= 0; i--) {
    const u = order[i]!;
    if (done[u] === 1) continue;
    const nNode = u | 1;
    if (done[nNode] === 0) {
      // t.n: its successors come after t.d as well as after t.n in topological order, so they
      // are all done whichever of the two we meet first.
      const row = nNode * S;
      for (let e = g.outStart[nNode]!; e < g.outStart[nNode + 1]!; e++) mergeRow(row, g.outTo[e]! * S);
      done[nNode] = 1;
    }
    if (u === nNode) continue;
    const row = u * S;
    minPos.copyWithin(row, nNode * S, nNode * S + S);
    const t = u >> 1;
    if (sess[t]! >= 0 && pos[t]! < minPos[row + sess[t]!]!) minPos[row + sess[t]!] = pos[t]!;
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      const v = g.outTo[e]!;
      if ((v & 1) === 1) mergeRow(row, v * S);
    }
    done[u] = 1;
  }

  let rwPredMax: Int32Array | null = null;
  if (rwCount > 0) {
    rwPredMax = new Int32Array(n * S).fill(-1);
    for (let i = 0; i < rwCount; i++) {
      const c = rwFrom(i), t = rwTo(i);
      if (sess[c]! < 0) continue; // untracked: dropping it only under-approximates
      const cell = t * S + sess[c]!;
      if (pos[c]! > rwPredMax[cell]!) rwPredMax[cell] = pos[c]!;
    }
  }

  return {
    reachesD: (u, t) => sess[t]! >= 0 && minPos[u * S + sess[t]!]! <= pos[t]!,
    reachesN: (u, t) => {
      if (rwPredMax === null) return false;
      const a = u * S, b = t * S;
      for (let s = 0; s < S; s++) if (minPos[a + s]! <= rwPredMax[b + s]!) return true;
      return false;
    },
  };
}
