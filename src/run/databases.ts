/**
 * The SQL targets by URL: `postgres://` / `postgresql://` -> PostgreSQL, `mysql://` /
 * `mariadb://` -> MariaDB / MySQL.
 *
 * Takes: the `--db` string of `polysi run` when it is not `memory[:MODE]`. Gives: a Target.
 * The client libraries (`pg`, `mysql2`) are imported only when a connection is opened, so
 * commands that never talk to a database do not load them.
 */

import { openMysql } from './mysql.ts';
import { openPostgres } from './postgres.ts';
import type { SqlTargetOptions } from './sql-connection.ts';
import type { Target } from './types.ts';

export type { SqlTargetOptions } from './sql-connection.ts';

/** True when `spec` names a SQL database this module can open. */
export function isDatabaseUrl(spec: string): boolean {
  return /^(postgres|postgresql|mysql|mariadb):\/\//.test(spec);
}

/** A Target for a database URL; throws an Error (password hidden) for anything else. */
export function openDatabase(spec: string, opts: SqlTargetOptions = {}): Target {
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    // The text may hold a password: name only its scheme.
    throw new Error(`not a valid database URL (${spec.split(':')[0]}://...): expected postgres://user:password@host:port/db or mysql://...`);
  }
  switch (url.protocol) {
    case 'postgres:':
    case 'postgresql:':
      return openPostgres(url, opts);
    case 'mysql:':
    case 'mariadb:':
      return openMysql(url, opts);
    default:
      throw new Error(`unknown database scheme '${url.protocol}': expected postgres:// or mysql://`);
  }
}
