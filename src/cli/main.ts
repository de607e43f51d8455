/**
 * The `polysi` command line. The only module that prints or decides exit codes.
 *
 * Takes: argv (without node and script). Gives: an exit code:
 *   0 the history satisfies the level, 1 violation, 2 invalid input or usage, 3 unknown.
 * Commands: check (default), convert, stat, run, help.
 */

import { parseArgs } from 'node:util';
import { writeFile } from 'node:fs/promises';
import { InputError } from '../history/errors.ts';
import { checkHistory, type CheckResult, type Level, type ProgressEvent } from '../check/index.ts';
import { readHistory } from '../formats/index.ts';
import { renderText, resultJson } from './render.ts';

export interface Io {
  stdout(s: string): void;
  stderr(s: string): void;
}

const processIo: Io = {
  stdout: (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
  stderr: (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
};

export const EXIT_VALID = 0;
export const EXIT_VIOLATION = 1;
export const EXIT_INVALID = 2;
export const EXIT_UNKNOWN = 3;

const USAGE = `usage:
  polysi check PATH [--format auto|FORMAT] [--level si|ser] [--json] [--timeout SECONDS] [--no-pruning]
               [--explain] [--dot FILE] [--svg FILE] [--html FILE] [--max-anomalies N] [--neighbours]
  polysi convert IN OUT --to FORMAT [--format auto|FORMAT]
  polysi stat PATH [--format auto|FORMAT] [--json]
  polysi analyze PROGRAM --model ec|cc|pc|psi|si|ser [--bound K] [--prove] [--json] [--timeout SECONDS]
  polysi run [--db memory[:MODE]|postgres://...|mysql://...] [--isolation LEVEL] [--workload register|list-append]
             [--out FILE] [--check si|ser|none] ...   (polysi run --help: every flag and memory mode)

check exit codes: 0 valid, 1 violation, 2 invalid input or usage, 3 unknown (a limit was hit)
check --explain prints each violation's minimal counterexample and argument; --dot/--svg/--html
write drawings of them (SVG through WebAssembly Graphviz; see docs/explain.md)`;

export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'check': return await runCheck(rest, io);
      case 'convert': return await (await import('./convert.ts')).runConvert(rest, io);
      case 'stat': return await (await import('./stat.ts')).runStat(rest, io);
      case 'analyze': return await (await import('./analyze.ts')).runAnalyze(rest, io);
      case 'run': return await (await import('./run.ts')).runRun(rest, io);
      case undefined: case 'help': case '--help': case '-h':
        io.stdout(USAGE);
        return cmd === undefined ? EXIT_INVALID : EXIT_VALID;
      default:
        io.stderr(`polysi: unknown command "${cmd}"\n${USAGE}`);
        return EXIT_INVALID;
    }
  } catch (err) {
    if (err instanceof InputError) {
      io.stderr(`polysi: ${err.message}`);
      return EXIT_INVALID;
    }
    if (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`polysi: ${err.message}\n${USAGE}`);
      return EXIT_INVALID;
    }
    throw err;
  }
}

async function runCheck(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: 'string', default: 'auto' },
      level: { type: 'string', default: 'si' },
      json: { type: 'boolean', default: false },
      timeout: { type: 'string' },
      'no-pruning': { type: 'boolean', default: false },
      explain: { type: 'boolean', default: false },
      dot: { type: 'string' },
      svg: { type: 'string' },
      html: { type: 'string' },
      'max-anomalies': { type: 'string' },
      neighbours: { type: 'boolean', default: false },
    },
  });
  if (positionals.length !== 1) {
    io.stderr(`polysi check: expected exactly one history path, got ${positionals.length}\n${USAGE}`);
    return EXIT_INVALID;
  }
  const level = values.level;
  if (level !== 'si' && level !== 'ser') {
    io.stderr(`polysi check: --level must be si or ser, got "${level}"`);
    return EXIT_INVALID;
  }
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    const s = Number(values.timeout);
    if (!Number.isFinite(s) || s <= 0) {
      io.stderr(`polysi check: --timeout takes a positive number of seconds, got "${values.timeout}"`);
      return EXIT_INVALID;
    }
    timeoutMs = s * 1000;
  }
  let maxAnomalies: number | undefined;
  if (values['max-anomalies'] !== undefined) {
    const n = Number(values['max-anomalies']);
    if (!Number.isInteger(n) || n < 1) {
      io.stderr(`polysi check: --max-anomalies takes a positive integer, got "${values['max-anomalies']}"`);
      return EXIT_INVALID;
    }
    maxAnomalies = n;
  }
  // Explaining costs nothing on a valid history and is cheap (and time-bounded) on a violation,
  // so the CLI always does it: every anomaly gets its name and minimal counterexample. The JSON
  // always carries them; the text prints the full argument only with --explain.
  const explain = true;
  const drawing = values.dot !== undefined || values.svg !== undefined || values.html !== undefined;
  const path = positionals[0]!;
  const progress = !values.json && process.stderr.isTTY === true;
  if (progress) io.stderr(`polysi: reading ${path} ...`);
  const t0 = performance.now();
  const { history, format, notes } = await readHistory(path, values.format);
  const parseMs = performance.now() - t0;
  if (progress) io.stderr(`polysi: checking ${history.txnCount} transactions ...`);
  const onProgress = (e: ProgressEvent): void => {
    const at = `${((performance.now() - t0) / 1000).toFixed(1)} s`;
    const left = e.constraintsLeft === undefined ? '' : `, ${e.constraintsLeft} constraints undecided`;
    const what = e.stage === 'prune' ? (e.round === 0 ? 'pruning' : `pruning round ${e.round} done`) : e.stage === 'construct' ? 'building the polygraph'
      : e.stage === 'solve' ? 'solving' : e.stage === 'explain' ? 'explaining the violation' : 'validating';
    io.stderr(`polysi: [${at}] ${what}${left}`);
  };
  const result = checkHistory(history, {
    level: level as Level,
    ...(progress ? { onProgress } : {}),
    pruning: !values['no-pruning'],
    explain,
    neighbours: values.neighbours,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxAnomalies === undefined ? {} : { maxAnomalies }),
  }, parseMs);
  if (values.json) {
    io.stdout(JSON.stringify(resultJson(history, result, { file: path, format, notes }, values.explain)));
  } else {
    io.stdout(renderText(history, result, path, format, notes, values.explain));
  }
  if (drawing) await writeDrawings(result, { file: path, format, notes }, values);
  return result.verdict === 'valid' ? EXIT_VALID : result.verdict === 'violation' ? EXIT_VIOLATION : EXIT_UNKNOWN;
}

/** --dot, --svg, --html: only the counterexamples are drawn (see src/render/). */
async function writeDrawings(
  result: CheckResult, src: { file: string; format: string; notes: string[] }, out: { dot?: string | undefined; svg?: string | undefined; html?: string | undefined },
): Promise<void> {
  const render = await import('../render/index.ts');
  const cxs = result.anomalies.map((a) => a.explanation).filter((x) => x !== undefined);
  if (out.dot !== undefined) await writeFile(out.dot, render.renderDot(cxs));
  if (out.svg !== undefined) await writeFile(out.svg, cxs.length === 0 ? render.emptySvg('no anomalies') : await render.renderSvg(cxs));
  if (out.html !== undefined) await writeFile(out.html, await render.htmlReport(result, src));
}
