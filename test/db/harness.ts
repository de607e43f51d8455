/**
 * A small concurrent workload for the database tests: it drives a Target's connections the
 * way the runner does (one connection per session, all sessions at once, no retries) and
 * builds the History of what each session saw. Kept in the tests so that the drivers are
 * tested on their own terms, independent of the runner's workload generator.
 *
 * Takes: a Target and a workload shape (register or list-append, sessions, transactions per
 * session, operations per transaction, keys, read fraction, seed). Gives: the History (every
 * transaction with its outcome: committed, aborted, unknown) and the outcome counts.
 * Invariant: written values and appended elements are unique per run; an aborted or unknown
 * transaction keeps the operations it issued (with the values its reads returned), so the
 * checker sees aborted writes (G1a) and treats unknown ones as possibly committed.
 */

import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type History, type TxnStatus } from '../../src/history/model.ts';
import { DbError, type Connection, type IsolationLevel, type Target } from '../../src/run/types.ts';
import { mulberry32, type Rng } from '../support/prng.ts';

export type WorkloadKind = 'register' | 'list-append';

export interface Shape {
  workload: WorkloadKind;
  isolation: IsolationLevel;
  sessions: number;
  txnsPerSession: number;
  opsPerTxn: number;
  keys: number;
  readFraction: number;
  seed: number;
}

type Op =
  | { kind: 'r'; key: number; value: number | null }
  | { kind: 'w'; key: number; value: number }
  | { kind: 'append'; key: number; value: number }
  | { kind: 'rl'; key: number; values: number[] };

export interface RecordedTxn {
  session: number;
  ops: Op[];
  status: TxnStatus;
  /** The DbError code of an aborted / unknown transaction. */
  code?: string;
}

export interface RunResult {
  history: History;
  txns: RecordedTxn[];
  committed: number;
  aborted: number;
  unknown: number;
  codes: Map<string, number>;
}

/** Runs one transaction of `plan` on `conn`; never rejects for a DbError. */
export async function runTxn(
  conn: Connection,
  isolation: IsolationLevel,
  plan: readonly { read: boolean; key: number }[],
  workload: WorkloadKind,
  next: () => number,
  session: number,
): Promise<RecordedTxn> {
  const ops: Op[] = [];
  try {
    await conn.begin(isolation);
    for (const step of plan) {
      if (workload === 'register') {
        if (step.read) ops.push({ kind: 'r', key: step.key, value: await conn.read(step.key) });
        else {
          const value = next();
          ops.push({ kind: 'w', key: step.key, value });
          await conn.write(step.key, value);
        }
      } else if (step.read) {
        ops.push({ kind: 'rl', key: step.key, values: await conn.readList(step.key) });
      } else {
        const value = next();
        ops.push({ kind: 'append', key: step.key, value });
        await conn.append(step.key, value);
      }
    }
    await conn.commit();
    return { session, ops, status: TXN_COMMITTED };
  } catch (err) {
    if (!(err instanceof DbError)) throw err;
    await conn.rollback();
    if (err.kind === 'unreachable') throw err;
    return { session, ops, status: err.kind === 'aborted' ? TXN_ABORTED : TXN_UNKNOWN, code: err.code ?? err.kind };
  }
}

/**
 * One transaction's operations. A key is read at most once, and never after the transaction
 * wrote it: re-reads would report a database's non-repeatable reads as internal
 * inconsistencies before any cycle is looked for, and the tests are after the cycles (lost
 * update, read skew). Read-then-write of a key stays: it is what exposes a lost update.
 */
function plan(rng: Rng, shape: Shape): { read: boolean; key: number }[] {
  const out: { read: boolean; key: number }[] = [];
  const touched = new Set<number>();
  for (let i = 0; i < shape.opsPerTxn; i++) {
    const read = rng() < shape.readFraction;
    const key = Math.floor(rng() * shape.keys);
    if (read && touched.has(key)) continue;
    touched.add(key);
    out.push({ read, key });
  }
  return out;
}

/** Builds the History of recorded transactions, sessions in order, each in its own order. */
export function buildHistory(txns: readonly RecordedTxn[], sessions: number): History {
  const b = new HistoryBuilder('<database test>', 'record');
  for (let s = 0; s < sessions; s++) b.session(s);
  txns.forEach((t, i) => {
    const id = b.beginTxn(b.session(t.session), `t${i}`, t.status);
    for (const op of t.ops) {
      if (op.kind === 'r') b.read(id, op.key, op.value);
      else if (op.kind === 'w') b.write(id, op.key, op.value);
      else if (op.kind === 'append') b.append(id, op.key, op.value);
      else b.readList(id, op.key, op.values);
    }
  });
  return b.build();
}

/** Sets up the target and runs the whole workload, all sessions concurrently. */
export async function runWorkload(target: Target, shape: Shape, onTxn?: (t: RecordedTxn) => Promise<void> | void): Promise<RunResult> {
  await target.setup(shape.keys, { registers: shape.workload === 'register', lists: shape.workload === 'list-append' });
  let counter = 0;
  const next = () => ++counter;
  const perSession: RecordedTxn[][] = [];
  const conns = await Promise.all(Array.from({ length: shape.sessions }, (_, s) => target.connect(s)));
  try {
    await Promise.all(conns.map(async (conn, s) => {
      const rng = mulberry32(shape.seed * 1000 + s);
      const mine: RecordedTxn[] = [];
      perSession[s] = mine;
      for (let i = 0; i < shape.txnsPerSession; i++) {
        const t = await runTxn(conn, shape.isolation, plan(rng, shape), shape.workload, next, s);
        mine.push(t);
        if (onTxn !== undefined) await onTxn(t);
      }
    }));
  } finally {
    await Promise.all(conns.map((c) => c.close()));
  }
  const txns = perSession.flat();
  const codes = new Map<string, number>();
  for (const t of txns) if (t.code !== undefined) codes.set(t.code, (codes.get(t.code) ?? 0) + 1);
  return {
    history: buildHistory(txns, shape.sessions),
    txns,
    committed: txns.filter((t) => t.status === TXN_COMMITTED).length,
    aborted: txns.filter((t) => t.status === TXN_ABORTED).length,
    unknown: txns.filter((t) => t.status === TXN_UNKNOWN).length,
    codes,
  };
}
