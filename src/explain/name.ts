/**
 * Naming anomalies by the shape of their cycles (docs/explain.md has the rules and references).
 *
 * Takes: the cycles an argument ends with (each a list of edges in order) and the sessions of
 * the counterexample's transactions. Gives: each cycle's Adya-style class (G0, G1c, G-single,
 * G-nonadjacent, G2) and the most specific name that fits one of them.
 */

import type { CycleClass, AnomalyName } from '../result/counterexample.ts';
import { KIND_NAMES, K_RT, K_RW, K_SO, K_WR, K_WW } from '../graph/edges.ts';
import type { DepEdge, Level } from '../result/types.ts';

export interface ShapeEdge {
  from: number;
  to: number;
  kind: number;
  key: number;
}

/** The writer whose version of `key` txn t read (INIT_TXN for the initial value), or null if t did not read it. */
export type ReadSource = (t: number, key: number) => number | null;

/** The class of a cycle from its RW edges: none, one, several never adjacent, or some adjacent. */
export function cycleClass(cycle: readonly ShapeEdge[]): CycleClass {
  const n = cycle.length;
  let rw = 0, adjacent = false;
  for (let i = 0; i < n; i++) {
    if (cycle[i]!.kind !== K_RW) continue;
    rw++;
    if (n > 1 && cycle[(i + 1) % n]!.kind === K_RW) adjacent = true;
  }
  if (rw === 0) return cycle.every((e) => e.kind === K_WW) ? 'G0' : 'G1c';
  if (rw === 1) return 'G-single';
  return adjacent ? 'G2' : 'G-nonadjacent';
}

const causal = (e: ShapeEdge) => e.kind === K_SO || e.kind === K_WR;

/**
 * The most specific name for one cycle. `oneSession`: every transaction of the counterexample
 * belongs to the same session. A lost update also needs both writers to have read the key from
 * the same writer (read-modify-write on one version); a blind write makes it a plain G-single.
 */
export function nameCycle(cycle: readonly ShapeEdge[], oneSession: boolean, readSource: ReadSource, level?: Level): AnomalyName {
  // A cycle through the real-time order: what the strict level adds is what it violates.
  if (cycle.some((e) => e.kind === K_RT)) return 'real-time violation';
  const cls = cycleClass(cycle);
  const n = cycle.length;
  const rws = cycle.filter((e) => e.kind === K_RW);
  const others = cycle.filter((e) => e.kind !== K_RW);
  if (n === 2 && rws.length === 1 && others[0]!.kind === K_WW && others[0]!.key === rws[0]!.key) {
    const rw = rws[0]!;
    const a = readSource(rw.from, rw.key), b = readSource(rw.to, rw.key);
    if (a !== null && a === b) return 'lost update';
  }
  // Two read-modify-writes of one key from the same version, each overwriting what the other
  // read: the RW;RW form of a lost update (what SER sees; SI sees it as RW;WW above).
  if (n === 2 && rws.length === 2 && rws[0]!.key === rws[1]!.key) {
    const a = readSource(rws[0]!.from, rws[0]!.key), b = readSource(rws[1]!.from, rws[1]!.key);
    if (a !== null && a === b) return 'lost update';
  }
  if (n === 2 && rws.length === 1 && others[0]!.kind === K_WR) return 'read skew';
  if (cls === 'G-single' && others.every(causal)) {
    return oneSession && others.every((e) => e.kind === K_SO) ? 'session guarantee violation' : 'causality violation';
  }
  if (cls === 'G-nonadjacent' && rws.length === 2 && others.every(causal)) return 'long fork';
  if (cls === 'G2' && n === 2) return 'write skew';
  // Repeatable read (PL-2.99) forbids exactly the item anti-dependency cycles (Adya's G2-item).
  if (level === 'rr' && cls !== 'G0' && cls !== 'G1c') return 'G2-item';
  return cls;
}

/** Most specific first: the order in which names win when an argument ends in several cycles. */
export const NAME_PRIORITY: readonly AnomalyName[] = [
  'real-time violation', 'lost update', 'long fork', 'read skew', 'session guarantee violation', 'causality violation',
  'write skew', 'G2-item', 'G-single', 'G-nonadjacent', 'G2', 'G1c', 'G0',
];

/**
 * Cycle shapes from the most permissive (forbidden only by the strongest levels) to the least:
 * a real-time cycle (only the strict levels), G2 (SER, RR), G-nonadjacent (SI, PC), G-single
 * (from causal consistency up), G1c (from read committed up), G0 (every level).
 */
const PERMISSIVE: readonly string[] = ['RT', 'G2', 'G-nonadjacent', 'G-single', 'G1c', 'G0'];
const shapeOf = (c: readonly ShapeEdge[]): string => (c.some((e) => e.kind === K_RT) ? 'RT' : cycleClass(c));

/**
 * The name of a counterexample whose argument ends in several cycles (a dilemma or a case
 * split), and the index of the cycle that gives it. The argument proves only what every
 * alternative proves together, so the name comes from the most permissive shape among them: a
 * dilemma between a G-single and a write skew shows a SER violation, not a causality violation
 * (which would claim that causal consistency and SI fail too). Among cycles of that shape, the
 * most specific name wins.
 */
export function nameCycles(cycles: readonly (readonly ShapeEdge[])[], oneSession: boolean, readSource: ReadSource, level?: Level): { name: AnomalyName; cycle: number } {
  const loosest = Math.min(...cycles.map((c) => PERMISSIVE.indexOf(shapeOf(c))));
  let best = -1, bestRank = Number.POSITIVE_INFINITY;
  let name: AnomalyName = 'G1c';
  cycles.forEach((c, i) => {
    if (PERMISSIVE.indexOf(shapeOf(c)) !== loosest) return;
    const nm = nameCycle(c, oneSession, readSource, level);
    const rank = NAME_PRIORITY.indexOf(nm);
    if (rank < bestRank) { bestRank = rank; best = i; name = nm; }
  });
  return { name, cycle: best };
}

/** The class of a witness cycle that was not explained (no argument behind it): its shape only. */
export function witnessCycleName(edges: readonly DepEdge[]): CycleClass {
  return cycleClass(edges.map((e) => ({ from: e.from, to: e.to, kind: KIND_NAMES.indexOf(e.kind), key: e.key })));
}
