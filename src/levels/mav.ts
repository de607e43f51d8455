/**
 * Monotonic atomic view (Bailis et al., "Highly Available Transactions", VLDB 2014, §5.1.2 and
 * Appendix: PL-2 without OTV, "observed transaction vanishes"): once a transaction has observed
 * t2 (read something t2 wrote), a later read of a key t2 wrote does not return a version older
 * than t2's. That is the read-committed axiom of Biswas & Enea (rc.ts) with its premise along
 * reads only, over a graph without session order (HAT's definitions are Adya's, whose graphs
 * have none; session guarantees are separate levels there):
 *   t1 -WR(x)-> α,  t2 -WR-> β,  β before α in t3,  t2 writes x,  t1 ≠ t2   ⟹   t2 -WW-> t1.
 * Hermitage's "actual level" of PostgreSQL's and MySQL's read committed; Elle's
 * `:monotonic-atomic-view`.
 *
 * Takes: a Validated history. Gives: a LevelOutcome. Cost: as read committed.
 */

import type { Validated } from '../validate/validate.ts';
import { buildBase } from './base.ts';
import { outcomeOf, type LevelOutcome } from './outcome.ts';
import { deriveRc } from './rc.ts';
import { findCycle, SatGraph } from './saturate.ts';

export function checkMav(v: Validated): LevelOutcome {
  const base = buildBase(v);
  const g = new SatGraph(base, true, false);
  if (!deriveRc(base, g, false)) return outcomeOf('mav', g, null);
  return outcomeOf('mav', g, findCycle(base.n, g));
}
