/**
 * The probe's result as data (schema/probe-result.schema.json): per isolation level of the
 * database, one cell per scenario, each filled from the checker's verdicts on the recorded runs.
 *
 * Takes / gives: types only, and `cellOutcome`, the one rule that turns a cell's counts into
 * its outcome.
 */

import type { LevelName } from '../result/types.ts';
import type { Counterexample } from '../result/counterexample.ts';

/**
 * allowed: some run's history violated the level the scenario probes (the checker found the
 * anomaly the scenario is about).
 * undecided: no run violated it, and in some run the checker could not decide the probed level
 *   (a limit, or a case it answers `unknown`): never shown as prevented.
 * prevented-abort: no anomaly, and in some run the database aborted a transaction.
 * prevented-blocking: no anomaly, no abort, and in some run a step blocked.
 * prevented: no anomaly, nothing blocked or aborted: the reads simply saw a consistent state.
 * not-exercised: no run was judged (the level was refused, or the probe stopped first).
 * not-expressible: the scenario needs what the probe cannot send yet (predicates).
 */
export type CellOutcome = 'allowed' | 'undecided' | 'prevented-abort' | 'prevented-blocking' | 'prevented' | 'not-exercised' | 'not-expressible';

export interface CellAnomaly {
  /** The counterexample's label: its class and description ('G1a (aborted read)', 'lost update'). */
  name: string;
  /** Its Adya/Elle/Hermitage class (explain/name.ts). */
  class: string;
  description: string;
  /** The weakest violated level, whose counterexample this is. */
  level: LevelName;
  /** The recorded history of the run that showed it. */
  file: string;
  counterexample: Counterexample | null;
}

export interface Cell {
  scenario: string;
  outcome: CellOutcome;
  /** Runs judged, of `planned`; fewer when the probe stopped (the cell is incomplete). */
  runs: number;
  planned: number;
  incomplete: boolean;
  /** The level the scenario probes (Scenario.probes). */
  probes: LevelName;
  /** Runs whose history violated the probed level. */
  allowedRuns: number;
  /** Runs in which some step blocked / the database aborted a transaction / a commit's answer was lost. */
  blockedRuns: number;
  abortedRuns: number;
  unknownRuns: number;
  /** Runs whose history the checker could not decide at the probed level. */
  undecidedRuns: number;
  /** Database aborts by code, over all runs (scripted rollbacks not counted). */
  abortCodes: Record<string, number>;
  /** Every level some run violated, weakest first. */
  violated: LevelName[];
  /**
   * Every level some run left undecided (the checker's unknown: for predicate histories, a
   * search over unreturned rows' versions it does not implement), weakest first. Such a level is
   * not in the level's `actual`: no one showed that the run satisfied it.
   */
  undecided: LevelName[];
  /** The first run's counterexample for the probed level (null when none violated it). */
  anomaly: CellAnomaly | null;
  /**
   * When no run violated the probed level but some run violated another one (a write skew in
   * the G1c scenario at snapshot isolation): the first such counterexample, for the record.
   */
  other: CellAnomaly | null;
}

export interface LevelReport {
  /** The database's name for the level ('read-committed', or the embedded store's mode). */
  level: string;
  /** Our level the database's name claims (docs/probe.md), null when it claims none. */
  claimed: LevelName | null;
  /** Why the database refused the level ('' when it ran). */
  refused: string;
  /** The strongest of our levels every judged run at this level satisfied (maximal elements). */
  actual: LevelName[];
  runs: number;
  cells: Cell[];
}

export interface ProbeResult {
  schemaVersion: 1;
  /** The database, password hidden. */
  database: string;
  kind: 'postgres' | 'mysql' | 'memory';
  repeat: number;
  blockMs: number;
  /** Where the runs' histories are. */
  outDir: string;
  /** Stopped before every planned run was judged (Ctrl-C). */
  interrupted: boolean;
  elapsedMs: number;
  scenarios: { id: string; title: string; source: string; steps: string; notExpressible: string }[];
  levels: LevelReport[];
}

/** The cell's outcome from its counts (see CellOutcome). */
export function cellOutcome(c: Pick<Cell, 'runs' | 'allowedRuns' | 'abortedRuns' | 'blockedRuns' | 'undecidedRuns'>): CellOutcome {
  if (c.allowedRuns > 0) return 'allowed';
  if (c.runs === 0) return 'not-exercised';
  if (c.undecidedRuns > 0) return 'undecided';
  if (c.abortedRuns > 0) return 'prevented-abort';
  if (c.blockedRuns > 0) return 'prevented-blocking';
  return 'prevented';
}
