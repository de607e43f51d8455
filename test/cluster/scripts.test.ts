/**
 * The life of a cluster script (scripts/cluster/etcd.sh, the quickest of the three; the others
 * share its shape): `start` in a private directory on the ports given by the environment
 * prints the export line and writes the cluster file; `stop` ends every process by the PID it
 * recorded and deletes the directory; `stop` refuses a directory the script did not make.
 * Ports: POLYSI_TEST_ETCD_PORT (client base, default 22470; peers at base+10).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { readClusterFile } from '../../src/run/cluster.ts';
import { needs } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const run = promisify(execFile);
const SCRIPT = resolve(import.meta.dirname, '..', '..', 'scripts', 'cluster', 'etcd.sh');
const haveEtcd = ['/usr/bin/etcd', '/usr/bin/etcdctl'].every((p) => existsSync(p));
const BASE = Number(process.env['POLYSI_TEST_ETCD_PORT'] ?? 22470);

const alive = (pid: number) => {
  try { process.kill(pid, 0); return true; } catch { return false; }
};

test('etcd.sh start writes the cluster file and one export line; stop ends its PIDs and deletes the directory',
  { skip: needs(haveEtcd, 'no etcd/etcdctl (apt-get install -y --no-install-recommends etcd-server etcd-client)') }, async () => {
    const dir = join(scratchDir('polysi-etcd-script-'), 'cluster');
    const env = { ...process.env, POLYSI_CLUSTER_DIR: dir, POLYSI_ETCD_CLIENT_PORT: String(BASE), POLYSI_ETCD_PEER_PORT: String(BASE + 10) };
    const began = performance.now();
    const started = await run(SCRIPT, ['start'], { env });
    const seconds = (performance.now() - began) / 1000;
    let pids: number[] = [];
    try {
      assert.equal(started.stdout, `export POLYSI_ETCD_CLUSTER=${dir}/cluster.json\n`);
      assert.ok(seconds < 60, `started in ${seconds.toFixed(1)} s (the issue: under a minute)`);
      const c = await readClusterFile(join(dir, 'cluster.json'));
      assert.deepEqual(c.nodes.map((n) => n.url), [1, 2, 3].map((i) => `etcd://127.0.0.1:${BASE + i}`));
      pids = [1, 2, 3].map((i) => Number(readFileSync(join(dir, `n${i}`, 'etcd.pid'), 'utf8')));
      assert.ok(pids.every(alive), 'a member is not running after start');
      assert.equal(c.nodes[0]!.kill, `kill -9 $(cat ${dir}/n1/etcd.pid)`);
    } finally {
      await run(SCRIPT, ['stop'], { env });
    }
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(pids.filter(alive), [], 'a member outlived stop');
    assert.equal(existsSync(dir), false);
  });

test('stop leaves alone a directory the script did not make', async () => {
  const dir = join(scratchDir('polysi-etcd-script-'), 'mine');
  mkdirSync(dir);
  writeFileSync(join(dir, 'keep.txt'), 'x');
  await assert.rejects(run(SCRIPT, ['stop'], { env: { ...process.env, POLYSI_CLUSTER_DIR: dir } }), (err: unknown) => {
    assert.match((err as { stderr: string }).stderr, /was not made by this script: not touching it/);
    return true;
  });
  assert.equal(readFileSync(join(dir, 'keep.txt'), 'utf8'), 'x');
});
