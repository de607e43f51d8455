/**
 * What some tests need beyond Node: the shared real histories (../shared/data), a browser, a
 * database server. Takes: whether the thing is there and a one-line message saying what is
 * missing and how to provide it. Gives: a value for node:test's `skip` option.
 *
 * Invariant: on a developer's machine a missing requirement skips the test with that one line;
 * under CI (the CI variable set) or POLYSI_REQUIRE_ALL=1 nothing may be missing, and `needs`
 * throws, so the test file fails instead of quietly skipping.
 */

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** The shared real histories: POLYSI_SHARED_DATA, or ../shared/data beside the checkout. */
export const DATA_DIR = resolve(process.env['POLYSI_SHARED_DATA'] || resolve(ROOT, '..', 'shared', 'data'));

export const REQUIRE_ALL = process.env['POLYSI_REQUIRE_ALL'] === '1'
  || (process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== 'false');

/** `skip` value for node:test: false when available; the message when not (or a throw under CI). */
export function needs(available: boolean, message: string): string | false {
  if (available) return false;
  if (REQUIRE_ALL) throw new Error(`required here (CI or POLYSI_REQUIRE_ALL=1) but missing: ${message}`);
  return `skipped: ${message}`;
}

/** `skip` value for tests that read ../shared/data. */
export function needsData(): string | false {
  return needs(existsSync(DATA_DIR),
    `no shared histories at ${DATA_DIR} (put shared/ beside the checkout or set POLYSI_SHARED_DATA)`);
}

/**
 * `skip` value for tests against a cluster started by scripts/cluster/SCRIPT.sh, which prints
 * `export VAR=DIR/cluster.json`: available when VAR names an existing cluster file. CI (.ci/run)
 * starts all three.
 */
function needsCluster(envVar: string, script: string): string | false {
  const file = process.env[envVar] ?? '';
  return needs(file !== '' && existsSync(file),
    `${envVar} does not name a cluster file (eval "$(scripts/cluster/${script}.sh start)")`);
}

/** The 3-node MariaDB Galera cluster (scripts/cluster/galera.sh): POLYSI_GALERA_CLUSTER. */
export const needsGaleraCluster = () => needsCluster('POLYSI_GALERA_CLUSTER', 'galera');
/** PostgreSQL with a hot standby (scripts/cluster/pg-standby.sh): POLYSI_PG_STANDBY_CLUSTER. */
export const needsPgStandbyCluster = () => needsCluster('POLYSI_PG_STANDBY_CLUSTER', 'pg-standby');
/** The 3-member etcd cluster (scripts/cluster/etcd.sh): POLYSI_ETCD_CLUSTER. */
export const needsEtcdCluster = () => needsCluster('POLYSI_ETCD_CLUSTER', 'etcd');
