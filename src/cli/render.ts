/**
 * Renderings of a CheckResult for the CLI: JSON (data first) and a short text summary.
 *
 * Takes: a History and its CheckResult. Gives: a JSON-ready object in which every transaction
 * and key the anomalies mention is spelled out with the user's own names, and a text summary.
 * Invariant: pure functions returning values; nothing here prints.
 */

import { describeOp, txnWhere, type History, txnLabel } from '../history/model.ts';
import { INIT_TXN, type Anomaly, type CheckResult, type DepEdge, type Level } from '../result/types.ts';
import { HistoryBuilder } from '../history/builder.ts';
import { checkHistory } from '../check/index.ts';
import { namedCycleText, namedCycleTxns, renderExplanationText, verdictLine } from '../render/text.ts';
import { txnLabelDisplay } from '../explain/facts.ts';

export interface TxnView {
  txn: number;
  label: string;
  session: string;
  /** 0-based position in its session. */
  index: number;
  where: string;
  ops: string[];
}

export function txnName(h: History, t: number): string {
  return t === INIT_TXN ? 'init' : txnLabel(h, t);
}

export function txnView(h: History, t: number): TxnView {
  if (t === INIT_TXN) return { txn: INIT_TXN, label: 'init', session: '-', index: -1, where: '-', ops: ['writes the initial value of every key'] };
  const ops: string[] = [];
  for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) ops.push(describeOp(h, op));
  const s = h.txnSession[t]!;
  return { txn: t, label: txnLabel(h, t), session: h.sessionLabels[s]!, index: t - h.sessionTxnStart[s]!, where: txnWhere(h, t), ops };
}

function involvedTxns(anomalies: readonly Anomaly[]): number[] {
  const set = new Set<number>();
  for (const a of anomalies) {
    if (a.type === 'cycle') for (const e of a.edges) { set.add(e.from); set.add(e.to); }
    else { set.add(a.txn); if (a.writer >= INIT_TXN) set.add(a.writer); }
  }
  return [...set].sort((x, y) => x - y);
}

/**
 * Version of the `--json` contract (schema/check-result.schema.json). Bumped when a field is
 * removed, renamed or changes meaning; the schema is updated with every added field.
 */
export const SCHEMA_VERSION = 1;

/**
 * Without --max-anomalies, the CLI looks for anomalies beyond the first only while explaining has
 * taken less than this (ms): 0, the first one only. Each further one costs a recheck of the
 * polygraph, and on a small history even two of them cost more than the whole check (a
 * 360-transaction violation: 0.12 s end to end with one, 0.13-0.19 s with a budget of 8 ms for a
 * second, 0.15-0.2 s with 25 ms for up to five). The output says the search stopped, and
 * --max-anomalies N asks for more.
 */
export const EXPLAIN_MORE_MS = 0;
/** In a batch each history gets one line: only its first anomaly is explained (unless --max-anomalies). */
export const EXPLAIN_MORE_MS_BATCH = 0;

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
        ? { ...a, name: a.explanation?.name ?? cycleName(a.edges, r.level), edges: a.edges.map((e) => ({ ...e, fromLabel: txnName(h, e.from), toLabel: txnName(h, e.to), keyLabel: keyName(e.key) })), ...text(a, i) }
        : { ...a, keyLabel: keyName(a.key), ...text(a, i) }),
    transactions: involvedTxns(r.anomalies).map((t) => txnView(h, t)),
  };
}

/** A coarse name from the cycle's shape; the explain stage refines it. */
export function cycleName(edges: readonly DepEdge[], level: CheckResult['level']): string {
  const rw = edges.filter((e) => e.kind === 'RW').length;
  if (rw === 0) return edges.every((e) => e.kind === 'WW') ? 'G0' : 'G1c';
  if (rw === 1) return 'G-single';
  // From the cycle itself, whatever the level (each level's cycles may have either shape).
  void level;
  return edges.some((e, i) => e.kind === 'RW' && edges[(i + 1) % edges.length]!.kind === 'RW') ? 'G2' : 'G-nonadjacent';
}

export function renderEdge(h: History, e: DepEdge): string {
  const label = e.kind === 'SO' || e.kind === 'RT' ? e.kind : `${e.kind}(${h.keyLabels[e.key]})`;
  return `-${label}->`;
}

/** `explain`: follow the summary with each anomaly's explanation (when the check produced them). */
export function renderText(h: History, r: CheckResult, file: string, format: string, notes: readonly string[], explain = false): string {
  const lines: string[] = [];
  const c = r.counts;
  lines.push(`${file} (${format}): ${c.sessions} sessions, ${c.transactions} transactions (${c.checkedTransactions} checked), ${c.operations} operations, ${c.keys} keys`);
  for (const n of [...notes, ...(r.notes ?? [])]) lines.push(`note: ${n}`);
  lines.push(verdictLine(r));
  lines.push(...anomalyLines(h, r, '  '));
  const t = r.timesMs;
  lines.push(`constraints: ${r.constraints.before} generated, ${r.constraints.after} left after pruning (${r.constraints.pruneRounds} rounds)` +
    (r.solver === null ? '' : `; solver: ${r.solver.variables} variables, ${r.solver.conflicts} conflicts, ${r.solver.flips} descent flips`));
  lines.push(`time (ms): parse ${t.parse.toFixed(0)}, validate ${t.validate.toFixed(0)}, construct ${t.construct.toFixed(0)}, prune ${t.prune.toFixed(0)}, solve ${t.solve.toFixed(0)}` +
    (t.explain === undefined ? '' : `, explain ${t.explain.toFixed(0)}`));
  if (explain) {
    r.anomalies.forEach((a, i) => {
      if (a.explanation !== undefined) lines.push('', renderExplanationText(a.explanation, { index: i + 1, total: r.anomalies.length }));
    });
  }
  return lines.join('\n');
}

/**
 * The anomalies of a result, one block each (at most 10): the name and size of its minimal
 * counterexample, the cycle the name describes, and the transactions on it. `indent` prefixes
 * every line (the ladder's table nests them under a level).
 */
export function anomalyLines(h: History, r: CheckResult, indent: string): string[] {
  const lines: string[] = [];
  for (const a of r.anomalies.slice(0, 10)) {
    if (a.type === 'non-cycle') { lines.push(`${indent}${a.name}: ${a.message}`); continue; }
    const cx = a.explanation;
    let cycle: string, txns: number[];
    if (cx === undefined || cx.cycle === null) {
      // Not explained: the checker's witness cycle is all there is.
      cycle = `${txnName(h, a.edges[0]!.from)} ${a.edges.map((e) => `${renderEdge(h, e)} ${txnName(h, e.to)}`).join(' ')}`;
      txns = involvedTxns([a]);
    } else {
      // The cycle the name describes, from the minimal counterexample (not the search's witness,
      // which can miss the reader that missed the write and carry unrelated edges).
      cycle = namedCycleText(cx);
      txns = [...new Set(namedCycleTxns(cx))].sort((x, y) => x - y);
    }
    const name = cx === undefined ? cycleName(a.edges, r.level) : `${cx.name} (${cx.size.txns} txns, ${cx.size.edges} edges)`;
    lines.push(`${indent}${name} cycle: ${cycle}`);
    for (const t of txns) {
      const v = txnView(h, t);
      lines.push(`${indent}  ${t === INIT_TXN ? v.label : txnLabelDisplay(v.label)}${t === INIT_TXN ? '' : ` (session ${v.session} #${v.index}, ${v.where})`}: ${v.ops.join(' ')}`);
    }
  }
  if (r.anomalies.length > 10) lines.push(`${indent}... ${r.anomalies.length - 10} more (use --json)`);
  return lines;
}

/**
 * The --json result when the time limit passed while parsing: the same schema as every check
 * result (verdict unknown, decided by the limit), with zero counts since nothing was read whole.
 */
export function parseTimeoutJson(path: string, level: Level, reason: string): Record<string, unknown> {
  const empty = new HistoryBuilder(path).build();
  const r = checkHistory(empty, { level, pruning: true });
  r.verdict = 'unknown';
  r.decidedBy = 'limit';
  r.unknownReason = reason;
  r.anomalySearchComplete = false;
  r.notes = ['the input was not read to its end, so the counts are zero'];
  return resultJson(empty, r, { file: path });
}
