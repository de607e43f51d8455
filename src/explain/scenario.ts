/**
 * Scenarios: small sub-polygraphs, and the two questions the explain stage asks of them.
 *
 * Takes: a list of `Dep`s, each a known edge (cons = -1) or one edge of one side of a constraint
 * of the history's Polygraph. Gives: `solveScenario` (is every choice of the scenario's constraints
 * cyclic? if not, one acyclic choice) and `shortCycle` (a short forbidden cycle among given deps).
 * Both re-use the checker's own machinery (a compact Polygraph handed to `solveConstraints`, and
 * the split graph with `findShortCycle`) on a graph renumbered to the transactions involved, so
 * their cost depends on the scenario's size, not the history's.
 */

import type { Level } from '../result/types.ts';
import { EdgeList } from '../graph/edges.ts';
import type { Polygraph } from '../graph/polygraph.ts';
import { forbiddenCycle } from '../graph/forbidden.ts';
import { solveConstraints } from '../solve/solve.ts';

/** One dependency of a scenario. */
export interface Dep {
  from: number;
  to: number;
  /** K_SO, K_WR, K_WW, K_RW or K_RT. */
  kind: number;
  key: number;
  /** The Polygraph constraint whose side this edge belongs to, or -1 for an edge known from the history. */
  cons: number;
  /** 0 = either, 1 = or; -1 for known edges. */
  side: number;
  /** Known edges: index in `pg.known`; constraint edges: index in `pg.ce*`. */
  ref: number;
}

export function depKey(d: Dep): string {
  return d.cons < 0 ? `k${d.ref}` : `c${d.ref}`;
}

/** Transactions renumbered 0..m-1 in order of first appearance. */
function compact(deps: readonly Dep[]): { index: Map<number, number>; count: number } {
  const index = new Map<number, number>();
  for (const d of deps) {
    if (!index.has(d.from)) index.set(d.from, index.size);
    if (!index.has(d.to)) index.set(d.to, index.size);
  }
  return { index, count: index.size };
}

export interface ScenarioAnswer {
  violation: boolean;
  /** When not a violation: for each constraint id in the scenario, the side of one acyclic choice. */
  choice: Map<number, number>;
}

/** Is every choice of the scenario's constraints cyclic (a violation of `level`)? */
export function solveScenario(deps: readonly Dep[], level: Level): ScenarioAnswer {
  const { index, count } = compact(deps);
  const known = new EdgeList();
  const consIds: number[] = [];
  const consOf = new Map<number, number>();
  for (const d of deps) {
    if (d.cons < 0) { known.push(index.get(d.from)!, index.get(d.to)!, d.kind, d.key); continue; }
    if (!consOf.has(d.cons)) { consOf.set(d.cons, consIds.length); consIds.push(d.cons); }
  }
  const m = consIds.length;
  const edgeStart = new Int32Array(2 * m + 1);
  for (const d of deps) if (d.cons >= 0) edgeStart[2 * consOf.get(d.cons)! + d.side + 1]!++;
  for (let s = 0; s < 2 * m; s++) edgeStart[s + 1]! += edgeStart[s]!;
  const total = edgeStart[2 * m]!;
  const fill = edgeStart.slice(0, 2 * m);
  const ceFrom = new Int32Array(total), ceTo = new Int32Array(total), ceKind = new Uint8Array(total), ceKey = new Int32Array(total);
  for (const d of deps) {
    if (d.cons < 0) continue;
    const at = fill[2 * consOf.get(d.cons)! + d.side]!++;
    ceFrom[at] = index.get(d.from)!; ceTo[at] = index.get(d.to)!; ceKind[at] = d.kind; ceKey[at] = d.key;
  }
  const pg: Polygraph = {
    nodeCount: Math.max(1, count), known, consCount: m,
    consA: new Int32Array(m), consB: new Int32Array(m), edgeStart, ceFrom, ceTo, ceKind, ceKey,
  };
  const out = solveConstraints(pg, new Uint8Array(m).fill(1), { level, deadlineMs: Number.POSITIVE_INFINITY });
  if (out.result === 'unknown') throw new Error('internal error: the solver gave up on a scenario without a budget');
  const choice = new Map<number, number>();
  if (out.result === 'sat') consIds.forEach((c, i) => choice.set(c, out.choice![i]!));
  return { violation: out.result === 'unsat', choice };
}

/**
 * A short cycle of the split graph of `deps` (one the level forbids), as indices into `deps` in
 * cycle order, or null if there is none.
 */
export function shortCycle(deps: readonly Dep[], level: Level): number[] | null {
  const { index, count } = compact(deps);
  const from = Int32Array.from(deps, (d) => index.get(d.from)!), to = Int32Array.from(deps, (d) => index.get(d.to)!);
  const cycle = forbiddenCycle(count, deps.length, from, to, Int32Array.from(deps, (d) => d.kind), level);
  return cycle === null ? null : Array.from(cycle);
}
