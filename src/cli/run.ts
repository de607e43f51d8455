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
import { historyOpportunities } from '../history/opportunities.ts';
import { renderOpportunities } from '../render/opportunities.ts';
import { DEFAULT_WORKLOAD, generateWorkload, type KeyDistribution, type WorkloadName, type WorkloadOptions } from '../workload/index.ts';
import { JsonlRecorder, planNames } from '../run/recorder.ts';
import { connectAll, runWorkload, type RunSummary, type TxnRecord } from '../run/runner.ts';
import { ISOLATION_LEVELS, openTarget, TargetSpecError } from '../run/targets.ts';
import { DbError, type IsolationLevel } from '../run/types.ts';
import { MEMORY_MODES, modeInfo } from '../run/store/modes.ts';
import { EXPLAIN_MORE_MS, renderText } from './render.ts';
import { levelsJson, resultJson } from '../render/json.ts';
import { checkOut, openOut, OutFileError } from './run-out.ts';
import { ioError } from '../formats/io-read.ts';
import { CLUSTER_FLAGS, CLUSTER_USAGE, faultPlan, openRunCluster, startFaults } from './run-cluster.ts';
import { NODE_FLAGS, NODES_USAGE, nodePlan, openNodes, RECONNECT_MS_DEFAULT } from './run-nodes.ts';
import type { MultiTarget } from '../run/multi-target.ts';

export interface Out {
  stdout(s: string): void;
  stderr(s: string): void;
}

/** The predicate workload's defaults (small relations: predicate reads conflict often). */
export const PREDICATE_DEFAULTS: Partial<WorkloadOptions> = { sessions: 8, txnsPerSession: 100, keys: 60 };
const PREDICATE_WORKLOAD_TEXT = '3 relations of 20 rows (default --sessions 8 --keys 60)';

/** `--profile contention`: few hot keys, short read-modify-write transactions, fewer sessions. */
export const CONTENTION_PROFILE: Partial<WorkloadOptions> = { sessions: 10, txnsPerSession: 100, opsPerTxn: 4, keys: 10, rmwFraction: 0.5 };

function workloadText(w: Partial<WorkloadOptions>): string {
  const parts: string[] = [];
  if (w.workload !== undefined) parts.push(`--workload ${w.workload}`);
  if (w.sessions !== undefined) parts.push(`--sessions ${w.sessions}`);
  if (w.txnsPerSession !== undefined) parts.push(`--txns ${w.txnsPerSession}`);
  if (w.opsPerTxn !== undefined) parts.push(`--ops ${w.opsPerTxn}`);
  if (w.keys !== undefined) parts.push(`--keys ${w.keys}`);
  if (w.readFraction !== undefined) parts.push(`--reads ${w.readFraction}`);
  if (w.rmwFraction !== undefined) parts.push(`--rmw ${w.rmwFraction}`);
  if (w.shapes !== undefined) parts.push(`--shapes ${w.shapes}`);
  return parts.join(' ');
}

function profileText(): string {
  return workloadText(CONTENTION_PROFILE);
}

export const RUN_USAGE = `usage: polysi run [--db memory[:MODE]|postgres://...|mysql://...] [--isolation LEVEL]
                  [--workload register|list-append|predicate] [--sessions N] [--txns N] [--ops N] [--reads FRACTION]
                  [--keys N] [--distribution uniform|zipfian|hotspot] [--long-fraction F] [--long-ops N]
                  [--rmw FRACTION] [--profile default|contention] [--shapes mixed|g2]
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
--workload predicate: inserts, deletes and predicate selects / counts over ${PREDICATE_WORKLOAD_TEXT}
          (Hermitage's G2 and PMP shapes, randomised; --keys is the number of rows; docs/workloads.md);
          --shapes g2: only predicate-read-then-insert transactions (what the checker decides best today)
--check: one level (${IMPLEMENTED_LEVELS.join(', ')}), levels (the whole ladder), or none
exit: as check's; 3 (unknown) also when transactions were not run or sessions lost their connection
isolation levels: ${ISOLATION_LEVELS.join(', ')}
${NODES_USAGE}
${CLUSTER_USAGE}
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
        db: { type: 'string', multiple: true, default: ['memory'] },
        isolation: { type: 'string' },
        workload: { type: 'string' },
        sessions: { type: 'string' }, txns: { type: 'string' }, ops: { type: 'string' }, reads: { type: 'string' },
        keys: { type: 'string' }, distribution: { type: 'string', default: DEFAULT_WORKLOAD.distribution },
        'long-fraction': { type: 'string' }, 'long-ops': { type: 'string' }, seed: { type: 'string' },
        rmw: { type: 'string' }, profile: { type: 'string' }, shapes: { type: 'string' },
        out: { type: 'string' },
        force: { type: 'boolean', default: false },
        check: { type: 'string' },
        'txn-timeout': { type: 'string' },
        json: { type: 'boolean', default: false },
        explain: { type: 'boolean', default: false },
        'max-anomalies': { type: 'string' },
        help: { type: 'boolean', default: false },
        ...NODE_FLAGS,
        ...CLUSTER_FLAGS,
  }, false);
  const v = { ...parsed.values, db: parsed.values.db[0]!, dbs: parsed.values.db };
  if (v.help) { out.stdout(RUN_USAGE); return 0; }
  // A fault mode may bring its workload (phantom: predicate) unless --workload or --profile says otherwise.
  const mode = v.db.startsWith('memory:') ? modeInfo(v.db.slice('memory:'.length)) : undefined;
  const workload = v.workload ?? (v.profile === undefined ? mode?.workload?.workload : undefined) ?? DEFAULT_WORKLOAD.workload;
  if (workload !== 'register' && workload !== 'list-append' && workload !== 'predicate') {
    throw new RunUsageError(`--workload must be register, list-append or predicate, got "${workload}"`);
  }
  if (v.shapes !== undefined && v.shapes !== 'mixed' && v.shapes !== 'g2') throw new RunUsageError(`--shapes must be mixed or g2, got "${v.shapes}"`);
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
  const d: WorkloadOptions = {
    ...DEFAULT_WORKLOAD,
    ...(workload === 'predicate' ? PREDICATE_DEFAULTS : {}),
    ...(v.profile === 'contention' ? CONTENTION_PROFILE : v.profile === undefined ? mode?.workload ?? {} : {}),
  };
  const wo: WorkloadOptions = {
    workload: workload as WorkloadName,
    sessions: num(v.sessions, 'sessions', d.sessions, true),
    txnsPerSession: num(v.txns, 'txns', d.txnsPerSession, true),
    opsPerTxn: num(v.ops, 'ops', d.opsPerTxn, true),
    readFraction: num(v.reads, 'reads', d.readFraction, false),
    keys: num(v.keys, 'keys', d.keys, true),
    distribution: v.distribution as KeyDistribution,
    longFraction: num(v['long-fraction'], 'long-fraction', d.longFraction, false),
    longOps: num(v['long-ops'], 'long-ops', d.longOps, true),
    rmwFraction: num(v.rmw, 'rmw', d.rmwFraction ?? 0, false),
    ...(workload === 'predicate' ? { shapes: (v.shapes ?? d.shapes ?? 'mixed') as 'mixed' | 'g2' } : {}),
    seed: num(v.seed, 'seed', d.seed, true),
  };
  // A database can make a statement wait on a lock for ever; the embedded store cannot hang.
  const isMemory = v.cluster === undefined && (v.db === 'memory' || v.db.startsWith('memory:'));
  const timeoutS = num(v['txn-timeout'], 'txn-timeout', isMemory ? 0 : DEFAULT_DB_TXN_TIMEOUT_S, false);
  if (timeoutS < 0) throw new RunUsageError(`--txn-timeout takes a number of seconds ≥ 0, got "${v['txn-timeout']}"`);
  const maxAnomalies = v['max-anomalies'] === undefined ? undefined : num(v['max-anomalies'], 'max-anomalies', 10, true);
  if (maxAnomalies !== undefined && maxAnomalies < 1) throw new RunUsageError('--max-anomalies takes a positive integer');

  // A file that --out may not replace is refused now, before connecting (and again at the open).
  if (v.out !== undefined) checkOut(v.out, v.force);
  const plan = generateWorkload(wo); // throws RangeError on out-of-range options
  const faults = faultPlan(v, args.some((a) => a === '--db' || a.startsWith('--db=')));
  const sessionInit = v['session-init'] ?? [];
  if (sessionInit.length > 0 && isMemory) throw new RunUsageError('--session-init runs SQL: it needs a database (--db postgres://... or mysql://...)');
  const driver = { txnTimeoutMs: timeoutS * 1000, ...(sessionInit.length > 0 ? { sessionInit } : {}) };
  const iso0 = v.isolation as IsolationLevel | undefined;
  // --cluster: the file's nodes (each through its fault proxy) as several --db; else --db as given.
  const cluster = faults === null ? null : await openRunCluster(v.cluster!, faults, v, wo.sessions);
  const nodes = cluster?.plan ?? nodePlan({ ...v, db: v.dbs }, wo.sessions);
  let resolved;
  try {
    resolved = nodes === null ? await openTarget(v.db, iso0, wo.seed, driver) : await openNodes(nodes, wo.sessions, iso0, wo.seed, driver);
  } catch (err) {
    await cluster?.close();
    throw err;
  }
  const { target, isolation } = resolved;
  const multi = nodes === null ? null : resolved.target as MultiTarget;
  const level = (v.check ?? resolved.defaultCheck) as Level | 'levels' | 'none';
  const log = (s: string) => { if (!v.json) out.stderr(s); };

  // Set up and connect everything before the file exists: unreachable means no file at all.
  let conns;
  let barrierMs = 0;
  try {
    await target.setup(wo.keys, plan.kinds);
    // Several servers: no session starts before every one shows the tables (a standby lags).
    if (multi !== null) barrierMs = await multi.barrier(wo.keys, plan.kinds, nodes!.barrierTimeoutMs, `run${Date.now().toString(36)}${process.pid}`);
    conns = await connectAll(target, wo.sessions);
    // From here on a lost session tries its node, then the next (under faults: long enough for a heal).
    if (multi !== null) multi.reconnectMs = faults?.reconnectMs ?? RECONNECT_MS_DEFAULT;
  } catch (err) {
    await target.close().catch(() => {});
    await cluster?.close();
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
    recorder = new JsonlRecorder(opened.path, wo.sessions, t0, opened.fd, planNames(plan));
  } catch (err) {
    await Promise.allSettled(conns.map((c) => c.close()));
    await target.close().catch(() => {});
    await cluster?.close();
    const why = err instanceof OutFileError ? err.message : ioError(v.out ?? 'the recording', err, 'create the recording').message;
    out.stderr(`polysi run: ${why}`);
    return 2;
  }
  const stop = new AbortController();
  const nemesis = cluster === null ? null : startFaults(cluster, faults!, wo.seed, recorder, log);
  let interrupts = 0;
  const onSigint = () => {
    interrupts++;
    if (interrupts === 1) {
      out.stderr('\npolysi run: stopping: finishing the transactions in flight (Ctrl-C again to quit at once)');
      stop.abort();
      void nemesis?.stop(); // heals the fault in progress now; the run awaits it below
      return;
    }
    nemesis?.healNowSync(); // never leave a node paused or a proxy dropping
    recorder.close();
    out.stderr(`polysi run: quit; ${recorder.count} transactions recorded in ${outPath} (in-flight ones are not)`);
    process.exit(130);
  };
  process.on('SIGINT', onSigint);
  const progress = makeProgress(out, total, t0, !v.json);
  const shape = wo.workload === 'predicate'
    ? `${wo.sessions} sessions x ${wo.txnsPerSession} txns (${wo.shapes} shapes), ${wo.keys} rows in ${plan.relations?.length ?? 0} relations`
    : `${wo.sessions} sessions x ${wo.txnsPerSession} txns x ${wo.opsPerTxn} ops, ${wo.keys} ${wo.distribution} keys`;
  log(`polysi run: ${target.name}, ${isolation}, ${wo.workload}: ${shape}, seed ${wo.seed} -> ${outPath}`);
  let sum: RunSummary;
  try {
    sum = await runWorkload(target, conns, plan, {
      isolation,
      signal: stop.signal,
      ...(timeoutS > 0 ? { txnTimeoutMs: timeoutS * 1000 } : {}),
      ...(multi !== null && multi.readOnlySessions > 0 ? { readOnly: (s: number) => multi.isReadOnly(s) } : {}),
      onTxn: (r: TxnRecord) => { recorder.record(r); progress.tick(); },
    });
  } finally {
    await nemesis?.stop();
    process.off('SIGINT', onSigint);
    recorder.close();
    progress.done();
    await target.close().catch(() => {});
    await cluster?.close();
  }
  const rate = sum.elapsedMs > 0 ? (recorder.count / sum.elapsedMs) * 1000 : 0;
  // Codes, then their classes across databases (error-class.ts): `40001 16; serialization-failure 16`.
  const classes = Object.entries(sum.errorClasses).map(([c, n]) => `${c} ${n}`).join(', ');
  const errs = Object.entries(sum.errors).map(([c, n]) => `${c} ${n}`).join(', ') + (classes === '' ? '' : `; ${classes}`);
  log(`polysi run: ${recorder.count} transactions in ${(sum.elapsedMs / 1000).toFixed(2)} s (${Math.round(rate)} txn/s): ` +
    `${sum.committed} committed, ${sum.aborted} aborted, ${sum.unknown} unknown${errs === '' ? '' : ` (${errs})`}, recorded in ${outPath}` +
    (sum.notRun > 0 ? `; ${sum.notRun} not run${stop.signal.aborted ? ' (interrupted)' : ''}` : '') +
    (sum.sessionsLost > 0 ? `; ${sum.sessionsLost} sessions lost their connection` : '') +
    (sum.reconnects > 0 ? `; ${sum.reconnects} reconnects${multi !== null && multi.failovers > 0 ? ` (${multi.failovers} to another node)` : ''}` : '') +
    (nemesis === null ? '' : `; ${nemesis.injected} fault${nemesis.injected === 1 ? '' : 's'} injected`));

  // A run that did not run what it planned proves less than it seems: say so, and never exit 0.
  const incomplete = incompleteReason(sum, stop.signal.aborted);
  if (incomplete !== null) log(`polysi run: INCOMPLETE: ${incomplete}; the verdict covers only what ran (exit 3)`);
  // Counted from the recording, as `polysi stat` would from any file (src/history/opportunities.ts).
  const t1 = performance.now();
  const { history, format, notes } = await readHistory(outPath, 'jsonl');
  const opportunities = historyOpportunities(history);
  for (const line of renderOpportunities(opportunities)) log(`polysi run: ${line}`);
  const runJson = {
    target: target.name, isolation, workload: wo, out: outPath, ...(nemesis === null ? {} : { faultsInjected: nemesis.injected }), interrupted: stop.signal.aborted, ...sum,
    ...(multi === null ? {} : { nodes: multiJson(multi), barrierMs, failovers: multi.failovers }), throughput: rate, recordingMs: recorder.busyMs,
    complete: incomplete === null, ...(incomplete === null ? {} : { incompleteReason: incomplete }),
    opportunities,
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

/** The servers of a run over several, for `run` in the JSON: name, role, URL (password hidden), the sessions on it at the end. */
function multiJson(m: MultiTarget): { name: string; role: 'node' | 'replica'; url: string; sessions: number[] }[] {
  // Where each session is at the end (a reconnect may have moved it to the next server).
  const on = new Map<string, number[]>();
  for (let s = 0; s < m.sessions; s++) {
    const node = m.nodeOf(s);
    const list = on.get(node);
    if (list === undefined) on.set(node, [s]); else list.push(s);
  }
  return [...m.nodes.map((n) => ({ n, role: 'node' as const })), ...m.replicas.map((n) => ({ n, role: 'replica' as const }))]
    .map(({ n, role }) => ({ name: n.name, role, url: n.target.name, sessions: on.get(n.name) ?? [] }));
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
