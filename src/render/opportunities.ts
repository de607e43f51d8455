/**
 * Lost-update opportunities as one line of text (`polysi run`'s summary, `polysi stat`).
 *
 * Takes: LostUpdateOpportunities (src/history/opportunities.ts). Gives: a sentence; the JSON
 * carries the same numbers as data.
 */

import type { LostUpdateOpportunities } from '../history/opportunities.ts';

export function renderLostUpdateOpportunities(o: LostUpdateOpportunities): string {
  const codes = Object.entries(o.abortCodes).sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${n}`).join(', ');
  if (o.pairs === 0) return 'lost-update opportunities: none (no two read-modify-writes of one key overlapped in time: the anomaly had no chance)';
  return `lost-update opportunities: ${o.pairs} pairs of overlapping read-modify-writes of one key: ` +
    `${o.allowed} allowed (both committed, same version read: lost updates), ${o.blocked} blocked (the later one read the other's commit), ` +
    `${o.aborted} aborted${codes === '' ? '' : ` (${codes})`}, ${o.unknown} of unknown outcome, ${o.other} other`;
}
