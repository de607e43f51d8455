/**
 * What every saturation level returns (`checkRu`, `checkRc`, `checkRa`, `checkTcc`, ...): the verdict
 * and, on a violation, the evidence as indices into the level's `SatGraph`, which `explain/`
 * turns into a `Counterexample`.
 *
 * Invariant: 'violation' comes with `cycle` (edge indices of `graph`, in order, each edge's `to`
 * the next one's `from`) or with `initViolation`; 'unknown' with `unknownReason`.
 */

import type { InitViolation, SatGraph } from './saturate.ts';

export type SaturationLevel = 'pl-1' | 'ru' | 'pl-2' | 'mav' | 'rc' | 'ss-rc' | 'ra' | 'tcc';

export interface LevelOutcome {
  level: SaturationLevel;
  verdict: 'valid' | 'violation' | 'unknown';
  graph: SatGraph;
  cycle: number[] | null;
  initViolation: InitViolation | null;
  unknownReason?: string;
  /** Edges of the saturated graph, of which `derived` were derived by the level's axiom. */
  edges: number;
  derived: number;
}

export function outcomeOf(level: SaturationLevel, graph: SatGraph, cycle: number[] | null): LevelOutcome {
  const initViolation = graph.initViolation;
  return {
    level,
    verdict: initViolation !== null || cycle !== null ? 'violation' : 'valid',
    graph,
    cycle: initViolation !== null ? null : cycle,
    initViolation,
    edges: graph.length,
    derived: graph.derivedCount,
  };
}
