/**
 * Opportunities as text, one line per anomaly (`polysi run`'s summary, `polysi stat`).
 *
 * Takes: the counts of src/history/opportunities.ts. Gives: sentences; the JSON carries the same
 * numbers as data. A kind the recording cannot count (no times) gives no line.
 */

import type { LostUpdateOpportunities, Opportunities, PairOpportunities } from '../history/opportunities.ts';

function codesText(o: PairOpportunities): string {
  const codes = Object.entries(o.abortCodes).sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${n}`).join(', ');
  return codes === '' ? '' : ` (${codes})`;
}

function pairsText(o: PairOpportunities): string {
  return `${o.pairs} pair${o.pairs === 1 ? '' : 's'}`;
}

export function renderLostUpdateOpportunities(o: LostUpdateOpportunities): string {
  if (o.pairs === 0) return 'lost-update opportunities: none (no two read-modify-writes of one key overlapped in time: the anomaly had no chance)';
  return `lost-update opportunities: ${pairsText(o)} of overlapping read-modify-writes of one key: ` +
    `${o.allowed} allowed (both committed, same version read: lost updates), ${o.blocked} blocked (the later one read the other's commit), ` +
    `${o.aborted} aborted${codesText(o)}, ${o.unknown} of unknown outcome, ${o.other} other`;
}

export function renderWriteSkewOpportunities(o: PairOpportunities): string {
  if (o.pairs === 0) return 'write-skew opportunities: none (no two transactions that read what the other writes, writing disjoint keys, overlapped in time)';
  return `write-skew opportunities: ${pairsText(o)} of overlapping transactions each reading what the other writes: ` +
    `${o.allowed} allowed (both committed, each missed the other's write: write skews), ${o.blocked} blocked (the later one read the other's write), ` +
    `${o.aborted} aborted${codesText(o)}, ${o.unknown} of unknown outcome, ${o.other} other`;
}

export function renderOpportunities(o: Opportunities): string[] {
  const lines: string[] = [];
  if (o.lostUpdate !== null) lines.push(renderLostUpdateOpportunities(o.lostUpdate));
  if (o.writeSkew !== null) lines.push(renderWriteSkewOpportunities(o.writeSkew));
  return lines;
}
