/**
 * One history of a batch (`polysi check PATH PATH...`, `polysi check DIR`): read, check, and
 * render it as the one line the batch prints for it. Runs in a worker thread (batch-worker.ts)
 * or, for tests, in-process.
 *
 * Takes: a path, the check settings of the command, and whether the path was found by walking a
 * directory (`found`) or named on the command line. Gives: an `Outcome`: its status, the exit code
 * it alone would give, and its line (text, or the JSON object of `check --json` on one line).
 * Invariant: never throws. Bad input is 'invalid' (exit 2), any other exception 'internal'
 * (exit 4); a file found in a directory whose format cannot be told is 'skipped' (listed, never
 * dropped silently); a path named on the command line is never skipped.
 */

import { InputError } from '../history/errors.ts';
import { checkHistory, type Level } from '../check/index.ts';
import { detectFormat, readHistory, TimeLimitError } from '../formats/index.ts';
import { renderText } from './render.ts';
import { anomalyName, parseTimeoutJson, resultJson, SCHEMA_VERSION } from '../render/json.ts';
import { anomalyLabel } from '../render/text.ts';
import { now } from '../util/clock.ts';
import { checkOptionsFrom, deadlineFrom, type CheckFlags } from './check-flags.ts';

export interface CheckSettings {
  format: string;
  level: Level;
  json: boolean;
  /** --explain: the text gets each history's full summary and arguments; the JSON each explanation's text. */
  explain: boolean;
  /** The check flags, turned into the library's options as for a single check (check-flags.ts). */
  flags: CheckFlags;
}

export type OutcomeStatus = 'valid' | 'violation' | 'unknown' | 'invalid' | 'internal' | 'skipped';

export interface Outcome {
  path: string;
  status: OutcomeStatus;
  /** The exit code of `polysi check PATH` on this history alone (skipped: 0, it counts for nothing). */
  exit: number;
  /** The line printed for it: text, or JSON (no newline). */
  line: string;
  /** --explain in text mode: the full single-history report, printed after the line. */
  detail?: string;
  ms: number;
}

export const STATUS_EXIT: Record<OutcomeStatus, number> = { valid: 0, violation: 1, invalid: 2, unknown: 3, internal: 4, skipped: 0 };

/** The word leading each text line, padded so paths line up. */
const STATUS_WORD: Record<OutcomeStatus, string> = {
  valid: 'valid    ', violation: 'VIOLATION', unknown: 'unknown  ', invalid: 'invalid  ', internal: 'ERROR    ', skipped: 'skipped  ',
};

export async function checkOne(path: string, s: CheckSettings, found: boolean): Promise<Outcome> {
  const t0 = now();
  const ms = () => now() - t0;
  try {
    // A file found in a directory must look like a history even when --format names the format:
    // otherwise a README beside the histories would be "invalid input" instead of skipped.
    if (found && s.format !== 'auto') await detectFormat(path);
    // One deadline for the whole check of this history, parsing included.
    const deadlineMs = deadlineFrom(s.flags);
    const dl = deadlineMs === undefined ? {} : { deadlineMs };
    let read;
    try {
      read = await readHistory(path, s.format, dl);
    } catch (err) {
      if (!(err instanceof TimeLimitError)) throw err;
      const line = s.json ? JSON.stringify(parseTimeoutJson(path, s.level, err.message)) : `${STATUS_WORD.unknown}  ${path}: ${err.message}`;
      return { path, status: 'unknown', exit: STATUS_EXIT.unknown, line, ms: ms() };
    }
    const { history, format, notes } = read;
    const parseMs = now() - t0;
    const r = checkHistory(history, { level: s.level, ...checkOptionsFrom(s.flags, deadlineMs) }, parseMs);
    const status: OutcomeStatus = r.verdict;
    const exit = STATUS_EXIT[status];
    if (s.json) return { path, status, exit, line: JSON.stringify(resultJson(history, r, { file: path, format, notes }, s.explain)), ms: ms() };
    const took = ms();
    const what = `${path} (${format}, ${r.counts.transactions} transactions, ${took.toFixed(0)} ms)`;
    let line = `${STATUS_WORD[status]}  ${what}`;
    if (r.verdict === 'violation') line += `: ${anomalyNames(r.anomalies.map((a) => anomalyLabel(anomalyName(a))), r)}`;
    if (r.verdict === 'unknown') line += `: ${r.unknownReason ?? 'a limit was hit'}`;
    const out: Outcome = { path, status, exit, line, ms: took };
    if (s.explain) out.detail = renderText(history, r, path, format, notes, true);
    return out;
  } catch (err) {
    if (err instanceof InputError) {
      if (found && err.code === 'unknown-format') return other(path, 'skipped', 'not a history (its format could not be told)', s, ms());
      return other(path, 'invalid', err.message, s, ms());
    }
    const first = (err instanceof Error ? `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}` : String(err)).split('\n')[0];
    return other(path, 'internal', `internal error: ${first} (please report)`, s, ms());
  }
}

/**
 * "G-single, causality violation x2", then what the list leaves out: "(3 more not shown)" when
 * more were found, "(at least 3 ...)" when that count is a lower bound, "(more not searched for:
 * --max-anomalies N)" when the search stopped at its budget without knowing.
 */
function anomalyNames(names: readonly string[], r: { truncated: boolean; anomaliesNotShown: number; anomalySearchComplete: boolean }): string {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  const list = [...counts].map(([n, c]) => (c === 1 ? n : `${n} x${c}`)).join(', ');
  if (r.anomaliesNotShown > 0) return `${list} (${r.anomalySearchComplete ? '' : 'at least '}${r.anomaliesNotShown} more not shown)`;
  return r.truncated ? `${list} (more not searched for: --max-anomalies N)` : list;
}

/** The outcome of a history that has no CheckResult: skipped, invalid or an internal error. */
export function other(path: string, status: 'skipped' | 'invalid' | 'internal', message: string, s: { json: boolean }, ms: number): Outcome {
  const line = s.json
    ? JSON.stringify({ schemaVersion: SCHEMA_VERSION, file: path, outcome: status === 'internal' ? 'internal-error' : status, message })
    : `${STATUS_WORD[status]}  ${status === 'invalid' && message.startsWith(path) ? message : `${path}: ${message}`}`;
  return { path, status, exit: STATUS_EXIT[status], line, ms };
}
