/**
 * Read uncommitted (Adya PL-1): no G0, a cycle of write dependencies. Black-box, a register's
 * version order is free, so only the orders list reads reveal (known WW) and session order can
 * close one; aborted and intermediate reads (G1a, G1b) are allowed at this level (the caller
 * drops them from validation's anomalies).
 *
 * Takes: a Validated history. Gives: a LevelOutcome. Linear: one Kahn pass over SO ∪ WW.
 */

import type { Validated } from '../validate/validate.ts';
import { buildBase } from './base.ts';
import { outcomeOf, type LevelOutcome } from './outcome.ts';
import { findCycle, SatGraph } from './saturate.ts';

export function checkRu(v: Validated): LevelOutcome {
  const base = buildBase(v);
  const g = new SatGraph(base, false);
  return outcomeOf('ru', g, findCycle(base.n, g));
}
