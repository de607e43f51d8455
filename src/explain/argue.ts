/**
 * Resolve (PolySI Appendix C), as an argument a person can check.
 *
 * Takes: a violating scenario (certain edges and constraints with some of their edges).
 * Gives: the steps of a proof that no choice avoids a forbidden cycle, or null past a size bound:
 * - start from the certain edges;
 * - if they already hold a forbidden cycle: a contradiction, done;
 * - if both sides of some constraint would close a cycle: a dilemma, done;
 * - if one side of a constraint would close a cycle, the other side is forced: its edges become
 *   derived, and the search goes on;
 * - otherwise split on a constraint: each side, assumed in turn, must lead to a contradiction.
 * Every cycle is a short one found by breadth-first search, among the edges established so far
 * plus the supposed side. On a minimal scenario the search always ends in contradictions.
 */

import type { Level } from '../result/types.ts';
import { K_RW } from '../graph/edges.ts';
import { shortCycle, type Dep } from './scenario.ts';

export type ArgStep =
  | { kind: 'forced'; cons: number; side: number; refuted: number; cycle: number[]; derived: number[] }
  | { kind: 'contradiction'; cycle: number[] }
  | { kind: 'dilemma'; cons: number; either: number[]; or: number[] }
  | { kind: 'cases'; cons: number; either: ArgStep[]; or: ArgStep[] };

/** Bound on the steps of one argument (case splits can multiply them). */
export const ARGUMENT_STEPS_MAX = 400;

class Budget {
  used = 0;
  spend(): boolean {
    return ++this.used <= ARGUMENT_STEPS_MAX;
  }
}

export function argue(deps: readonly Dep[], level: Level): ArgStep[] | null {
  const sides = new Map<number, [number[], number[]]>();
  const certain: number[] = [];
  deps.forEach((d, i) => {
    if (d.cons < 0) { certain.push(i); return; }
    let s = sides.get(d.cons);
    if (s === undefined) { s = [[], []]; sides.set(d.cons, s); }
    s[d.side]!.push(i);
  });
  const cycleAmong = (ids: readonly number[]): number[] | null => {
    const local = shortCycle(ids.map((i) => deps[i]!), level);
    return local === null ? null : local.map((j) => ids[j]!);
  };
  const budget = new Budget();

  const from = (established: readonly number[], open: readonly number[]): ArgStep[] | null => {
    const est = [...established];
    let undecided = [...open];
    const steps: ArgStep[] = [];
    for (;;) {
      if (!budget.spend()) return null;
      const cyc = cycleAmong(est);
      if (cyc !== null) {
        steps.push({ kind: 'contradiction', cycle: rotateContradiction(cyc, deps) });
        return steps;
      }
      let forced: { cons: number; side: number; cycle: number[] } | null = null;
      for (const c of undecided) {
        const [either, or] = sides.get(c)!;
        const ce = cycleAmong([...est, ...either]);
        const co = cycleAmong([...est, ...or]);
        if (ce !== null && co !== null) {
          steps.push({ kind: 'dilemma', cons: c, either: rotateTo(ce, either), or: rotateTo(co, or) });
          return steps;
        }
        if (forced === null && (ce !== null || co !== null)) {
          forced = ce !== null ? { cons: c, side: 1, cycle: rotateTo(ce, either) } : { cons: c, side: 0, cycle: rotateTo(co!, or) };
        }
      }
      if (forced !== null) {
        const derived = sides.get(forced.cons)![forced.side]!;
        steps.push({ kind: 'forced', cons: forced.cons, side: forced.side, refuted: forced.cycle[0]!, cycle: forced.cycle, derived: [...derived] });
        est.push(...derived);
        undecided = undecided.filter((c) => c !== forced.cons);
        continue;
      }
      if (undecided.length === 0) throw new Error('internal error: the argument ran out of constraints without a contradiction');
      const c = undecided[0]!;
      const rest = undecided.slice(1);
      const [either, or] = sides.get(c)!;
      const a = from([...est, ...either], rest);
      const b = a === null ? null : from([...est, ...or], rest);
      if (a === null || b === null) return null;
      steps.push({ kind: 'cases', cons: c, either: a, or: b });
      return steps;
    }
  };
  return from(certain, [...sides.keys()]);
}

/** The cycle rotated to start with its first edge from `side` (the supposed one). */
function rotateTo(cycle: number[], side: readonly number[]): number[] {
  const at = cycle.findIndex((i) => side.includes(i));
  return at <= 0 ? cycle : [...cycle.slice(at), ...cycle.slice(0, at)];
}

/** A contradiction reads best ending with its (last) RW edge: "... so R misses W's write". */
function rotateContradiction(cycle: number[], deps: readonly Dep[]): number[] {
  let at = -1;
  cycle.forEach((i, j) => { if (deps[i]!.kind === K_RW) at = j; });
  if (at < 0) return cycle;
  const start = (at + 1) % cycle.length;
  return [...cycle.slice(start), ...cycle.slice(0, start)];
}
