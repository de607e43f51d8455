/**
 * Error classes: what kind of failure a database error was, told apart per database, for the
 * run's summary (issue 24: a distributed database fails in more ways than one server).
 *
 * Takes: the error the client library raised (mysql2's `errno` / `message`, pg's SQLSTATE
 * `code`) and the phase it happened in. Gives: one of ERROR_CLASSES. The txn's outcome
 * (aborted / unknown) is NOT decided here: mysql.ts / postgres.ts `classify` do that; this
 * only names the cause, so a wrong class can never make a wrong verdict.
 *
 * MariaDB / Galera (docs/distributed.md, "Error classes"): Galera reports a write set that failed
 * certification and a local transaction killed by a replicated one ("brute-force abort") as
 * errno 1213, like an InnoDB deadlock. MariaDB 10.4 and later keep InnoDB's text ("Deadlock found
 * when trying to get lock"; sql/wsrep_thd.h `wsrep_override_error`), older servers and MySQL-wsrep
 * say "WSREP detected deadlock/conflict and aborted the transaction". InnoDB takes no lock at
 * COMMIT, so a 1213 at COMMIT is Galera's: certification (or a brute-force abort while
 * certifying). A 1213 at a statement is a deadlock or, on Galera, a brute-force abort: the
 * server gives both the same code and text, so both are counted as `deadlock`.
 */

import type { Phase } from './sql-connection.ts';

export const ERROR_CLASSES = [
  'deadlock', 'certification-failure', 'galera-conflict', 'serialization-failure', 'snapshot-conflict',
  'lock-timeout', 'node-not-ready', 'read-only', 'admin-shutdown', 'commit-error', 'interrupted',
  'connection-lost', 'timeout', 'duplicate-key', 'other',
] as const;
export type ErrorClassName = (typeof ERROR_CLASSES)[number];

/** The class of a mysql2 error at `phase`. */
export function mysqlErrorClass(err: unknown, phase: Phase): ErrorClassName {
  const e = (err ?? {}) as { errno?: unknown; message?: unknown; fatal?: unknown };
  const errno = typeof e.errno === 'number' && e.errno > 0 ? e.errno : undefined;
  const message = typeof e.message === 'string' ? e.message : '';
  if (errno === undefined || e.fatal === true || errno === 1927 || errno === 2013) return 'connection-lost';
  switch (errno) {
    case 1213:
      if (/\bWSREP\b/i.test(message)) return 'galera-conflict';
      return phase === 'commit' ? 'certification-failure' : 'deadlock';
    case 1205: return 'lock-timeout';
    case 1020: return 'snapshot-conflict';
    // "WSREP has not yet prepared node for application use": a node out of the primary component.
    case 1047: return 'node-not-ready';
    case 1180: return 'commit-error';
    case 1317: return 'interrupted';
    case 1290: case 1792: case 1836: return 'read-only';
    // An insert of a present row (the predicate workload's inserts; the embedded store's name).
    case 1062: return 'duplicate-key';
    default: return 'other';
  }
}

/** The class of a pg error at `phase`. */
export function pgErrorClass(err: unknown, _phase: Phase): ErrorClassName {
  const code = (err as { code?: unknown } | null)?.code;
  const state = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  if (state === undefined) return 'connection-lost';
  switch (state) {
    case '40001': return 'serialization-failure';
    case '40P01': return 'deadlock';
    case '55P03': case '57014': return 'lock-timeout';
    case '25006': return 'read-only';
    case '23505': return 'duplicate-key';
    case '57P01': case '57P02': return 'admin-shutdown';
    // The server is starting up, or a hot standby does not accept connections yet.
    case '57P03': return 'node-not-ready';
    default: return state.startsWith('08') ? 'connection-lost' : 'other';
  }
}
