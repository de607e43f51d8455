/**
 * The clusters that scripts/cluster/*.sh start (CI starts all three; locally, eval the
 * script's `start` and set its variable): each writes a cluster file that the schema and
 * src/run/cluster.ts accept, with all four fault commands for every node, and every node
 * accepts connections and is what the file says it is (a Synced member of a 3-node Galera
 * cluster; a primary and a standby in recovery; a member of a 3-member etcd cluster).
 */

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readClusterFile, CLUSTER_COMMANDS, type ClusterFile } from '../../src/run/cluster.ts';
import { needsEtcdCluster, needsGaleraCluster, needsPgStandbyCluster } from '../support/requirements.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schema', 'cluster.schema.json'), 'utf8')) as object);

/** The cluster file named by `envVar`, checked by the schema and the reader. */
async function clusterFile(envVar: string, name: string): Promise<ClusterFile> {
  const file = process.env[envVar]!;
  const doc = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  assert.ok(validate(doc), `${file}: ${ajv.errorsText(validate.errors)}`);
  const c = await readClusterFile(file);
  assert.equal(c.name, name);
  for (const m of [...c.nodes, ...c.replicas]) {
    for (const cmd of CLUSTER_COMMANDS) assert.equal(typeof m[cmd], 'string', `${m.name} has no ${cmd} command`);
  }
  return c;
}

describe('scripts/cluster/galera.sh', { skip: needsGaleraCluster() }, () => {
  test('three nodes n1..n3, each Synced in a cluster of 3, on its own port', async () => {
    const c = await clusterFile('POLYSI_GALERA_CLUSTER', 'galera');
    assert.deepEqual(c.nodes.map((n) => n.name), ['n1', 'n2', 'n3']);
    assert.deepEqual(c.replicas, []);
    assert.equal(new Set(c.nodes.map((n) => new URL(n.url).port)).size, 3);
    const mysql = (await import('mysql2/promise')).default;
    for (const n of c.nodes) {
      const conn = await mysql.createConnection(n.url);
      try {
        const [rows] = await conn.query("SHOW STATUS WHERE Variable_name IN ('wsrep_cluster_size', 'wsrep_local_state_comment', 'wsrep_ready')");
        const status = Object.fromEntries((rows as { Variable_name: string; Value: string }[]).map((r) => [r.Variable_name, r.Value]));
        assert.deepEqual(status, { wsrep_cluster_size: '3', wsrep_local_state_comment: 'Synced', wsrep_ready: 'ON' }, n.name);
        const [[node]] = await conn.query('SELECT @@wsrep_node_name AS name') as unknown as [{ name: string }[]];
        assert.equal(node!.name, n.name);
      } finally {
        await conn.end();
      }
    }
  });
});

describe('scripts/cluster/pg-standby.sh', { skip: needsPgStandbyCluster() }, () => {
  test('a primary (node) and a hot standby in recovery (replica), which refuses writes with 25006', async () => {
    const c = await clusterFile('POLYSI_PG_STANDBY_CLUSTER', 'pg-standby');
    assert.deepEqual(c.nodes.map((n) => n.name), ['primary']);
    assert.deepEqual(c.replicas.map((n) => n.name), ['standby']);
    const pg = (await import('pg')).default;
    const inRecovery = async (url: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0]!.r;
      } finally {
        await client.end();
      }
    };
    assert.equal(await inRecovery(c.nodes[0]!.url), false);
    assert.equal(await inRecovery(c.replicas[0]!.url), true);
    const standby = new pg.Client({ connectionString: c.replicas[0]!.url });
    await standby.connect();
    try {
      await assert.rejects(standby.query('CREATE TABLE polysi_cluster_probe (k int)'), (err: unknown) => {
        assert.equal((err as { code?: string }).code, '25006');
        return true;
      });
    } finally {
      await standby.end();
    }
  });
});

describe('scripts/cluster/etcd.sh', { skip: needsEtcdCluster() }, () => {
  test('three members n1..n3, each answering and listing the same 3 members', async () => {
    const c = await clusterFile('POLYSI_ETCD_CLUSTER', 'etcd');
    assert.deepEqual(c.nodes.map((n) => n.name), ['n1', 'n2', 'n3']);
    const { Etcd3 } = await import('etcd3');
    for (const n of c.nodes) {
      const client = new Etcd3({ hosts: n.url.replace(/^etcd:/, 'http:') });
      try {
        const members = await client.cluster.memberList({});
        assert.deepEqual(members.members.map((m) => m.name).sort(), ['n1', 'n2', 'n3'], n.name);
        const status = await client.maintenance.status({});
        assert.ok(Number(status.header.revision) >= 1);
      } finally {
        client.close();
      }
    }
  });
});
