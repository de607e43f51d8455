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

import type { Predicate } from '../history/predicate.ts';

/** Isolation levels as the databases name them; each driver maps them to its own SQL. */
export type IsolationLevel = 'read-uncommitted' | 'read-committed' | 'repeatable-read' | 'snapshot' | 'serializable';

/** A value stored under a register key: null is the initial (absent) value. */
export type RegisterValue = number | null;

/**
 * A relation (issue 22): a named set of rows, keyed by workload keys that belong to no other
 * relation and are never registers. A row starts absent. SQL targets keep one table per relation
 * (`<prefix>_rel_<name>`, `k` primary key, `v`); the name is a plain identifier.
 */
export interface RelationSpec {
  readonly name: string;
  /** The relation's keys (rows); the embedded store's predicate reads range over them. */
  readonly keys: readonly number[];
}

/** Relation names are spliced into table names: lower-case letters, digits and _. */
export const RELATION_NAME = /^[a-z_][a-z0-9_]{0,30}$/;

/*
 * The predicate operations of a connection (issue 22), on the rows of relation `rel`; optional,
 * so that a target without relations needs none. A row operation answers whether the row was
 * there: `update` / `delete` of an absent row change nothing (SQL's 0 rows affected) and answer
 * false, which the recorder writes as a read of the absent row. `insert` of a present row is the
 * database's error (a DbError `aborted`: SQLSTATE 23505, MySQL 1062, the store's
 * `duplicate-key`). `select` gives the rows matching p as flat pairs `[k1, v1, k2, v2, ...]` in
 * key order; `count` their number.
 */

/** What a target sets up: register and list tables for keys 0..keys, and relations (issue 22). */
export interface TableKinds {
  registers: boolean;
  lists: boolean;
  relations?: readonly RelationSpec[];
}

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
  /** Predicate operations (see above); present when the target has relations. */
  readRow?(rel: string, key: number): Promise<RegisterValue>;
  insert?(rel: string, key: number, value: number): Promise<void>;
  update?(rel: string, key: number, value: number): Promise<boolean>;
  delete?(rel: string, key: number): Promise<boolean>;
  select?(rel: string, p: Predicate): Promise<number[]>;
  count?(rel: string, p: Predicate): Promise<number>;
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
  readRow?(rel: string, key: number): RegisterValue;
  insert?(rel: string, key: number, value: number): void;
  update?(rel: string, key: number, value: number): boolean;
  delete?(rel: string, key: number): boolean;
  select?(rel: string, p: Predicate): number[];
  count?(rel: string, p: Predicate): number;
  commit(): void;
  rollback(): void;
  close(): void;
  /** The seeded choice of the next session to run among `live` running ones (an index). */
  pick(live: number): number;
}

export interface Target {
  /** For messages: the URL with any password hidden, or `memory:snapshot`. */
  readonly name: string;
  /**
   * Creates and fills the table(s) for `keys` keys (registers and/or lists) and an empty table
   * per relation; idempotent.
   */
  setup(keys: number, kinds: TableKinds): Promise<void>;
  /** One connection per session; rejects with a DbError naming `name` when unreachable. */
  connect(session: number): Promise<Connection>;
  /** Releases everything the target holds (pools, servers it started). */
  close(): Promise<void>;
  /** Optional: drops the tables `setup` created (SQL targets; for runs that leave nothing behind). */
  drop?(): Promise<void>;
  /**
   * Optional (SQL targets; the barrier of a target of several nodes, issue 24): `markRun` writes
   * `token` into a table of its own after `setup`; `runVisible` says whether this server shows
   * that token and the tables and rows `setup` made for `kinds`, relations included (null), or
   * what it still lacks.
   */
  markRun?(token: string): Promise<void>;
  runVisible?(keys: number, kinds: TableKinds, token: string): Promise<string | null>;
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
