/**
 * `polysi stat PATH [--format auto|NAME] [--json] [--top N]`: what a history holds.
 *
 * Takes: command-line arguments (after `stat`) and an output sink. Gives: an exit code, 0 when
 * the history was read, 2 for invalid input or usage; the statistics (history/stats.ts) and the
 * anomalies' opportunities (history/opportunities.ts: lost update, write skew; null without
 * transaction times) on stdout as aligned text or as one JSON object, the parser's notes included.
 * Invariant: the only output goes through `out`; anything but an InputError or a usage error
 * propagates (it is a bug, and main.ts reports it as one).
 */

import { InputError } from '../history/errors.ts';
import { historyOpportunities, type Opportunities } from '../history/opportunities.ts';
import { historyStats, type HistoryStats } from '../history/stats.ts';
import { readHistory } from '../formats/index.ts';
import { SCHEMA_VERSION } from '../render/json.ts';
import { renderOpportunities } from '../render/opportunities.ts';
import { parseCommandArgs, UsageError, usageLine } from './args.ts';
import { injectedFault } from './fault.ts';
import { progressOnStderr, progressTo } from './progress.ts';

export interface Out {
  stdout(s: string): void;
  stderr(s: string): void;
}

export const USAGE = 'usage: polysi stat PATH [--format auto|FORMAT] [--json] [--top N]';

export async function runStat(args: string[], out: Out): Promise<number> {
  try {
    return await runStatInner(args, out);
  } catch (err) {
    // A usage mistake: one line and where the options are listed (as main.ts prints it).
    if (!(err instanceof UsageError)) throw err;
    out.stderr(usageLine(err.command, err.message));
    return 2;
  }
}

async function runStatInner(args: string[], out: Out): Promise<number> {
  let values: { format: string; json: boolean; top: string };
  let positionals: string[];
  // A usage error is a UsageError: main.ts prints it as one line with a pointer to --help.
  ({ values, positionals } = parseCommandArgs('stat', args, {
    format: { type: 'string', default: 'auto' },
    json: { type: 'boolean', default: false },
    top: { type: 'string', default: '10' },
  }) as { values: { format: string; json: boolean; top: string }; positionals: string[] });
  if (positionals.length !== 1) throw new UsageError('stat', `expected exactly one history path, got ${positionals.length}`);
  const top = Number(values.top);
  if (!Number.isInteger(top) || top < 0) {
    out.stderr(`polysi stat: --top takes a non-negative integer, got "${values.top}"`);
    return 2;
  }
  const path = positionals[0]!;
  injectedFault('stat');
  try {
    const pr = progressTo(out, await progressOnStderr());
    const { history, format, notes } = await readHistory(path, values.format, pr.on ? { onProgress: pr.reading(path) } : {});
    pr.line(`read ${path} (${format}): ${history.txnCount} transactions, ${history.opCount} operations; counting`);
    const stats = historyStats(history, top);
    const opportunities = historyOpportunities(history);
    if (values.json) out.stdout(JSON.stringify({ schemaVersion: SCHEMA_VERSION, file: path, format, notes, ...stats, opportunities }));
    else out.stdout(renderStats(path, format, notes, stats, opportunities));
    return 0;
  } catch (err) {
    if (err instanceof InputError) {
      out.stderr(`polysi stat: ${err.message}`);
      return 2;
    }
    throw err;
  }
}

function pct(n: number, total: number): string {
  return total === 0 ? '' : ` (${((100 * n) / total).toFixed(1)}%)`;
}

/** The statistics as aligned text, one fact per line; the opportunities when given. */
export function renderStats(path: string, format: string, notes: readonly string[], s: HistoryStats, opportunities?: Opportunities): string {
  const t = s.transactions;
  const o = s.operations;
  const rows: [string, string][] = [
    ['file', `${path} (${format})`],
    ['sessions', `${s.sessions} (txns per session: min ${s.txnsPerSession.min}, mean ${s.txnsPerSession.mean.toFixed(1)}, max ${s.txnsPerSession.max})`],
    ['transactions', `${t.total}: ${t.committed} committed${pct(t.committed, t.total)}, ${t.aborted} aborted${pct(t.aborted, t.total)}, ${t.unknown} unknown${pct(t.unknown, t.total)}`],
    ['  by shape', `${s.shapes.readOnly} read-only, ${s.shapes.writeOnly} write-only, ${s.shapes.readModifyWrite} read-modify-write, ${s.shapes.empty} empty`],
    ['operations', `${o.total}: ${o.read} reads, ${o.write} writes, ${o.append} appends, ${o.readList} list reads (${s.listElementsRead} elements)`],
    ['  per txn', `mean ${s.opsPerTxn.mean.toFixed(1)}, max ${s.opsPerTxn.max}`],
    ['keys', `${s.keys.total}: ${s.keys.registerKeys} register, ${s.keys.listKeys} list${s.keys.mixedKeys > 0 ? `, ${s.keys.mixedKeys} both` : ''}`],
    ['written values', String(s.writtenValues)],
  ];
  const p = s.predicates;
  if (p !== undefined) {
    rows.push(['relations', `${p.relations} (${p.relationKeys} keys): ${p.inserts} inserts, ${p.deletes} deletes, ` +
      `${p.selects} selects (${p.rowsReturned} rows returned), ${p.counts} counts`]);
  }
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  const lines = rows.map(([k, v]) => k.padEnd(width) + v);
  if (s.hottestKeys.length > 0) {
    lines.push(`hottest keys (top ${s.hottestKeys.length} by operations):`);
    const kw = Math.max(...s.hottestKeys.map((h) => h.key.length));
    const nw = Math.max(...s.hottestKeys.map((h) => String(h.ops).length));
    for (const h of s.hottestKeys) {
      lines.push(`  ${h.key.padEnd(kw)}  ${String(h.ops).padStart(nw)} ops (${h.reads} reads, ${h.writes} writes)`);
    }
  }
  if (opportunities !== undefined) {
    const o = renderOpportunities(opportunities);
    lines.push(...(o.length > 0 ? o : ['opportunities: not counted (the history has no transaction times: docs/workloads.md, "Opportunities")']));
  }
  if (notes.length > 0) {
    lines.push('notes:');
    for (const n of notes) lines.push(`  ${n}`);
  }
  return `${lines.join('\n')}\n`;
}
