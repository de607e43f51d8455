/**
 * What the SQL Targets (postgres.ts, mysql.ts) share: the table names, the dialect they hand
 * to each SqlConnection, and the life of `setup` and `connect` with their error handling.
 *
 * Takes: a database URL, SqlTargetOptions, and from the driver file what differs — how to open
 * a client, the DDL that creates and fills the tables, the SQL of each operation and how to
 * classify and name the database's errors. Gives: a `Target` (types.ts).
 *
 * Invariants: the table prefix is a plain identifier (it is spliced into SQL); every failure to
 * connect or to set up is a DbError `unreachable` whose message never carries the password;
 * `setup` always closes the client it opened.
 */

import {
  hidePassword,
  redactUrl,
  SqlConnection,
  TXN_TIMEOUT_MS_DEFAULT,
  type Dialect,
  type SqlClient,
  type SqlTargetOptions,
} from './sql-connection.ts';
import { DbError, RELATION_NAME, type Connection, type IsolationLevel, type TableKinds, type Target } from './types.ts';
import { MissingPackageError } from '../util/optional.ts';

/**
 * The SQL names of the isolation levels, as both drivers spell them. `snapshot` is REPEATABLE
 * READ on both: PostgreSQL's is snapshot isolation; MariaDB's becomes it with the session's
 * innodb_snapshot_isolation=ON, which mysql.ts sets in the same BEGIN.
 */
export const ISOLATION_SQL: Record<IsolationLevel, string> = {
  'read-uncommitted': 'READ UNCOMMITTED',
  'read-committed': 'READ COMMITTED',
  'repeatable-read': 'REPEATABLE READ',
  'snapshot': 'REPEATABLE READ',
  'serializable': 'SERIALIZABLE',
};

/** The tables a target creates, by role. */
export interface SqlTables {
  readonly register: string;
  readonly list: string;
}

/** The part of a Dialect that is the driver's own: its SQL and how it reads its errors. */
export type DialectStatements = Pick<Dialect, 'begin' | 'sql' | 'classify' | 'errorClass' | 'placeholder'>;

export abstract class SqlTarget implements Target {
  readonly name: string;
  protected readonly password: string;
  protected readonly register: string;
  protected readonly list: string;
  /** The table of the run's token (`markRun`; the barrier of a target of several nodes). */
  protected readonly runTable: string;
  /** `<prefix>_rel_`: a relation's table is this and its name (issue 22). */
  protected readonly relationPrefix: string;
  /** Relation tables `setup` created, for `drop`. */
  private readonly relationTables = new Set<string>();
  private readonly dialect: Dialect;

  /** `statements` gets the table names (it runs in this constructor, before the subclass's fields exist). */
  constructor(
    protected readonly url: URL,
    protected readonly opts: SqlTargetOptions,
    statements: (tables: SqlTables) => DialectStatements,
  ) {
    this.name = redactUrl(url);
    this.password = decodeURIComponent(url.password);
    const prefix = opts.tablePrefix ?? 'polysi';
    if (!/^[a-z_][a-z0-9_]*$/.test(prefix)) throw new Error(`table prefix '${prefix}': use lower-case letters, digits and _`);
    this.register = `${prefix}_register`;
    this.list = `${prefix}_list`;
    this.runTable = `${prefix}_run`;
    this.relationPrefix = `${prefix}_rel_`;
    this.dialect = {
      relationTable: (rel) => `${this.relationPrefix}${rel}`,
      name: this.name,
      open: () => this.openInitialized(),
      // Both store a list as the text `e1,e2,...,` (parseList reads it back): append `e,`.
      appendParam: (e) => `${e},`,
      ...statements({ register: this.register, list: this.list }),
    };
  }

  /** Opens a client with the session's timeouts set (a client that fails on the way is destroyed). */
  protected abstract open(): Promise<SqlClient>;

  /** Drops, creates and fills the tables of `kinds` for keys 0..keys. */
  protected abstract createTables(client: SqlClient, keys: number, kinds: { registers: boolean; lists: boolean }): Promise<void>;

  /**
   * The DDL of relation table `table` (issue 22): rows `(k, v)`, none at first (rows start absent).
   * The same SQL on both databases (MariaDB's default engine is InnoDB).
   */
  protected relationDdl(table: string): string {
    return `CREATE TABLE ${table} (k BIGINT PRIMARY KEY, v BIGINT NOT NULL)`;
  }

  /** The database's code for a failure to connect or to set up (SQLSTATE, errno...), if it has one. */
  protected abstract errorCode(err: unknown, during: 'connect' | 'setup'): string | undefined;

  /** The server-side bound on one lock wait or statement, in ms (0: the server's own setting). */
  protected lockTimeoutMs(): number {
    const txnTimeoutMs = this.opts.txnTimeoutMs ?? TXN_TIMEOUT_MS_DEFAULT;
    return this.opts.lockTimeoutMs ?? Math.floor(txnTimeoutMs / 2);
  }

  private unreachable(err: unknown): DbError {
    if (err instanceof DbError) return err;
    const msg = err instanceof Error ? err.message : String(err);
    return new DbError(hidePassword(`${this.name}: cannot connect: ${msg}`), 'unreachable', this.errorCode(err, 'connect'));
  }

  /** `open`, then the `--session-init` statements (a client whose statement fails is destroyed). */
  private async openInitialized(): Promise<SqlClient> {
    const client = await this.open();
    for (const sql of this.opts.sessionInit ?? []) {
      try {
        await client.query(sql, []);
      } catch (err) {
        client.destroy();
        const msg = err instanceof Error ? err.message : String(err);
        throw new DbError(hidePassword(`${this.name}: --session-init statement "${sql}" failed: ${msg}`),
          'unreachable', this.errorCode(err, 'setup'));
      }
    }
    return client;
  }

  /** `open`, with a failure turned into a DbError `unreachable` (a driver not installed is said as such). */
  private async openOrUnreachable(): Promise<SqlClient> {
    try {
      return await this.openInitialized();
    } catch (err) {
      if (err instanceof MissingPackageError) throw err;
      throw this.unreachable(err);
    }
  }

  async setup(keys: number, kinds: TableKinds): Promise<void> {
    for (const r of kinds.relations ?? []) {
      if (!RELATION_NAME.test(r.name)) throw new Error(`relation name '${r.name}': use lower-case letters, digits and _`);
    }
    const client = await this.openOrUnreachable();
    try {
      // Dropped and refilled: values left by an earlier run would be reads of nobody's write.
      await this.createTables(client, keys, kinds);
      for (const r of kinds.relations ?? []) {
        const table = `${this.relationPrefix}${r.name}`;
        this.relationTables.add(table);
        await client.query(`DROP TABLE IF EXISTS ${table}`, []);
        await client.query(this.relationDdl(table), []);
      }
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      throw new DbError(hidePassword(`${this.name}: setup failed: ${msg}`), 'unreachable', this.errorCode(err, 'setup'));
    } finally {
      await client.end().catch(() => client.destroy());
    }
  }

  /** Drops both tables (the same SQL in both dialects); unreachable as in `setup`. */
  async drop(): Promise<void> {
    const client = await this.openOrUnreachable();
    try {
      for (const t of [this.register, this.list, this.runTable, ...this.relationTables]) await client.query(`DROP TABLE IF EXISTS ${t}`, []);
    } finally {
      await client.end().catch(() => client.destroy());
    }
  }

  /** Writes the run's token (letters and digits) into its own table, after `setup`; the same SQL in both dialects. */
  async markRun(token: string): Promise<void> {
    if (!/^[A-Za-z0-9]+$/.test(token)) throw new Error(`internal error: run token '${token}'`);
    const client = await this.openOrUnreachable();
    try {
      await client.query(`DROP TABLE IF EXISTS ${this.runTable}`, []);
      await client.query(`CREATE TABLE ${this.runTable} (token VARCHAR(64) NOT NULL)`, []);
      await client.query(`INSERT INTO ${this.runTable} (token) VALUES ('${token}')`, []);
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      throw new DbError(hidePassword(`${this.name}: setup failed: ${msg}`), 'unreachable', this.errorCode(err, 'setup'));
    } finally {
      await client.end().catch(() => client.destroy());
    }
  }

  /**
   * Whether this server shows the run's token and every table `setup` made with its rows (null),
   * else what it lacks so far: the register and list tables with their keys+1 rows, and each
   * relation's table (issue 22), which `setup` leaves empty. The token is written after the
   * tables, in the same server's order, so a replica that shows it shows this run's tables, not
   * an earlier run's; the tables are checked all the same, as the barrier's promise is theirs.
   */
  async runVisible(keys: number, kinds: TableKinds, token: string): Promise<string | null> {
    let client: SqlClient;
    try {
      client = await this.openInitialized();
    } catch (err) {
      return `cannot connect: ${err instanceof Error ? hidePassword(err.message) : String(err)}`;
    }
    const failure = (err: unknown) => {
      const code = this.errorCode(err, 'setup');
      return `${hidePassword(err instanceof Error ? err.message : String(err))}${code === undefined ? '' : ` (${code})`}`;
    };
    try {
      try {
        const r = await client.query(`SELECT token FROM ${this.runTable}`, []);
        if (!r.rows.some((row) => row['token'] === token)) return `${this.runTable} does not hold this run's token yet`;
      } catch (err) {
        return failure(err);
      }
      // [table, the rows setup put in it]
      const tables: [string, number][] = [
        ...(kinds.registers ? [[this.register, keys + 1] as [string, number]] : []),
        ...(kinds.lists ? [[this.list, keys + 1] as [string, number]] : []),
        ...(kinds.relations ?? []).map((r) => [`${this.relationPrefix}${r.name}`, 0] as [string, number]),
      ];
      for (const [t, rows] of tables) {
        let n: number;
        try {
          const c = await client.query(`SELECT COUNT(*) AS n FROM ${t}`, []);
          n = Number(c.rows[0]?.['n'] ?? 0);
        } catch (err) {
          return `${t} is not there yet: ${failure(err)}`;
        }
        if (n !== rows) return rows === 0 ? `${t} has ${n} rows, none expected (setup leaves it empty)` : `${t} has ${n} of its ${rows} rows`;
      }
      return null;
    } finally {
      await client.end().catch(() => client.destroy());
    }
  }

  async connect(_session: number): Promise<Connection> {
    return new SqlConnection(this.dialect, await this.openOrUnreachable(), this.opts);
  }

  async close(): Promise<void> {
    // Each connection owns its client; nothing is pooled.
  }
}
