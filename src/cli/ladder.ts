/**
 * `polysi check PATH --levels`: the whole isolation ladder on one history.
 *
 * Takes: the history main.ts read, where it came from, the check options and the output sink.
 * Gives: an exit code, 0 when the table is complete (every level checked today is decided,
 * whatever it decided: on this command a violation is a finding, not a failure), 3 when a
 * level's check hit a limit and nothing below it settled it; the table on stdout, as text or
 * as one JSON object (schema/levels-result.schema.json).
 * Invariant: the only output goes through `out`; the warning for a vacuous check goes to stderr
 * once, as for a single level.
 */

import type { History } from '../history/model.ts';
import { checkLevels, type LevelsOptions } from '../check/ladder.ts';
import { nothingCheckedWarning } from './check-flags.ts';
import { renderLevelsText } from './levels.ts';
import { levelsJson } from '../render/json.ts';

export interface Out {
  stdout(s: string): void;
  stderr(s: string): void;
}

export const EXIT_TABLE_COMPLETE = 0;
export const EXIT_TABLE_UNKNOWN = 3;

export function runLadder(
  history: History, src: { path: string; format: string; notes: string[]; parseMs: number }, opts: LevelsOptions,
  show: { json: boolean; explain: boolean }, out: Out,
): number {
  const lr = checkLevels(history, opts, src.parseMs);
  // As for one level: only when a check got as far as validation and found nothing to check.
  const vacuous = lr.rows.map((r) => (r.result === null ? null : nothingCheckedWarning(r.result))).find((w) => w != null) ?? null;
  if (vacuous !== null && !show.json) out.stderr(`polysi: warning: ${vacuous}`);
  if (show.json) {
    out.stdout(JSON.stringify(levelsJson(history, lr, { file: src.path, format: src.format, notes: src.notes }, show.explain)));
  } else {
    out.stdout(renderLevelsText(history, lr, src.path, src.format, src.notes, show.explain));
  }
  return lr.rows.some((r) => r.status === 'unknown') ? EXIT_TABLE_UNKNOWN : EXIT_TABLE_COMPLETE;
}
