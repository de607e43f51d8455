/**
 * Adya's PL-1 (read uncommitted) and PL-2 (read committed) as Elle checks them
 * (`:read-uncommitted`, `:read-committed`): the direct serialization graph without session order.
 * PL-1 forbids G0, a cycle of write dependencies; PL-2 also G1 (G1a and G1b come from validation,
 * G1c is a cycle of write and read dependencies). Black-box, a register's version order is free,
 * so only the orders list reads reveal (known WW) can close a G0 cycle.
 *
 * Takes: a Validated history. Gives: a LevelOutcome. Linear: one Kahn pass over WW (and WR).
 */

import type { Validated } from '../validate/validate.ts';
import { buildBase } from './base.ts';
import { outcomeOf, type LevelOutcome } from './outcome.ts';
import { findCycle, SatGraph } from './saturate.ts';

export function checkPl1(v: Validated): LevelOutcome {
  const base = buildBase(v);
  const g = new SatGraph(base, false, false);
  return outcomeOf('pl-1', g, findCycle(base.n, g));
}

export function checkPl2(v: Validated): LevelOutcome {
  const base = buildBase(v);
  const g = new SatGraph(base, true, false);
  return outcomeOf('pl-2', g, findCycle(base.n, g));
}
