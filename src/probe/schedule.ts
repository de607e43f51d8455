/**
 * Runs one scenario once: sends its steps in order over one connection per transaction, without
 * waiting for a step that blocks, and records what happened as a history (JSON Lines, through the
 * recording API).
 *
 * Takes: the scenario, connections (one per transaction; the embedded store's synchronous ones
 * when it is the target), the isolation level, the database keys to use for the scenario's keys,
 * the path to record to, and timing options. Gives: a RunRecord (which steps blocked, which
 * transactions the database aborted and with what code) and the history file.
 * Invariants:
 * - Steps of one connection run in order, one at a time (a step waits for the previous step of
 *   its connection); a step of another connection never waits for a blocked one: after
 *   `blockMs` the step is "blocked" and the schedule goes on. Before each step, blocked steps
 *   get up to RELEASE_MS to finish (the previous step may have released them).
 * - A transaction begins with its first step, and is recorded once, when it ends, with the
 *   operations that completed: committed (COMMIT returned), aborted (the database refused a
 *   statement or the commit, with its code, or the scenario rolled back), unknown (the commit's
 *   answer was lost). Later steps of a transaction the database aborted are skipped.
 * - After every step has settled, a final reader on the first connection reads every key in one
 *   transaction: the state the scenario left. It is recorded as a session of its own: in T1's
 *   session its read would close a session-order cycle with T1 beside the scenario's anomaly
 *   (P4 became a dilemma between a lost update and a session guarantee violation, and was named
 *   after the looser of the two); left out of session order it only orders the final writes.
 */

import { openHistory, type RecordedHistory, type RecordedTxn } from '../run/record.ts';
import { DbError, type Connection, type IsolationLevel, type RegisterValue } from '../run/types.ts';
import type { Scenario, Step } from './scenarios.ts';

/** One way to talk to a connection: the database's promises, or the embedded store's synchronous calls. */
export interface Lane {
  begin(iso: IsolationLevel): Promise<void>;
  read(key: number): Promise<RegisterValue>;
  write(key: number, value: number): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** A Connection as a Lane; the embedded store's synchronous twin when it has one (its async calls wait for every session). */
export function laneOf(conn: Connection): Lane {
  const s = conn.sync;
  if (s === undefined) return conn;
  const now = <T>(f: () => T): Promise<T> => {
    try {
      return Promise.resolve(f());
    } catch (err) {
      return Promise.reject(err);
    }
  };
  return {
    begin: (iso) => now(() => s.begin(iso)),
    read: (k) => now(() => s.read(k)),
    write: (k, v) => now(() => s.write(k, v)),
    commit: () => now(() => s.commit()),
    rollback: () => now(() => s.rollback()),
  };
}

export interface ScheduleOptions {
  isolation: IsolationLevel;
  /** A step not done after this long is "blocked" and the schedule goes on. */
  blockMs: number;
  /** A random pause of up to this many ms before each step (0: none). */
  jitterMs: number;
  /** A source of numbers in [0, 1) for the jitter. */
  random: () => number;
  /** Bound on waiting for the blocked steps to settle after the last step was sent. */
  settleMs: number;
}

export interface RunRecord {
  /** Indices of the steps that were blocked. */
  blocked: number[];
  /** Database aborts: the transaction (0-based) and the database's code. Scripted rollbacks are not here. */
  aborts: { txn: number; code: string }[];
  /** Transactions whose commit's answer was lost. */
  unknown: number;
  /** Steps skipped because their transaction had already been aborted. */
  skipped: number;
  /** True when some step had not settled by the end (settleMs passed): the run is incomplete. */
  unsettled: boolean;
  file: string;
}

interface TxnState {
  rec: RecordedTxn | null;
  begun: boolean;
  dead: boolean;
}

/** How long, at most, the schedule waits for blocked steps to finish before sending the next step. */
export const RELEASE_MS = 50;

/** True when every promise settled within `ms` (they reject only for bugs, which propagate). */
async function settleWithin(ps: readonly Promise<void>[], ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([Promise.all(ps).then(() => true), new Promise<boolean>((r) => { timer = setTimeout(() => r(false), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `sc` once over `lanes` (at least sc.txns of them); `dbKeys[i]` is the database key of sc.keys[i]. */
export async function runScenario(sc: Scenario, lanes: readonly Lane[], dbKeys: readonly number[], path: string, opts: ScheduleOptions): Promise<RunRecord> {
  if (lanes.length < sc.txns) throw new Error(`internal error: ${lanes.length} connections for ${sc.txns} transactions`);
  const hist = openHistory(path);
  const rec: RunRecord = { blocked: [], aborts: [], unknown: 0, skipped: 0, unsettled: false, file: path };
  const txns: TxnState[] = Array.from({ length: sc.txns }, () => ({ rec: null, begun: false, dead: false }));
  const tails: Promise<void>[] = Array.from({ length: sc.txns }, () => Promise.resolve());
  const keyOf = (name: string) => dbKeys[sc.keys.indexOf(name)]!;
  try {
    const pending = new Set<Promise<void>>();
    for (let i = 0; i < sc.steps.length; i++) {
      const step = sc.steps[i]!;
      // Steps released by the previous one (a lock freed by a commit) finish first, as they would
      // for a person typing the steps: wait a little for what is still blocked.
      if (pending.size > 0) await settleWithin([...pending], Math.min(opts.blockMs, RELEASE_MS));
      if (opts.jitterMs > 0) await sleep(opts.random() * opts.jitterMs);
      const p = tails[step.txn]!.then(() => doStep(step, lanes[step.txn]!, txns[step.txn]!, hist, keyOf, opts.isolation, rec));
      tails[step.txn] = p;
      let timer: NodeJS.Timeout | undefined;
      const done = await Promise.race([p.then(() => true), new Promise<boolean>((r) => { timer = setTimeout(() => r(false), opts.blockMs); })]);
      clearTimeout(timer);
      if (!done) {
        rec.blocked.push(i);
        const q = p.finally(() => pending.delete(q));
        pending.add(q);
      }
    }
    if (!await settleWithin(tails, opts.settleMs)) rec.unsettled = true;
    else await finalRead(sc, lanes[0]!, hist, keyOf, opts.isolation);
  } finally {
    hist.close();
  }
  return rec;
}

/** One step on its lane; a DbError ends the transaction (recorded), anything else is a bug and propagates. */
async function doStep(
  step: Step, lane: Lane, t: TxnState, hist: RecordedHistory, keyOf: (k: string) => number, iso: IsolationLevel, rec: RunRecord,
): Promise<void> {
  if (t.dead) { rec.skipped++; return; }
  const label = `T${step.txn + 1}`;
  let committing = false;
  try {
    if (!t.begun) {
      t.begun = true;
      t.rec = hist.session(label).begin();
      await lane.begin(iso);
    }
    const r = t.rec!;
    switch (step.op) {
      case 'r': r.read(step.key, await lane.read(keyOf(step.key))); break;
      case 'w': await lane.write(keyOf(step.key), step.value); r.write(step.key, step.value); break;
      case 'c': committing = true; await lane.commit(); t.dead = true; r.commit(); break;
      case 'a': t.dead = true; await lane.rollback(); r.abort('rollback'); break;
    }
  } catch (err) {
    if (!(err instanceof DbError)) throw err;
    t.dead = true;
    const code = err.code ?? err.kind;
    if (err.kind !== 'aborted' && committing) {
      rec.unknown++;
      t.rec!.unknown(code);
    } else {
      rec.aborts.push({ txn: step.txn, code });
      t.rec!.abort(code);
    }
    if (!committing) await lane.rollback();
  }
}

/** The final reader: every key, in one transaction on T1's connection, recorded as session `final`; its failure is recorded like any other. */
async function finalRead(sc: Scenario, lane: Lane, hist: RecordedHistory, keyOf: (k: string) => number, iso: IsolationLevel): Promise<void> {
  const r = hist.session('final').begin();
  try {
    await lane.begin(iso);
    for (const k of sc.keys) r.read(k, await lane.read(keyOf(k)));
    await lane.commit();
    r.commit();
  } catch (err) {
    if (!(err instanceof DbError)) throw err;
    r.abort(err.code ?? err.kind);
    await lane.rollback();
  }
}
