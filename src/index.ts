/**
 * The public API of the `polysi` package (`import { readHistory, checkHistory } from 'polysi'`).
 *
 * Takes: a history (read from a file by `readHistory`, or built in memory with `HistoryBuilder`)
 * and options. Gives: a `CheckResult` (data), its JSON form (`resultJson`, the same object
 * `polysi check --json` prints, described by schema/check-result.schema.json) and renderings of
 * its counterexamples (text, DOT, SVG, HTML); and the recording API (`openHistory`), which
 * writes an application's own transactions as a history to check.
 * Invariant: options are validated here, at the package boundary: a wrong type, an unknown
 * level or format, or a negative limit is a TypeError naming the option, never a silently
 * different check. Everything else in src/ is internal and may change without notice.
 * See docs/api.md.
 */

import { checkHistory as runCheck, IMPLEMENTED_LEVELS, isImplementedLevel, type CheckOptions as FullCheckOptions, type CheckResult } from './check/index.ts';
import { FORMATS, readHistory as readAny, type ReadResult } from './formats/index.ts';
import type { ReadOptions } from './formats/io-read.ts';
import type { History } from './history/model.ts';
import { levelsJson, resultJson as jsonOfResult, SCHEMA_VERSION } from './render/json.ts';
import { checkLevels as runLevels, type LevelsOptions as FullLevelsOptions, type LevelsResult } from './check/ladder.ts';

export type {
  Anomaly, CheckResult, CycleAnomaly, DepEdge, EdgeKind, Level, NonCycleAnomaly, NonCycleAnomalyName,
  ProgressEvent, StageTimesMs, Verdict,
} from './check/index.ts';
export { INIT_TXN, IMPLEMENTED_LEVELS, LEVEL_NAMES, type LevelName } from './check/index.ts';
export {
  COVERS, implies, incomparable, isDownClosed, LEVELS, strongerThan, strongestOf, weakerThan, weakestOf, type LevelInfo,
} from './result/lattice.ts';
export { ELLE_NAMES, levelNamesOf, parseLevelName, type ParsedLevel } from './result/levels.ts';
export type { LevelBasis, LevelRow, LevelsResult, LevelStatus } from './check/ladder.ts';
export type {
  AnomalyClass, AnomalyDescription, BaseCycleClass, Counterexample, CxConstraint, CxContextEdge, CxCycle, CxEdge, CxStep, CxTxn, CycleClass, EdgeStatus, Side,
} from './result/counterexample.ts';
export type { History, LocUnit, OpKind, TxnStatus } from './history/model.ts';
export { OP_APPEND, OP_READ, OP_READ_LIST, OP_WRITE, TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, describeOp, txnLabel, valueLabel } from './history/model.ts';
export { LabelTable } from './history/labels.ts';
export { HistoryBuilder, type RawKey, type RawValue } from './history/builder.ts';
export { InputError, type InputErrorCode } from './history/errors.ts';
export type { ReadResult } from './formats/index.ts';
export type { ReadOptions } from './formats/io-read.ts';
export { historyStats, type HistoryStats, type KeyHeat } from './history/stats.ts';
export { historyOpportunities, type Opportunities, type PairOpportunities } from './history/opportunities.ts';
export { openHistory, RecordedHistory, RecordedSession, RecordedTxn, type Key as RecordKey, type Value as RecordValue, type HistoryOptions as RecordOptions } from './run/record.ts';
export { MissingPackageError } from './util/optional.ts';
export {
  renderExplanationText, renderDot, renderSvg, htmlReport, type TextOptions, type ReportSource,
} from './render/index.ts';
export { SCHEMA_VERSION };

/**
 * Options of `checkHistory`; every one may be left out. Defaults: level 'si', pruning on,
 * explain on (as in the CLI), no time limit.
 */
export type CheckOptions = Partial<FullCheckOptions>;

/**
 * Every option `checkHistory` accepts. Typed as a record over the keys of CheckOptions, so that an
 * option added there is a compile error here until it is listed (and its value checked below).
 */
const OPTION_NAMES: Record<keyof FullCheckOptions, true> = {
  level: true, pruning: true, timeoutMs: true, conflictsMax: true, reachCellsMax: true, onProgress: true,
  explain: true, maxAnomalies: true, explainTimeoutMs: true, explainMoreMs: true, neighbours: true, pruneRoundsMax: true,
  deadlineMs: true, constraintsMax: true, constraintEdgesMax: true, maxMemoryMb: true,
};

/** The options `readHistory` accepts (see ReadOptions). */
const READ_OPTION_NAMES: readonly string[] = ['deadlineMs', 'onProgress', 'inputBytesMax', 'chunkBytes'] satisfies (keyof ReadOptions)[];

/** The names `readHistory` accepts as `format` ('auto' detects the format). */
export const FORMAT_NAMES: readonly string[] = ['auto', ...FORMATS.map((f) => f.name)];

/**
 * Reads the history at `path` (a file, or a directory for Cobra logs). `format` is 'auto' (the
 * default: detected from the first 64 KiB) or one of FORMAT_NAMES.
 * Throws TypeError for a bad argument, InputError (file, line or byte offset, what was expected)
 * for a missing, unreadable or malformed history.
 */
export async function readHistory(path: string, format = 'auto', options: ReadOptions = {}): Promise<ReadResult> {
  if (typeof path !== 'string' || path === '') throw new TypeError(`readHistory: path must be a non-empty string, got ${show(path)}`);
  if (typeof format !== 'string' || !FORMAT_NAMES.includes(format)) {
    throw new TypeError(`readHistory: format must be one of ${FORMAT_NAMES.join(', ')}; got ${show(format)}`);
  }
  if (options === null || typeof options !== 'object') throw new TypeError(`readHistory: options must be an object, got ${show(options)}`);
  for (const k of Object.keys(options)) {
    if (!READ_OPTION_NAMES.includes(k)) throw new TypeError(`readHistory: unknown option "${k}" (known: ${READ_OPTION_NAMES.join(', ')})`);
  }
  return readAny(path, format, options);
}

/**
 * Checks `history` against snapshot isolation (level 'si', strong session SI), serializability
 * ('ser', strong session), or another level of the ladder (LEVEL_NAMES: 'pl-3' is Elle's
 * serializable, 'pl-si' its snapshot-isolation, ...; `parseLevelName` turns any name a user may
 * give, Elle's included, into one; docs/levels.md; the strict ones read the history's
 * txnStart/txnEnd). Returns the verdict with its evidence: 'valid', 'violation' (at least
 * one anomaly, each with a minimal counterexample unless `explain: false`) or 'unknown' (a limit
 * was hit; `unknownReason` says which). Throws TypeError for bad options, InputError for input the
 * checker does not support (two writes of the same value to a key).
 */
export function checkHistory(history: History, options: CheckOptions = {}): CheckResult {
  return runCheck(history, checkOptions(history, options));
}

/**
 * Options of `checkLevels`: those of `checkHistory` but `level`, and `onLevel` (called with each
 * level before it is checked). `timeoutMs` bounds the whole ladder; `maxAnomalies` defaults to 1
 * (one counterexample per violated level).
 */
export type LevelsOptions = Partial<FullLevelsOptions>;

/**
 * Checks every level of the isolation ladder (docs/levels.md) that checkHistory decides,
 * strongest first, each satisfied level settling the levels below it: one row per level
 * (satisfied, violated, unknown or not checked, and whether by its own check, implied by a
 * stronger satisfied level, or inherited from a weaker violated one), and the strongest levels
 * satisfied (a set: the levels form a lattice). Throws as checkHistory does.
 */
export function checkLevels(history: History, options: LevelsOptions = {}): LevelsResult {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new TypeError(`checkLevels: options must be an object, got ${show(options)}`);
  const { onLevel, ...rest } = options as Record<string, unknown>;
  if ('level' in rest) throw new TypeError('checkLevels: checks every level; use checkHistory for one level');
  if (onLevel !== undefined && typeof onLevel !== 'function') throw new TypeError(`checkLevels: onLevel must be a function, got ${show(onLevel)}`);
  const { level: _, ...common } = checkOptions(history, rest);
  return runLevels(history, { ...common, ...(onLevel === undefined ? {} : { onLevel: onLevel as FullLevelsOptions['onLevel'] & object }) });
}

/** The JSON form of a ladder: what `polysi check --levels --json` prints (schema/levels-result.schema.json). */
export function levelsResultJson(
  history: History, result: LevelsResult, source: { file?: string; format?: string; notes?: readonly string[] } = {}, explainText = false,
): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  if (source.file !== undefined) extra['file'] = source.file;
  if (source.format !== undefined) extra['format'] = source.format;
  if (source.notes !== undefined) extra['notes'] = [...source.notes];
  return levelsJson(history, result, extra, explainText);
}

/**
 * The JSON form of a result: what `polysi check --json` prints, with `schemaVersion`, every
 * transaction and key named with the user's labels. `source` adds `file`, `format` and `notes`
 * (from `readHistory`); `explainText` adds each explanation's text rendering.
 */
export function resultJson(
  history: History, result: CheckResult, source: { file?: string; format?: string; notes?: readonly string[] } = {}, explainText = false,
): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  if (source.file !== undefined) extra['file'] = source.file;
  if (source.format !== undefined) extra['format'] = source.format;
  if (source.notes !== undefined) extra['notes'] = [...source.notes];
  return jsonOfResult(history, result, extra, explainText);
}

/** Validates the caller's options and fills in the defaults. */
function checkOptions(history: unknown, o: unknown): FullCheckOptions {
  if (!isHistory(history)) throw new TypeError('checkHistory: the first argument must be a History (from readHistory or HistoryBuilder.build())');
  if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new TypeError(`checkHistory: options must be an object, got ${show(o)}`);
  const opts = o as Record<string, unknown>;
  for (const k of Object.keys(opts)) {
    if (!Object.hasOwn(OPTION_NAMES, k)) throw new TypeError(`checkHistory: unknown option "${k}" (known: ${Object.keys(OPTION_NAMES).join(', ')})`);
  }
  const level = opts['level'] ?? 'si';
  if (!isImplementedLevel(level)) throw new TypeError(`checkHistory: level must be one of ${IMPLEMENTED_LEVELS.map((l) => `'${l}'`).join(', ')}, got ${show(level)}`);
  const out: FullCheckOptions = {
    level,
    pruning: bool(opts, 'pruning', true),
    explain: bool(opts, 'explain', true),
    neighbours: bool(opts, 'neighbours', false),
  };
  // A zero budget is allowed (the verdict is then 'unknown'); a negative one is a mistake.
  const timeoutMs = limit(opts, 'timeoutMs', false, 0);
  if (timeoutMs !== undefined) out.timeoutMs = timeoutMs;
  const explainTimeoutMs = limit(opts, 'explainTimeoutMs', false, 0);
  if (explainTimeoutMs !== undefined) out.explainTimeoutMs = explainTimeoutMs;
  const explainMoreMs = limit(opts, 'explainMoreMs', false, 0);
  if (explainMoreMs !== undefined) out.explainMoreMs = explainMoreMs;
  const conflictsMax = limit(opts, 'conflictsMax', true, 0);
  if (conflictsMax !== undefined) out.conflictsMax = conflictsMax;
  const reachCellsMax = limit(opts, 'reachCellsMax', true, 1);
  if (reachCellsMax !== undefined) out.reachCellsMax = reachCellsMax;
  const maxMemoryMb = limit(opts, 'maxMemoryMb', false, 1);
  if (maxMemoryMb !== undefined) out.maxMemoryMb = maxMemoryMb;
  const deadlineMs = limit(opts, 'deadlineMs', false, 0);
  if (deadlineMs !== undefined) out.deadlineMs = deadlineMs;
  const constraintsMax = limit(opts, 'constraintsMax', true, 0);
  if (constraintsMax !== undefined) out.constraintsMax = constraintsMax;
  const constraintEdgesMax = limit(opts, 'constraintEdgesMax', true, 0);
  if (constraintEdgesMax !== undefined) out.constraintEdgesMax = constraintEdgesMax;
  const pruneRoundsMax = limit(opts, 'pruneRoundsMax', true, 0);
  if (pruneRoundsMax !== undefined) out.pruneRoundsMax = pruneRoundsMax;
  const maxAnomalies = limit(opts, 'maxAnomalies', true, 1);
  if (maxAnomalies !== undefined) out.maxAnomalies = maxAnomalies;
  const onProgress = opts['onProgress'];
  if (onProgress !== undefined) {
    if (typeof onProgress !== 'function') throw new TypeError(`checkHistory: onProgress must be a function, got ${show(onProgress)}`);
    out.onProgress = onProgress as FullCheckOptions['onProgress'] & object;
  }
  return out;
}

function bool(opts: Record<string, unknown>, name: string, dflt: boolean): boolean {
  const v = opts[name];
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw new TypeError(`checkHistory: ${name} must be a boolean, got ${show(v)}`);
  return v;
}

/** A number >= `min` (an integer when `integer`), or undefined when absent. */
function limit(opts: Record<string, unknown>, name: string, integer: boolean, min: number): number | undefined {
  const v = opts[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !(v >= min) || (integer ? !Number.isSafeInteger(v) : !Number.isFinite(v))) {
    throw new TypeError(`checkHistory: ${name} must be ${integer ? 'an integer' : 'a finite number'} >= ${min}, got ${show(v)}`);
  }
  return v;
}

function isHistory(h: unknown): h is History {
  if (h === null || typeof h !== 'object') return false;
  const x = h as Partial<History>;
  return typeof x.txnCount === 'number' && x.txnOpStart instanceof Int32Array && x.opKind instanceof Uint8Array && Array.isArray(x.keyLabels);
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'function') return 'a function';
  if (Array.isArray(v)) return 'an array';
  return v === null ? 'null' : typeof v === 'object' ? 'an object' : String(v);
}
