/**
 * A chain cover of the transactions, for reachability (reach.ts).
 *
 * Takes: an acyclic split graph and its topological order. Gives: for every txn its chain and
 * its position in that chain, such that consecutive txns of a chain are joined by a Dep edge
 * (c_i.d -> c_{i+1}.d). Hence whoever reaches the chain's element at position p reaches every
 * later element: what a node reaches within a chain is a suffix, and one number per chain
 * (the smallest reachable position) describes it exactly.
 * Only edges of the graph chain two txns, never the mere fact that they share a session: a txn
 * of unknown outcome has no SO edge out (docs/checking.md), and chaining it to its session
 * successor anyway would make reachability over-approximate, which pruning must never do.
 * The committed txns of a session are a chain (SO joins each to the next), and the cover is
 * built greedily along any Dep edge, session order first, preferring the next committed txn of
 * the session, so they stay one chain: a txn starts a new chain only if no predecessor is left
 * to extend. That gives at most one chain per session plus one per included unknown-outcome
 * txn, and usually far fewer when short sessions are really the same client under new names
 * (Jepsen replaces a crashed process by a new one).
 * Txns with no edge at all (aborted or dropped ones, or isolated) get no chain (-1): nothing
 * reaches them, and no constraint mentions them. `alsoTouched` marks txns that get a chain even
 * without an edge (pruning passes the constraint endpoints, which later rounds may connect, as a
 * function: it is called only when some txn has no edge, and sees which). `inDegrees`, if given,
 * are g's in-degrees per split node (they spare a pass over the edges).
 */

import { TXN_COMMITTED, type History } from '../history/model.ts';
import type { SplitGraph } from '../graph/split.ts';

export interface ChainCover {
  count: number;
  /** `chainOf[t]`: t's chain, -1 if t has no edge. */
  chainOf: Int32Array;
  /** `posOf[t]`: t's position in its chain (0-based). */
  posOf: Int32Array;
  /** `chainLength[c]`: number of txns in chain c. */
  chainLength: Int32Array;
}

/** What chainCover adds to the touched txns: marks, or a function of the touched txns (read only) giving marks or null. */
export type AlsoTouched = Uint8Array | ((touched: Uint8Array) => Uint8Array | null);

export function chainCover(h: History, g: SplitGraph, order: Int32Array, alsoTouched: AlsoTouched | null = null, inDegrees: Int32Array | null = null): ChainCover {
  const n = h.txnCount;
  const { outStart, outTo } = g;
  const touched = new Uint8Array(n);
  if (inDegrees !== null) {
    // One pass over the txns with g's in-degrees (the sort's, topoOrderSplit), not one over the edges.
    for (let t = 0; t < n; t++) if (outStart[2 * t + 2]! > outStart[2 * t]! || inDegrees[2 * t]! !== 0 || inDegrees[2 * t + 1]! !== 0) touched[t] = 1;
  } else {
    // Two flat passes (sources, then every edge's target) rather than one nested per node: fewer
    // bytecodes for a fresh process's interpreter.
    const nodeCount = g.nodeCount;
    for (let u = 0; u < nodeCount; u++) if (outStart[u + 1]! > outStart[u]!) touched[u >> 1] = 1;
    const m = outStart[nodeCount]!;
    for (let e = 0; e < m; e++) touched[outTo[e]! >> 1] = 1;
  }
  // `alsoTouched` can only add txns the graph leaves untouched: when there are none it is not
  // needed (a function is then not called; given the touched txns, it may answer null: none).
  if (alsoTouched !== null && touched.indexOf(0) !== -1) {
    const also = typeof alsoTouched === 'function' ? alsoTouched(touched) : alsoTouched;
    if (also !== null) for (let t = 0; t < n; t++) touched[t]! |= also[t]!;
  }
  const chainOf = new Int32Array(n).fill(-1), posOf = new Int32Array(n);
  const lengths: number[] = [];
  const txnSession = h.txnSession, txnStatus = h.txnStatus, orderLength = order.length;
  // In topological order every Dep predecessor of t.d is handled before t.d, so when a txn is
  // reached it is either claimed already (it extends a chain) or it starts one; then it offers
  // its chain to one unclaimed Dep successor: by rank (below), then the earliest.
  for (let i = 0; i < orderLength; i++) {
    const u = order[i]!;
    if ((u & 1) === 1) continue;
    const p = u >> 1;
    if (touched[p] === 0) continue;
    if (chainOf[p] === -1) { chainOf[p] = lengths.length; posOf[p] = 0; lengths.push(1); }
    let best = -1, bestRank = -1;
    const session = txnSession[p]!;
    // The next committed txn of p's session, if any: when it is a successor and unclaimed, it is
    // the best there is (rank 2, the earliest), so the scan stops there. Its session-order edge
    // comes first in p's list (construction adds SO edges first, and lists keep edge order), so
    // the scan mostly stops at once instead of reading every Dep edge (the 360-txn histories:
    // ~10 out-edges per txn).
    let next = p + 1;
    while (next < n && txnSession[next] === session && txnStatus[next] !== TXN_COMMITTED) next++;
    if (next >= n || txnSession[next] !== session || chainOf[next] !== -1) next = -1;
    for (let e = outStart[u]!, end = outStart[u + 1]!; e < end; e++) {
      const v = outTo[e]!;
      if ((v & 1) === 1) continue; // RW edges enter .n nodes; only Dep edges chain
      const t = v >> 1;
      if (t === next) { best = t; break; }
      if (chainOf[t] !== -1) continue;
      // 2: a later committed txn of p's session (the session's spine), 1: a later txn of unknown
      // outcome in it, 0: anything else.
      const rank = txnSession[t] === session && t > p ? (txnStatus[t] === TXN_COMMITTED ? 2 : 1) : 0;
      if (rank > bestRank || (rank === bestRank && rank > 0 && t < best)) { best = t; bestRank = rank; }
    }
    if (best !== -1) {
      const c = chainOf[p]!;
      chainOf[best] = c;
      posOf[best] = posOf[p]! + 1;
      lengths[c]!++;
    }
  }
  return { count: lengths.length, chainOf, posOf, chainLength: Int32Array.from(lengths) };
}
