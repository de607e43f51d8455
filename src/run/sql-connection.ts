/**
 * What the SQL drivers (postgres.ts, mysql.ts) share: the life of one session's transaction
 * over one database connection, and how a failure becomes a `DbError` outcome.
 *
 * Takes: a `Dialect` (how to open a client, the SQL of each operation, how to classify the
 * database's errors). Gives: a `Connection` (types.ts) that the runner drives one transaction
 * at a time.
 *
 * Invariants:
 * - Nothing is retried. A failed statement rejects with a DbError and marks the transaction
 *   failed; `commit` of a failed transaction rolls back and rejects `aborted`.
 * - `aborted` only when the transaction certainly did not commit: the database refused it, or
 *   the connection was lost (or destroyed by our timer) before COMMIT was sent — a server rolls
 *   back the open transaction of a connection that goes away. A failure while COMMIT is in
 *   flight is `unknown` unless the database said it rolled back (SQLSTATE class 40, deadlock...).
 * - Every transaction has a deadline (`txnTimeoutMs`): when it passes, the client is destroyed,
 *   so a lock wait or a hung server never hangs the run. The next `begin` opens a new client
 *   (the session goes on over a new connection, after everything it did before).
 * - No message carries the password: every error text goes through `hidePassword`.
 */

import { DbError, RELATION_NAME, type Connection, type DbErrorKind, type IsolationLevel, type RegisterValue } from './types.ts';
import type { Predicate } from '../history/predicate.ts';
import { predicateSql } from './sql-predicate.ts';

/** Options shared by the SQL targets. */
export interface SqlTargetOptions {
  /** Deadline of one transaction, begin to commit (default 10 s; 0: none). */
  txnTimeoutMs?: number;
  /**
   * Server-side bound on one lock wait or statement (default: txnTimeoutMs / 2, so that the
   * database ends a lock wait cleanly, as an abort, before a timer has to destroy the
   * connection). 0 leaves the server's own setting (tests use it to exercise the timer).
   */
  lockTimeoutMs?: number;
  /** Prefix of the tables the tool creates: `<prefix>_register`, `<prefix>_list` (default `polysi`). */
  tablePrefix?: string;
  /** Bound on connecting (default 10 s). */
  connectTimeoutMs?: number;
  /** Statements run on every new connection, in order, before any transaction (`--session-init`). */
  sessionInit?: readonly string[];
}

export const TXN_TIMEOUT_MS_DEFAULT = 10_000;
export const CONNECT_TIMEOUT_MS_DEFAULT = 10_000;

/** One row of a result, by column name. */
export type Row = Record<string, unknown>;

export interface QueryResult {
  rows: Row[];
  /** Rows changed by an UPDATE / INSERT. */
  affected: number;
  /** PostgreSQL answers COMMIT of a failed transaction with ROLLBACK instead of an error. */
  rolledBack: boolean;
}

/** One open client (a pg.Client, a mysql2 connection). */
export interface SqlClient {
  query(sql: string, params: readonly unknown[]): Promise<QueryResult>;
  /** Closes the socket at once; in-flight queries reject. */
  destroy(): void;
  /** Closes politely. */
  end(): Promise<void>;
  /** True once the client has seen its connection end (an 'error' or 'end' event). */
  readonly lost: boolean;
}

/** Where in a transaction a failure happened: it decides between aborted and unknown. */
export type Phase = 'connect' | 'statement' | 'commit';

export interface ErrorClass {
  kind: DbErrorKind;
  /** The database's code (SQLSTATE, errno), or ours: `connection-lost`, `timeout`. */
  code: string;
}

export interface Dialect {
  /** The URL with the password hidden. */
  readonly name: string;
  open(): Promise<SqlClient>;
  /** Statements that start a transaction at `isolation` (throws a DbError if unsupported). */
  begin(isolation: IsolationLevel): string[];
  readonly sql: {
    read: string;
    write: string;
    append: string;
    readList: string;
  };
  /** The i-th (0-based) parameter of a statement, typed as an integer (`CAST($1 AS BIGINT)`, `?`). */
  placeholder(i: number): string;
  /** The table of relation `rel` (issue 22); its name is checked to be a plain identifier first. */
  relationTable(rel: string): string;
  /** The value to pass to `sql.append` for one element. */
  appendParam(element: number): string;
  /**
   * The kind of a failure the database (or the driver library) reported, at `phase`.
   * `null` when the error is not the database's (a bug of ours): rethrown as is.
   */
  classify(err: unknown, phase: Phase): ErrorClass | null;
  /** The failure's class across databases (error-class.ts), for the run's summary. */
  errorClass?(err: unknown, phase: Phase): string;
}

/**
 * A URL's password field in a text: `scheme://user:` (group 1), the password up to the last `@`
 * before the host (a raw `@` in a password is the URL's, WHATWG URL reads it so), then the host.
 */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s/]*@(?=[^\s@/]*(?:[/?#\s]|$))/gi;
/** A `password=VALUE` of a connection string (libpq's key/value form), quoted or not. */
const KEY_PASSWORD = /(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s'][^\s]*)/gi;

/**
 * Hides every password field in a message: a URL's (`postgres://user:***@host/db`) and a
 * connection string's `password=***`, whatever the password is. Only the field: the password's
 * text elsewhere is left alone, or a password `polysi` would turn the user and the database
 * named `polysi` into `***` (it did, when every occurrence of the text was replaced). The
 * password reaches a driver inside the URL (pg's connectionString) or as a field of its own
 * (mysql2), and neither echoes a field back, so a message can only carry it in a URL or a
 * connection string.
 */
export function hidePassword(text: string): string {
  return text.replace(URL_PASSWORD, '$1***@').replace(KEY_PASSWORD, '$1***');
}

/** The URL for messages: the password replaced by `***`. */
export function redactUrl(url: URL): string {
  if (url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.password = '***';
  return copy.href;
}

/** Parses the text form of a list (`1,2,3,` as stored by `append`). */
export function parseList(text: unknown): number[] {
  if (text === null || text === undefined || text === '') return [];
  const parts = String(text).split(',');
  const out: number[] = [];
  for (const p of parts) {
    if (p === '') continue;
    const n = Number(p);
    if (!Number.isSafeInteger(n)) throw new Error(`list element '${p}' is not an integer`);
    out.push(n);
  }
  return out;
}

/** A register value as the database returned it (BIGINT may come back as a string). */
export function registerValue(v: unknown): RegisterValue {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`register value '${String(v)}' is not an integer`);
  return n;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A session's connection: one client at a time, one transaction at a time. */
export class SqlConnection implements Connection {
  private client: SqlClient | null;
  private inTxn = false;
  /** The transaction saw an error: it can only be rolled back. */
  private failed: DbError | null = null;
  private timer: NodeJS.Timeout | null = null;
  private timedOut = false;
  private readonly txnTimeoutMs: number;

  constructor(private readonly dialect: Dialect, client: SqlClient, opts: SqlTargetOptions) {
    this.client = client;
    this.txnTimeoutMs = opts.txnTimeoutMs ?? TXN_TIMEOUT_MS_DEFAULT;
  }

  async begin(isolation: IsolationLevel): Promise<void> {
    if (this.inTxn) throw new Error('begin: a transaction is already open on this connection');
    const statements = this.dialect.begin(isolation);
    if (this.client === null || this.client.lost) await this.reconnect();
    this.inTxn = true;
    this.failed = null;
    this.timedOut = false;
    if (this.txnTimeoutMs > 0) this.timer = setTimeout(() => this.expire(), this.txnTimeoutMs);
    for (const s of statements) await this.run(s, [], 'statement');
  }

  async read(key: number): Promise<RegisterValue> {
    const r = await this.run(this.dialect.sql.read, [key], 'statement');
    if (r.rows.length === 0) return null;
    return registerValue(r.rows[0]!['v']);
  }

  async write(key: number, value: number): Promise<void> {
    const r = await this.run(this.dialect.sql.write, [value, key], 'statement');
    this.assertOneRow(r, key);
  }

  async append(key: number, element: number): Promise<void> {
    const r = await this.run(this.dialect.sql.append, [this.dialect.appendParam(element), key], 'statement');
    this.assertOneRow(r, key);
  }

  async readList(key: number): Promise<number[]> {
    const r = await this.run(this.dialect.sql.readList, [key], 'statement');
    if (r.rows.length === 0) return [];
    return parseList(r.rows[0]!['v']);
  }

  /*
   * Rows of relations (issue 22): one table per relation, `k` primary key, `v` the row's value;
   * an absent row has no row. Predicates become WHERE clauses with parameters (sql-predicate.ts).
   */
  async readRow(rel: string, key: number): Promise<RegisterValue> {
    const ph = (i: number) => this.dialect.placeholder(i);
    const r = await this.run(`SELECT v FROM ${this.table(rel)} WHERE k = ${ph(0)}`, [key], 'statement');
    return r.rows.length === 0 ? null : registerValue(r.rows[0]!['v']);
  }

  async insert(rel: string, key: number, value: number): Promise<void> {
    const ph = (i: number) => this.dialect.placeholder(i);
    await this.run(`INSERT INTO ${this.table(rel)} (k, v) VALUES (${ph(0)}, ${ph(1)})`, [key, value], 'statement');
  }

  async update(rel: string, key: number, value: number): Promise<boolean> {
    const ph = (i: number) => this.dialect.placeholder(i);
    const r = await this.run(`UPDATE ${this.table(rel)} SET v = ${ph(0)} WHERE k = ${ph(1)}`, [value, key], 'statement');
    return r.affected > 0;
  }

  async delete(rel: string, key: number): Promise<boolean> {
    const r = await this.run(`DELETE FROM ${this.table(rel)} WHERE k = ${this.dialect.placeholder(0)}`, [key], 'statement');
    return r.affected > 0;
  }

  async select(rel: string, p: Predicate): Promise<number[]> {
    const w = predicateSql(p, (i) => this.dialect.placeholder(i));
    const r = await this.run(`SELECT k, v FROM ${this.table(rel)} WHERE ${w.sql} ORDER BY k`, w.params, 'statement');
    const out: number[] = [];
    for (const row of r.rows) out.push(registerValue(row['k'])!, registerValue(row['v'])!);
    return out;
  }

  async count(rel: string, p: Predicate): Promise<number> {
    const w = predicateSql(p, (i) => this.dialect.placeholder(i));
    const r = await this.run(`SELECT COUNT(*) AS n FROM ${this.table(rel)} WHERE ${w.sql}`, w.params, 'statement');
    return registerValue(r.rows[0]?.['n']) ?? 0;
  }

  private table(rel: string): string {
    if (!RELATION_NAME.test(rel)) throw new Error(`relation name '${rel}': use lower-case letters, digits and _`);
    return this.dialect.relationTable(rel);
  }

  async commit(): Promise<void> {
    if (this.failed !== null) {
      // The database may not know the transaction failed (a client-side error); make sure.
      const why = this.failed;
      await this.rollback();
      throw why;
    }
    try {
      const r = await this.run('COMMIT', [], 'commit');
      if (r.rolledBack) throw new DbError(`${this.dialect.name}: COMMIT was answered with ROLLBACK`, 'aborted', 'rollback');
    } finally {
      this.endTxn();
    }
  }

  async rollback(): Promise<void> {
    const client = this.client;
    this.endTxn();
    if (client === null || client.lost || this.timedOut) return;
    try {
      await client.query('ROLLBACK', []);
    } catch {
      // The transaction is gone either way: a client that cannot roll back is dropped, and
      // the server rolls back what the connection left open.
      client.destroy();
      this.client = null;
    }
  }

  async close(): Promise<void> {
    const open = this.inTxn;
    this.endTxn();
    const client = this.client;
    this.client = null;
    if (client === null) return;
    if (open) {
      // Closed with a transaction open (the runner abandoning a hung connection): a polite
      // close would wait for the statement in flight. Drop the socket; the server rolls back.
      client.destroy();
      return;
    }
    try {
      await client.end();
    } catch {
      client.destroy();
    }
  }

  private assertOneRow(r: QueryResult, key: number): void {
    // Every key the workload uses was created by setup; a miss is a bug, not an outcome.
    if (r.affected !== 1) throw new Error(`${this.dialect.name}: key ${key} is not in the table (setup fills 0..keys)`);
  }

  private expire(): void {
    this.timer = null;
    if (!this.inTxn) return;
    this.timedOut = true;
    this.client?.destroy();
  }

  private endTxn(): void {
    this.inTxn = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private async reconnect(): Promise<void> {
    this.client?.destroy();
    this.client = null;
    try {
      this.client = await this.dialect.open();
    } catch (err) {
      throw this.toDbError(err, 'connect');
    }
  }

  private async run(sql: string, params: readonly unknown[], phase: Phase): Promise<QueryResult> {
    if (!this.inTxn) throw new Error(`${sql.split(' ')[0]}: no transaction is open on this connection`);
    if (this.failed !== null) throw this.failed;
    const client = this.client;
    // Nothing is sent on a connection known to be gone: not even a COMMIT, so the transaction
    // certainly did not commit (an abort, whatever the phase).
    if (client === null || this.timedOut || client.lost) throw this.fail(new Error('connection already closed'), 'statement');
    try {
      return await client.query(sql, params);
    } catch (err) {
      throw this.fail(err, phase);
    }
  }

  /** Records the transaction's failure; the client is dropped if its connection is gone. */
  private fail(err: unknown, phase: Phase): DbError {
    const e = this.toDbError(err, phase);
    this.failed = e;
    if (this.client !== null && (this.timedOut || this.client.lost || e.code === 'connection-lost')) {
      this.client.destroy();
      this.client = null;
    }
    return e;
  }

  private toDbError(err: unknown, phase: Phase): DbError {
    const name = this.dialect.name;
    if (err instanceof DbError) return err;
    if (this.timedOut && phase !== 'connect') {
      // Our timer destroyed the client: before COMMIT the server rolls back, during it nobody knows.
      const kind: DbErrorKind = phase === 'commit' ? 'unknown' : 'aborted';
      return new DbError(`${name}: transaction timed out after ${this.txnTimeoutMs} ms (connection closed)`, kind, 'timeout', 'timeout');
    }
    const c = this.dialect.classify(err, phase);
    if (c === null) throw err;
    const what = phase === 'connect' ? 'cannot connect' : phase === 'commit' ? 'commit failed' : 'statement failed';
    return new DbError(hidePassword(`${name}: ${what}: ${messageOf(err)}`), c.kind, c.code, this.dialect.errorClass?.(err, phase));
  }
}
