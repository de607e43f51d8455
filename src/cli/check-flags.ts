/**
 * The check flags of `polysi check`, read once and turned into the library's options by one
 * builder, whether the command checks one history, a batch or the whole ladder (`--levels`).
 *
 * Takes: parseArgs' values of the flags below. Gives: `CheckFlags` (plain data: it crosses to
 * the batch's worker threads), then per history `checkOptionsFrom(flags, deadlineMs)`.
 * Invariant: every mode gets the same options from the same flags. `--timeout` is one deadline
 * per history counted from before it is read (parsing included), passed as `deadlineMs`, never as
 * a fresh `timeoutMs` after parsing; `--max-memory` is passed in every mode (in a batch it bounds
 * the whole process, every worker together: the resident set is the process's).
 */

import { nothingCheckedNote, type CheckOptions, type CheckResult } from '../check/index.ts';

/** A flag with a value out of range: the message names the flag and what it takes. */
export class FlagError extends Error {}

export interface CheckFlags {
  pruning: boolean;
  neighbours: boolean;
  timeoutMs?: number;
  maxMemoryMb?: number;
  maxAnomalies?: number;
  /** The budget for anomalies beyond the first, used when maxAnomalies is not given. */
  explainMoreMs: number;
}

export interface CheckFlagValues {
  timeout?: string | undefined;
  'max-memory'?: string | undefined;
  'max-anomalies'?: string | undefined;
  'no-pruning'?: boolean | undefined;
  neighbours?: boolean | undefined;
}

/** Reads the flags; throws FlagError for a value out of range. */
export function parseCheckFlags(values: CheckFlagValues, explainMoreMs: number): CheckFlags {
  const flags: CheckFlags = { pruning: values['no-pruning'] !== true, neighbours: values.neighbours === true, explainMoreMs };
  if (values.timeout !== undefined) {
    const s = Number(values.timeout);
    if (values.timeout.trim() === '' || !Number.isFinite(s) || s <= 0) throw new FlagError(`--timeout takes a positive number of seconds, got "${values.timeout}"`);
    flags.timeoutMs = s * 1000;
  }
  if (values['max-memory'] !== undefined) {
    const mb = Number(values['max-memory']);
    if (values['max-memory'].trim() === '' || !Number.isFinite(mb) || mb < 1) {
      throw new FlagError(`--max-memory takes a number of megabytes (at least 1), got "${values['max-memory']}"`);
    }
    flags.maxMemoryMb = mb;
  }
  if (values['max-anomalies'] !== undefined) {
    const n = Number(values['max-anomalies']);
    if (!Number.isInteger(n) || n < 1) throw new FlagError(`--max-anomalies takes a positive integer, got "${values['max-anomalies']}"`);
    flags.maxAnomalies = n;
  }
  return flags;
}

/** The deadline of one history's check, taken before it is read: `--timeout` covers parsing. */
export function deadlineFrom(flags: CheckFlags, nowMs = Date.now()): number | undefined {
  return flags.timeoutMs === undefined ? undefined : nowMs + flags.timeoutMs;
}

/**
 * The library's options for one history (a level is added by the caller; the ladder sets each).
 * Explaining is always on: it costs nothing on a valid history and is time-bounded on a violation.
 * The first anomaly is always explained; more within `explainMoreMs`, unless --max-anomalies asks
 * for a number (then up to the explain time limit).
 */
export function checkOptionsFrom(flags: CheckFlags, deadlineMs: number | undefined): Omit<CheckOptions, 'level'> {
  return {
    pruning: flags.pruning,
    explain: true,
    neighbours: flags.neighbours,
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
    ...(flags.maxMemoryMb === undefined ? {} : { maxMemoryMb: flags.maxMemoryMb }),
    ...(flags.maxAnomalies === undefined ? { explainMoreMs: flags.explainMoreMs } : { maxAnomalies: flags.maxAnomalies }),
  };
}

/**
 * The warning for a check that checked nothing (no transaction takes part), or null. Only when
 * the check got as far as validation (which adds the note): a check stopped before it, by the
 * memory budget or the deadline, has counted no transactions but said nothing false about them.
 */
export function nothingCheckedWarning(r: Pick<CheckResult, 'counts' | 'notes'>): string | null {
  const note = nothingCheckedNote(r.counts);
  return note !== null && r.notes?.includes(note) === true ? note : null;
}
