/**
 * The solver's vocabulary: literals, the theory hook, budgets, options and statistics.
 *
 * Takes / gives: types and four tiny literal functions, nothing else (like MiniSat's
 * SolverTypes.h). Invariant of the literal encoding: `lit = 2 * var + (negated ? 1 : 0)`, so
 * `lit ^ 1` is the negation and `lit >> 1` the variable.
 */

export type Lit = number;

export function mkLit(v: number, negated = false): Lit {
  return 2 * v + (negated ? 1 : 0);
}
export function litVar(l: Lit): number {
  return l >> 1;
}
/** True if `l` is the negative literal of its variable. */
export function litNeg(l: Lit): boolean {
  return (l & 1) === 1;
}
export function negate(l: Lit): Lit {
  return l ^ 1;
}

export interface Theory {
  /**
   * Called when `lit` becomes true, in trail order, after unit propagation reached a fixpoint.
   * Return null if consistent, or a conflict clause: literals that are ALL currently false.
   * A call that returns a conflict still counts as a call: `onUnassign(lit)` will follow it.
   */
  onAssign(lit: Lit): Lit[] | null;
  /** Called when `lit` is unassigned during backtracking, in exact reverse order of onAssign calls. */
  onUnassign(lit: Lit): void;
}

export type SolveResult = 'sat' | 'unsat' | 'unknown';

export interface SolveLimits {
  /** Give up ('unknown') after this many conflicts in this call. */
  conflictsMax?: number;
  /** Give up ('unknown') once `Date.now()` reaches this absolute time in ms. */
  deadlineMs?: number;
}

export interface SolverStats {
  conflicts: number;
  decisions: number;
  /** Literals dequeued by unit propagation. */
  propagations: number;
  restarts: number;
  /** Learnt clauses currently kept in the database (units are not counted: they become facts). */
  learnts: number;
  /** Learnt-clause database reductions done. */
  reductions: number;
  /** Clause-arena compactions done (each rewatches every clause). */
  compactions: number;
}

/** Search tuning; the defaults suit PolySI. Tests shrink the intervals to exercise rare paths. */
export interface SolverOptions {
  /** Conflicts per Luby unit between restarts (default 100). */
  restartUnitConflicts?: number;
  /** Conflicts before the first learnt-clause reduction (default 2000); the gap then grows by `reduceIncrementConflicts`. */
  reduceFirstConflicts?: number;
  /** Growth of the gap between reductions (default 300). */
  reduceIncrementConflicts?: number;
  /** Failed-literal probing before the first search when a theory is set (default true). */
  probeWithTheory?: boolean;
  /**
   * Chronological backtracking: when a backjump would undo more than this many decision levels,
   * undo only one and assign the learnt literal at its (lower) level (default 100; 0 = always,
   * Infinity = never).
   */
  chronoThresholdLevels?: number;
}
