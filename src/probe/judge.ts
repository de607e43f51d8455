/**
 * The probe's judge: a recorded run, checked by the checker at every level of the ladder.
 *
 * Takes: the path of one run's history (JSON Lines). Gives: a RunVerdict: which levels the run
 * satisfied and violated, with each violated level's counterexample and its name; `anomalyAt`
 * picks the one that shows a given level violated.
 * Invariant: nothing here knows what the scenario was meant to show; the verdict is the
 * checker's alone (checkLevels), so a scenario that shows something unexpected shows it.
 */

import { readHistory } from '../formats/index.ts';
import { checkLevels } from '../check/ladder.ts';
import { LEVEL_NAMES, type LevelName } from '../result/types.ts';
import { implies } from '../result/lattice.ts';
import type { Counterexample } from '../result/counterexample.ts';

export interface JudgedAnomaly {
  level: LevelName;
  counterexample: Counterexample | null;
  name: string;
  cls: string;
  description: string;
}

export interface RunVerdict {
  satisfied: LevelName[];
  violated: LevelName[];
  /** Levels whose check hit a limit or could not run. */
  undecided: LevelName[];
  /** Each violated level that was checked itself, with its counterexample, weakest first. */
  anomalies: JudgedAnomaly[];
}

/**
 * The counterexample that shows `level` violated: its own, else that of the strongest violated
 * level below it (a level that inherited its violation). Null when `level` was not violated.
 */
export function anomalyAt(v: RunVerdict, level: LevelName): JudgedAnomaly | null {
  if (!v.violated.includes(level)) return null;
  const own = v.anomalies.find((a) => a.level === level);
  if (own !== undefined) return own;
  const below = v.anomalies.filter((a) => implies(level, a.level));
  return below[below.length - 1] ?? null;
}

/** Bound on checking one run (they are tiny; this only guards against a pathological history). */
export const JUDGE_TIMEOUT_MS = 30_000;

/**
 * The name of a counterexample for the table: its class (Adya, Elle, Hermitage) and the level's
 * reading of it, as explain/name.ts gives them (`G-single (read skew)`).
 */
export function anomalyNames(cx: Counterexample): { name: string; cls: string; description: string } {
  const name = cx.description === null ? cx.class : `${cx.class} (${cx.description})`;
  return { name, cls: cx.class, description: cx.description ?? cx.summary };
}

export async function judgeRun(path: string): Promise<RunVerdict> {
  const { history } = await readHistory(path, 'jsonl');
  const lr = checkLevels(history, { pruning: true, explain: true, maxAnomalies: 1, timeoutMs: JUDGE_TIMEOUT_MS });
  const v: RunVerdict = { satisfied: [], violated: [], undecided: [], anomalies: [] };
  for (const row of lr.rows) {
    if (row.status === 'satisfied') v.satisfied.push(row.level);
    else if (row.status === 'violated') v.violated.push(row.level);
    else v.undecided.push(row.level);
  }
  for (const level of LEVEL_NAMES) {
    const row = lr.rows.find((r) => r.level === level)!;
    if (row.status !== 'violated' || row.basis !== 'checked' || row.result === null) continue;
    const cx = row.result.anomalies[0]?.explanation ?? null;
    const names = cx === null ? { name: 'violation', cls: '', description: '' } : anomalyNames(cx);
    v.anomalies.push({ level, counterexample: cx, ...names });
  }
  return v;
}
