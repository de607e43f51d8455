/**
 * The `polysi` command line. The only module that prints or decides exit codes.
 *
 * Takes: argv (without node and script). Gives: an exit code:
 *   0 the history satisfies the level, 1 violation, 2 invalid input, usage or I/O error,
 *   3 unknown, 4 internal error (a bug: one line on stderr, the stack with --debug).
 * Commands: check (default), convert, stat, run, probe, analyze, help; `--version`, and `COMMAND --help` (exit 0).
 * Invariant: only a violation exits 1; any exception that is not InputError, OutputError or a
 * usage error is a bug and exits 4, so a CI job never mistakes a crash for a database bug.
 * Test hook: POLYSI_TEST_FAULT=internal makes a command throw a plain Error after its arguments
 * are parsed (fault.ts), so tests can drive the internal-error path of the real CLI.
 */

import { statSync, type Stats } from 'node:fs';
import { nearest, parseCommandArgs, UsageError, usageLine } from './args.ts';
import { checkOptionsFrom, deadlineFrom, FlagError, nothingCheckedWarning, parseCheckFlags, type CheckFlags } from './check-flags.ts';
import { asOption, checkOutputPath, OutputError, sameFile, writeOutput } from './output.ts';
import { injectedFault } from './fault.ts';
import { progressOnStderr, progressTo } from './progress.ts';
import { writeStd } from './stdio.ts';
import { eagerTierUp, SMALL_INPUT_BYTES } from './tiering.ts';
import { InputError } from '../history/errors.ts';
import { parseLevelName } from '../result/levels.ts';
import { MissingPackageError } from '../util/optional.ts';
import {
  checkHistory, IMPLEMENTED_LEVELS, isImplementedLevel, LEVEL_NAMES, notImplementedReason, type CheckResult, type Level, type LevelName,
  type ProgressEvent,
} from '../check/index.ts';
import { readHistory, TimeLimitError } from '../formats/index.ts';
import type { History } from '../history/model.ts';
import { EXPLAIN_MORE_MS, EXPLAIN_MORE_MS_BATCH, renderText } from './render.ts';
import { parseTimeoutJson, resultJson } from '../render/json.ts';
import { now } from '../util/clock.ts';

export interface Io {
  stdout(s: string): void;
  stderr(s: string): void;
}

const processIo: Io = {
  // fs.writeSync rather than process.stdout: the stream costs a small check 2-4 ms (stdio.ts).
  stdout: (s) => writeStd(1, s.endsWith('\n') ? s : `${s}\n`),
  stderr: (s) => writeStd(2, s.endsWith('\n') ? s : `${s}\n`),
};

export const EXIT_VALID = 0;
export const EXIT_VIOLATION = 1;
export const EXIT_INVALID = 2;
export const EXIT_UNKNOWN = 3;
export const EXIT_INTERNAL = 4;

export { EXPLAIN_MORE_MS, EXPLAIN_MORE_MS_BATCH } from './render.ts';

/** The commands `polysi` knows (an unknown one is matched against these for "did you mean"). */
const COMMANDS = ['check', 'convert', 'stat', 'analyze', 'run', 'probe', 'help'];

/** `polysi --help`: the commands, one line each; `polysi COMMAND --help` gives each one's options. */
const USAGE = `usage: polysi COMMAND [options]   (polysi COMMAND --help: that command's options)
  polysi check PATH [--level LEVEL | --levels] [--json] ...   check a history (or many) against an isolation level
  polysi run [--db memory[:MODE]|postgres://...|mysql://...] ...   run a workload on a database, record it, check it
  polysi analyze PROGRAM [--model MODEL] ...   find the anomalies a transaction program allows, before it runs
  polysi convert IN OUT --to FORMAT   convert a history between formats
  polysi stat PATH [--json]   sessions, outcomes, operations and hot keys of a history
  polysi probe --db URL|memory [--levels L,...] [--repeat N] ...   which anomalies a database allows at each of its levels
  polysi --version
  any command: --debug (the stack of an internal error)

exit codes: 0 valid (convert, stat: done), 1 violation, 2 invalid input, usage, or an output
that cannot be written, 3 unknown (a limit was hit), 4 internal error (a bug: please report);
analyze: 5 an anomaly the interpreter did not confirm
docs: README.md, docs/checking.md, docs/levels.md, docs/workloads.md, docs/probe.md`;

/** `polysi check --help`. */
export const CHECK_USAGE = `usage:
  polysi check PATH [--format auto|FORMAT] [--level LEVEL | --levels] [--json] [--timeout SECONDS] [--no-pruning]
               [--explain] [--dot FILE] [--svg FILE] [--html FILE] [--max-anomalies N] [--neighbours]
               [--max-memory MB]
  polysi check PATH PATH... | DIR [--jobs N] [same options, no drawings]
               many histories on a pool of worker threads (one per core), directories walked
               (a Cobra log directory is one history): one line per history (JSON Lines with
               --json), a summary table, and the worst exit code: 4 > 2 > 1 > 3 > 0
PATH may be - (standard input); --format is detected unless given (docs/formats.md)

levels (weakest first; docs/levels.md): ${LEVEL_NAMES.join(', ')} (checked today: ${IMPLEMENTED_LEVELS.join(', ')}); default si
--level also takes Elle's names with Elle's meaning (serializable = pl-3, strong-session-serializable = ser,
snapshot-isolation = pl-si, read-committed = pl-2, monotonic-atomic-view = mav, ...) and Adya's (PL-2.99)
--levels checks the whole ladder: a table of every level, the strongest ones satisfied, and a
counterexample for each violated level; it exits 0 when the table is complete, 3 when a
level's check hit a limit (a violation is a finding there, not a failure)
--timeout SECONDS is one deadline for each history, reading included; --max-memory MB answers
unknown (naming the stage) instead of running out of memory (in a batch: the whole process)
--explain prints each violation's minimal counterexample and argument; --dot/--svg/--html
write drawings of them (SVG through WebAssembly Graphviz; see docs/explain.md)
progress goes to stderr on a terminal (POLYSI_PROGRESS=1 forces it, POLYSI_PROGRESS=0 silences it)

exit codes: 0 valid, 1 violation, 2 invalid input, usage, or an output that cannot be written,
3 unknown (a limit was hit), 4 internal error (a bug: please report)`;

export async function main(argvIn: string[], io: Io = processIo): Promise<number> {
  const { argv, debug } = takeDebug(argvIn);
  const [cmd, ...rest] = argv;
  if (cmd === '--version' || cmd === '-V' || cmd === 'version') {
    io.stdout((await import('./version.ts')).packageVersion());
    return EXIT_VALID;
  }
  // `polysi COMMAND --help`: that command's usage on stdout, exit 0 (asked for, so not an error).
  if (rest.includes('--help') || rest.includes('-h')) {
    if (cmd === 'check') { io.stdout(CHECK_USAGE); return EXIT_VALID; }
    if (cmd === 'convert') { io.stdout((await import('./convert.ts')).USAGE); return EXIT_VALID; }
    if (cmd === 'stat') { io.stdout((await import('./stat.ts')).USAGE); return EXIT_VALID; }
    if (cmd === 'analyze') { io.stdout((await import('./analyze.ts')).USAGE); return EXIT_VALID; }
    if (cmd === 'run') { io.stdout((await import('./run.ts')).RUN_USAGE); return EXIT_VALID; }
    if (cmd === 'probe') { io.stdout((await import('./probe.ts')).PROBE_USAGE); return EXIT_VALID; }
  }
  // Only a single check of a small file is a short run (tiering.ts).
  if (cmd !== 'check') eagerTierUp();
  try {
    switch (cmd) {
      case 'check': return await runCheck(rest, io);
      case 'convert': return await (await import('./convert.ts')).runConvert(rest, io);
      case 'stat': return await (await import('./stat.ts')).runStat(rest, io);
      case 'analyze': return await (await import('./analyze.ts')).runAnalyze(rest, io);
      case 'run': return await (await import('./run.ts')).runRun(rest, io);
      case 'probe': return await (await import('./probe.ts')).runProbe(rest, io);
      case undefined: case 'help': case '--help': case '-h':
        io.stdout(USAGE);
        return cmd === undefined ? EXIT_INVALID : EXIT_VALID;
      default: {
        const near = nearest(cmd, COMMANDS);
        io.stderr(`polysi: unknown command "${cmd}"${near === null ? '' : ` (did you mean ${near}?)`}; see polysi --help`);
        return EXIT_INVALID;
      }
    }
  } catch (err) {
    if (err instanceof InputError) {
      io.stderr(`polysi: ${err.message}`);
      return EXIT_INVALID;
    }
    if (err instanceof UsageError) {
      io.stderr(usageLine(err.command, err.message));
      return EXIT_INVALID;
    }
    if (err instanceof MissingPackageError) {
      io.stderr(`polysi ${cmd}: ${err.message}`);
      return EXIT_INVALID;
    }
    if (err instanceof OutputError) {
      io.stderr(`polysi ${cmd}: ${err.message}`);
      return EXIT_INVALID;
    }
    io.stderr(internalErrorMessage(err, debug));
    return EXIT_INTERNAL;
  }
}

/** `--debug` anywhere before `--` turns on stacks for internal errors; the commands never see it. */
function takeDebug(argv: string[]): { argv: string[]; debug: boolean } {
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  const debug = head.includes('--debug');
  return { argv: debug ? [...head.filter((a) => a !== '--debug'), ...(end < 0 ? [] : argv.slice(end))] : argv, debug };
}

/** One line for a bug (the first line of its message), or the whole stack with --debug. */
export function internalErrorMessage(err: unknown, debug: boolean): string {
  if (debug) return `polysi: internal error: ${err instanceof Error ? err.stack ?? err.message : String(err)}`;
  const first = (err instanceof Error ? `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}` : String(err)).split('\n')[0];
  return `polysi: internal error: ${first} (run with --debug for the stack; please report)`;
}

async function runCheck(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs('check', args, {
    format: { type: 'string', default: 'auto' },
    level: { type: 'string' },
    levels: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    timeout: { type: 'string' },
    'max-memory': { type: 'string' },
    'no-pruning': { type: 'boolean', default: false },
    explain: { type: 'boolean', default: false },
    dot: { type: 'string' },
    svg: { type: 'string' },
    html: { type: 'string' },
    'max-anomalies': { type: 'string' },
    neighbours: { type: 'boolean', default: false },
    jobs: { type: 'string', short: 'j' },
  });
  if (positionals.length === 0) throw new UsageError('check', 'expected a history path (or several, or a directory)');
  if (values.levels && values.level !== undefined) {
    io.stderr('polysi check: --levels checks every level; give it or --level, not both');
    return EXIT_INVALID;
  }
  const parsed = parseLevelName(values.level ?? 'si');
  if (!parsed.ok) {
    io.stderr(`polysi check: --level: ${parsed.message}`);
    return EXIT_INVALID;
  }
  const level = parsed.level;
  if (!isImplementedLevel(level)) {
    io.stderr(`polysi check: --level ${level}: ${notImplementedReason(level as LevelName)}`);
    return EXIT_INVALID;
  }
  let flags: CheckFlags;
  try {
    flags = parseCheckFlags(values, EXPLAIN_MORE_MS);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    io.stderr(`polysi check: ${err.message}`);
    return EXIT_INVALID;
  }
  // Explaining is always on (checkOptionsFrom): the JSON always carries every anomaly's name and
  // minimal counterexample; the text prints the full argument only with --explain.
  const drawing = values.dot !== undefined || values.svg !== undefined || values.html !== undefined;
  if (drawing && values.levels) {
    io.stderr('polysi check: --dot, --svg and --html draw the counterexamples of one level: use --level LEVEL with them, not --levels');
    return EXIT_INVALID;
  }
  let jobs: number | undefined;
  if (values.jobs !== undefined) {
    const n = Number(values.jobs);
    if (!Number.isInteger(n) || n < 1) {
      io.stderr(`polysi check: --jobs takes a positive integer, got "${values.jobs}"`);
      return EXIT_INVALID;
    }
    jobs = n;
  }
  // Several paths, or a directory that is not one history (Cobra logs): the batch (batch.ts).
  // One history keeps the single report below, exactly as before.
  // (batch.ts and node:worker_threads are loaded only for a batch: a single check starts faster.)
  const st = positionals.length === 1 ? statOrNull(positionals[0]!) : null;
  const batch = positionals.length > 1 || st?.isDirectory() === true ? await import('./batch.ts') : null;
  if (batch !== null && (positionals.length > 1 || await batch.isBatchDir(positionals[0]!, values.format))) {
    eagerTierUp();
    if (drawing) {
      io.stderr('polysi check: --dot, --svg and --html draw one history: give a single history path');
      return EXIT_INVALID;
    }
    if (values.levels) {
      io.stderr('polysi check: --levels checks one history: give a single history path');
      return EXIT_INVALID;
    }
    injectedFault('check');
    const pr = progressTo(io, await progressOnStderr());
    return batch.runBatch(positionals, {
      format: values.format, level, json: values.json, explain: values.explain, flags: { ...flags, explainMoreMs: EXPLAIN_MORE_MS_BATCH },
    }, jobs ?? batch.defaultJobs(), io, pr);
  }
  const path = positionals[0]!;
  // A long run (big file, standard input, a pipe, a log directory, the whole ladder) wants V8's
  // optimizing compiler at its usual eagerness; a small file is checked before it would pay.
  if (values.levels || st === null || !st.isFile() || st.size > SMALL_INPUT_BYTES) eagerTierUp();
  // A drawing that cannot be written should fail now, not after a long check.
  for (const opt of DRAWINGS) {
    const out = values[opt];
    if (out === undefined) continue;
    if (await sameFile(path, out)) throw new OutputError(`--${opt} ${out}`, `it is the input history ${path}`);
    await asOption(opt, checkOutputPath(out));
  }
  injectedFault('check');
  // Progress goes to stderr; with --json it is off unless forced (POLYSI_PROGRESS=1).
  const pr = progressTo(io, await progressOnStderr(!values.json));
  const t0 = now();
  // One deadline for the whole run, parsing included (and, with --levels, every level).
  const deadlineMs = deadlineFrom(flags);
  let read;
  try {
    read = await readHistory(path, values.format, {
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
      ...(pr.on ? { onProgress: pr.reading(path) } : {}),
    });
  } catch (err) {
    if (!(err instanceof TimeLimitError)) throw err;
    if (values.json) io.stdout(JSON.stringify(parseTimeoutJson(path, level as Level, err.message)));
    else io.stdout(`${path}: unknown: ${err.message}`);
    return EXIT_UNKNOWN;
  }
  const { history, format, notes } = read;
  const parseMs = now() - t0;
  pr.line(`read ${path} (${format}): ${history.txnCount} transactions, ${history.opCount} operations`);
  const onProgress = (e: ProgressEvent): void => {
    if (e.stage === 'construct') {
      // The bare stage event is followed at once by the first key count.
      if (e.keysDone === undefined) return;
      const last = e.keysDone === e.keysTotal;
      pr.counter(`building the polygraph: ${e.keysDone} of ${e.keysTotal} keys${last ? '; indexing the constraints' : ''}`, e.keysDone === 0, last);
      return;
    }
    const left = e.constraintsLeft === undefined ? '' : `, ${e.constraintsLeft} constraints undecided`;
    const what = e.stage === 'prune' ? (e.round === 0 ? 'pruning' : `pruning round ${e.round} done`)
      : e.stage === 'solve' ? 'solving' : e.stage === 'explain' ? 'explaining the violation' : 'validating';
    pr.line(`${what}${left}`);
  };
  if (values.levels) {
    return (await import('./ladder.ts')).runLadder(history, { path, format, notes, parseMs }, {
      ...checkOptionsFrom(flags, deadlineMs),
      ...(pr.on ? { onProgress } : {}),
      onLevel: (l) => pr.line(`checking ${l}`),
    }, { json: values.json, explain: values.explain }, io);
  }
  const result = checkHistory(history, { level, ...checkOptionsFrom(flags, deadlineMs), ...(pr.on ? { onProgress } : {}) }, parseMs);
  const vacuous = nothingCheckedWarning(result);
  if (vacuous !== null && !values.json) io.stderr(`polysi: warning: ${vacuous}`);
  if (values.json) {
    io.stdout(JSON.stringify(resultJson(history, result, { file: path, format, notes }, values.explain)));
  } else {
    // Standard input is named as in the transactions' locations below it (`<stdin> line 3`).
    io.stdout(renderText(history, result, path === '-' ? '<stdin>' : path, format, notes, values.explain));
  }
  if (drawing) {
    pr.line('drawing the counterexamples');
    await writeDrawings(result, { file: path, format, notes }, values, history);
  }
  return result.verdict === 'valid' ? EXIT_VALID : result.verdict === 'violation' ? EXIT_VIOLATION : EXIT_UNKNOWN;
}

/** --dot, --svg, --html: only the counterexamples are drawn (see src/render/). */
async function writeDrawings(
  result: CheckResult, src: { file: string; format: string; notes: string[] }, out: { dot?: string | undefined; svg?: string | undefined; html?: string | undefined },
  history: History,
): Promise<void> {
  const render = await import('../render/index.ts');
  const cxs = result.anomalies.map((a) => a.explanation).filter((x) => x !== undefined);
  if (out.dot !== undefined) await asOption('dot', writeOutput(out.dot, render.renderDot(cxs)));
  if (out.svg !== undefined) await asOption('svg', writeOutput(out.svg, cxs.length === 0 ? render.emptySvg('no anomalies') : await render.renderSvg(cxs)));
  if (out.html !== undefined) await asOption('html', writeOutput(out.html, await render.htmlReport(result, src, history)));
}

const DRAWINGS = ['dot', 'svg', 'html'] as const;

/** Synchronous: node:fs/promises is not loaded by a single check (2-3 ms of a small one). */
function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null; // missing or unreadable: readHistory says why
  }
}

