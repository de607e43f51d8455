/**
 * The workload runner: drives one connection per session through its planned transactions,
 * all sessions concurrently, and hands every finished transaction to a sink (the recorder).
 *
 * Takes: a Target, its connected sessions, a WorkloadPlan and RunOptions. Gives: every
 * transaction's TxnRecord (through `onTxn`, in completion order) and a RunSummary.
 * Invariant: a transaction is recorded once, after it finished, with the operations that
 * completed and the values they saw. Its outcome is decided as follows (docs/workloads.md):
 * - committed: COMMIT returned;
 * - aborted: the database rejected a statement or the commit (DbError 'aborted'), or the
 *   connection failed / timed out *before* COMMIT was sent (a transaction whose COMMIT the
 *   server never received cannot commit; the server rolls it back when the connection goes);
 * - unknown: the connection failed or timed out while COMMIT was in flight.
 * Nothing is retried. A session whose connection failed reconnects once per failure; if that
 * fails too, its remaining transactions are not run (counted in `notRun`).
 */

import type { TxnPlan, WorkloadPlan } from '../workload/types.ts';
import { W_APPEND, W_READ, W_READ_LIST, W_WRITE } from '../workload/types.ts';
import { DbError, type Connection, type IsolationLevel, type Target } from './types.ts';

export type Outcome = 'committed' | 'aborted' | 'unknown';

export interface TxnRecord {
  session: number;
  /** Position in the session's plan. */
  index: number;
  plan: TxnPlan;
  /** Operations 0 .. done-1 of `plan` completed. */
  done: number;
  /** `seen[i]`: the value read by operation i (null = initial; a list for list reads); undefined for writes. */
  seen: (number | null | number[] | undefined)[];
  outcome: Outcome;
  /** Invocation (before BEGIN) and completion (after COMMIT / the error) in ms of `now()`. */
  start: number;
  end: number;
  /** The database's error code (or `timeout`, `connection-lost`) for aborted / unknown txns. */
  error?: string;
}

export interface RunOptions {
  isolation: IsolationLevel;
  /** Per-transaction limit; 0 or absent: none (the embedded store cannot hang). */
  txnTimeoutMs?: number;
  /** When aborted, each session finishes the transaction in flight and stops. */
  signal?: AbortSignal;
  onTxn: (rec: TxnRecord) => void;
  /** Monotonic clock in ms; defaults to performance.now(). */
  now?: () => number;
}

export interface RunSummary {
  committed: number;
  aborted: number;
  unknown: number;
  /** Planned transactions never started (stopped, or a session lost its connection for good). */
  notRun: number;
  /** Sessions that lost their connection and could not reconnect. */
  sessionsLost: number;
  elapsedMs: number;
  /** Aborts and unknowns by error code. */
  errors: Record<string, number>;
}

/** Connects every session; on any failure closes those already open and rethrows (nothing else done). */
export async function connectAll(target: Target, sessions: number): Promise<Connection[]> {
  const conns: Connection[] = [];
  try {
    for (let s = 0; s < sessions; s++) conns.push(await target.connect(s));
  } catch (err) {
    await Promise.allSettled(conns.map((c) => c.close()));
    throw err;
  }
  return conns;
}

class Timeout extends Error {}

/** Each session lets the event loop turn once per this many transactions. */
export const YIELD_EVERY_TXNS = 32;

/** Rejects with Timeout at `deadline` (ms of `now`) unless `p` settles first; no timer when deadline is Infinity. */
function before<T>(p: Promise<T>, deadline: number, now: () => number): Promise<T> {
  if (deadline === Infinity) return p;
  const left = deadline - now();
  if (left <= 0) return Promise.reject(new Timeout());
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Timeout()), left); });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** Runs `plan` on `conns` (one per session, as from connectAll); closes every connection before returning. */
export async function runWorkload(target: Target, conns: Connection[], plan: WorkloadPlan, opts: RunOptions): Promise<RunSummary> {
  if (conns.length !== plan.sessions.length) throw new Error(`internal error: ${conns.length} connections for ${plan.sessions.length} sessions`);
  const now = opts.now ?? (() => performance.now());
  const sum: RunSummary = { committed: 0, aborted: 0, unknown: 0, notRun: 0, sessionsLost: 0, elapsedMs: 0, errors: {} };
  const t0 = now();
  await Promise.all(plan.sessions.map((txns, s) => runSession(target, s, conns[s]!, txns, opts, now, sum)));
  sum.elapsedMs = now() - t0;
  return sum;
}

async function runSession(
  target: Target, s: number, first: Connection, txns: readonly TxnPlan[], opts: RunOptions, now: () => number, sum: RunSummary,
): Promise<void> {
  let conn: Connection | null = first;
  const timeoutMs = opts.txnTimeoutMs ?? 0;
  let i = 0;
  try {
    for (; i < txns.length && conn !== null; i++) {
      // The embedded store answers through promise callbacks alone, which never let the event
      // loop turn: yield now and then so that signals (Ctrl-C) and the recorder's timer get in.
      // The seeded scheduler waits for every session, so this changes no interleaving.
      if (i % YIELD_EVERY_TXNS === YIELD_EVERY_TXNS - 1) await new Promise<void>((resolve) => setImmediate(resolve));
      if (opts.signal?.aborted === true) break;
      const plan = txns[i]!;
      const rec: TxnRecord = { session: s, index: i, plan, done: 0, seen: [], outcome: 'committed', start: now(), end: 0 };
      const deadline = timeoutMs > 0 ? rec.start + timeoutMs : Infinity;
      let committing = false;
      try {
        await before(conn.begin(opts.isolation), deadline, now);
        for (let j = 0; j < plan.kinds.length; j++) {
          const key = plan.keys[j]!;
          switch (plan.kinds[j]) {
            case W_READ: rec.seen.push(await before(conn.read(key), deadline, now)); break;
            case W_WRITE: await before(conn.write(key, plan.values[j]!), deadline, now); rec.seen.push(undefined); break;
            case W_APPEND: await before(conn.append(key, plan.values[j]!), deadline, now); rec.seen.push(undefined); break;
            case W_READ_LIST: rec.seen.push(await before(conn.readList(key), deadline, now)); break;
            default: throw new Error(`internal error: op kind ${plan.kinds[j]}`);
          }
          rec.done = j + 1;
        }
        committing = true;
        await before(conn.commit(), deadline, now);
      } catch (err) {
        if (!(err instanceof DbError) && !(err instanceof Timeout)) throw err;
        const lost = err instanceof Timeout || err.kind !== 'aborted';
        rec.outcome = lost && committing ? 'unknown' : 'aborted';
        rec.error = err instanceof Timeout ? 'timeout' : err.code ?? (lost ? 'connection-lost' : 'aborted');
        if (lost) conn = await replace(target, s, conn);
        else await conn.rollback().catch(() => {});
      }
      rec.end = now();
      if (rec.outcome === 'committed') sum.committed++;
      else {
        if (rec.outcome === 'aborted') sum.aborted++; else sum.unknown++;
        sum.errors[rec.error!] = (sum.errors[rec.error!] ?? 0) + 1;
      }
      opts.onTxn(rec);
    }
  } finally {
    sum.notRun += txns.length - i;
    if (conn === null) sum.sessionsLost++;
    else await conn.close().catch(() => {});
  }
}

/**
 * After a lost or timed-out connection: abandons it (without waiting: closing a hung
 * connection may hang too) and opens a new one; null if the target cannot be reached.
 */
async function replace(target: Target, s: number, old: Connection): Promise<Connection | null> {
  old.close().catch(() => {});
  try {
    return await target.connect(s);
  } catch (err) {
    if (err instanceof DbError) return null;
    throw err;
  }
}
