/**
 * Runs a workload on the embedded store entirely in memory and returns the recorded JSON Lines
 * text (exactly what the recorder would write), its parsed History and the run summary.
 */

import { checkHistory, type CheckResult, type Level } from '../../src/check/index.ts';
import { parseJsonl } from '../../src/formats/jsonl.ts';
import type { History } from '../../src/history/model.ts';
import { headerLine, planNames, txnLine } from '../../src/run/recorder.ts';
import { connectAll, runWorkload, type RunSummary } from '../../src/run/runner.ts';
import { MemoryTarget } from '../../src/run/store/memory.ts';
import type { MemoryMode } from '../../src/run/store/modes.ts';
import { DEFAULT_WORKLOAD, generateWorkload, type WorkloadOptions } from '../../src/workload/index.ts';
import { anomalyLabel } from '../../src/render/text.ts';

export const SMALL: WorkloadOptions = { ...DEFAULT_WORKLOAD, sessions: 4, txnsPerSession: 20, opsPerTxn: 6, keys: 8 };

export interface MemoryRun {
  text: string;
  history: History;
  summary: RunSummary;
}

/**
 * `driver`: 'sync' is the runner's fast path for the embedded store; 'async' goes through the
 * Connection promises and the store's scheduler (what a timeout forces).
 */
export async function runMemory(mode: MemoryMode, w: Partial<WorkloadOptions> = {}, driver: 'sync' | 'async' = 'sync'): Promise<MemoryRun> {
  const opts = { ...SMALL, ...w };
  const plan = generateWorkload(opts);
  const target = new MemoryTarget(mode, opts.seed);
  await target.setup(opts.keys, plan.kinds);
  const conns = await connectAll(target, opts.sessions);
  const names = planNames(plan);
  const lines = [headerLine(opts.sessions, names?.relations)];
  const summary = await runWorkload(target, conns, plan, {
    isolation: 'snapshot', onTxn: (r) => lines.push(txnLine(r, 0, names)), ...(driver === 'async' ? { txnTimeoutMs: 1e9 } : {}),
  });
  const text = `${lines.join('\n')}\n`;
  return { text, history: parseJsonl(text, `memory:${mode}`), summary };
}

export function check(h: History, level: Level): CheckResult {
  return checkHistory(h, { level, pruning: true, explain: true });
}

/** Every anomaly's name: the explanation's for cycles, the non-cycle anomaly's own otherwise. */
export function anomalyNames(r: CheckResult): string[] {
  return r.anomalies.map((a) => (a.type === 'cycle' ? (a.explanation === undefined ? '?' : anomalyLabel(a.explanation)) : a.name));
}
