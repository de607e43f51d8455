/**
 * PostgreSQL with a streaming hot standby (scripts/cluster/pg-standby.sh; issue 24): writing
 * sessions on the primary, read-only sessions on the standby (dist-run's --replica), at
 * REPEATABLE READ (PostgreSQL's snapshot isolation). The standby replays the primary's commits
 * in order, so SI holds; it replays them late, so a read there can miss a write that had
 * completed on the primary before the reader began: strict SI is violated, by a transaction
 * that ran on the standby.
 */

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { readHistory } from '../../src/formats/index.ts';
import { checkHistory } from '../../src/check/index.ts';
import { readClusterFile } from '../../src/run/cluster.ts';
import { needsPgStandbyCluster } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

describe('PostgreSQL primary + hot standby', { skip: needsPgStandbyCluster() }, () => {
  test('REPEATABLE READ, readers on the standby: SI holds; strict SI is violated by a stale read on the standby', async () => {
    const c = await readClusterFile(process.env['POLYSI_PG_STANDBY_CLUSTER']!);
    const primary = c.nodes[0]!, standby = c.replicas[0]!;
    let staleOn: string[] = [];
    for (let seed = 1; seed <= 3 && staleOn.length === 0; seed++) {
      const out = join(scratchDir('polysi-pg-standby-'), 'h.jsonl');
      let stdout = '', stderr = '';
      const code = await main(['run', '--db', `${primary.name}=${primary.url}`, '--replica', `${standby.name}=${standby.url}`,
        '--read-only-sessions', '3', '--isolation', 'repeatable-read', '--profile', 'contention', '--txns', '40',
        '--seed', String(seed), '--check', 'si', '--out', out],
      { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; } });
      assert.equal(code, 0, stderr + stdout);
      const h = (await readHistory(out, 'auto')).history;
      assert.deepEqual([...(h.nodeLabels ?? [])].sort(), ['primary', 'standby']);
      assert.equal(checkHistory(h, { level: 'si', pruning: true }).verdict, 'valid');
      const strict = checkHistory(h, { level: 'strict-si', pruning: true, explain: true, maxAnomalies: 20 });
      if (strict.verdict !== 'violation') continue;
      for (const a of strict.anomalies) {
        const cx = a.explanation;
        if (cx === undefined || !/realtime|real-time/.test(`${cx.class} ${cx.description ?? ''}`)) continue;
        if (cx.txns.some((t) => t.role === 'core' && t.node === standby.name)) { staleOn = cx.txns.map((t) => `${t.label} on ${t.node}`); break; }
      }
    }
    assert.ok(staleOn.length > 0, 'no real-time violation by a standby reader in 3 runs');
  });
});
