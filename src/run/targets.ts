/**
 * `--db` specs to Targets: `memory[:MODE]`, `postgres://...` / `postgresql://...`,
 * `mysql://...` / `mariadb://...`, `etcd://HOST:PORT[,...]` (src/run/etcd.ts).
 *
 * Takes: the spec, a seed (the embedded store's scheduler) and the isolation asked for.
 * Gives: a Target (not yet connected) and the isolation level to run at.
 * Invariant: a spec that names nothing known is a usage error (TargetSpecError), never a guess;
 * passwords never appear in messages (`redactUrl`).
 */

import { MemoryTarget } from './store/memory.ts';
import { MEMORY_MODES, modeInfo, type MemoryMode } from './store/modes.ts';
import type { IsolationLevel, Target } from './types.ts';

export const ISOLATION_LEVELS: readonly IsolationLevel[] = ['read-uncommitted', 'read-committed', 'repeatable-read', 'snapshot', 'serializable'];

export class TargetSpecError extends Error {}

/** The URL with any password replaced by `***` (for messages). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
}

/** The memory mode an isolation level maps to when `--db memory` names no mode. */
function memoryModeFor(isolation: IsolationLevel): MemoryMode {
  switch (isolation) {
    case 'serializable': return 'serializable';
    case 'snapshot': case 'repeatable-read': return 'snapshot';
    default: return 'read-committed';
  }
}

export interface ResolvedTarget {
  target: Target;
  isolation: IsolationLevel;
  /** The level a run at this target/isolation should satisfy ('ser' or 'si'). */
  defaultCheck: 'si' | 'ser';
  /** The memory mode, for the embedded store. */
  memoryMode?: MemoryMode;
}

/** For the SQL drivers: the per-transaction deadline (`--txn-timeout`; 0 = none), see sql-connection.ts. */
export interface DriverOptions {
  txnTimeoutMs?: number;
  /** Statements run on every new connection (`--session-init`). */
  sessionInit?: readonly string[];
}

export async function openTarget(spec: string, isolation: IsolationLevel | undefined, seed: number, driver: DriverOptions = {}): Promise<ResolvedTarget> {
  if (spec === 'memory' || spec.startsWith('memory:')) {
    const name = spec === 'memory' ? memoryModeFor(isolation ?? 'snapshot') : spec.slice('memory:'.length);
    const info = modeInfo(name);
    if (info === undefined) {
      throw new TargetSpecError(`unknown memory mode "${name}"; modes: ${MEMORY_MODES.map((m) => m.name).join(', ')}`);
    }
    const iso = isolation ?? (info.name === 'serializable' ? 'serializable' : info.name === 'read-committed' ? 'read-committed' : 'snapshot');
    return { target: new MemoryTarget(info.name, seed), isolation: iso, defaultCheck: info.level, memoryMode: info.name };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(spec)?.[1]?.toLowerCase();
  const iso = isolation ?? 'serializable';
  const defaultCheck = iso === 'serializable' ? 'ser' : 'si';
  if (scheme === 'postgres' || scheme === 'postgresql' || scheme === 'mysql' || scheme === 'mariadb') {
    // The drivers (src/run/postgres.ts, src/run/mysql.ts) are loaded on demand, so the
    // embedded store needs neither `pg` nor `mysql2`.
    const target = await openDriver(scheme, spec, driver);
    return { target, isolation: iso, defaultCheck };
  }
  if (scheme === 'etcd') {
    // etcd has one level: its transactions are strictly serializable (src/run/etcd.ts).
    if (isolation !== undefined && isolation !== 'serializable') {
      throw new TargetSpecError(`--db etcd://: etcd has one isolation level (strictly serializable transactions): give --isolation serializable or none, not ${isolation}`);
    }
    const { openEtcd } = await import('./etcd.ts');
    try {
      return { target: openEtcd(spec, driver), isolation: 'serializable', defaultCheck: 'ser' };
    } catch (err) {
      throw new TargetSpecError(`--db: ${(err as Error).message}`);
    }
  }
  throw new TargetSpecError(`--db: expected memory[:MODE], postgres://..., mysql://... or etcd://..., got "${redactUrl(spec)}"`);
}

async function openDriver(_scheme: string, spec: string, driver: DriverOptions): Promise<Target> {
  const { openDatabase } = await import('./databases.ts');
  try {
    return openDatabase(spec, driver);
  } catch (err) {
    // A malformed URL or table prefix: a usage error (the message hides the password).
    throw new TargetSpecError((err as Error).message);
  }
}
