/**
 * The words shared by the workload runner and the database drivers (issue 8).
 *
 * A `Target` is something transactions run against: the embedded store (`memory[:MODE]`),
 * PostgreSQL, MariaDB/MySQL. The runner opens one `Connection` per session and drives it with
 * the operations of a generated workload; the recorder writes every finished transaction to a
 * history (our JSON Lines format) with its outcome and its invocation / completion times.
 *
 * Invariant: a driver never retries on its own and never hides an error: a failed statement
 * rejects with a `DbError` that says whether the database reported an abort (the transaction
 * certainly did not commit) or the outcome is unknown (connection lost, timeout around commit).
 */

/** Isolation levels as the databases name them; each driver maps them to its own SQL. */
export type IsolationLevel = 'read-uncommitted' | 'read-committed' | 'repeatable-read' | 'snapshot' | 'serializable';

/** A value stored under a register key: null is the initial (absent) value. */
export type RegisterValue = number | null;

export interface Connection {
  /** Starts a transaction at `isolation`. */
  begin(isolation: IsolationLevel): Promise<void>;
  /** Reads a register key; null when the key holds the initial value. */
  read(key: number): Promise<RegisterValue>;
  /** Writes a register key (values are unique per key across the whole run). */
  write(key: number, value: number): Promise<void>;
  /** Appends a unique element to a list key. */
  append(key: number, element: number): Promise<void>;
  /** Reads a whole list key, in order; [] when nothing was appended. */
  readList(key: number): Promise<number[]>;
  commit(): Promise<void>;
  /** Rolls back; never rejects for a transaction that is already gone. */
  rollback(): Promise<void>;
  close(): Promise<void>;
  /**
   * Optional, for in-process targets only (the embedded store): the same calls, completing
   * synchronously, so the runner can skip a promise per call. Databases leave it undefined.
   */
  readonly sync?: SyncSession;
  /** The node this connection is on, for a target of several nodes (multi-target.ts). */
  readonly node?: string;
}

/** A Connection's synchronous twin (see `Connection.sync`); errors are thrown DbErrors. */
export interface SyncSession {
  begin(isolation: IsolationLevel): void;
  read(key: number): RegisterValue;
  write(key: number, value: number): void;
  append(key: number, element: number): void;
  readList(key: number): number[];
  commit(): void;
  rollback(): void;
  close(): void;
  /** The seeded choice of the next session to run among `live` running ones (an index). */
  pick(live: number): number;
}

export interface Target {
  /** For messages: the URL with any password hidden, or `memory:snapshot`. */
  readonly name: string;
  /** Creates and fills the table(s) for `keys` keys (registers and/or lists); idempotent. */
  setup(keys: number, kinds: { registers: boolean; lists: boolean }): Promise<void>;
  /** One connection per session; rejects with a DbError naming `name` when unreachable. */
  connect(session: number): Promise<Connection>;
  /** Releases everything the target holds (pools, servers it started). */
  close(): Promise<void>;
  /** Optional: drops the tables `setup` created (SQL targets; for runs that leave nothing behind). */
  drop?(): Promise<void>;
  /**
   * Optional (SQL targets; the barrier of a target of several nodes, issue 24): `markRun` writes
   * `token` into a table of its own after `setup`; `runVisible` says whether this server shows
   * that token and the rows `setup` made (null), or what it still lacks.
   */
  markRun?(token: string): Promise<void>;
  runVisible?(keys: number, kinds: { registers: boolean; lists: boolean }, token: string): Promise<string | null>;
}

/** `aborted`: the database said the transaction did not commit. `unknown`: it may have. */
export type DbErrorKind = 'aborted' | 'unknown' | 'unreachable';

export class DbError extends Error {
  constructor(
    message: string,
    readonly kind: DbErrorKind,
    /** The database's own code (SQLSTATE, MySQL errno), when it gave one. */
    readonly code?: string,
    /** What kind of failure it was, across databases (error-class.ts), when the driver says. */
    readonly errorClass?: string,
  ) {
    super(message);
    this.name = 'DbError';
  }
}
