/**
 * A level's forbidden cycle in one concrete graph of dependency edges (no constraints left).
 *
 * Takes: dependency edges as columns (from, to, kind) over n transactions, and a level.
 * Gives: `forbiddenCycle`: the edge indices of one forbidden cycle in order, or null if the
 * graph satisfies the level; `closingRw`: PSI's edge-by-edge half (split.ts): an RW edge a->b
 * with b.d reaching a.d in the split graph (the Dep graph), with that path.
 * Invariant: a returned cycle is a cycle of the dependency edges (edges[i].to = edges[i+1].from)
 * that the level forbids: a cycle of the split graph, or (PSI) a Dep path closed by one RW edge.
 * Cost of closingRw: only RW edges pointing backwards in a topological order can close a path;
 * they are tested 32 at a time with one bit-mask sweep over the order (O((n + m) * backward / 32)),
 * and the path of the first hit is found by one breadth-first search.
 */

import type { Level } from '../result/types.ts';
import { findShortCycle } from './cycle.ts';
import { K_RW } from './edges.ts';
import { buildSplitGraph, checksRwApart, topoOrder, type SplitGraph } from './split.ts';

export function forbiddenCycle(
  n: number, count: number, from: Int32Array, to: Int32Array, kind: Int32Array, level: Level,
): Int32Array | null {
  const g = buildSplitGraph(n, count, from, to, kind, level);
  const order = topoOrder(g);
  if (order === null) {
    const split = findShortCycle(g);
    if (split === null) throw new Error('internal error: cyclic graph without a cycle');
    return split.map((e) => g.outEdge[e]!);
  }
  if (!checksRwApart(level)) return null;
  return closingRw(g, order, count, from, to, kind);
}

/**
 * The first RW edge a->b (by its place among the backward ones) whose target's .d node reaches
 * its source's .d node in the acyclic split graph `g` (topological `order`), as the cycle
 * [path edges from b to a..., the RW edge], in dependency-edge indices; null if none.
 */
export function closingRw(
  g: SplitGraph, order: Int32Array, count: number, from: Int32Array, to: Int32Array, kind: Int32Array,
): Int32Array | null {
  return closingRws(g, order, count, from, to, kind, 1)[0] ?? null;
}

/** Up to `max` such cycles, one per closing RW edge (the solver rules out many per model). */
export function closingRws(
  g: SplitGraph, order: Int32Array, count: number, from: Int32Array, to: Int32Array, kind: Int32Array, max: number,
): Int32Array[] {
  const found: Int32Array[] = [];
  const rank = new Int32Array(g.nodeCount);
  for (let i = 0; i < order.length; i++) rank[order[i]!] = i;
  const cand: number[] = [];
  for (let i = 0; i < count; i++) {
    if (kind[i] === K_RW && rank[2 * to[i]!]! < rank[2 * from[i]!]!) cand.push(i);
  }
  if (cand.length === 0) return found;
  cand.sort((x, y) => rank[2 * to[x]!]! - rank[2 * to[y]!]!);
  const mask = new Int32Array(g.nodeCount);
  for (let c0 = 0; c0 < cand.length; c0 += 32) {
    const chunk = cand.slice(c0, c0 + 32);
    let lo = g.nodeCount, hi = 0;
    for (let j = 0; j < chunk.length; j++) {
      const src = 2 * from[chunk[j]!]!;
      mask[src]! |= 1 << j;
      lo = Math.min(lo, rank[2 * to[chunk[j]!]!]!);
      hi = Math.max(hi, rank[src]!);
    }
    // mask[u] bit j: u reaches the source of chunk[j]; sources are only reached from earlier ranks.
    for (let r = hi; r >= lo; r--) {
      const u = order[r]!;
      let m = mask[u]!;
      for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) m |= mask[g.outTo[e]!]!;
      mask[u] = m;
    }
    for (let j = 0; j < chunk.length && found.length < max; j++) {
      const i = chunk[j]!;
      if ((mask[2 * to[i]!]! & (1 << j)) !== 0) found.push(Int32Array.from([...pathBetween(g, rank, 2 * to[i]!, 2 * from[i]!), i]));
    }
    for (let r = lo; r <= hi; r++) mask[order[r]!] = 0;
    if (found.length >= max) break;
  }
  return found;
}

/** Dependency-edge indices of a shortest path from split node s to t (t must be reachable). */
function pathBetween(g: SplitGraph, rank: Int32Array, s: number, t: number): number[] {
  const parent = new Map<number, number>([[s, -1]]);
  const source = new Map<number, number>();
  const queue = [s];
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head]!;
    if (u === t) break;
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      const v = g.outTo[e]!;
      if (parent.has(v) || rank[v]! > rank[t]!) continue;
      parent.set(v, e);
      source.set(v, u);
      queue.push(v);
    }
  }
  if (!parent.has(t)) throw new Error('internal error: a reachable node has no path');
  const path: number[] = [];
  for (let x = t; x !== s; x = source.get(x)!) path.push(g.outEdge[parent.get(x)!]!);
  return path.reverse();
}
