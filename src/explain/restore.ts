/**
 * Restore (PolySI Appendix C): from the cycle the checker reported to a scenario that is a
 * violation on its own.
 *
 * Takes: the checker's state after pruning (Polygraph with the forced edges appended to its
 * known list, and pruning's provenance) and a witness cycle. Gives: a set of `Dep`s whose
 * sub-polygraph is a violation (every choice of its constraints leaves a forbidden cycle), or
 * null when a budget ran out.
 * How: an edge pruning forced is replaced by its constraint, with the edge of the other side
 * that pruning found would close a cycle, and the path that closes it (taken from the known graph
 * of the round that decided it, so the recursion ends: paths only use edges of earlier rounds).
 * If that is not yet a violation (the cycle came from the solver's choice), the scenario grows
 * like a counterexample-guided loop: fix the scenario's constraints to an acyclic choice of
 * it, ask the solver about the whole history under that choice (it must be unsatisfiable, since
 * the whole history is), and add the cycle it returns. Each round adds at least one edge.
 */

import type { Level } from '../result/types.ts';
import { EdgeList, K_SO, K_WR } from '../graph/edges.ts';
import type { Polygraph } from '../graph/polygraph.ts';
import { buildSplitGraph, closingQuery, type SplitGraph } from '../graph/split.ts';
import type { PruneProvenance } from '../prune/prune.ts';
import { chosenEdges, solveConstraints, witnessCycle, type SolveOutcome } from '../solve/solve.ts';
import { depKey, solveScenario, type Dep } from './scenario.ts';

/** Rounds of the counterexample-guided growth before giving up (each is one full solve). */
export const GROWTH_ROUNDS_MAX = 64;
/** Edges of a refuted side tried when looking for the shortest reason (each is one search). */
export const JUSTIFY_TRIES_MAX = 32;

export interface CheckState {
  pg: Polygraph;
  level: Level;
  /** Null when pruning was off. */
  provenance: PruneProvenance | null;
  /** Constraints left undecided by pruning. */
  active: Uint8Array;
}

/**
 * A cycle behind an 'unsat' answer, as Deps of `pg`. The solver's own witness takes "either" for
 * every constraint it did not fix at level 0, an arbitrary choice that can drag unrelated write
 * orders into the cycle; a cycle among the known edges and the level-0 facts alone, when there is
 * one, follows from the history and is preferred.
 */
export function unsatCycle(pg: Polygraph, active: Uint8Array, out: SolveOutcome, level: Level): Dep[] {
  const all = out.edges!;
  const given = () => Array.from(out.cycle!, (i) => (all.ce[i]! < 0 ? knownDep(pg, i) : ceDep(pg, all.ce[i]!)));
  const fixed = out.fixed;
  if (fixed === undefined) return given(); // the known edges alone were cyclic: that is the cycle
  // Plain loops: `TypedArray.from(src, fn)` costs a call per element, and this runs cold.
  const onlyFixed = new Uint8Array(active.length);
  for (let c = 0; c < active.length; c++) onlyFixed[c] = active[c] === 1 && fixed[c]! >= 0 ? 1 : 0;
  const ids = new Int32Array(pg.consCount);
  for (let c = 0; c < ids.length; c++) ids[c] = c;
  const edges = chosenEdges(pg, onlyFixed, ids, (c) => fixed[c] === 0);
  const cycle = witnessCycle(pg.nodeCount, edges, level);
  if (cycle !== null) return Array.from(cycle, (i) => (edges.ce[i]! < 0 ? knownDep(pg, i) : ceDep(pg, edges.ce[i]!)));
  return given();
}

/** The constraint and side (slot = 2c + side) owning constraint edge e. */
export function slotOfCe(pg: Polygraph, e: number): number {
  let lo = 0, hi = 2 * pg.consCount - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pg.edgeStart[mid]! <= e) lo = mid; else hi = mid - 1;
  }
  return lo;
}

export function ceDep(pg: Polygraph, e: number): Dep {
  const slot = slotOfCe(pg, e);
  return { from: pg.ceFrom[e]!, to: pg.ceTo[e]!, kind: pg.ceKind[e]!, key: pg.ceKey[e]!, cons: slot >> 1, side: slot & 1, ref: e };
}

export function knownDep(pg: Polygraph, i: number): Dep {
  const k = pg.known;
  return { from: k.from.get(i), to: k.to.get(i), kind: k.kind.get(i), key: k.key.get(i), cons: -1, side: -1, ref: i };
}

/** Shortest paths in the split graph of a prefix of the known edges (one graph per prefix length). */
class PrefixPaths {
  private readonly graphs = new Map<number, SplitGraph>();
  private parent = new Int32Array(0);
  private seen = new Int32Array(0);
  private stamp = 0;

  constructor(private readonly pg: Polygraph, private readonly level: Level) {}

  /**
   * Known-edge indices of a shortest path that, with edge a -kind-> b, closes a forbidden cycle in
   * the graph of known edges 0..len-1; null if there is none.
   */
  closingPath(len: number, a: number, b: number, kind: number, edgesMax = Infinity): number[] | null {
    const g = this.graph(len);
    const { start, targets } = closingQuery(a, b, kind, this.level);
    const isTarget = (u: number) => targets.includes(u);
    if (this.seen.length < g.nodeCount) { this.seen = new Int32Array(g.nodeCount); this.parent = new Int32Array(g.nodeCount); this.stamp = 0; }
    const stamp = ++this.stamp;
    const queue = [start];
    const depth = [0];
    this.seen[start] = stamp;
    this.parent[start] = -1;
    for (let head = 0; head < queue.length; head++) {
      const u = queue[head]!;
      if (depth[head]! > edgesMax) break;
      if (isTarget(u)) {
        const path: number[] = [];
        for (let x = u; this.parent[x]! !== -1;) {
          const e = this.parent[x]!;
          path.push(g.outEdge[e]!);
          x = this.sourceOf(g, e);
        }
        return path.reverse();
      }
      for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
        const v = g.outTo[e]!;
        if (this.seen[v] === stamp) continue;
        this.seen[v] = stamp;
        this.parent[v] = e;
        queue.push(v);
        depth.push(depth[head]! + 1);
      }
    }
    return null;
  }

  private sourceOf(g: SplitGraph, e: number): number {
    let lo = 0, hi = g.nodeCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (g.outStart[mid]! <= e) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  private graph(len: number): SplitGraph {
    let g = this.graphs.get(len);
    if (g === undefined) {
      const k = this.pg.known;
      g = buildSplitGraph(this.pg.nodeCount, len, k.from.view(), k.to.view(), k.kind.view(), this.level);
      this.graphs.set(len, g);
    }
    return g;
  }
}

/** Builds scenarios for one checker state; keeps the per-round graphs between calls. */
export class Restorer {
  private readonly paths: PrefixPaths;
  /** Certain WR edges by `from * n + to`, built on first use (to offer a read beside a session-order edge). */
  private wrIndex: Map<number, number[]> | null = null;

  constructor(private readonly st: CheckState) {
    this.paths = new PrefixPaths(st.pg, st.level);
  }

  /**
   * A violating scenario containing the witness `cycle` (known edges: cons -1 and ref = index in
   * pg.known, forced ones included; chosen edges: their constraint and ce index).
   */
  restore(cycle: readonly Dep[], deadlineMs: number): Dep[] | null {
    const deps = new Map<string, Dep>();
    const justified = new Set<number>();
    const { pg, provenance } = this.st;
    const base = provenance === null ? pg.known.length : provenance.knownBase;
    const work: number[] = [];
    const addCe = (e: number) => {
      const d = ceDep(pg, e);
      deps.set(depKey(d), d);
      justify(d.cons);
    };
    const justify = (c: number) => {
      if (provenance === null || justified.has(c) || provenance.blockingCe[c]! < 0) return;
      justified.add(c);
      // Pruning names the first edge of the refuted side that closes a cycle; any other edge of
      // that side that closes a shorter one makes a smaller counterexample.
      const blocking = provenance.blockingCe[c]!;
      const slot = slotOfCe(pg, blocking);
      const candidates = [blocking];
      for (let e = pg.edgeStart[slot]!; e < pg.edgeStart[slot + 1]! && candidates.length < JUSTIFY_TRIES_MAX; e++) if (e !== blocking) candidates.push(e);
      let best: number[] | null = null, bestEdge = -1;
      for (const e of candidates) {
        const path = this.paths.closingPath(provenance.reachKnown[c]!, pg.ceFrom[e]!, pg.ceTo[e]!, pg.ceKind[e]!, best === null ? Infinity : best.length - 1);
        if (path !== null && (best === null || path.length < best.length)) { best = path; bestEdge = e; }
      }
      // Pruning's reachability is exact, so a reason always exists; if one ever did not, the
      // forced side is left to the growth loop below like a solver's choice (tests require
      // self-contained results, so they would notice).
      if (best === null) return;
      addCe(bestEdge);
      work.push(...best);
    };
    const addKnown = (i: number) => {
      if (i >= base) { addCe(provenance!.forcedCe.get(i - base)); return; }
      const d = knownDep(pg, i);
      deps.set(depKey(d), d);
      // A txn that follows another in its session often also read from it: offer that read, so
      // that minimization (which drops SO before WR) can keep the edge that shows more.
      if (d.kind === K_SO) for (const j of this.readsAlong(d.from, d.to, base)) deps.set(`k${j}`, knownDep(pg, j));
    };
    const drain = () => { while (work.length > 0) addKnown(work.pop()!); };

    for (const d of cycle) {
      if (d.cons < 0) addKnown(d.ref); else addCe(d.ref);
    }
    drain();
    for (let round = 0; round < GROWTH_ROUNDS_MAX; round++) {
      const list = [...deps.values()];
      const ans = solveScenario(list, this.st.level);
      if (ans.violation) return list;
      if (Date.now() > deadlineMs) return null;
      const grown = this.counterexampleFor(ans.choice, deadlineMs);
      if (grown === null) return null;
      for (const g of grown) { if (g.cons < 0) addKnown(g.ref); else addCe(g.ref); }
      drain();
    }
    return null;
  }

  private readsAlong(from: number, to: number, base: number): number[] {
    if (this.wrIndex === null) {
      this.wrIndex = new Map();
      const k = this.st.pg.known;
      const n = this.st.pg.nodeCount;
      for (let i = 0; i < base; i++) {
        if (k.kind.get(i) !== K_WR) continue;
        const id = k.from.get(i) * n + k.to.get(i);
        const list = this.wrIndex.get(id);
        if (list === undefined) this.wrIndex.set(id, [i]); else list.push(i);
      }
    }
    return this.wrIndex.get(from * this.st.pg.nodeCount + to) ?? [];
  }

  /**
   * A cycle of the whole polygraph in which the scenario's undecided constraints take the sides
   * in `choice`, or null if the solver does not answer 'unsat' within the deadline.
   */
  private counterexampleFor(choice: Map<number, number>, deadlineMs: number): Dep[] | null {
    const { pg, active, level } = this.st;
    const known = new EdgeList();
    for (let i = 0; i < pg.known.length; i++) known.push(pg.known.from.get(i), pg.known.to.get(i), pg.known.kind.get(i), pg.known.key.get(i));
    const extraCe: number[] = [];
    const active2 = active.slice();
    for (const [c, side] of choice) {
      if (active[c] !== 1) continue;
      active2[c] = 0;
      const slot = 2 * c + side;
      for (let e = pg.edgeStart[slot]!; e < pg.edgeStart[slot + 1]!; e++) {
        known.push(pg.ceFrom[e]!, pg.ceTo[e]!, pg.ceKind[e]!, pg.ceKey[e]!);
        extraCe.push(e);
      }
    }
    const pg2 = { ...pg, known };
    const out = solveConstraints(pg2, active2, { level, deadlineMs });
    if (out.result !== 'unsat') return null;
    const n0 = pg.known.length;
    return unsatCycle(pg2, active2, out, level).map((d): Dep => {
      if (d.cons >= 0) return d;
      if (d.ref < n0) return knownDep(pg, d.ref);
      return ceDep(pg, extraCe[d.ref - n0]!);
    });
  }
}
