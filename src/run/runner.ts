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
 * Nothing is retried. A session whose connection failed reconnects once per failure (a target
 * of several nodes tries the session's node, then the next: multi-target.ts); if that fails
 * too, its remaining transactions are not run (counted in `notRun`). Every txn records the node
 * its connection was on when it began (`TxnRecord.node`, when the target has nodes), so a
 * reconnect to another node shows in the history as the session's next txns' node.
 */

import type { TxnPlan, WorkloadPlan } from '../workload/types.ts';
import { W_APPEND, W_COUNT, W_DELETE, W_INSERT, W_READ, W_READ_LIST, W_SELECT, W_WRITE } from '../workload/types.ts';
import type { Predicate } from '../history/predicate.ts';
import { DbError, type Connection, type IsolationLevel, type SyncSession, type Target } from './types.ts';

export type Outcome = 'committed' | 'aborted' | 'unknown';

export interface TxnRecord {
  session: number;
  /** Position in the session's plan. */
  index: number;
  plan: TxnPlan;
  /** Operations 0 .. done-1 of `plan` completed. */
  done: number;
  /**
   * `seen[i]`: the value read by operation i (null = initial / absent row; a list for list
   * reads; the rows `[k1, v1, k2, v2, ...]` of a select; the number of a count); undefined for
   * writes, and null for an update or delete that found no row (recorded as a read of it).
   */
  seen: (number | null | number[] | undefined)[];
  outcome: Outcome;
  /** Invocation (before BEGIN) and completion (after COMMIT / the error) in ms of `now()`. */
  start: number;
  end: number;
  /** The database's error code (or `timeout`, `connection-lost`) for aborted / unknown txns. */
  error?: string;
  /** The node (of a multi-node target) the txn ran on; absent for a single database. */
  node?: string;
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
  /** Sessions that run read-only transactions (writes become reads of the same keys): `--replica`. */
  readOnly?: (session: number) => boolean;
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
  /** Aborts and unknowns by error class (error-class.ts), of the targets whose driver names it (databases). */
  errorClasses: Record<string, number>;
  /** Lost connections a session replaced with a new one (on its node or the next). */
  reconnects: number;
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
  const sessions = plan.options.sessions;
  if (conns.length !== sessions) throw new Error(`internal error: ${conns.length} connections for ${sessions} sessions`);
  const now = opts.now ?? (() => performance.now());
  const sum: RunSummary = { committed: 0, aborted: 0, unknown: 0, notRun: 0, sessionsLost: 0, elapsedMs: 0, errors: {}, errorClasses: {}, reconnects: 0 };
  const t0 = now();
  const rel = relationIndex(plan);
  const txnsOf = (s: number) => (opts.readOnly?.(s) === true ? readOnlyTxns(plan.session(s)) : plan.session(s));
  const programs = conns.map((_, s) => sessionProgram(s, txnsOf(s), plan.options.txnsPerSession, opts, now, sum, rel));
  const sync = (opts.txnTimeoutMs ?? 0) > 0 ? null : syncSessionsOf(conns);
  if (sync !== null) await driveSync(sync, programs, opts);
  else await Promise.all(conns.map((conn, s) => driveAsync(target, s, conn, programs[s]!, opts, now)));
  sum.elapsedMs = now() - t0;
  return sum;
}

/** The predicate workload's lookups: the relation of each key (undefined: a register), relation names, predicates. */
interface RelationIndex {
  ofKey: (string | undefined)[];
  names: string[];
  preds: Predicate[];
}

function relationIndex(plan: WorkloadPlan): RelationIndex {
  const ofKey: (string | undefined)[] = [];
  for (const r of plan.relations ?? []) for (const k of r.keys) ofKey[k] = r.name;
  return { ofKey, names: (plan.relations ?? []).map((r) => r.name), preds: (plan.predicates ?? []).map((p) => p.parsed) };
}

/** What a session program asks its driver to do next (one mutable object per session, reused). */
interface Call {
  op: 'begin' | 'read' | 'write' | 'append' | 'readList' | 'commit' | 'rollback' | 'reconnect'
    | 'readRow' | 'insert' | 'update' | 'delete' | 'select' | 'count';
  key: number;
  value: number;
  /** The relation of a row operation or predicate read ('' otherwise). */
  rel: string;
  /** The predicate of a select / count. */
  pred: Predicate | null;
  /** The transaction's deadline in ms of `now()` (Infinity: none). */
  deadline: number;
  /** Set by the asynchronous driver before each call: the node of the connection (undefined: one server). */
  node: string | undefined;
}

/** A session's transactions made read-only: each write, insert or delete a read of its key (row), each append a read of its list. */
function* readOnlyTxns(txns: Iterable<TxnPlan>): Generator<TxnPlan> {
  for (const t of txns) {
    yield { kinds: t.kinds.map((k) => (k === W_WRITE || k === W_INSERT || k === W_DELETE ? W_READ : k === W_APPEND ? W_READ_LIST : k)), keys: t.keys, values: t.values };
  }
}

/**
 * One session's logic, independent of how calls are carried out: yields each call, receives its
 * result (or has the DbError / Timeout thrown in), and decides every transaction's outcome.
 * `reconnect` receives true when a new connection replaced the lost one.
 */
function* sessionProgram(
  s: number, txns: Iterable<TxnPlan>, planned: number, opts: RunOptions, now: () => number, sum: RunSummary, rel: RelationIndex,
): Generator<Call, void, unknown> {
  const call: Call = { op: 'begin', key: 0, value: 0, rel: '', pred: null, deadline: Infinity, node: undefined };
  const timeoutMs = opts.txnTimeoutMs ?? 0;
  let connected = true;
  let i = 0;
  try {
    for (const plan of txns) {
      if (!connected || opts.signal?.aborted === true) break;
      const rec: TxnRecord = { session: s, index: i, plan, done: 0, seen: [], outcome: 'committed', start: now(), end: 0 };
      call.deadline = timeoutMs > 0 ? rec.start + timeoutMs : Infinity;
      let committing = false;
      try {
        call.op = 'begin';
        yield call;
        if (call.node !== undefined) rec.node = call.node;
        for (let j = 0; j < plan.kinds.length; j++) {
          call.key = plan.keys[j]!;
          call.value = plan.values[j]!;
          const kind = plan.kinds[j]!;
          if (kind >= W_INSERT || rel.ofKey[call.key] !== undefined) {
            rec.seen.push((yield predicateCall(call, kind, rel)) as number | null | number[] | undefined);
          } else {
            switch (kind) {
              case W_READ: call.op = 'read'; rec.seen.push((yield call) as number | null); break;
              case W_WRITE: call.op = 'write'; yield call; rec.seen.push(undefined); break;
              case W_APPEND: call.op = 'append'; yield call; rec.seen.push(undefined); break;
              case W_READ_LIST: call.op = 'readList'; rec.seen.push((yield call) as number[]); break;
              default: throw new Error(`internal error: op kind ${kind}`);
            }
          }
          rec.done = j + 1;
        }
        committing = true;
        call.op = 'commit';
        yield call;
      } catch (err) {
        if (!(err instanceof DbError) && !(err instanceof Timeout)) throw err;
        const lost = err instanceof Timeout || err.kind !== 'aborted';
        rec.outcome = lost && committing ? 'unknown' : 'aborted';
        // A connection known to be gone (the driver aborts what it can no longer send) is replaced
        // too: on a target of several nodes the session moves on to the next one.
        const gone = lost || err.code === 'connection-lost';
        rec.error = err instanceof Timeout ? 'timeout' : err.code ?? (lost ? 'connection-lost' : 'aborted');
        const cls = err instanceof Timeout ? 'timeout' : err.errorClass; // databases only (error-class.ts)
        if (cls !== undefined) sum.errorClasses[cls] = (sum.errorClasses[cls] ?? 0) + 1;
        if (rec.node === undefined && call.node !== undefined) rec.node = call.node; // BEGIN itself failed
        // Completion is when the error came back: not after the reconnect below, which may wait
        // for a node to come back (the nemesis) and is no part of this transaction.
        rec.end = now();
        call.op = gone ? 'reconnect' : 'rollback';
        if (gone) {
          connected = (yield call) === true;
          if (connected) sum.reconnects++;
        } else yield call;
      }
      if (rec.end === 0) rec.end = now();
      if (rec.outcome === 'committed') sum.committed++;
      else {
        if (rec.outcome === 'aborted') sum.aborted++; else sum.unknown++;
        sum.errors[rec.error!] = (sum.errors[rec.error!] ?? 0) + 1;
      }
      opts.onTxn(rec);
      i++;
    }
  } finally {
    sum.notRun += planned - i;
    if (!connected) sum.sessionsLost++;
  }
}

/**
 * Fills `call` for a row operation or predicate read; the driver's answer becomes the op's
 * `seen` (update / delete answer whether the row was there: undefined if so, else null).
 */
function predicateCall(call: Call, kind: number, rel: RelationIndex): Call {
  switch (kind) {
    case W_READ: call.op = 'readRow'; call.rel = rel.ofKey[call.key]!; break;
    case W_WRITE: call.op = 'update'; call.rel = rel.ofKey[call.key]!; break;
    case W_INSERT: call.op = 'insert'; call.rel = rel.ofKey[call.key]!; break;
    case W_DELETE: call.op = 'delete'; call.rel = rel.ofKey[call.key]!; break;
    case W_SELECT: case W_COUNT:
      call.op = kind === W_SELECT ? 'select' : 'count';
      call.rel = rel.names[call.key]!;
      call.pred = rel.preds[call.value]!;
      break;
    default: throw new Error(`internal error: op kind ${kind}`);
  }
  if (call.rel === undefined) throw new Error(`internal error: key ${call.key} of a ${call.op} is in no relation`);
  return call;
}

/** The answer of a row update / delete as the op's `seen`: undefined (done) or null (no row: a read of the absent row). */
const changed = (there: boolean): null | undefined => (there ? undefined : null);

/** The predicate method `name` of a connection; a target without relations has none (a bug to ask). */
function need<T>(f: T | undefined, name: string): T {
  if (f === undefined) throw new Error(`internal error: this target has no ${name} (no relations)`);
  return f;
}

/** Carries out a session program's calls on an asynchronous Connection (databases). */
async function driveAsync(
  target: Target, s: number, first: Connection, program: Generator<Call, void, unknown>, opts: RunOptions, now: () => number,
): Promise<void> {
  let conn: Connection | null = first;
  let result: unknown;
  let failure: { err: unknown } | null = null;
  let begins = 0;
  try {
    for (;;) {
      const r = failure === null ? program.next(result) : program.throw(failure.err);
      failure = null;
      result = undefined;
      if (r.done === true) break;
      const c = r.value;
      c.node = conn?.node;
      try {
        switch (c.op) {
          case 'begin':
            // An in-process target answers through promise callbacks alone, which never let the
            // event loop turn: yield now and then so that Ctrl-C and timers get in.
            if (++begins % YIELD_EVERY_TXNS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
            result = await before(conn!.begin(opts.isolation), c.deadline, now);
            break;
          case 'read': result = await before(conn!.read(c.key), c.deadline, now); break;
          case 'write': result = await before(conn!.write(c.key, c.value), c.deadline, now); break;
          case 'append': result = await before(conn!.append(c.key, c.value), c.deadline, now); break;
          case 'readList': result = await before(conn!.readList(c.key), c.deadline, now); break;
          case 'readRow': result = await before(need(conn!.readRow, c.op).call(conn, c.rel, c.key), c.deadline, now); break;
          case 'insert': await before(need(conn!.insert, c.op).call(conn, c.rel, c.key, c.value), c.deadline, now); break;
          case 'update': result = changed(await before(need(conn!.update, c.op).call(conn, c.rel, c.key, c.value), c.deadline, now)); break;
          case 'delete': result = changed(await before(need(conn!.delete, c.op).call(conn, c.rel, c.key), c.deadline, now)); break;
          case 'select': result = await before(need(conn!.select, c.op).call(conn, c.rel, c.pred!), c.deadline, now); break;
          case 'count': result = await before(need(conn!.count, c.op).call(conn, c.rel, c.pred!), c.deadline, now); break;
          case 'commit': result = await before(conn!.commit(), c.deadline, now); break;
          case 'rollback': await conn!.rollback().catch(() => {}); break;
          case 'reconnect': conn = await replace(target, s, conn!); result = conn !== null; break;
        }
      } catch (err) {
        failure = { err };
      }
    }
  } finally {
    if (conn !== null) await conn.close().catch(() => {});
  }
}

/** The synchronous sessions of the connections, if every one has them (the embedded store), else null. */
function syncSessionsOf(conns: Connection[]): SyncSession[] | null {
  const out: SyncSession[] = [];
  for (const c of conns) {
    if (c.sync === undefined) return null;
    out.push(c.sync);
  }
  return out;
}

/**
 * Carries out every session's calls synchronously, one call at a time, the next session drawn by
 * the target's seeded `pick` among the sessions still running (in session order). This is
 * the embedded store's fast path: no promise per call. It makes exactly the choices the
 * store's asynchronous scheduler makes, so both paths record the same history for a seed
 * (test/run/recording.test.ts).
 */
async function driveSync(sessions: SyncSession[], programs: Generator<Call, void, unknown>[], opts: RunOptions): Promise<void> {
  const live = sessions.map((_, s) => s);
  const results: unknown[] = sessions.map(() => undefined);
  const failures: ({ err: unknown } | null)[] = sessions.map(() => null);
  const pending: (Call | null)[] = sessions.map(() => null);
  // Every session makes its first call (nothing runs before all have one, as in the scheduler).
  const advance = (s: number): boolean => {
    const f = failures[s];
    failures[s] = null;
    const r = f === null ? programs[s]!.next(results[s]) : programs[s]!.throw(f.err);
    results[s] = undefined;
    if (r.done === true) { sessions[s]!.close(); return false; }
    pending[s] = r.value;
    return true;
  };
  try {
    for (let k = 0; k < live.length;) {
      if (advance(live[k]!)) k++; else live.splice(k, 1);
    }
    let steps = 0;
    while (live.length > 0) {
      // Let the event loop turn now and then (Ctrl-C, the recorder's timer); no effect on choices.
      if (++steps % YIELD_EVERY_STEPS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const k = sessions[0]!.pick(live.length);
      const s = live[k]!;
      const c = pending[s]!;
      const conn = sessions[s]!;
      try {
        switch (c.op) {
          case 'begin': conn.begin(opts.isolation); break;
          case 'read': results[s] = conn.read(c.key); break;
          case 'write': conn.write(c.key, c.value); break;
          case 'append': conn.append(c.key, c.value); break;
          case 'readList': results[s] = conn.readList(c.key); break;
          case 'readRow': results[s] = need(conn.readRow, c.op).call(conn, c.rel, c.key); break;
          case 'insert': need(conn.insert, c.op).call(conn, c.rel, c.key, c.value); break;
          case 'update': results[s] = changed(need(conn.update, c.op).call(conn, c.rel, c.key, c.value)); break;
          case 'delete': results[s] = changed(need(conn.delete, c.op).call(conn, c.rel, c.key)); break;
          case 'select': results[s] = need(conn.select, c.op).call(conn, c.rel, c.pred!); break;
          case 'count': results[s] = need(conn.count, c.op).call(conn, c.rel, c.pred!); break;
          case 'commit': conn.commit(); break;
          case 'rollback': conn.rollback(); break;
          // An in-process store's "lost connection" is simulated: the session just goes on.
          case 'reconnect': conn.rollback(); results[s] = true; break;
        }
      } catch (err) {
        failures[s] = { err };
      }
      if (!advance(s)) live.splice(k, 1);
    }
  } finally {
    for (const s of live) sessions[s]!.close();
  }
}

/** Each asynchronous session lets the event loop turn once per this many transactions. */
export const YIELD_EVERY_TXNS = 32;

/** The synchronous driver lets the event loop turn once per this many calls. */
export const YIELD_EVERY_STEPS = 4096;

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
