/**
 * The split graph: SI-acyclicity as plain acyclicity, in linear size (DESIGN-NOTES.md).
 *
 * Takes: dependency edges (from, to, kind) over n transactions and a level.
 * Gives: a CSR graph over 2n nodes, `2t` = t.d ("entered by a Dep edge") and `2t+1` = t.n
 * ("start, or entered by an RW edge"), where each split edge remembers its dependency edge.
 *   SI:  Dep edge a->b  gives a.d->b.d and a.n->b.d;  RW edge a->b gives a.d->b.n.
 *   SER: every edge is treated as Dep (the .n nodes are then only sources).
 * Invariant: a path may take an RW edge only right after a Dep edge, so the cycles of this graph
 * are exactly the dependency cycles with no two adjacent RW edges (SI), or all dependency
 * cycles (SER). Proof sketch: every split edge into t.n is RW and every split edge out of t.n
 * is Dep, so two RW edges are never consecutive; conversely each Dep step can start from .d or
 * .n and each RW step starts from .d, which a Dep step always reaches.
 */

import type { Level } from '../result/types.ts';
import { K_RW } from './edges.ts';

export interface SplitGraph {
  nodeCount: number;
  /** CSR of out-edges: node u's edges are `outStart[u] .. outStart[u+1]-1`. */
  outStart: Int32Array;
  outTo: Int32Array;
  /** The dependency edge (caller's index) each split edge came from. */
  outEdge: Int32Array;
}

/** How many split edges one dependency edge becomes. */
export function splitEdgeCount(kind: number, level: Level): number {
  return level === 'si' && kind === K_RW ? 1 : 2;
}

/**
 * Calls `emit(splitFrom, splitTo)` for each split edge of dependency edge a->b of `kind`.
 * Kept as the single definition of the encoding, shared by pruning, solving and reporting.
 */
export function forEachSplitEdge(a: number, b: number, kind: number, level: Level, emit: (u: number, v: number) => void): void {
  if (level === 'si' && kind === K_RW) {
    emit(2 * a, 2 * b + 1);
  } else {
    emit(2 * a, 2 * b);
    emit(2 * a + 1, 2 * b);
  }
}

/** The split graph of `count` dependency edges given as columns (the fast path). */
export function buildSplitGraph(
  n: number, count: number, from: Int32Array, to: Int32Array, kind: Int32Array, level: Level,
): SplitGraph {
  const nodeCount = 2 * n;
  const si = level === 'si';
  const outStart = new Int32Array(nodeCount + 1);
  for (let i = 0; i < count; i++) {
    const a = from[i]!;
    if (si && kind[i] === K_RW) outStart[2 * a + 1]!++;
    else { outStart[2 * a + 1]!++; outStart[2 * a + 2]!++; }
  }
  for (let u = 0; u < nodeCount; u++) outStart[u + 1]! += outStart[u]!;
  const m = outStart[nodeCount]!;
  const outTo = new Int32Array(m), outEdge = new Int32Array(m);
  const fill = outStart.slice(0, nodeCount);
  for (let i = 0; i < count; i++) {
    const a = from[i]!, b = to[i]!;
    if (si && kind[i] === K_RW) {
      const at = fill[2 * a]!++; outTo[at] = 2 * b + 1; outEdge[at] = i;
    } else {
      let at = fill[2 * a]!++; outTo[at] = 2 * b; outEdge[at] = i;
      at = fill[2 * a + 1]!++; outTo[at] = 2 * b; outEdge[at] = i;
    }
  }
  return { nodeCount, outStart, outTo, outEdge };
}

/** The same from accessor functions, for small graphs built from objects (explanations). */
export function buildSplitGraphOf(
  n: number, count: number, from: (i: number) => number, to: (i: number) => number, kind: (i: number) => number, level: Level,
): SplitGraph {
  const f = new Int32Array(count), t = new Int32Array(count), k = new Int32Array(count);
  for (let i = 0; i < count; i++) { f[i] = from(i); t[i] = to(i); k[i] = kind(i); }
  return buildSplitGraph(n, count, f, t, k, level);
}

/**
 * Kahn's algorithm. Returns the nodes in topological order if the graph is acyclic, or null.
 * Iterative, O(nodes + edges).
 */
export function topoOrder(g: SplitGraph): Int32Array | null {
  const indeg = new Int32Array(g.nodeCount);
  for (let i = 0; i < g.outTo.length; i++) indeg[g.outTo[i]!]!++;
  const order = new Int32Array(g.nodeCount);
  let tail = 0;
  for (let u = 0; u < g.nodeCount; u++) if (indeg[u] === 0) order[tail++] = u;
  for (let head = 0; head < tail; head++) {
    const u = order[head]!;
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      const v = g.outTo[e]!;
      if (--indeg[v]! === 0) order[tail++] = v;
    }
  }
  return tail === g.nodeCount ? order : null;
}
