/**
 * The JSON forms of results (data first): a check's result (`polysi check --json`,
 * schema/check-result.schema.json) and the ladder's (`--levels --json`,
 * schema/levels-result.schema.json), as the library's `resultJson` / `levelsResultJson` and the
 * CLI print them.
 *
 * Takes: a History and its CheckResult or LevelsResult. Gives: JSON-ready objects in which every
 * transaction and key the anomalies mention is spelled out with the user's own names.
 * Invariant: pure functions returning values; nothing here prints, and nothing here names an
 * anomaly (explain/ does: the names come with the counterexamples, or from explain/name.ts for a
 * witness cycle that was not explained).
 */

import { describeOp, txnLabel, txnWhere, txnNodeLabel, type History } from '../history/model.ts';
import { INIT_TXN, type Anomaly, type CheckResult, type Level } from '../result/types.ts';
import type { LevelRow, LevelsResult } from '../check/ladder.ts';
import type { LevelName } from '../result/types.ts';
import type { AnomalyClass, AnomalyDescription } from '../result/counterexample.ts';
import { COVERS, LEVELS } from '../result/lattice.ts';
import { ELLE_NAMES } from '../result/levels.ts';
import { NON_CYCLE_DESCRIPTIONS, witnessCycleClass } from '../explain/name.ts';
import { renderExplanationText } from './text.ts';

/**
 * Version of the `--json` contract (schema/check-result.schema.json). Bumped when a field is
 * removed, renamed or changes meaning; the schema is updated with every added field.
 */
export const SCHEMA_VERSION = 2;

export interface TxnView {
  txn: number;
  label: string;
  session: string;
  /** 0-based position in its session. */
  index: number;
  where: string;
  ops: string[];
  /** The node it ran on, when the history records nodes (issue 24). */
  node?: string;
}

export function txnName(h: History, t: number): string {
  return t === INIT_TXN ? 'init' : txnLabel(h, t);
}

export function txnView(h: History, t: number): TxnView {
  if (t === INIT_TXN) return { txn: INIT_TXN, label: 'init', session: '-', index: -1, where: '-', ops: ['writes the initial value of every key'] };
  const ops: string[] = [];
  for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) ops.push(describeOp(h, op));
  const s = h.txnSession[t]!;
  const node = txnNodeLabel(h, t);
  return { txn: t, label: txnLabel(h, t), session: h.sessionLabels[s]!, index: t - h.sessionTxnStart[s]!, where: txnWhere(h, t), ops, ...(node === null ? {} : { node }) };
}

/** The transactions the anomalies mention, ascending. */
export function involvedTxns(anomalies: readonly Anomaly[]): number[] {
  const set = new Set<number>();
  for (const a of anomalies) {
    if (a.type === 'cycle') for (const e of a.edges) { set.add(e.from); set.add(e.to); }
    else { set.add(a.txn); if (a.writer >= INIT_TXN) set.add(a.writer); }
  }
  return [...set].sort((x, y) => x - y);
}

/**
 * An anomaly's class and description as explain/ named them; a witness cycle that was not
 * explained has its shape's class only, a non-cycle anomaly validation's name and its reading.
 */
export function anomalyName(a: Anomaly): { class: AnomalyClass; description: AnomalyDescription | null } {
  if (a.explanation !== undefined) return { class: a.explanation.class, description: a.explanation.description };
  return a.type === 'cycle' ? { class: witnessCycleClass(a.edges), description: null } : { class: a.name, description: NON_CYCLE_DESCRIPTIONS[a.name] };
}

/** `withText`: add each explanation's text rendering (`--explain`); the data is there either way. */
export function resultJson(h: History, r: CheckResult, extra: Record<string, unknown>, withText = false): Record<string, unknown> {
  const keyName = (k: number) => (k < 0 ? null : h.keyLabels[k]);
  const total = r.anomalies.length;
  const text = (a: Anomaly, i: number) =>
    (withText && a.explanation !== undefined ? { text: renderExplanationText(a.explanation, { index: i + 1, total }) } : {});
  // The parser's notes (in `extra`) and the check's notes are one list: neither hides the other.
  const notes = [...((extra['notes'] as string[] | undefined) ?? []), ...(r.notes ?? [])];
  return {
    schemaVersion: SCHEMA_VERSION,
    ...extra,
    ...r,
    ...(extra['notes'] === undefined && r.notes === undefined ? {} : { notes }),
    anomalies: r.anomalies.map((a, i) =>
      a.type === 'cycle'
        ? { ...a, ...anomalyName(a), edges: a.edges.map((e) => ({ ...e, fromLabel: txnName(h, e.from), toLabel: txnName(h, e.to), keyLabel: keyName(e.key) })), ...text(a, i) }
        : { ...a, ...anomalyName(a), keyLabel: keyName(a.key), ...text(a, i) }),
    transactions: involvedTxns(r.anomalies).map((t) => txnView(h, t)),
  };
}

/**
 * The --json result when the time limit passed while parsing: the same schema as every check
 * result (verdict unknown, decided by the limit), with zero counts since nothing was read whole.
 * Built as data: no check runs on an empty history to make it.
 */
export function parseTimeoutJson(path: string, level: Level, reason: string): Record<string, unknown> {
  const r: CheckResult = {
    verdict: 'unknown',
    level,
    decidedBy: 'limit',
    counts: { sessions: 0, transactions: 0, checkedTransactions: 0, operations: 0, keys: 0 },
    timesMs: { parse: 0, validate: 0, construct: 0, prune: 0, solve: 0 },
    constraints: { before: 0, after: 0, pruneRounds: 0 },
    solver: null,
    anomalies: [],
    truncated: false,
    anomaliesNotShown: 0,
    anomalySearchComplete: false,
    notes: ['the input was not read to its end, so the counts are zero'],
    unknownReason: reason,
  };
  return { schemaVersion: SCHEMA_VERSION, file: path, ...r, transactions: [] };
}

/** The anomaly a violated row stands on: its own first one, or its `from` level's when inherited. */
export function rowEvidence(lr: LevelsResult, row: LevelRow): { level: LevelName; result: CheckResult } | null {
  if (row.status !== 'violated') return null;
  const owner = row.basis === 'inherited' ? lr.rows.find((r) => r.level === row.from) : row;
  if (owner === undefined || owner.result === null || owner.result.anomalies.length === 0) return null;
  return { level: owner.level, result: owner.result };
}

/** The first counterexample of a violated row, named, with the level it was found for. */
export function rowCounterexample(lr: LevelsResult, row: LevelRow): { level: LevelName; class: AnomalyClass; description: AnomalyDescription | null; summary: string } | null {
  const ev = rowEvidence(lr, row);
  if (ev === null) return null;
  const a = ev.result.anomalies[0]!;
  const summary = a.explanation?.summary ?? (a.type === 'non-cycle' ? a.message : `a cycle of ${a.edges.length} dependency edges`);
  return { level: ev.level, ...anomalyName(a), summary };
}

/** `withText`: each checked level's explanations carry their text rendering (`--explain`). */
export function levelsJson(h: History, lr: LevelsResult, extra: Record<string, unknown>, withText = false): Record<string, unknown> {
  return {
    schemaVersion: SCHEMA_VERSION,
    ...extra,
    counts: lr.counts,
    strongest: lr.strongest,
    checked: lr.checked,
    levels: lr.rows.map((row) => ({
      level: row.level,
      title: LEVELS[row.level].title,
      elle: ELLE_NAMES[row.level],
      status: row.status,
      basis: row.basis,
      from: row.from,
      reason: row.reason,
      counterexample: rowCounterexample(lr, row),
      result: row.result === null ? null : resultJson(h, row.result, {}, withText),
    })),
    lattice: COVERS.map(([weaker, stronger]) => ({ weaker, stronger })),
    timesMs: lr.timesMs,
  };
}
