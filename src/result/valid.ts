/**
 * A `valid` CheckResult decided before any graph work (no constraints, no solver, no anomalies).
 *
 * Takes: the history, the options, which step decided, how many txns were checked, the stage
 * times and notes. Gives: the result. Used by check/index.ts (nothing left after pruning) and
 * check/serial-order.ts (a recorded order that proves the level).
 */

import type { History } from '../history/model.ts';
import type { CheckOptions, CheckResult, StageTimesMs } from './types.ts';

export function validResultOf(
  h: History, opts: CheckOptions, decidedBy: CheckResult['decidedBy'], checked: number, times: StageTimesMs, notes?: string[],
): CheckResult {
  return {
    verdict: 'valid',
    level: opts.level,
    decidedBy,
    counts: { sessions: h.sessionCount, transactions: h.txnCount, checkedTransactions: checked, operations: h.opCount, keys: h.keyLabels.length },
    timesMs: times,
    constraints: { before: 0, after: 0, pruneRounds: 0 },
    solver: null,
    anomalies: [],
    truncated: false,
    anomaliesNotShown: 0,
    anomalySearchComplete: true,
    ...(notes === undefined ? {} : { notes }),
  };
}
