/**
 * `polysi analyze --confirm --db ...`: runs a predicted anomaly's instances as a workload against
 * the embedded store or a PostgreSQL / MariaDB database (src/run), records the histories and
 * checks them with the dynamic checker (issue 11, item 5).
 *
 * Takes: the analysed program, a confirmed witness (its instances and the initial database the
 * interpreter used), a target spec, an isolation level, a number of rounds and a seed. Gives:
 * per round whether the recorded history violates serializability, and the first violation's
 * name, with commits, aborts and unknown outcomes. Each round runs the witness's instances
 * concurrently, one session (connection) each, on keys of its own; every record field is a register whose values are fresh write ids (unique per key, as the
 * checker needs), mapped back to the program's integers on the side.
 * Invariants: only programs whose statements address single records (key-only WHEREs, INSERT)
 * can run on a key-value store: anything else is refused with the statement's line. On a SQL
 * database every run has tables of its own (a fresh prefix, `polysi_anode_<random>`), sized by
 * `itemsPerRound` x rounds, and drops them at the end, failed or not; an unreachable database
 * is a DbError `unreachable` whose message hides the password (src/run).
 */

import { randomBytes } from 'node:crypto';
import { HistoryBuilder } from '../history/builder.ts';
import { TXN_ABORTED, TXN_UNKNOWN } from '../history/model.ts';
import { checkHistory } from '../check/index.ts';
import { openTarget } from '../run/targets.ts';
import { DbError, type Connection, type IsolationLevel } from '../run/types.ts';
import { ALIVE, keyOnly, type ProgramInfo } from './lang/access.ts';
import type { Expr, Pred, Stmt } from './lang/ast.ts';
import { inDomain } from './confirm.ts';
import { evalNum, evalPred, type InitialDb } from './interp.ts';
import type { Witness } from './queries.ts';

export interface DbConfirmOptions {
  db: string;
  isolation?: IsolationLevel;
  rounds: number;
  seed: number;
  /**
   * SQL targets: the prefix of the tables this run creates and drops. Default: one of its own,
   * `polysi_anode_<random>`, so that two runs against one database never share (or drop) tables.
   */
  tablePrefix?: string;
  /** SQL targets: the deadline of one transaction (default: the driver's, 10 s). */
  txnTimeoutMs?: number;
}

export interface DbConfirmResult {
  target: string;
  isolation: IsolationLevel;
  rounds: number;
  /** Rounds whose history violates serializability, and the first one's anomaly names. */
  violations: number;
  firstViolationRound: number | null;
  anomalyNames: string[];
  committed: number;
  aborted: number;
  /** Transactions whose COMMIT may or may not have happened (a lost connection at COMMIT). */
  unknown: number;
  /** SQL targets: the prefix of the tables used (dropped at the end); null for the embedded store. */
  tablePrefix: string | null;
}

export class NotRunnableError extends Error {}

/** Throws NotRunnableError naming the first statement a key-value store cannot run. */
export function assertRunnable(info: ProgramInfo): void {
  for (const a of info.access) {
    if (a.stmt.k === 'insert') continue;
    if (!keyOnly(a.stmt.where, a.table) || (a.stmt.k === 'select' && a.stmt.agg !== null)) {
      throw new NotRunnableError(`${info.program.source} line ${a.stmt.loc.line}: --confirm runs only statements that address one record by its whole key`);
    }
  }
}

type Val = number | null | { rows: Map<string, number>[]; fields: string[] };

/** A fresh table prefix: lower-case letters, digits and _ (sql-target.ts splices it into SQL). */
export function freshTablePrefix(): string {
  return `polysi_anode_${randomBytes(5).toString('hex')}`;
}

/**
 * An upper bound on the register items one round touches: every statement runs at most once
 * per instance (FOREACH goes over the rows of a key-only SELECT: at most one), and touches at
 * most its table's fields plus the existence flag.
 */
export function itemsPerRound(info: ProgramInfo, w: Witness): number {
  const count = (block: Stmt[]): number => block.reduce((sum, s) => {
    switch (s.k) {
      case 'if': return sum + count(s.then) + count(s.else);
      case 'foreach': return sum + count(s.body);
      case 'select': case 'update': case 'insert': case 'delete': return sum + info.tables.get(s.table)!.fields.length + 1;
      default: return sum;
    }
  }, 0);
  return w.execution.instances.reduce((sum, inst) => sum + count(info.program.txns.find((t) => t.name === inst.txn)!.body), 0);
}

export async function confirmOnDb(info: ProgramInfo, w: Witness, initial: InitialDb, opts: DbConfirmOptions): Promise<DbConfirmResult> {
  assertRunnable(info);
  // Stage boundary: a witness confirmed on the interpreter lies in every REQUIRES (confirm.ts).
  for (const inst of w.execution.instances) {
    if (!inDomain(info.program.txns.find((t) => t.name === inst.txn)!, inst.args)) throw new Error(`confirm-db: ${inst.txn}(${inst.args.join(', ')}) breaks its REQUIRES`);
  }
  const isSql = !(opts.db === 'memory' || opts.db.startsWith('memory:'));
  const tablePrefix = isSql ? opts.tablePrefix ?? freshTablePrefix() : null;
  const driver: { tablePrefix?: string; txnTimeoutMs?: number } = {
    ...(tablePrefix === null ? {} : { tablePrefix }),
    ...(opts.txnTimeoutMs === undefined ? {} : { txnTimeoutMs: opts.txnTimeoutMs }),
  };
  const resolved = await openTarget(opts.db, opts.isolation, opts.seed, driver);
  const { target, isolation } = resolved;
  const n = w.execution.instances.length;
  const result: DbConfirmResult = {
    target: target.name, isolation, rounds: opts.rounds, violations: 0, firstViolationRound: null, anomalyNames: [],
    committed: 0, aborted: 0, unknown: 0, tablePrefix,
  };
  // A SQL target has exactly the keys setup made: one block of items per round.
  const perRound = itemsPerRound(info, w);
  const keys = opts.rounds * perRound;
  // Register keys: one per (round, item); values: fresh write ids, mapped to integers here.
  const keyIds = new Map<string, number>();
  const valueOf = new Map<number, number>();
  let nextWrite = 1;
  const keyId = (round: number, item: string): number => {
    const k = `${round}|${item}`;
    let id = keyIds.get(k);
    if (id === undefined) {
      id = keyIds.size;
      if (id >= keys) throw new Error(`confirm-db: round ${round + 1} touches more than the ${perRound} items bounded by itemsPerRound`);
      keyIds.set(k, id);
    }
    return id;
  };
  const initialValue = (table: string, key: string, field: string): number => {
    const t = info.tables.get(table)!;
    if (field === ALIVE) {
      if (info.staticTables.has(table)) return 1;
      return initial.rows.some((r) => r.table === table && t.key.every((k, i) => r.values[k] === Number(key.split(',')[i]))) ? 1 : 0;
    }
    const row = initial.rows.find((r) => r.table === table && t.key.every((k, i) => r.values[k] === Number(key.split(',')[i])));
    return row?.values[field] ?? (info.staticTables.has(table) ? initial.value(table, field) : 0);
  };
  try {
    await target.setup(keys, { registers: true, lists: false });
    for (let round = 0; round < opts.rounds; round++) {
      const b = new HistoryBuilder(`${target.name} round ${round + 1}`, 'record');
      const conns: Connection[] = [];
      for (let i = 0; i < n; i++) conns.push(await target.connect(round * n + i));
      await Promise.all(w.execution.instances.map(async (inst, i) => {
        const session = b.session(`instance ${i + 1}`);
        const txn = b.beginTxn(session, `${inst.txn}#${i + 1}`);
        const conn = conns[i]!;
        const item = (table: string, key: string, field: string) => `${table}|${key}|${field}`;
        const read = async (table: string, key: string, field: string): Promise<number> => {
          const k = keyId(round, item(table, key, field));
          const v = await conn.read(k);
          b.read(txn, k, v);
          return v === null ? initialValue(table, key, field) : valueOf.get(v)!;
        };
        const write = async (table: string, key: string, field: string, value: number): Promise<void> => {
          const k = keyId(round, item(table, key, field));
          const id = nextWrite++;
          valueOf.set(id, value);
          await conn.write(k, id);
          b.write(txn, k, id);
        };
        try {
          await conn.begin(isolation);
          await runInstance(info, inst.txn, inst.args, read, write);
          await conn.commit();
          result.committed++;
        } catch (err) {
          if (!(err instanceof DbError)) throw err;
          // `unknown`: the connection went away while COMMIT was in flight; the checker treats
          // such a transaction as possibly committed.
          if (err.kind === 'unknown') { b.setStatus(txn, TXN_UNKNOWN); result.unknown++; } else { b.setStatus(txn, TXN_ABORTED); result.aborted++; }
          await conn.rollback();
        }
        // Leave the scheduler at once: it runs a step only when every live session has one.
        await conn.close();
      }));
      // SI first, for its sharper names (a lost update is an SI violation), then serializability.
      const h = b.build();
      let r = checkHistory(h, { level: 'si', explain: true, pruning: true });
      if (r.verdict === 'valid') r = checkHistory(h, { level: 'ser', explain: true, pruning: true });
      if (r.verdict === 'violation') {
        result.violations++;
        if (result.firstViolationRound === null) {
          result.firstViolationRound = round + 1;
          result.anomalyNames = r.anomalies.map((a) => a.explanation?.class ?? (a.type === 'cycle' ? 'cycle' : a.name));
        }
      }
    }
  } finally {
    // Leave nothing behind: this run's tables (its own prefix) are dropped, even after a failure.
    try {
      if (target.drop !== undefined) await target.drop().catch(() => undefined);
    } finally {
      await target.close();
    }
  }
  return result;
}

/** The program's semantics over single-record reads and writes (interp.ts, restricted to pinned records). */
async function runInstance(
  info: ProgramInfo, txnName: string, args: number[],
  read: (table: string, key: string, field: string) => Promise<number>,
  write: (table: string, key: string, field: string, value: number) => Promise<void>,
): Promise<void> {
  const txn = info.program.txns.find((t) => t.name === txnName)!;
  const env = new Map<string, Val>();
  txn.params.forEach((p, i) => env.set(p, args[i]!));
  // The interpreter's own evaluation: the same semantics on the records this run pins.
  const expr = (e: Expr, row: Map<string, number> | null): number => evalNum(e, env, row);
  const pred = (p: Pred): boolean => evalPred(p, env, null);
  const keyOf = (table: string, where: Pred): string => {
    const t = info.tables.get(table)!;
    const pins = new Map<string, Expr>();
    const walk = (p: Pred): void => {
      if (p.k === 'and') { walk(p.l); walk(p.r); return; }
      if (p.k === 'cmp') pins.set(p.l.k === 'field' ? p.l.name : (p.r as { name: string }).name, p.l.k === 'field' ? p.r : p.l);
    };
    walk(where);
    return t.key.map((k) => String(expr(pins.get(k)!, null))).join(',');
  };
  const exec = async (block: Stmt[]): Promise<void> => {
    for (const s of block) {
      switch (s.k) {
        case 'skip': break;
        case 'let': env.set(s.target, expr(s.e, null)); break;
        case 'if': await exec(pred(s.cond) ? s.then : s.else); break;
        case 'foreach': {
          const v = env.get(s.over);
          for (const r of typeof v === 'object' && v !== null ? v.rows : []) { env.set(s.target, { rows: [r], fields: [] }); await exec(s.body); }
          break;
        }
        case 'select': {
          const key = keyOf(s.table, s.where);
          const alive = await read(s.table, key, ALIVE);
          const rows: Map<string, number>[] = [];
          if (alive === 1) {
            const row = new Map<string, number>();
            for (const f of s.fields) row.set(f, info.tables.get(s.table)!.key.includes(f) ? Number(key.split(',')[info.tables.get(s.table)!.key.indexOf(f)]) : await read(s.table, key, f));
            rows.push(row);
          }
          env.set(s.target, { rows, fields: s.fields });
          break;
        }
        case 'update': {
          const key = keyOf(s.table, s.where);
          if (await read(s.table, key, ALIVE) !== 1) break;
          const row = new Map<string, number>();
          for (const set of s.sets) for (const f of fieldsIn(set.e)) if (!row.has(f)) row.set(f, await read(s.table, key, f));
          const vals = s.sets.map((set) => expr(set.e, row));
          for (let i = 0; i < s.sets.length; i++) await write(s.table, key, s.sets[i]!.field, vals[i]!);
          break;
        }
        case 'insert': {
          const t = info.tables.get(s.table)!;
          const vals = new Map(s.values.map((v) => [v.field, expr(v.e, null)]));
          const key = t.key.map((k) => String(vals.get(k)!)).join(',');
          for (const f of t.fields) if (!t.key.includes(f)) await write(s.table, key, f, vals.get(f) ?? 0);
          await write(s.table, key, ALIVE, 1);
          break;
        }
        case 'delete': {
          const key = keyOf(s.table, s.where);
          if (await read(s.table, key, ALIVE) === 1) await write(s.table, key, ALIVE, 0);
          break;
        }
      }
    }
  };
  await exec(txn.body);
}

function fieldsIn(e: Expr): string[] {
  switch (e.k) {
    case 'field': return [e.name];
    case 'bin': return [...fieldsIn(e.l), ...fieldsIn(e.r)];
    case 'neg': return fieldsIn(e.e);
    default: return [];
  }
}
