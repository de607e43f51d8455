/**
 * The text summary of a CheckResult for the CLI (its JSON form is src/render/json.ts).
 *
 * Takes: a History and its CheckResult. Gives: the summary's lines: counts, verdict, each
 * anomaly's class and description (as explain/ named them), its cycle and transactions.
 * Invariant: pure functions returning values; nothing here prints or names an anomaly.
 */

import type { History } from '../history/model.ts';
import { INIT_TXN, type Anomaly, type CheckResult, type DepEdge } from '../result/types.ts';
import { anomalyLabel, namedCycleText, namedCycleTxns, renderExplanationText, sizeText, verdictLine } from '../render/text.ts';
import { anomalyName, involvedTxns, txnName, txnView } from '../render/json.ts';
import { txnLabelDisplay } from '../explain/facts.ts';

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
 * Counterexamples already printed in one output (the ladder prints several results): each gets a
 * number the first time, and later occurrences cite it instead of printing it again.
 */
export class ShownCounterexamples {
  private readonly seen = new Map<string, { n: number; level: string }>();

  /**
   * The number of the anomaly's counterexample and the level it was first seen under; `first`
   * when that is `level` (there it is printed; elsewhere cited).
   */
  cite(a: Anomaly, level: string): { n: number; level: string; first: boolean } {
    const key = counterexampleKey(a);
    const known = this.seen.get(key);
    if (known !== undefined) return { ...known, first: known.level === level };
    const entry = { n: this.seen.size + 1, level };
    this.seen.set(key, entry);
    return { ...entry, first: true };
  }
}

/**
 * What makes two counterexamples the same: their dependency edges (whatever the argument around
 * them), or for a non-cycle anomaly the operation that observed it.
 */
function counterexampleKey(a: Anomaly): string {
  if (a.type === 'non-cycle') return `n:${a.name}:${a.txn}:${a.op}:${a.key}`;
  const edges = a.explanation?.edges ?? a.edges;
  return `c:${edges.map((e) => `${e.from}-${e.kind}(${e.key})->${e.to}`).sort().join(' ')}`;
}

/**
 * The anomalies of a result, one block each (at most 10): its class and description, the cycle
 * they describe with that cycle's own size, and the transactions on it. `indent` prefixes every
 * line (the ladder's table nests them under a level). With `shown` (the ladder), counterexamples
 * are numbered, and one printed before under another level is cited, not printed again.
 */
export function anomalyLines(h: History, r: CheckResult, indent: string, shown?: ShownCounterexamples): string[] {
  const lines: string[] = [];
  for (const a of r.anomalies.slice(0, 10)) {
    const label = anomalyLabel(anomalyName(a));
    const cited = shown?.cite(a, r.level.toUpperCase());
    const num = cited === undefined ? '' : `#${cited.n} `;
    if (cited !== undefined && !cited.first) {
      lines.push(`${indent}${num}${label}: the counterexample shown under ${cited.level} above`);
      continue;
    }
    if (a.type === 'non-cycle') { lines.push(`${indent}${num}${label}: ${a.message}`); continue; }
    const cx = a.explanation;
    let cycle: string, txns: number[], edges: number;
    if (cx === undefined || cx.cycle === null) {
      // Not explained: the checker's witness cycle is all there is.
      cycle = `${txnName(h, a.edges[0]!.from)} ${a.edges.map((e) => `${renderEdge(h, e)} ${txnName(h, e.to)}`).join(' ')}`;
      txns = involvedTxns([a]);
      edges = a.edges.length;
    } else {
      // The cycle the class describes, from the minimal counterexample (not the search's witness,
      // which can miss the reader that missed the write and carry unrelated edges).
      cycle = namedCycleText(cx);
      txns = [...new Set(namedCycleTxns(cx))].sort((x, y) => x - y);
      edges = cx.cycle.edges.length;
    }
    lines.push(`${indent}${num}${label} cycle (${sizeText(txns.length, edges)}): ${cycle}`);
    for (const t of txns) {
      const v = txnView(h, t);
      lines.push(`${indent}  ${t === INIT_TXN ? v.label : txnLabelDisplay(v.label)}${t === INIT_TXN ? '' : ` (session ${v.session} #${v.index}${v.node === undefined ? '' : ` on ${v.node}`}, ${v.where})`}: ${v.ops.join(' ')}`);
    }
  }
  if (r.anomalies.length > 10) lines.push(`${indent}... ${r.anomalies.length - 10} more (use --json)`);
  return lines;
}
