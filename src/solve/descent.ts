/**
 * A greedy descent through the phases, straight on the acyclicity theory, before any CDCL.
 *
 * Takes: an initialized `AcyclicityTheory` with no literal assigned, and a phase per variable
 * (1 = the positive literal, 0 = the negative one).
 * Gives: the number of variables whose phase was flipped, with `phase` updated so that the
 * theory now holds every variable's literal `phase[x]` (its order sorts the fixed edges plus
 * every chosen side's edges); or -1 when some variable closes a cycle with either literal, the
 * theory then back to no literal assigned and `phase` holding the flips made so far; or
 * DESCENT_TIMED_OUT once `deadlineMs` (a Date.now() time) has passed.
 * Invariant: the theory sees tryAssign/onUnassign in LIFO order (its contract with the solver).
 *
 * Variables go in increasing order; each takes its phase, and when that closes a cycle with the
 * literals before it, the other literal (a "flip"). No clause is learnt and nothing is undone
 * but the one literal, so a descent is one pass, at most two insertions per variable.
 * Why: on a small valid history (360 txns, ~125 variables) the phases miss a model by a few
 * constraints; the CDCL solver found it after 1-3 conflicts, each a backjump over dozens of
 * decisions (each redone, a theory insertion), and its machinery (clauses, heap, trail) cost
 * more than the search, all of it cold code. A flip is the answer it reached: 27 of the 30 valid
 * corpus-40 histories end here, with 0-6 flips; the others go to the solver.
 * Sound either way: a model is only believed after solve.ts's model check; a failed descent
 * decides nothing.
 */

import type { AcyclicityTheory } from '../sat/acyclicity.ts';

/** What greedyDescent returns when `deadlineMs` passed (the theory is then left as it is). */
export const DESCENT_TIMED_OUT = -2;
const CLOCK_EVERY = 64;

export function greedyDescent(theory: AcyclicityTheory, phase: Uint8Array, deadlineMs = Number.POSITIVE_INFINITY): number {
  const n = phase.length;
  let flips = 0;
  for (let x = 0; x < n; x++) {
    // The clock once per CLOCK_EVERY variables, as the solver reads it (a history checked
    // without pruning may have 10^5 variables here).
    if ((x & (CLOCK_EVERY - 1)) === CLOCK_EVERY - 1 && Date.now() >= deadlineMs) return DESCENT_TIMED_OUT;
    // Literal 2x is x true (the constraint's either side), 2x + 1 x false.
    const l = 2 * x + (phase[x] === 1 ? 0 : 1);
    if (theory.tryAssign(l)) continue;
    theory.onUnassign(l);
    if (!theory.tryAssign(l ^ 1)) {
      theory.onUnassign(l ^ 1);
      undoDescent(theory, phase, x);
      return -1;
    }
    phase[x] ^= 1;
    flips++;
  }
  return flips;
}

/** Unassigns variables x-1 .. 0 (their literals as `phase` says), newest first. */
function undoDescent(theory: AcyclicityTheory, phase: Uint8Array, x: number): void {
  for (let y = x - 1; y >= 0; y--) theory.onUnassign(2 * y + (phase[y] === 1 ? 0 : 1));
}
