/**
 * MariaDB / MySQL as a Target, through the npm `mysql2` client (loaded on first use).
 *
 * Takes: a `mysql://user:password@host:port/db` URL (`mariadb://` too). Gives: a Target whose
 * `setup` creates InnoDB tables `<prefix>_register (k INT PRIMARY KEY, v BIGINT)` and
 * `<prefix>_list (k INT PRIMARY KEY, v LONGTEXT)` — one row per key, a list stored as the text
 * `e1,e2,...,` — and whose connections are one mysql2 connection each, the isolation level set
 * before each START TRANSACTION (one round trip for both).
 *
 * Isolation: `snapshot` is REPEATABLE READ with the session's `innodb_snapshot_isolation=ON`
 * (MariaDB 10.6.18 / 10.11.8 and later), under which a write to a row changed since the
 * snapshot fails with error 1020 instead of committing a lost update. Plain `repeatable-read`
 * keeps the server's setting (off by default: lost updates commit, a real SI violation).
 *
 * Invariant: errors become DbErrors by errno: deadlock (1213), lock wait timeout (1205) and
 * "record has changed" (1020) are aborts wherever they happen; any error before COMMIT is an
 * abort; a lost connection or another error at COMMIT leaves the outcome unknown.
 */

import type { Connection as MyConnection, ConnectionOptions, ResultSetHeader } from 'mysql2/promise';
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
import { mysqlErrorClass } from './error-class.ts';

/** Errors after which the server has rolled the whole transaction back (or will, on ROLLBACK). */
const ABORT_ERRNOS = new Set([1213, 1205, 1020]);

type MysqlModule = typeof import('mysql2/promise');
let mysqlModule: Promise<MysqlModule> | null = null;

function loadMysql(): Promise<MysqlModule> {
  mysqlModule ??= importOptional('mysql2', () => import('mysql2/promise')).then((m) => ((m as unknown as { default?: MysqlModule }).default ?? m));
  return mysqlModule;
}

interface MysqlError extends Error {
  errno?: number;
  code?: string;
  fatal?: boolean;
  sqlState?: string;
}

/**
 * The server's errno (1000 and up), or undefined. A socket error carries the operating system's
 * errno negated by libuv (-111 for ECONNREFUSED) beside its name in `code`: the name is what a
 * user can look up, so such an error is named by its code instead.
 */
function serverErrno(e: MysqlError): number | undefined {
  return e.errno !== undefined && e.errno > 0 ? e.errno : undefined;
}

/** The server's errno as a string, else the driver's or the system's name (ECONNREFUSED, PROTOCOL_CONNECTION_LOST...). */
function errorName(e: MysqlError): string | undefined {
  const errno = serverErrno(e);
  return errno !== undefined ? String(errno) : e.code;
}

export function classifyMysql(err: unknown, phase: Phase): ErrorClass | null {
  if (!(err instanceof Error)) return null;
  const e = err as MysqlError;
  if (phase === 'connect') return { kind: 'unreachable', code: errorName(e) ?? 'connect' };
  // A statement error has an errno and leaves the connection usable; fatal ones close it
  // (ECONNRESET, PROTOCOL_CONNECTION_LOST, 1927 connection killed, 2013 lost during query).
  const lost = e.fatal === true || serverErrno(e) === undefined;
  if (!lost && ABORT_ERRNOS.has(e.errno!)) return { kind: 'aborted', code: String(e.errno) };
  if (phase === 'commit') return { kind: 'unknown', code: lost ? 'connection-lost' : String(e.errno) };
  return { kind: 'aborted', code: lost ? 'connection-lost' : String(e.errno) };
}

class MyClient implements SqlClient {
  lost = false;
  constructor(private readonly conn: MyConnection) {
    // Without a listener, an idle connection killed by the server would crash the process.
    conn.on('error', () => { this.lost = true; });
    conn.on('end', () => { this.lost = true; });
  }

  async query(sql: string, params: readonly unknown[]) {
    const [result] = await this.conn.query(sql, params as unknown[]);
    if (Array.isArray(result)) return { rows: result as Record<string, unknown>[], affected: 0, rolledBack: false };
    return { rows: [], affected: (result as ResultSetHeader).affectedRows, rolledBack: false };
  }

  destroy(): void {
    this.lost = true;
    // mysql2's destroy() only half-closes the socket and marks the close as intended: a
    // statement waiting for a lock would complete later, or never settle. Closing the socket
    // itself makes mysql2 fail the statement in flight now (PROTOCOL_CONNECTION_LOST).
    const stream = (this.conn as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
    if (stream !== undefined) stream.destroy();
    else this.conn.destroy();
  }

  async end(): Promise<void> {
    this.lost = true;
    await this.conn.end();
  }
}

class MysqlTarget extends SqlTarget {
  constructor(url: URL, opts: SqlTargetOptions) {
    super(url, opts, ({ register, list }) => ({
      begin: (iso) => [
        (iso === 'snapshot' ? 'SET SESSION innodb_snapshot_isolation = ON; ' : '')
          + `SET TRANSACTION ISOLATION LEVEL ${ISOLATION_SQL[iso]}; START TRANSACTION`,
      ],
      sql: {
        read: `SELECT v FROM ${register} WHERE k = ?`,
        write: `UPDATE ${register} SET v = ? WHERE k = ?`,
        append: `UPDATE ${list} SET v = CONCAT(v, ?) WHERE k = ?`,
        readList: `SELECT v FROM ${list} WHERE k = ?`,
      },
      classify: classifyMysql,
      errorClass: mysqlErrorClass,
      placeholder: () => '?',
    }));
  }

  protected async open(): Promise<SqlClient> {
    const mysql = await loadMysql();
    const lockTimeoutMs = this.lockTimeoutMs();
    const options: ConnectionOptions = {
      host: this.url.hostname,
      port: this.url.port === '' ? 3306 : Number(this.url.port),
      user: decodeURIComponent(this.url.username),
      password: this.password,
      database: decodeURIComponent(this.url.pathname.replace(/^\//, '')),
      connectTimeout: this.opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS_DEFAULT,
      // BEGIN is one round trip: SET TRANSACTION ...; START TRANSACTION. Parameters are numbers.
      multipleStatements: true,
    };
    const conn = await mysql.createConnection(options);
    const client = new MyClient(conn);
    if (lockTimeoutMs > 0) {
      // innodb_lock_wait_timeout is in whole seconds: a lock wait ends as error 1205.
      try {
        await client.query(`SET SESSION innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(lockTimeoutMs / 1000))}`, []);
      } catch (err) {
        client.destroy();
        throw err;
      }
    }
    return client;
  }

  protected async createTables(client: SqlClient, keys: number, kinds: TableKinds): Promise<void> {
    const tables: [string, string, string][] = [];
    if (kinds.registers) tables.push([this.register, 'v BIGINT NULL', 'NULL']);
    if (kinds.lists) tables.push([this.list, 'v LONGTEXT NOT NULL', "''"]);
    for (const [table, column, initial] of tables) {
      await client.query(`DROP TABLE IF EXISTS ${table}`, []);
      await client.query(`CREATE TABLE ${table} (k INT PRIMARY KEY, ${column}) ENGINE=InnoDB`, []);
      for (let from = 0; from <= keys; from += 1000) {
        const rows: string[] = [];
        for (let k = from; k <= Math.min(keys, from + 999); k++) rows.push(`(${k},${initial})`);
        await client.query(`INSERT INTO ${table} (k, v) VALUES ${rows.join(',')}`, []);
      }
    }
  }

  /** The errno, else the driver's code (ECONNREFUSED, PROTOCOL_CONNECTION_LOST...). */
  protected errorCode(err: unknown, _during: 'connect' | 'setup'): string | undefined {
    return err === null || typeof err !== 'object' ? undefined : errorName(err as MysqlError);
  }
}

/** A MariaDB / MySQL target for a `mysql://` or `mariadb://` URL. */
export function openMysql(url: URL, opts: SqlTargetOptions = {}): Target {
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') throw new Error(`not a MySQL / MariaDB URL: ${redactUrl(url)}`);
  return new MysqlTarget(url, opts);
}
