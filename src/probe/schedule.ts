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
import { parsePredicate, type Predicate } from '../history/predicate.ts';
import { RELATION, type Scenario, type Step } from './scenarios.ts';

/** One way to talk to a connection: the database's promises, or the embedded store's synchronous calls. */
export interface Lane {
  begin(iso: IsolationLevel): Promise<void>;
  read(key: number): Promise<RegisterValue>;
  write(key: number, value: number): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /** Rows of the probe's relation table (issue 22): see Connection. */
  readRow(rel: string, key: number): Promise<RegisterValue>;
  insert(rel: string, key: number, value: number): Promise<void>;
  update(rel: string, key: number, value: number): Promise<boolean>;
  delete(rel: string, key: number): Promise<boolean>;
  select(rel: string, p: Predicate): Promise<number[]>;
  count(rel: string, p: Predicate): Promise<number>;
}

/** The name of the probe's relation table on the target (all runs share it: see `restrict`). */
export const PROBE_RELATION = 'test';

function missing(name: string): never {
  throw new Error(`internal error: the target has no ${name} (no relations)`);
}

/** A Connection as a Lane; the embedded store's synchronous twin when it has one (its async calls wait for every session). */
export function laneOf(conn: Connection): Lane {
  const s = conn.sync;
  if (s === undefined) {
    return {
      begin: (iso) => conn.begin(iso),
      read: (k) => conn.read(k),
      write: (k, v) => conn.write(k, v),
      commit: () => conn.commit(),
      rollback: () => conn.rollback(),
      readRow: (r, k) => (conn.readRow ?? missing('readRow')).call(conn, r, k),
      insert: (r, k, v) => (conn.insert ?? missing('insert')).call(conn, r, k, v),
      update: (r, k, v) => (conn.update ?? missing('update')).call(conn, r, k, v),
      delete: (r, k) => (conn.delete ?? missing('delete')).call(conn, r, k),
      select: (r, p) => (conn.select ?? missing('select')).call(conn, r, p),
      count: (r, p) => (conn.count ?? missing('count')).call(conn, r, p),
    };
  }
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
    readRow: (r, k) => now(() => (s.readRow ?? missing('readRow')).call(s, r, k)),
    insert: (r, k, v) => now(() => (s.insert ?? missing('insert')).call(s, r, k, v)),
    update: (r, k, v) => now(() => (s.update ?? missing('update')).call(s, r, k, v)),
    delete: (r, k) => now(() => (s.delete ?? missing('delete')).call(s, r, k)),
    select: (r, p) => now(() => (s.select ?? missing('select')).call(s, r, p)),
    count: (r, p) => now(() => (s.count ?? missing('count')).call(s, r, p)),
  };
}

/**
 * How a run's keys meet the target: `db(name)` is the database key of a scenario key; a
 * predicate read goes to the shared relation table restricted to this run's rows (`key between
 * lo and hi` over its database keys, which are consecutive), so that it ranges over exactly the
 * relation the history declares; `name(k)` maps a returned row back.
 */
interface KeyMap {
  db(name: string): number;
  name(k: number): string;
  isRow(name: string): boolean;
  restrict(text: string): Predicate;
}

function keyMap(sc: Scenario, dbKeys: readonly number[]): KeyMap {
  const byDb = new Map<number, string>();
  sc.keys.forEach((k, i) => byDb.set(dbKeys[i]!, k));
  const rows = sc.relation.map((k) => dbKeys[sc.keys.indexOf(k)]!);
  const lo = Math.min(...rows), hi = Math.max(...rows);
  return {
    db: (name) => dbKeys[sc.keys.indexOf(name)]!,
    name: (k) => byDb.get(k) ?? String(k),
    isRow: (name) => sc.relation.includes(name),
    restrict: (text) => ({
      op: 'and',
      args: [parsePredicate(text), { op: 'between', arg: { kind: 'key' }, low: { kind: 'const', value: lo }, high: { kind: 'const', value: hi } }],
    }),
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
  const hist = openHistory(path, sc.relation.length === 0 ? {} : { relations: { [RELATION]: sc.relation } });
  const rec: RunRecord = { blocked: [], aborts: [], unknown: 0, skipped: 0, unsettled: false, file: path };
  const txns: TxnState[] = Array.from({ length: sc.txns }, () => ({ rec: null, begun: false, dead: false }));
  const tails: Promise<void>[] = Array.from({ length: sc.txns }, () => Promise.resolve());
  const keyOf = keyMap(sc, dbKeys);
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
  step: Step, lane: Lane, t: TxnState, hist: RecordedHistory, keyOf: KeyMap, iso: IsolationLevel, rec: RunRecord,
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
    const k = step.key === '' ? -1 : keyOf.db(step.key);
    const row = step.key !== '' && keyOf.isRow(step.key);
    switch (step.op) {
      case 'r': r.read(step.key, await (row ? lane.readRow(PROBE_RELATION, k) : lane.read(k))); break;
      case 'w':
        if (!row) { await lane.write(k, step.value); r.write(step.key, step.value); }
        // An update that found no row changed nothing: it saw the absent row.
        else if (await lane.update(PROBE_RELATION, k, step.value)) r.write(step.key, step.value);
        else r.read(step.key, null);
        break;
      case 'ins': await lane.insert(PROBE_RELATION, k, step.value); r.insert(step.key, step.value); break;
      case 'del': if (await lane.delete(PROBE_RELATION, k)) r.delete(step.key); else r.read(step.key, null); break;
      case 'sel': {
        const rows = await lane.select(PROBE_RELATION, keyOf.restrict(step.pred));
        const out: [string, number][] = [];
        for (let i = 0; i < rows.length; i += 2) out.push([keyOf.name(rows[i]!), rows[i + 1]!]);
        r.select(RELATION, step.pred, out);
        break;
      }
      case 'cnt': r.count(RELATION, step.pred, await lane.count(PROBE_RELATION, keyOf.restrict(step.pred))); break;
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
async function finalRead(sc: Scenario, lane: Lane, hist: RecordedHistory, keyOf: KeyMap, iso: IsolationLevel): Promise<void> {
  const r = hist.session('final').begin();
  try {
    await lane.begin(iso);
    for (const k of sc.keys) r.read(k, await (keyOf.isRow(k) ? lane.readRow(PROBE_RELATION, keyOf.db(k)) : lane.read(keyOf.db(k))));
    await lane.commit();
    r.commit();
  } catch (err) {
    if (!(err instanceof DbError)) throw err;
    r.abort(err.code ?? err.kind);
    await lane.rollback();
  }
}
