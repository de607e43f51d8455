/**
 * The isolation ladder: every level of LEVEL_NAMES checked on one history (`polysi check --levels`).
 *
 * Takes: a History and the options of checkHistory (without `level`; `timeoutMs` bounds the
 * whole ladder). Gives: a LevelsResult, one row per level (satisfied, violated, unknown or not
 * checked, and on what basis), and the strongest levels satisfied: the maximal elements of the
 * satisfied set, which is a set because the levels form a lattice, not a chain.
 * Throws the InputError of checkHistory when no level can use the input (one that only some
 * levels refuse leaves those 'not checked', with the reason).
 * Invariant: a level is 'satisfied' only when checkHistory said so for it or for a stronger
 * level it is implied by (never for a level checkHistory does not decide); 'violated' only when
 * checkHistory found a violation of it, or of a weaker level (then its counterexample is that
 * one's: the row names the level). Every level checkHistory decides and no satisfied level
 * implies is checked itself, so each violated level that can be checked has its own
 * counterexample.
 *
 * Order: strongest first (LEVEL_NAMES backwards, a linear extension of the lattice reversed).
 * A satisfied level settles every level below it for free, so a history that satisfies strict
 * serializability costs one check; each violated level is then checked in turn, down to the
 * first satisfied level on every path.
 */

import type { History } from '../history/model.ts';
import { InputError } from '../history/errors.ts';
import { implies, strongestOf } from '../result/lattice.ts';
import { LEVEL_NAMES, type CheckOptions, type CheckResult, type LevelName } from '../result/types.ts';
import { checkHistory, checkNonCycleOnly, cyclesAbsent, isImplementedLevel, notImplementedReason } from './index.ts';
import { now } from '../util/clock.ts';

export type LevelStatus = 'satisfied' | 'violated' | 'unknown' | 'not checked';

/**
 * checked: checkHistory ran for this level (`result`). implied: a stronger level (`from`) was
 * found satisfied. inherited: a weaker level (`from`) was found violated, and this level was not
 * decided by its own check (not implemented, or its check hit a limit). none: not checked.
 */
export type LevelBasis = 'checked' | 'implied' | 'inherited' | 'none';

export interface LevelRow {
  level: LevelName;
  status: LevelStatus;
  basis: LevelBasis;
  /** implied: the satisfied stronger level; inherited: the violated weaker level whose counterexample stands for this one. */
  from: LevelName | null;
  /** The check of this level, when it ran (also for an 'unknown' result later upgraded by inheritance). */
  result: CheckResult | null;
  /** Why the status is 'not checked' or 'unknown' ('' otherwise). */
  reason: string;
}

export interface LevelsResult {
  /** One row per level, in LEVEL_NAMES order (weakest first). */
  rows: LevelRow[];
  /** The maximal satisfied levels (pairwise incomparable), weakest first. */
  strongest: LevelName[];
  /** The levels checkHistory ran on, in the order it ran them. */
  checked: LevelName[];
  counts: CheckResult['counts'];
  timesMs: { parse: number; total: number };
}

export interface LevelsOptions extends Omit<CheckOptions, 'level'> {
  /** Called before each level's check, for progress lines. */
  onLevel?: (level: LevelName) => void;
}

/** One counterexample per level unless asked for more: the table, not the search, is the point. */
export const LADDER_MAX_ANOMALIES_DEFAULT = 1;

export function checkLevels(h: History, opts: LevelsOptions, parseMs = 0): LevelsResult {
  const t0 = now();
  const deadlineMs = opts.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + opts.timeoutMs;
  const { onLevel, ...common } = opts;
  const rows = new Map<LevelName, LevelRow>(LEVEL_NAMES.map((l) => [l, {
    level: l, status: 'not checked', basis: 'none', from: null, result: null, reason: notImplementedReason(l),
  }]));
  const checked: LevelName[] = [];
  const refused: InputError[] = [];
  let counts: CheckResult['counts'] | null = null;
  // Levels violated by non-cycle anomalies alone, whose cycle search found nothing on the rest:
  // a weaker level's would find nothing either, so it is decided from validation (index.ts).
  const acyclic: LevelName[] = [];

  for (let i = LEVEL_NAMES.length - 1; i >= 0; i--) {
    const level = LEVEL_NAMES[i]!;
    const row = rows.get(level)!;
    if (row.status === 'satisfied' || !isImplementedLevel(level)) continue;
    onLevel?.(level);
    const remainingMs = Math.max(0, deadlineMs - Date.now());
    let result: CheckResult;
    try {
      const levelOpts = {
        ...common,
        level,
        maxAnomalies: common.maxAnomalies ?? LADDER_MAX_ANOMALIES_DEFAULT,
        ...(Number.isFinite(remainingMs) ? { timeoutMs: remainingMs } : {}),
      };
      const above = level === 'ru' ? undefined : acyclic.find((a) => implies(a, level));
      result = above === undefined ? checkHistory(h, levelOpts, parseMs) : checkNonCycleOnly(h, levelOpts, parseMs);
      if (cyclesAbsent(result)) acyclic.push(level);
    } catch (err) {
      // Input one level cannot use (e.g. a real-time level on a history without times) leaves
      // that level unchecked; input no level can use is the caller's error, as for one level.
      if (!(err instanceof InputError)) throw err;
      refused.push(err);
      row.reason = err.detail;
      continue;
    }
    checked.push(level);
    counts ??= result.counts;
    row.result = result;
    row.basis = 'checked';
    row.reason = result.unknownReason ?? '';
    row.status = result.verdict === 'valid' ? 'satisfied' : result.verdict === 'violation' ? 'violated' : 'unknown';
    if (row.status !== 'satisfied') continue;
    // Everything below a satisfied level is satisfied; only levels checkHistory decides are marked.
    for (const w of LEVEL_NAMES) {
      const r = rows.get(w)!;
      if (w !== level && implies(level, w) && isImplementedLevel(w) && r.basis === 'none') {
        Object.assign(r, { status: 'satisfied', basis: 'implied', from: level, reason: '' });
      }
    }
  }
  if (checked.length === 0 && refused.length > 0) throw refused[0]!;
  inheritViolations(rows);
  const all = [...rows.values()];
  assertConsistent(all);
  return {
    rows: all,
    strongest: strongestOf(all.filter((r) => r.status === 'satisfied').map((r) => r.level)),
    checked,
    counts: counts ?? emptyCounts(h),
    timesMs: { parse: parseMs, total: now() - t0 + parseMs },
  };
}

/**
 * A level that is not implemented, or whose own check hit a limit, is violated when a weaker
 * level is: it inherits the counterexample of the strongest such level (the closest below it).
 */
function inheritViolations(rows: Map<LevelName, LevelRow>): void {
  const violated = LEVEL_NAMES.filter((l) => rows.get(l)!.status === 'violated');
  for (const l of LEVEL_NAMES) {
    const row = rows.get(l)!;
    if (row.status !== 'not checked' && row.status !== 'unknown') continue;
    const below = strongestOf(violated.filter((v) => v !== l && implies(l, v)));
    if (below.length === 0) continue;
    Object.assign(row, { status: 'violated', basis: 'inherited', from: below[below.length - 1]!, reason: '' });
  }
}

/** The table never contradicts the lattice: a satisfied level is never above a violated one. */
function assertConsistent(rows: readonly LevelRow[]): void {
  for (const s of rows) {
    if (s.status !== 'satisfied') continue;
    for (const v of rows) {
      if (v.status === 'violated' && implies(s.level, v.level)) {
        throw new Error(`internal error: ${s.level} is satisfied but the weaker ${v.level} is violated (the checks of the two levels disagree)`);
      }
    }
  }
}

function emptyCounts(h: History): CheckResult['counts'] {
  return { sessions: h.sessionCount, transactions: h.txnCount, checkedTransactions: 0, operations: h.opCount, keys: h.keyLabels.length };
}
