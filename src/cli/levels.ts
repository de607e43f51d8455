/**
 * The text table of the isolation ladder (`polysi check --levels`); its JSON form (data first,
 * schema/levels-result.schema.json) is `levelsJson` in src/render/json.ts.
 *
 * Takes: a History and its LevelsResult. Gives: the text table and each violated level's anomalies.
 * Invariant: pure functions returning values; nothing here prints. Every violated row names a
 * counterexample that exists in the output: its own level's, or the weaker level's it inherits.
 */

import type { History } from '../history/model.ts';
import type { LevelRow, LevelsResult } from '../check/ladder.ts';
import { incomparable, LEVELS } from '../result/lattice.ts';
import { isImplementedLevel } from '../check/index.ts';
import { renderExplanationText, verdictLine } from '../render/text.ts';
import { rowCounterexample } from '../render/json.ts';
import { anomalyLines } from './render.ts';

const STATUS_TEXT: Record<LevelRow['status'], string> = {
  'satisfied': 'satisfied', 'violated': 'VIOLATED', 'unknown': 'unknown', 'not checked': 'not checked',
};

function detail(lr: LevelsResult, row: LevelRow): string {
  const cx = rowCounterexample(lr, row);
  switch (row.basis) {
    case 'implied': return `implied by ${row.from}`;
    case 'inherited': return `inherited from ${row.from}${cx === null ? '' : `: ${cx.name}`}`;
    case 'checked': {
      if (row.status === 'satisfied') return 'checked';
      if (row.status === 'unknown') return row.reason;
      const a = row.result!.anomalies[0]!;
      const size = a.explanation === undefined ? '' : ` (${a.explanation.size.txns} txns, ${a.explanation.size.edges} edges)`;
      return `${cx!.name}${size}`;
    }
    case 'none': return isImplementedLevel(row.level) ? `not checked: ${row.reason}` : 'not implemented yet';
  }
}

function pad(s: string, n: number): string {
  return s.length >= n ? `${s} ` : s + ' '.repeat(n - s.length);
}

/** The strongest-levels line: one level, several (pairwise incomparable), or none. */
function strongestLine(lr: LevelsResult): string {
  const s = lr.strongest;
  // Levels not checked may be satisfied too (one incomparable to these, or above none of them).
  const among = lr.rows.some((r) => r.status === 'not checked' || r.status === 'unknown') ? ', among the levels checked' : '';
  if (s.length === 0) return `strongest level satisfied: none${among}`;
  if (s.length === 1) return `strongest level satisfied: ${s[0]} (${LEVELS[s[0]!].title})${among}`;
  const pairwise = s.every((a) => s.every((b) => a === b || incomparable(a, b)));
  return `strongest levels satisfied: ${s.join(', ')}${pairwise ? ' (incomparable: neither implies the other)' : ''}${among}`;
}

/** `explain`: follow each violated level's anomalies with their full argument. */
export function renderLevelsText(h: History, lr: LevelsResult, file: string, format: string, notes: readonly string[], explain = false): string {
  const c = lr.counts;
  const lines = [`${file} (${format}): ${c.sessions} sessions, ${c.transactions} transactions (${c.checkedTransactions} checked), ${c.operations} operations, ${c.keys} keys`];
  // Check notes (e.g. a vacuous check) are the same for every level: show each once.
  const checkNotes = new Set(lr.rows.flatMap((r) => r.result?.notes ?? []));
  for (const n of [...notes, ...checkNotes]) lines.push(`note: ${n}`);
  const width = Math.max(...lr.rows.map((r) => r.level.length)) + 2;
  const titleWidth = Math.max(...lr.rows.map((r) => LEVELS[r.level].title.length)) + 2;
  lines.push(`${pad('level', width)}${pad('', titleWidth)}${pad('status', 13)}basis / counterexample`);
  for (const row of lr.rows) {
    lines.push(`${pad(row.level, width)}${pad(LEVELS[row.level].title, titleWidth)}${pad(STATUS_TEXT[row.status], 13)}${detail(lr, row)}`);
  }
  lines.push(strongestLine(lr));
  const notChecked = lr.rows.filter((r) => !isImplementedLevel(r.level)).map((r) => r.level);
  lines.push(`levels checked (strongest first): ${lr.checked.join(', ') || 'none'}` +
    (notChecked.length === 0 ? '' : `; not implemented yet: ${notChecked.join(', ')}`));
  lines.push(`time (ms): parse ${lr.timesMs.parse.toFixed(0)}, total ${lr.timesMs.total.toFixed(0)}`);
  for (const row of lr.rows) {
    if (row.basis !== 'checked' || row.status === 'satisfied' || row.result === null) continue;
    const r = row.result;
    lines.push('', verdictLine(r), ...anomalyLines(h, r, '  '));
    if (explain) {
      r.anomalies.forEach((a, i) => {
        if (a.explanation !== undefined) lines.push('', renderExplanationText(a.explanation, { index: i + 1, total: r.anomalies.length }));
      });
    }
  }
  return lines.join('\n');
}
