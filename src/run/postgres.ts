/**
 * PostgreSQL as a Target, through the npm `pg` client (loaded on first use, so that commands
 * that never touch PostgreSQL do not pay for it).
 *
 * Takes: a `postgres://user:password@host:port/db` URL. Gives: a Target whose `setup` creates
 * `<prefix>_register (k INTEGER PRIMARY KEY, v BIGINT)` and `<prefix>_list (k INTEGER PRIMARY
 * KEY, v TEXT)` — one row per key, a list stored as the text `e1,e2,...,` — and whose
 * connections are one `pg.Client` each, with the isolation level set by each BEGIN.
 *
 * Invariant: errors become DbErrors by SQLSTATE: class 40 (serialization failure, deadlock)
 * is an abort wherever it happens; any error before COMMIT is an abort (the transaction cannot
 * commit without it); at COMMIT, an error of another class (57P01 admin shutdown, a lost
 * connection) leaves the outcome unknown. Authentication and connection failures are
 * `unreachable`.
 */

import type { Client, ClientConfig, QueryResult as PgResult } from 'pg';
import {
  CONNECT_TIMEOUT_MS_DEFAULT,
  redactUrl,
  type ErrorClass,
  type Phase,
  type SqlClient,
  type SqlTargetOptions,
} from './sql-connection.ts';
import { ISOLATION_SQL, SqlTarget } from './sql-target.ts';
import type { TableKinds, Target } from './types.ts';
import { importOptional } from '../util/optional.ts';
import { pgErrorClass } from './error-class.ts';

/** SQLSTATE classes of a connection that went away or a server that cannot serve. */
const CONNECTION_CLASSES = new Set(['08', '57', '53', '58', 'XX']);

type PgModule = typeof import('pg');
let pgModule: Promise<PgModule> | null = null;

function loadPg(): Promise<PgModule> {
  pgModule ??= importOptional('pg', () => import('pg')).then((m) => ((m as unknown as { default?: PgModule }).default ?? m));
  return pgModule;
}

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** The outcome a pg error implies at `phase` (exported for tests). Errors without a SQLSTATE are the socket's or pg's own: the connection is gone. */
export function classifyPg(err: unknown, phase: Phase): ErrorClass | null {
  if (!(err instanceof Error)) return null;
  const state = sqlState(err);
  if (phase === 'connect') return { kind: 'unreachable', code: state ?? (err as { code?: string }).code ?? 'connect' };
  if (state === undefined) {
    // ECONNRESET, "Connection terminated unexpectedly", "Client was closed and is not queryable".
    return { kind: phase === 'commit' ? 'unknown' : 'aborted', code: 'connection-lost' };
  }
  if (state.startsWith('40')) return { kind: 'aborted', code: state };
  // The server went away around COMMIT (57P01 admin shutdown, ...): it may have committed.
  if (phase === 'commit' && CONNECTION_CLASSES.has(state.slice(0, 2))) return { kind: 'unknown', code: state };
  // Before COMMIT, or a COMMIT the server refused (a deferred constraint): rolled back.
  return { kind: 'aborted', code: state };
}

class PgClient implements SqlClient {
  lost = false;
  constructor(private readonly client: Client) {
    // An idle client whose backend is terminated emits 'error': without a listener, that
    // would crash the process. The next statement then fails as connection-lost.
    client.on('error', () => { this.lost = true; });
    client.on('end', () => { this.lost = true; });
  }

  /** Prepared-statement names by SQL text: the four operations are parsed once per connection. */
  private readonly names = new Map<string, string>();

  async query(sql: string, params: readonly unknown[]) {
    let r: PgResult;
    if (params.length === 0) r = await this.client.query(sql);
    else {
      let name = this.names.get(sql);
      if (name === undefined) this.names.set(sql, name = `polysi_${this.names.size}`);
      r = await this.client.query({ name, text: sql, values: params as unknown[] });
    }
    return { rows: r.rows as Record<string, unknown>[], affected: r.rowCount ?? 0, rolledBack: r.command === 'ROLLBACK' && sql === 'COMMIT' };
  }

  destroy(): void {
    this.lost = true;
    // pg has no public "close the socket now"; end() would wait for the query in flight.
    const stream = (this.client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
    if (stream !== undefined) stream.destroy();
    else void this.client.end().catch(() => undefined);
  }

  async end(): Promise<void> {
    this.lost = true;
    await this.client.end();
  }
}

class PostgresTarget extends SqlTarget {
  constructor(url: URL, opts: SqlTargetOptions) {
    super(url, opts, ({ register, list }) => ({
      begin: (iso) => [`BEGIN ISOLATION LEVEL ${ISOLATION_SQL[iso]}`],
      sql: {
        read: `SELECT v FROM ${register} WHERE k = $1`,
        write: `UPDATE ${register} SET v = $1 WHERE k = $2`,
        append: `UPDATE ${list} SET v = v || $1 WHERE k = $2`,
        readList: `SELECT v FROM ${list} WHERE k = $1`,
      },
      classify: classifyPg,
      errorClass: pgErrorClass,
      // Typed, so that a constant compared with a column never leaves PostgreSQL guessing.
      placeholder: (i) => `CAST($${i + 1} AS BIGINT)`,
    }));
  }

  protected async open(): Promise<SqlClient> {
    const pg = await loadPg();
    const lockTimeoutMs = this.lockTimeoutMs();
    const config: ClientConfig = {
      connectionString: this.url.href,
      connectionTimeoutMillis: this.opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS_DEFAULT,
      application_name: 'polysi',
    };
    if (lockTimeoutMs > 0) {
      // A lock wait or a slow statement ends as a clean abort (55P03 / 57014) on the server.
      config.lock_timeout = lockTimeoutMs;
      config.statement_timeout = lockTimeoutMs;
    }
    const client = new pg.Client(config);
    const wrapped = new PgClient(client);
    try {
      await client.connect();
    } catch (err) {
      wrapped.destroy();
      throw err;
    }
    return wrapped;
  }

  protected async createTables(client: SqlClient, keys: number, kinds: TableKinds): Promise<void> {
    const statements: string[] = [];
    if (kinds.registers) {
      statements.push(
        `DROP TABLE IF EXISTS ${this.register}`,
        `CREATE TABLE ${this.register} (k INTEGER PRIMARY KEY, v BIGINT)`,
        `INSERT INTO ${this.register} (k, v) SELECT g, NULL FROM generate_series(0, ${keys}) AS g`,
      );
    }
    if (kinds.lists) {
      statements.push(
        `DROP TABLE IF EXISTS ${this.list}`,
        `CREATE TABLE ${this.list} (k INTEGER PRIMARY KEY, v TEXT NOT NULL)`,
        `INSERT INTO ${this.list} (k, v) SELECT g, '' FROM generate_series(0, ${keys}) AS g`,
      );
    }
    for (const s of statements) await client.query(s, []);
  }

  /** The SQLSTATE; failing to connect, else the socket's code (ECONNREFUSED...). */
  protected errorCode(err: unknown, during: 'connect' | 'setup'): string | undefined {
    const state = sqlState(err);
    return during === 'connect' ? state ?? (err as { code?: string } | null)?.code : state;
  }
}

/** A PostgreSQL target for a `postgres://` or `postgresql://` URL. */
export function openPostgres(url: URL, opts: SqlTargetOptions = {}): Target {
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new Error(`not a PostgreSQL URL: ${redactUrl(url)}`);
  return new PostgresTarget(url, opts);
}
