/**
 * MariaDB Galera, the 3-node cluster of scripts/cluster/galera.sh (issue 24): what the checker
 * finds at each isolation level, on one node and across nodes.
 * - SERIALIZABLE on one node: serializable (InnoDB's locking on a single server).
 */

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { readHistory } from '../../src/formats/index.ts';
import { checkHistory } from '../../src/check/index.ts';
import { TXN_COMMITTED } from '../../src/history/model.ts';
import { readClusterFile, type ClusterFile } from '../../src/run/cluster.ts';
import { needsGaleraCluster } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const cluster = (): Promise<ClusterFile> => readClusterFile(process.env['POLYSI_GALERA_CLUSTER']!);

/** `polysi run` with these arguments (and a fresh --out); the exit code, output and history. */
async function run(args: string[]) {
  const out = join(scratchDir('polysi-galera-'), 'h.jsonl');
  let stdout = '', stderr = '';
  const code = await main(['run', ...args, '--out', out], { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; } });
  const h = (await readHistory(out, 'auto')).history;
  return { code, stdout, stderr, h };
}

describe('Galera', { skip: needsGaleraCluster() }, () => {
  test('SERIALIZABLE on one node: SER holds', async () => {
    const c = await cluster();
    const r = await run(['--db', c.nodes[0]!.url, '--isolation', 'serializable', '--profile', 'contention', '--txns', '40', '--check', 'ser']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    let committed = 0;
    for (let t = 0; t < r.h.txnCount; t++) if (r.h.txnStatus[t] === TXN_COMMITTED) committed++;
    assert.ok(committed > 0 && committed < r.h.txnCount, `${committed}/${r.h.txnCount} committed: a contended run aborts some`);
    assert.equal(checkHistory(r.h, { level: 'ser', pruning: true }).verdict, 'valid');
  });
});
