/**
 * `polysi probe`: which anomalies a database really allows, level by level (Hermitage,
 * automated, judged by the checker).
 *
 * Takes: command-line arguments (after `probe`) and an output sink. Gives: an exit code: 0 when
 * the table is complete (an allowed anomaly is a finding, not a failure), 2 for usage errors or
 * an unreachable database, 3 when it is incomplete (Ctrl-C, a level with runs that never
 * settled), 130 on a second Ctrl-C; the table on stdout (text, or JSON with --json,
 * schema/probe-result.schema.json), `--md` / `--html` files, progress on stderr.
 * Invariant: the histories are written as the runs go (the library's job), so Ctrl-C stops after
 * the run in flight and the table printed says which cells are incomplete.
 */

import { parseArgs } from 'node:util';
import { asOption, writeOutput } from './output.ts';
import { progressOnStderr } from './progress.ts';
import { DbError } from '../run/types.ts';
import { MEMORY_MODES } from '../run/store/modes.ts';
import { BLOCK_MS_DEFAULT, DB_LEVELS, probe, ProbeUsageError, REPEAT_DEFAULT, TXN_TIMEOUT_MS_DEFAULT, type ProbeProgress } from '../probe/probe.ts';
import { SCENARIOS } from '../probe/scenarios.ts';
import { renderProbeMarkdown, renderProbeText } from '../probe/render.ts';
import type { ProbeResult } from '../probe/types.ts';

export interface Out {
  stdout(s: string): void;
  stderr(s: string): void;
}

export const PROBE_USAGE = `usage: polysi probe --db URL [--levels L1,L2,...] [--repeat N] [--out DIR] [--json] [--md FILE] [--html FILE]
                    [--block-ms MS] [--txn-timeout SECONDS] [--seed N]
  Runs ${SCENARIOS.length} scenarios (Hermitage's and more) at every isolation level the database offers,
  --repeat times each (default ${REPEAT_DEFAULT}), records every run as a history in --out (default
  polysi-probe-<date>), checks each with the checker at every level, and prints the table.
  --db: postgres://user:pw@host:port/db (levels ${DB_LEVELS.postgres.join(', ')}),
        mysql://... (levels ${DB_LEVELS.mysql.join(', ')}),
        memory[:MODE] (the embedded store, every mode or one: ${MEMORY_MODES.map((m) => m.name).join(', ')})
  --block-ms: a step not done after this long is "blocked" and the schedule goes on (default ${BLOCK_MS_DEFAULT})
  --txn-timeout: a transaction's deadline on a database (default ${TXN_TIMEOUT_MS_DEFAULT / 1000}; lock waits end at half of it)
exit: 0 table complete, 2 usage error or database unreachable, 3 incomplete (interrupted)`;

class UsageError extends Error {}

function int(v: string | undefined, name: string, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isInteger(n) || n < min) throw new UsageError(`--${name} takes an integer ≥ ${min}, got "${v}"`);
  return n;
}

function defaultOutDir(): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return `polysi-probe-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

export async function runProbe(args: string[], out: Out): Promise<number> {
  try {
    return await runProbeInner(args, out);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ProbeUsageError) {
      out.stderr(`polysi probe: ${err.message}\n(polysi probe --help for usage)`);
      return 2;
    }
    if (err instanceof DbError) {
      out.stderr(`polysi probe: ${err.message}`);
      return 2;
    }
    throw err;
  }
}

async function runProbeInner(args: string[], out: Out): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: false,
      options: {
        db: { type: 'string' }, levels: { type: 'string' }, repeat: { type: 'string' }, out: { type: 'string' },
        json: { type: 'boolean', default: false }, md: { type: 'string' }, html: { type: 'string' },
        'block-ms': { type: 'string' }, 'txn-timeout': { type: 'string' }, seed: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) { out.stdout(PROBE_USAGE); return 0; }
  if (v.db === undefined) throw new UsageError('--db is required (postgres://..., mysql://... or memory)');
  const timeoutS = v['txn-timeout'] === undefined ? undefined : Number(v['txn-timeout']);
  if (timeoutS !== undefined && !(timeoutS > 0)) throw new UsageError(`--txn-timeout takes a number of seconds > 0, got "${v['txn-timeout']}"`);
  const outDir = v.out ?? defaultOutDir();
  const showProgress = !v.json && await progressOnStderr();
  const stop = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      out.stderr('\npolysi probe: stopping after the run in flight (Ctrl-C again to quit at once; the histories so far are in ' + outDir + ')');
      stop.abort();
      return;
    }
    out.stderr(`polysi probe: quit; the histories recorded so far are in ${outDir}`);
    process.exit(130);
  };
  process.on('SIGINT', onSigint);
  let last = 0;
  const onProgress = (e: ProbeProgress) => {
    if (!showProgress) return;
    const now = performance.now();
    if (now - last < 500 && e.done !== e.total) return;
    last = now;
    out.stderr(`polysi probe: ${e.done}/${e.total} runs (${e.level}, ${e.scenario})`);
  };
  let result: ProbeResult;
  try {
    const repeat = int(v.repeat, 'repeat', 1);
    const blockMs = int(v['block-ms'], 'block-ms', 1);
    const seed = int(v.seed, 'seed', 0);
    result = await probe({
      db: v.db,
      ...(v.levels !== undefined ? { levels: v.levels.split(',').map((s) => s.trim()).filter((s) => s !== '') } : {}),
      ...(repeat !== undefined ? { repeat } : {}),
      ...(blockMs !== undefined ? { blockMs } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(timeoutS !== undefined ? { txnTimeoutMs: Math.round(timeoutS * 1000) } : {}),
      outDir, signal: stop.signal, onProgress,
    });
  } finally {
    process.off('SIGINT', onSigint);
  }
  if (v.md !== undefined) await asOption('md', writeOutput(v.md, renderProbeMarkdown(result)));
  if (v.html !== undefined) {
    const { renderProbeHtml } = await import('../probe/html.ts');
    await asOption('html', writeOutput(v.html, await renderProbeHtml(result)));
  }
  out.stdout(v.json ? JSON.stringify(result) : renderProbeText(result));
  const incomplete = result.interrupted || result.levels.some((l) => l.cells.some((c) => c.incomplete && c.outcome !== 'not-expressible' && l.refused === ''));
  return incomplete ? 3 : 0;
}
