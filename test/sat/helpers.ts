/**
 * Shared test helpers for the solver tests: a seeded PRNG, the fuzz scale, brute-force
 * oracles, and a theory wrapper that checks the solver's onAssign/onUnassign contract.
 * Not a test file itself (no `.test.ts` suffix).
 */

import type { Lit, SolverOptions, Theory } from '../../src/sat/cdcl.ts';
export { mulberry32 } from '../support/prng.ts';


/** Integer in [lo, hi] inclusive. */
export function randInt(rng: () => number, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

/** Case-count multiplier from POLYSI_FUZZ_SCALE (default 1). */
export const FUZZ_SCALE: number = (() => {
  const raw = process.env['POLYSI_FUZZ_SCALE'];
  const x = raw === undefined ? 1 : Number(raw);
  return Number.isFinite(x) && x > 0 ? x : 1;
})();

/** Per-test time limit, so a solver bug that loops shows as a failure rather than a hang. */
export const TIMEOUT_MS = 120_000 * FUZZ_SCALE;

export function scaled(n: number): number {
  return Math.max(1, Math.round(n * FUZZ_SCALE));
}

/** Is literal l true under assignment bits (bit v = value of var v)? */
export function litTrue(l: Lit, bits: number): boolean {
  const value = ((bits >> (l >> 1)) & 1) === 1;
  return (l & 1) === 1 ? !value : value;
}

export function clausesSatisfied(clauses: Lit[][], bits: number): boolean {
  for (const c of clauses) {
    let sat = false;
    for (const l of c) {
      if (litTrue(l, bits)) {
        sat = true;
        break;
      }
    }
    if (!sat) return false;
  }
  return true;
}

/** Acyclicity by recursive DFS with colours (small graphs only; independent of the library). */
export function isAcyclic(n: number, edges: Array<[number, number]>): boolean {
  const adj: number[][] = Array.from({ length: n }, () => []);
  for (const [u, v] of edges) adj[u]!.push(v);
  const color = new Array<number>(n).fill(0);
  const dfs = (u: number): boolean => {
    color[u] = 1;
    for (const w of adj[u]!) {
      if (color[w] === 1) return false;
      if (color[w] === 0 && !dfs(w)) return false;
    }
    color[u] = 2;
    return true;
  };
  for (let u = 0; u < n; u++) if (color[u] === 0 && !dfs(u)) return false;
  return true;
}

/**
 * Wraps a theory (or none) and records contract violations: a variable given to onAssign twice
 * without an unassign in between, or onUnassign not in exact reverse order of onAssign.
 */
export class ContractCheckingTheory implements Theory {
  readonly stack: Lit[] = [];
  violations = 0;
  assigns = 0;
  private readonly assignedVars = new Set<number>();

  constructor(private readonly inner: Theory | null) {}

  onAssign(lit: Lit): Lit[] | null {
    this.assigns++;
    if (this.assignedVars.has(lit >> 1)) this.violations++;
    this.assignedVars.add(lit >> 1);
    this.stack.push(lit);
    return this.inner === null ? null : this.inner.onAssign(lit);
  }

  onUnassign(lit: Lit): void {
    const top = this.stack.pop();
    if (top !== lit) this.violations++;
    this.assignedVars.delete(lit >> 1);
    this.inner?.onUnassign(lit);
  }
}

/**
 * Configurations the fuzz cycles through: defaults; restarts, reductions and chronological
 * backtracking on every conflict; and classic non-chronological backjumping only.
 */
export const AGGRESSIVE: SolverOptions = {
  restartUnitConflicts: 1,
  reduceFirstConflicts: 3,
  reduceIncrementConflicts: 1,
  chronoThresholdLevels: 0,
};
export const NO_CHRONO: SolverOptions = { chronoThresholdLevels: Infinity, restartUnitConflicts: 3 };
export const CONFIGS: Array<SolverOptions | undefined> = [undefined, AGGRESSIVE, NO_CHRONO];
