/**
 * Many histories in one command: `polysi check PATH PATH...` and directories, on a pool of
 * worker threads (one per core by default), one line per history as it finishes, a summary at
 * the end, and the exit code of the worst outcome.
 *
 * Takes: the paths of the command line, the check settings, the pool size and the output sinks.
 * Gives: the exit code. Directories are walked recursively in name order; a directory that holds
 * Cobra session logs (T<n>.log) is one history, not a folder of files; hidden entries (".name")
 * and files whose format cannot be told are listed as skipped, never dropped silently.
 * Invariant: every history named or found gets exactly one line (JSON Lines with --json: the
 * object of `check --json`, or { file, outcome, message } when there is no result), and the
 * exit code is the worst of theirs in the order internal error (4) > invalid (2) > violation (1)
 * > unknown (3) > valid (0): a crash or an unreadable input means the run did not check what it
 * was asked to, which must be fixed before its verdicts mean anything; a violation is a definite
 * finding, unknown only an inconclusive one. Skipped files do not count; no history at all is 2.
 */

import { availableParallelism } from 'node:os';
import { opendir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { cobraFormat } from '../formats/cobra.ts';
import { other, STATUS_EXIT, type CheckSettings, type Outcome, type OutcomeStatus } from './check-one.ts';
import type { Job } from './batch-worker.ts';
import type { Progress } from './progress.ts';
import { now } from '../util/clock.ts';

export interface BatchIo {
  stdout(s: string): void;
  stderr(s: string): void;
}

/** Worst first: the exit code of a batch is that of its first status present in this list. */
export const SEVERITY: readonly OutcomeStatus[] = ['internal', 'invalid', 'violation', 'unknown', 'valid'];

/** The exit code of a batch from the statuses of its histories (skipped ones do not count). */
export function worstExit(statuses: Iterable<OutcomeStatus>): number {
  const seen = new Set(statuses);
  for (const s of SEVERITY) if (seen.has(s)) return STATUS_EXIT[s];
  return 2; // nothing was checked
}

export interface Entry { path: string; found: boolean; skip?: string; /** Bytes, when a regular file (else 0). */ size?: number }

/** Whether a single path on the command line is a batch (a directory that is not one history). */
export async function isBatchDir(path: string, format: string): Promise<boolean> {
  let st;
  try {
    st = await stat(path);
  } catch {
    return false; // the single check reports what is wrong with it
  }
  if (!st.isDirectory()) return false;
  return format === 'auto' ? !cobraFormat.sniff(new Uint8Array(0), path, true) : format !== cobraFormat.name;
}

/**
 * The histories under `paths`, in order: files and Cobra directories named on the command line as
 * they are, directories walked. Symbolic links are followed, each real directory visited once.
 */
export async function collect(paths: readonly string[], format: string): Promise<Entry[]> {
  const out: Entry[] = [];
  const visited = new Set<string>();
  const walk = async (dir: string): Promise<void> => {
    let real: string;
    try {
      real = await realpath(dir);
    } catch {
      out.push({ path: dir, found: true, skip: 'cannot be read' });
      return;
    }
    if (visited.has(real)) return;
    visited.add(real);
    const names: string[] = [];
    try {
      for await (const d of await opendir(dir)) names.push(d.name);
    } catch (err) {
      out.push({ path: dir, found: true, skip: `cannot list this directory (${(err as NodeJS.ErrnoException).code ?? String(err)})` });
      return;
    }
    names.sort();
    for (const name of names) {
      const p = join(dir, name);
      if (name.startsWith('.')) { out.push({ path: p, found: true, skip: 'hidden' }); continue; }
      let st;
      try {
        st = await stat(p);
      } catch {
        out.push({ path: p, found: true, skip: 'cannot be read (a broken link?)' });
        continue;
      }
      if (st.isDirectory()) {
        if (await isBatchDir(p, format)) await walk(p);
        else out.push({ path: p, found: true });
      } else if (st.isFile()) {
        out.push({ path: p, found: true, size: st.size });
      } else {
        out.push({ path: p, found: true, skip: 'not a regular file' });
      }
    }
  };
  for (const p of paths) {
    if (await isBatchDir(p, format)) await walk(p);
    else out.push({ path: p, found: false, size: await stat(p).then((st) => (st.isFile() ? st.size : 0), () => 0) });
  }
  return out;
}

/**
 * How to start a worker: dist/batch-worker.mjs in the bundle; from the sources (tests, a checkout
 * without a build), a bootstrap that registers tsx in the new thread (Node 20 does not carry the
 * parent's --import loader into workers) and then loads batch-worker.ts.
 */
function workerSpec(): { entry: string | URL; eval: boolean } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
    const entry = JSON.stringify(new URL('./batch-worker.ts', here).href);
    return { entry: `import(${api}).then((m) => { m.register(); return import(${entry}); });`, eval: true };
  }
  const url = new URL(here.includes('/chunks/') ? '../batch-worker.mjs' : './batch-worker.mjs', here);
  if (!existsSync(url)) throw new Error(`the batch worker ${url.pathname} is missing from the build (run npm run build)`);
  return { entry: url, eval: false };
}

export function defaultJobs(): number {
  return Math.max(1, availableParallelism());
}

/**
 * Histories smaller than this are sent to a worker two at a time, so that one is read (the
 * asynchronous file reads leave the thread idle) while the other is checked. Larger ones go
 * alone: two big histories in one thread would double its memory.
 */
export const PREFETCH_BYTES_MAX = 8 << 20;

interface Slot { worker: Worker; jobs: Job[] }

/**
 * Checks `entries` on `jobs` worker threads; `onOutcome` is called as each finishes (skipped ones
 * first, at once). Resolves with every outcome once all are done.
 */
export async function runPool(entries: readonly Entry[], settings: CheckSettings, jobs: number, onOutcome: (o: Outcome) => void): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const emit = (o: Outcome) => { outcomes.push(o); onOutcome(o); };
  const todo: (Job & { small: boolean })[] = [];
  entries.forEach((e, id) => {
    if (e.skip !== undefined) emit(other(e.path, 'skipped', e.skip, settings, 0));
    else todo.push({ id, path: e.path, found: e.found, small: e.size !== undefined && e.size > 0 && e.size < PREFETCH_BYTES_MAX });
  });
  if (todo.length === 0) return outcomes;
  const spec = workerSpec();
  type Todo = Job & { small: boolean; retried?: boolean };
  // Histories that were in flight beside one that killed its worker: checked again, alone.
  const retry: Todo[] = [];
  let next = 0, pending = todo.length;
  const take = (): Todo | undefined => retry.shift() ?? (next < todo.length ? todo[next++] : undefined);
  const peekSmall = (): boolean => (retry.length === 0 && next < todo.length && todo[next]!.small);
  await new Promise<void>((resolve) => {
    const send = (slot: Slot, job: Todo) => {
      slot.jobs.push(job);
      slot.worker.postMessage({ id: job.id, path: job.path, found: job.found } satisfies Job);
    };
    // Keeps one job in each worker, or two when both are small (never a retried one).
    const feed = (slot: Slot) => {
      if (slot.jobs.length === 0) {
        const job = take();
        if (job !== undefined) send(slot, job);
      }
      if (slot.jobs.length === 1 && (slot.jobs[0] as Todo).small && (slot.jobs[0] as Todo).retried !== true && peekSmall()) send(slot, take()!);
      if (slot.jobs.length === 0) void slot.worker.terminate();
    };
    const done = (o: Outcome) => {
      emit(o);
      if (--pending === 0) resolve();
    };
    const start = () => {
      const worker = new Worker(spec.entry, { workerData: settings, eval: spec.eval });
      const slot: Slot = { worker, jobs: [] };
      worker.on('message', (m: { id: number; outcome: Outcome }) => {
        slot.jobs = slot.jobs.filter((j) => j.id !== m.id);
        done(m.outcome);
        feed(slot);
      });
      // A thread that dies (out of memory, a crash in the runtime) takes only its history with
      // it: alone, that history is the cause (an internal error); with two in flight, neither is
      // known to be, so both are checked again, each alone.
      let dead = false;
      const died = (why: string) => {
        if (dead) return;
        dead = true;
        const lost = slot.jobs as Todo[];
        slot.jobs = [];
        if (lost.length === 1) done(other(lost[0]!.path, 'internal', `internal error: the worker checking it died (${why}) (please report)`, settings, 0));
        else for (const job of lost) retry.push({ ...job, small: false, retried: true });
        if (lost.length > 0 && (retry.length > 0 || next < todo.length)) feed(start());
      };
      worker.on('error', (err) => died(err instanceof Error ? err.message.split('\n')[0]! : String(err)));
      worker.on('exit', (code) => died(`exit code ${code}`));
      return slot;
    };
    for (let i = 0; i < Math.min(jobs, todo.length); i++) feed(start());
  });
  return outcomes;
}

const ROWS: readonly [OutcomeStatus, string][] = [
  ['valid', 'valid'], ['violation', 'violation'], ['unknown', 'unknown'], ['invalid', 'invalid input'], ['internal', 'internal error'], ['skipped', 'skipped'],
];

/** The summary table printed after the last line. */
export function summaryTable(outcomes: readonly Outcome[], seconds: number, jobs: number): string {
  const count = new Map<OutcomeStatus, number>();
  for (const o of outcomes) count.set(o.status, (count.get(o.status) ?? 0) + 1);
  const checked = outcomes.length - (count.get('skipped') ?? 0);
  const exit = worstExit(outcomes.map((o) => o.status));
  const worst = SEVERITY.find((s) => count.has(s));
  const lines = [`summary: ${checked} histor${checked === 1 ? 'y' : 'ies'} checked in ${seconds.toFixed(1)} s on ${jobs} worker thread${jobs === 1 ? '' : 's'}`];
  for (const [s, label] of ROWS) lines.push(`  ${label.padEnd(15)}${String(count.get(s) ?? 0).padStart(8)}`);
  lines.push(`exit code ${exit} (${worst === undefined ? 'no history was checked' : `the worst outcome: ${ROWS.find(([s]) => s === worst)![1]}`})`);
  return lines.join('\n');
}

/** The batch command: collect, check on the pool, print lines, the summary and the exit code. */
export async function runBatch(paths: readonly string[], settings: CheckSettings, jobs: number, io: BatchIo, pr: Progress): Promise<number> {
  const t0 = now();
  const entries = await collect(paths, settings.format);
  // Candidates: what goes to the workers (a file whose format cannot be told is skipped there).
  const total = entries.filter((e) => e.skip === undefined).length;
  const preSkipped = entries.length - total;
  const threads = Math.max(1, Math.min(jobs, total));
  pr.line(`checking ${total} path${total === 1 ? '' : 's'} on ${threads} worker thread${threads === 1 ? '' : 's'}`);
  let seen = 0, violations = 0;
  const outcomes = await runPool(entries, settings, threads, (o) => {
    io.stdout(o.line);
    if (o.detail !== undefined) io.stdout(`${o.detail}\n`);
    if (++seen <= preSkipped) return; // runPool emits the skipped entries first
    if (o.status === 'violation') violations++;
    const finished = seen - preSkipped;
    pr.counter(`${finished} of ${total} done (${violations} with a violation)`, finished === 1, finished === total);
  });
  const table = summaryTable(outcomes, (now() - t0) / 1000, threads);
  // With --json, stdout is only JSON Lines (one per history); the summary is for people.
  if (settings.json) io.stderr(table);
  else io.stdout(table);
  if (outcomes.every((o) => o.status === 'skipped')) io.stderr('polysi check: no histories found');
  return worstExit(outcomes.map((o) => o.status));
}
