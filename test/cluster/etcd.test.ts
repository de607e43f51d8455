/**
 * etcd's documented guarantee, strict serializability, checked on runs against the 3-member
 * cluster of scripts/cluster/etcd.sh (issue 24): `polysi run --db etcd://n1,n2,n3` with a
 * contended workload, sessions spread over the members; once undisturbed, once with a member
 * killed (kill -9) and restarted and another paused (SIGSTOP) for 2 s during the run, by the
 * cluster file's own commands. Every transaction is recorded (none lost: aborted or unknown at
 * worst) and the history satisfies strict-ser.
 */

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { exec } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { main } from '../../src/cli/main.ts';
import { readHistory } from '../../src/formats/index.ts';
import { checkHistory } from '../../src/check/index.ts';
import { TXN_ABORTED, TXN_COMMITTED } from '../../src/history/model.ts';
import { readClusterFile } from '../../src/run/cluster.ts';
import { needsEtcdCluster } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const sh = promisify(exec);
const SESSIONS = 6;
const TXNS = 60;

async function members() {
  const c = await readClusterFile(process.env['POLYSI_ETCD_CLUSTER']!);
  const url = `etcd://${c.nodes.map((n) => new URL(n.url).host).join(',')}`;
  return { c, url };
}

async function run(url: string, out: string) {
  let stdout = '', stderr = '';
  const code = await main(['run', '--db', url, '--profile', 'contention', '--sessions', String(SESSIONS), '--txns', String(TXNS),
    '--txn-timeout', '5', '--check', 'strict-ser', '--out', out],
  { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; } });
  return { code, stdout, stderr };
}

/** The recorded history: every planned transaction is there, and strict-ser holds. */
async function checkRecorded(out: string) {
  const h = (await readHistory(out, 'auto')).history;
  assert.equal(h.txnCount, SESSIONS * TXNS, 'a transaction was not recorded');
  let committed = 0, aborted = 0;
  for (let t = 0; t < h.txnCount; t++) {
    if (h.txnStatus[t] === TXN_COMMITTED) committed++;
    else if (h.txnStatus[t] === TXN_ABORTED) aborted++;
  }
  assert.ok(committed > SESSIONS * TXNS / 10, `only ${committed} committed`);
  const r = checkHistory(h, { level: 'strict-ser', pruning: true });
  assert.equal(r.verdict, 'valid');
  return { committed, aborted, unknown: h.txnCount - committed - aborted };
}

describe('etcd through its transaction API', { skip: needsEtcdCluster() }, () => {
  test('a contended run over the 3 members is strictly serializable', async () => {
    const { url } = await members();
    const out = join(scratchDir('polysi-etcd-'), 'h.jsonl');
    const r = await run(url, out);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /STRICT-SER: VALID/);
    const counts = await checkRecorded(out);
    assert.ok(counts.aborted > 0, 'a contended run aborts some transactions (compare-failed): else nothing was tested');
    assert.match(r.stderr, /compare-failed \d+/);
  });

  test('with a member killed and restarted and another paused for 2 s, every txn is recorded and strict-ser holds', async () => {
    const { c, url } = await members();
    const out = join(scratchDir('polysi-etcd-faults-'), 'h.jsonl');
    const [, n2, n3] = c.nodes;
    let runDone = false;
    const faults: string[] = [];
    const nemesis = (async () => {
      const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      await wait(800);
      if (runDone) return;
      await sh(n3!.kill!); faults.push('kill n3');
      await wait(1500);
      await sh(n3!.start!); faults.push('start n3');
      if (runDone) return;
      await sh(n2!.pause!); faults.push('pause n2');
      await wait(2000);
      await sh(n2!.resume!); faults.push('resume n2');
    })();
    let r;
    try {
      r = await run(url, out);
    } finally {
      runDone = true;
      await nemesis;
    }
    // The faults happened while the run was going on (a run that ends before them tests nothing).
    assert.ok(faults.includes('kill n3'), `the run ended before the faults (${faults.join(', ')})`);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const counts = await checkRecorded(out);
    assert.ok(counts.aborted + counts.unknown > 0);
  });
});
