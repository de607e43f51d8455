/**
 * Finding a short cycle in a split graph, for reporting violations.
 *
 * Takes: a SplitGraph known to be cyclic (or not). Gives: the split-edge indices of one cycle in
 * order, or null if the graph is acyclic.
 * Approach: peel off every node that cannot be on a cycle (Kahn forwards, then backwards), then
 * breadth-first search from the remaining nodes to find the shortest cycle through each tried
 * node, keeping the shortest found (bounded tries, so the cost stays linear-ish). Short cycles
 * are what people can read; minimality proper is the explain stage's job.
 */

import type { SplitGraph } from './split.ts';

const TRIES_MAX = 64;

export function findShortCycle(g: SplitGraph): Int32Array | null {
  const alive = cyclicCore(g);
  if (alive === null) return null;
  const n = g.nodeCount;
  const parentEdge = new Int32Array(n);
  const seen = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  // Peeling leaves every alive node with an alive successor, so walking alive successors must
  // revisit a node, and that node lies on a cycle: a start that is guaranteed to succeed.
  const onCycle = nodeOnCycle(g, alive, seen);
  seen.fill(-1);
  let best = shortestCycleThrough(g, onCycle, alive, parentEdge, seen, queue, n + 1);
  if (best === null) throw new Error('internal error: no cycle through a node on a cycle');
  // Other nodes of that cycle, then other alive nodes, may lie on shorter cycles.
  const candidates: number[] = [];
  for (const e of best) candidates.push(edgeSource(g, e));
  for (let s = 0; s < n && candidates.length < 2 * TRIES_MAX; s++) if (alive[s] === 1) candidates.push(s);
  for (let i = 0; i < candidates.length && i < 2 * TRIES_MAX && best.length > 2; i++) {
    const s = candidates[i]!;
    if (s === onCycle) continue;
    const cyc = shortestCycleThrough(g, s, alive, parentEdge, seen, queue, best.length);
    if (cyc !== null && cyc.length < best.length) best = cyc;
  }
  return best;
}

function nodeOnCycle(g: SplitGraph, alive: Uint8Array, mark: Int32Array): number {
  let u = alive.indexOf(1);
  while (mark[u] !== 1) {
    mark[u] = 1;
    let next = -1;
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]! && next === -1; e++) if (alive[g.outTo[e]!] === 1) next = g.outTo[e]!;
    if (next === -1) throw new Error('internal error: peeled graph has a node without successor');
    u = next;
  }
  return u;
}

/** The shortest cycle through `s` (BFS from s back to s), if shorter than `limit` edges. */
export function shortestCycleThrough(
  g: SplitGraph, s: number, alive: Uint8Array | null,
  parentEdge: Int32Array, seen: Int32Array, queue: Int32Array, limit: number,
): Int32Array | null {
  const dist = new Map<number, number>();
  let tail = 0;
  queue[tail++] = s;
  seen[s] = s;
  dist.set(s, 0);
  for (let head = 0; head < tail; head++) {
    const u = queue[head]!;
    const du = dist.get(u)!;
    if (du + 1 >= limit) break;
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      const v = g.outTo[e]!;
      if (alive !== null && alive[v] !== 1) continue;
      if (v === s) {
        const path: number[] = [e];
        for (let x = u; x !== s; x = edgeSource(g, parentEdge[x]!)) path.push(parentEdge[x]!);
        path.reverse();
        return Int32Array.from(path);
      }
      if (seen[v] === s) continue;
      seen[v] = s;
      parentEdge[v] = e;
      dist.set(v, du + 1);
      queue[tail++] = v;
    }
  }
  return null;
}

/** The source node of split edge e (binary search over outStart). */
export function edgeSource(g: SplitGraph, e: number): number {
  let lo = 0, hi = g.nodeCount - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (g.outStart[mid]! <= e) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/** Nodes that lie on some cycle's strongly connected part, or null if the graph is acyclic. */
function cyclicCore(g: SplitGraph): Uint8Array | null {
  const n = g.nodeCount;
  const alive = new Uint8Array(n).fill(1);
  const indeg = new Int32Array(n), outdeg = new Int32Array(n);
  const inStart = new Int32Array(n + 1);
  for (let u = 0; u < n; u++) {
    outdeg[u] = g.outStart[u + 1]! - g.outStart[u]!;
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) { indeg[g.outTo[e]!]!++; inStart[g.outTo[e]! + 1]!++; }
  }
  for (let u = 0; u < n; u++) inStart[u + 1]! += inStart[u]!;
  const inFrom = new Int32Array(g.outTo.length);
  const fill = inStart.slice(0, n);
  for (let u = 0; u < n; u++) for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) inFrom[fill[g.outTo[e]!]!++] = u;

  const stack = new Int32Array(n);
  let top = 0;
  for (let u = 0; u < n; u++) if (indeg[u] === 0 || outdeg[u] === 0) { alive[u] = 0; stack[top++] = u; }
  while (top > 0) {
    const u = stack[--top]!;
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      const v = g.outTo[e]!;
      if (alive[v] === 1 && --indeg[v]! === 0) { alive[v] = 0; stack[top++] = v; }
    }
    for (let e = inStart[u]!; e < inStart[u + 1]!; e++) {
      const v = inFrom[e]!;
      if (alive[v] === 1 && --outdeg[v]! === 0) { alive[v] = 0; stack[top++] = v; }
    }
  }
  for (let u = 0; u < n; u++) if (alive[u] === 1) return alive;
  return null;
}
