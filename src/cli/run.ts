/**
 * `polysi run`: generates a workload, runs it against a target (the embedded store or a
 * database), records the history as it goes, then checks it as `polysi check` does.
 *
 * Takes: command-line arguments (after `run`) and an output sink. Gives: an exit code as
 * `check`'s (0 valid, 1 violation, 2 usage / unreachable target / invalid input, 3 unknown, also when
 * sessions lost their connection or planned transactions were not run (the reason in the summary
 * and in the JSON's `run.incompleteReason`);
 * with `--check none` 0, or 3 when incomplete), 130 when a second Ctrl-C quits at once.
 * Invariant: every session is connected before the output file is created, so an unreachable
 * target leaves no file; the file only ever holds whole lines (recorder.ts), so Ctrl-C leaves a
 * valid history of everything that finished, which is then checked like a complete one.
 */

import { parseCommandArgs, UsageError } from './args.ts';
import { checkHistory, isImplementedLevel, IMPLEMENTED_LEVELS, type Level } from '../check/index.ts';
import { checkLevels } from '../check/ladder.ts';
import { renderLevelsText } from './levels.ts';
import { readHistory } from '../formats/index.ts';
import { lostUpdateOpportunities } from '../history/opportunities.ts';
import { renderLostUpdateOpportunities } from '../render/opportunities.ts';
import { DEFAULT_WORKLOAD, generateWorkload, type KeyDistribution, type WorkloadName, type WorkloadOptions } from '../workload/index.ts';
import { JsonlRecorder } from '../run/recorder.ts';
import { connectAll, runWorkload, type RunSummary, type TxnRecord } from '../run/runner.ts';
import { ISOLATION_LEVELS, openTarget, TargetSpecError } from '../run/targets.ts';
import { DbError, type IsolationLevel } from '../run/types.ts';
import { MEMORY_MODES, modeInfo } from '../run/store/modes.ts';
import { EXPLAIN_MORE_MS, renderText } from './render.ts';
import { levelsJson, resultJson } from '../render/json.ts';
import { checkOut, openOut, OutFileError } from './run-out.ts';
import { ioError } from '../formats/io-read.ts';

export interface Out {
  stdout(s: string): void;
  stderr(s: string): void;
}

/** `--profile contention`: few hot keys, short read-modify-write transactions, fewer sessions. */
export const CONTENTION_PROFILE: Partial<WorkloadOptions> = { sessions: 10, txnsPerSession: 100, opsPerTxn: 4, keys: 10, rmwFraction: 0.5 };

function workloadText(w: Partial<WorkloadOptions>): string {
  const parts: string[] = [];
  if (w.sessions !== undefined) parts.push(`--sessions ${w.sessions}`);
  if (w.txnsPerSession !== undefined) parts.push(`--txns ${w.txnsPerSession}`);
  if (w.opsPerTxn !== undefined) parts.push(`--ops ${w.opsPerTxn}`);
  if (w.keys !== undefined) parts.push(`--keys ${w.keys}`);
  if (w.readFraction !== undefined) parts.push(`--reads ${w.readFraction}`);
  if (w.rmwFraction !== undefined) parts.push(`--rmw ${w.rmwFraction}`);
  return parts.join(' ');
}

function profileText(): string {
  return workloadText(CONTENTION_PROFILE);
}

export const RUN_USAGE = `usage: polysi run [--db memory[:MODE]|postgres://...|mysql://...] [--isolation LEVEL]
                  [--workload register|list-append] [--sessions N] [--txns N] [--ops N] [--reads FRACTION]
                  [--keys N] [--distribution uniform|zipfian|hotspot] [--long-fraction F] [--long-ops N]
                  [--rmw FRACTION] [--profile default|contention]
                  [--seed N] [--out FILE [--force]] [--check LEVEL|levels|none] [--txn-timeout SECONDS]
                  [--json] [--explain] [--max-anomalies N]
defaults: --db memory:snapshot, --workload register, 20 sessions x 100 txns x 15 ops, 50 % reads,
          10000 uniform keys, --seed 1, --out polysi-run-DATE-TIME.jsonl (a new file per run; an existing
          --out file is refused unless --force), --check by level (ser for serializable),
          --txn-timeout 10 on databases (0 = none; none on the embedded store)
--profile contention: ${profileText()} (what finds a database's lost updates
          and write skews within a minute; each flag given still wins); a fault mode of the
          embedded store has its own workload defaults (shown below)
--rmw: fraction of writes preceded by a read of the same key (read-modify-write)
--check: one level (${IMPLEMENTED_LEVELS.join(', ')}), levels (the whole ladder), or none
exit: as check's; 3 (unknown) also when transactions were not run or sessions lost their connection
isolation levels: ${ISOLATION_LEVELS.join(', ')}
memory modes (--db memory:MODE):
${MEMORY_MODES.map((m) => `  ${m.name.padEnd(18)}${m.kind === 'fault' ? `fault → ${m.anomaly}: ` : ''}${m.summary}` +
  (m.workload === undefined ? '' : `\n${' '.repeat(20)}(default workload: ${workloadText(m.workload)})`)).join('\n')}`;

const DISTRIBUTIONS = ['uniform', 'zipfian', 'hotspot'];

/** Default per-transaction limit on databases (`--txn-timeout`); 0 = none. */
export const DEFAULT_DB_TXN_TIMEOUT_S = 10;

/** A usage mistake of `run` (main.ts prints it as one line with a pointer to --help). */
class RunUsageError extends UsageError {
  constructor(message: string) { super('run', message); }
}

function num(v: string | undefined, name: string, fallback: number, integer: boolean): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new RunUsageError(`--${name} takes ${integer ? 'an integer' : 'a number'}, got "${v}"`);
  }
  return n;
}

export async function runRun(args: string[], out: Out): Promise<number> {
  try {
    return await runRunInner(args, out);
  } catch (err) {
    if (err instanceof OutFileError) {
      out.stderr(`polysi run: ${err.message}`);
      return 2;
    }
    if (err instanceof RangeError || err instanceof TargetSpecError) throw new UsageError('run', err.message);
    throw err;
  }
}

async function runRunInner(args: string[], out: Out): Promise<number> {
  const parsed = parseCommandArgs('run', args, {
        db: { type: 'string', default: 'memory' },
        isolation: { type: 'string' },
        workload: { type: 'string', default: DEFAULT_WORKLOAD.workload },
        sessions: { type: 'string' }, txns: { type: 'string' }, ops: { type: 'string' }, reads: { type: 'string' },
        keys: { type: 'string' }, distribution: { type: 'string', default: DEFAULT_WORKLOAD.distribution },
        'long-fraction': { type: 'string' }, 'long-ops': { type: 'string' }, seed: { type: 'string' },
        rmw: { type: 'string' }, profile: { type: 'string' },
        out: { type: 'string' },
        force: { type: 'boolean', default: false },
        check: { type: 'string' },
        'txn-timeout': { type: 'string' },
        json: { type: 'boolean', default: false },
        explain: { type: 'boolean', default: false },
        'max-anomalies': { type: 'string' },
        help: { type: 'boolean', default: false },
  }, false);
  const v = parsed.values;
  if (v.help) { out.stdout(RUN_USAGE); return 0; }
  if (v.workload !== 'register' && v.workload !== 'list-append') throw new RunUsageError(`--workload must be register or list-append, got "${v.workload}"`);
  if (!DISTRIBUTIONS.includes(v.distribution)) throw new RunUsageError(`--distribution must be one of ${DISTRIBUTIONS.join(', ')}, got "${v.distribution}"`);
  if (v.isolation !== undefined && !ISOLATION_LEVELS.includes(v.isolation as IsolationLevel)) {
    throw new RunUsageError(`--isolation must be one of ${ISOLATION_LEVELS.join(', ')}, got "${v.isolation}"`);
  }
  if (v.check !== undefined && v.check !== 'none' && v.check !== 'levels' && !isImplementedLevel(v.check)) {
    throw new RunUsageError(`--check must be one of ${IMPLEMENTED_LEVELS.join(', ')}, levels or none, got "${v.check}"`);
  }
  if (v.profile !== undefined && v.profile !== 'default' && v.profile !== 'contention') {
    throw new RunUsageError(`--profile must be default or contention, got "${v.profile}"`);
  }
  // Defaults, then the profile or the fault mode's own workload, then each flag given.
  const mode = v.db.startsWith('memory:') ? modeInfo(v.db.slice('memory:'.length)) : undefined;
  const d: WorkloadOptions = {
    ...DEFAULT_WORKLOAD,
    ...(v.profile === 'contention' ? CONTENTION_PROFILE : v.profile === undefined ? mode?.workload ?? {} : {}),
  };
  const wo: WorkloadOptions = {
    workload: v.workload as WorkloadName,
    sessions: num(v.sessions, 'sessions', d.sessions, true),
    txnsPerSession: num(v.txns, 'txns', d.txnsPerSession, true),
    opsPerTxn: num(v.ops, 'ops', d.opsPerTxn, true),
    readFraction: num(v.reads, 'reads', d.readFraction, false),
    keys: num(v.keys, 'keys', d.keys, true),
    distribution: v.distribution as KeyDistribution,
    longFraction: num(v['long-fraction'], 'long-fraction', d.longFraction, false),
    longOps: num(v['long-ops'], 'long-ops', d.longOps, true),
    rmwFraction: num(v.rmw, 'rmw', d.rmwFraction ?? 0, false),
    seed: num(v.seed, 'seed', d.seed, true),
  };
  // A database can make a statement wait on a lock for ever; the embedded store cannot hang.
  const isMemory = v.db === 'memory' || v.db.startsWith('memory:');
  const timeoutS = num(v['txn-timeout'], 'txn-timeout', isMemory ? 0 : DEFAULT_DB_TXN_TIMEOUT_S, false);
  if (timeoutS < 0) throw new RunUsageError(`--txn-timeout takes a number of seconds ≥ 0, got "${v['txn-timeout']}"`);
  const maxAnomalies = v['max-anomalies'] === undefined ? undefined : num(v['max-anomalies'], 'max-anomalies', 10, true);
  if (maxAnomalies !== undefined && maxAnomalies < 1) throw new RunUsageError('--max-anomalies takes a positive integer');

  // A file that --out may not replace is refused now, before connecting (and again at the open).
  if (v.out !== undefined) checkOut(v.out, v.force);
  const plan = generateWorkload(wo); // throws RangeError on out-of-range options
  const resolved = await openTarget(v.db, v.isolation as IsolationLevel | undefined, wo.seed, { txnTimeoutMs: timeoutS * 1000 });
  const { target, isolation } = resolved;
  const level = (v.check ?? resolved.defaultCheck) as Level | 'levels' | 'none';
  const log = (s: string) => { if (!v.json) out.stderr(s); };

  // Set up and connect everything before the file exists: unreachable means no file at all.
  let conns;
  try {
    await target.setup(wo.keys, plan.kinds);
    conns = await connectAll(target, wo.sessions);
  } catch (err) {
    await target.close().catch(() => {});
    if (err instanceof DbError) {
      // Driver messages already name the target (password hidden); say it once.
      const msg = err.message.startsWith(target.name) ? err.message : `cannot use ${target.name}: ${err.message}`;
      out.stderr(`polysi run: ${msg}`);
      return 2;
    }
    throw err;
  }

  const total = wo.sessions * wo.txnsPerSession;
  const t0 = performance.now();
  let recorder: JsonlRecorder;
  let outPath: string;
  try {
    const opened = openOut(v.out, v.force, new Date());
    outPath = opened.path;
    recorder = new JsonlRecorder(opened.path, wo.sessions, t0, opened.fd);
  } catch (err) {
    await Promise.allSettled(conns.map((c) => c.close()));
    await target.close().catch(() => {});
    const why = err instanceof OutFileError ? err.message : ioError(v.out ?? 'the recording', err, 'create the recording').message;
    out.stderr(`polysi run: ${why}`);
    return 2;
  }
  const stop = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      out.stderr('\npolysi run: stopping: finishing the transactions in flight (Ctrl-C again to quit at once)');
      stop.abort();
      return;
    }
    recorder.close();
    out.stderr(`polysi run: quit; ${recorder.count} transactions recorded in ${outPath} (in-flight ones are not)`);
    process.exit(130);
  };
  process.on('SIGINT', onSigint);
  const progress = makeProgress(out, total, t0, !v.json);
  log(`polysi run: ${target.name}, ${isolation}, ${wo.workload}: ${wo.sessions} sessions x ${wo.txnsPerSession} txns x ${wo.opsPerTxn} ops, ` +
    `${wo.keys} ${wo.distribution} keys, seed ${wo.seed} -> ${outPath}`);
  let sum: RunSummary;
  try {
    sum = await runWorkload(target, conns, plan, {
      isolation,
      signal: stop.signal,
      ...(timeoutS > 0 ? { txnTimeoutMs: timeoutS * 1000 } : {}),
      onTxn: (r: TxnRecord) => { recorder.record(r); progress.tick(); },
    });
  } finally {
    process.off('SIGINT', onSigint);
    recorder.close();
    progress.done();
    await target.close().catch(() => {});
  }
  const rate = sum.elapsedMs > 0 ? (recorder.count / sum.elapsedMs) * 1000 : 0;
  const errs = Object.entries(sum.errors).map(([c, n]) => `${c} ${n}`).join(', ');
  log(`polysi run: ${recorder.count} transactions in ${(sum.elapsedMs / 1000).toFixed(2)} s (${Math.round(rate)} txn/s): ` +
    `${sum.committed} committed, ${sum.aborted} aborted, ${sum.unknown} unknown${errs === '' ? '' : ` (${errs})`}, recorded in ${outPath}` +
    (sum.notRun > 0 ? `; ${sum.notRun} not run${stop.signal.aborted ? ' (interrupted)' : ''}` : '') +
    (sum.sessionsLost > 0 ? `; ${sum.sessionsLost} sessions lost their connection` : ''));
  // A run that did not run what it planned proves less than it seems: say so, and never exit 0.
  const incomplete = incompleteReason(sum, stop.signal.aborted);
  if (incomplete !== null) log(`polysi run: INCOMPLETE: ${incomplete}; the verdict covers only what ran (exit 3)`);
  // Counted from the recording, as `polysi stat` would from any file (src/history/opportunities.ts).
  const t1 = performance.now();
  const { history, format, notes } = await readHistory(outPath, 'jsonl');
  const lostUpdate = lostUpdateOpportunities(history);
  if (lostUpdate !== null) log(`polysi run: ${renderLostUpdateOpportunities(lostUpdate)}`);
  const runJson = {
    target: target.name, isolation, workload: wo, out: outPath, interrupted: stop.signal.aborted, ...sum, throughput: rate, recordingMs: recorder.busyMs,
    complete: incomplete === null, ...(incomplete === null ? {} : { incompleteReason: incomplete }),
    opportunities: { lostUpdate },
  };
  const incompleteExit = (code: number) => (incomplete !== null && (code === 0 || code === 3) ? 3 : code);
  if (level === 'none') {
    if (v.json) out.stdout(JSON.stringify({ run: runJson }));
    return incompleteExit(0);
  }

  if (level === 'levels') {
    const lr = checkLevels(history, { pruning: true, explain: true }, performance.now() - t1);
    const src = { file: outPath, format, notes };
    if (v.json) out.stdout(JSON.stringify({ run: runJson, ...levelsJson(history, lr, src, v.explain) }));
    else out.stdout(renderLevelsText(history, lr, outPath, format, notes, v.explain));
    return incompleteExit(lr.rows.some((r) => r.status === 'unknown') ? 3 : 0);
  }
  // Explained as `polysi check` explains: the first anomaly, more within a small budget unless
  // --max-anomalies asks for a number.
  const result = checkHistory(history, {
    level, pruning: true, explain: true, ...(maxAnomalies === undefined ? { explainMoreMs: EXPLAIN_MORE_MS } : { maxAnomalies }),
  }, performance.now() - t1);
  if (v.json) out.stdout(JSON.stringify({ run: runJson, ...resultJson(history, result, { file: outPath, format, notes }, v.explain) }));
  else out.stdout(renderText(history, result, outPath, format, notes, v.explain));
  // A violation found in what ran stands (exit 1); valid or unknown over an incomplete run is unknown.
  return incompleteExit(result.verdict === 'valid' ? 0 : result.verdict === 'violation' ? 1 : 3);
}

/** Why the run did not run what it planned (null when it did): lost sessions, transactions not run, Ctrl-C. */
export function incompleteReason(sum: RunSummary, interrupted: boolean): string | null {
  const parts: string[] = [];
  if (interrupted) parts.push('interrupted');
  if (sum.sessionsLost > 0) parts.push(`${sum.sessionsLost} session${sum.sessionsLost === 1 ? '' : 's'} lost the connection`);
  if (sum.notRun > 0) parts.push(`${sum.notRun} planned transaction${sum.notRun === 1 ? ' was' : 's were'} not run`);
  return parts.length === 0 ? null : parts.join(', ');
}

/** A progress bar on a terminal (stderr TTY), a plain line per quarter (at most 1/s) otherwise, nothing for --json. */
function makeProgress(out: Out, total: number, t0: number, enabled: boolean): { tick(): void; done(): void } {
  const tty = process.stderr.isTTY === true;
  let n = 0, last = t0, quarter = 0;
  const line = () => {
    const s = (performance.now() - t0) / 1000;
    return `${n}/${total} txns, ${s.toFixed(1)} s, ${Math.round(n / Math.max(s, 1e-3))} txn/s`;
  };
  return {
    tick() {
      n++;
      if (!enabled || total === 0) return;
      if (tty) {
        const now = performance.now();
        if (now - last < 100) return;
        last = now;
        const w = 30, filled = Math.round((n / total) * w);
        process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(w - filled)}] ${line()}  `);
      } else if (Math.floor((n * 4) / total) > quarter) {
        // Plain lines at each quarter, at most one a second (short runs print none).
        quarter = Math.floor((n * 4) / total);
        const now = performance.now();
        if (now - last < 1000) return;
        last = now;
        out.stderr(`polysi run: ${line()}`);
      }
    },
    done() {
      if (enabled && tty) process.stderr.write('\r\x1b[K');
    },
  };
}
