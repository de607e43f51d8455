// The nemesis against a real database (issue 24): a private MariaDB (its own directory, port
// and PID: test/db/private-mariadb.ts) named by a cluster file with real kill -9 / start /
// kill -STOP / kill -CONT commands, `polysi run --cluster --faults` at SERIALIZABLE. The run
// goes on through the faults, every planned transaction is recorded (those hit by a fault
// aborted or unknown, none lost), the faults are in the history with their times, and the
// check is right (SER holds on one MariaDB node).
//
// Needs mariadbd (Debian's mariadb-server); skips locally with one line without it, fails
// under CI.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readHistory } from '../../src/formats/index.ts';
import { TXN_COMMITTED, type History } from '../../src/history/model.ts';
import { needs } from '../support/requirements.ts';
import { runCli } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';
import { canRunMariadb, startPrivateMariadb, type PrivateMariadb } from './private-mariadb.ts';

const SKIP = needs(canRunMariadb(), 'no mariadbd (apt-get install -y --no-install-recommends mariadb-server)');

const SESSIONS = 4, TXNS = 60;

/** Txns whose [start, end] overlaps [a, b]. */
function overlapping(h: History, a: number, b: number): number[] {
  const out: number[] = [];
  for (let t = 0; t < h.txnCount; t++) if (h.txnStart![t]! <= b && h.txnEnd![t]! >= a) out.push(t);
  return out;
}

describe('nemesis on a private MariaDB', { skip: SKIP, timeout: 240_000 }, () => {
  let db: PrivateMariadb;
  let dir: string;
  let clusterFile: string;
  before(async () => {
    db = await startPrivateMariadb();
    dir = scratchDir('polysi-nemesis-run-');
    clusterFile = join(dir, 'cluster.json');
    writeFileSync(clusterFile, JSON.stringify({ name: 'one', nodes: [db.node] }));
  });
  after(() => db?.stop());

  /**
   * A run of SESSIONS x txns under the faults. On an idle machine 240 txns take well under a
   * second without faults (CI measured 0.76 s): a run meant to see pause/partition/stall faults
   * (which, unlike a kill, do not slow the sessions before they start) needs more txns than that.
   */
  async function run(faults: string, seed: number, txns = TXNS): Promise<{ code: number; json: Record<string, unknown>; h: History; txns: number }> {
    const out = join(dir, `${faults}-${seed}.jsonl`);
    const r = await runCli('run', '--cluster', clusterFile, '--faults', faults, '--fault-every', '0.3', '--fault-duration', '1.5',
      '--isolation', 'serializable', '--check', 'ser', '--sessions', String(SESSIONS), '--txns', String(txns), '--ops', '4',
      '--keys', '10', '--rmw', '0.5', '--seed', String(seed), '--txn-timeout', '5', '--out', out, '--json');
    const json = JSON.parse(r.out) as Record<string, unknown>;
    const { history } = await readHistory(out, 'jsonl');
    return { code: r.code, json, h: history, txns };
  }

  /** What every run under faults must show: all planned txns recorded, faults with times, SER holds. */
  function common(res: Awaited<ReturnType<typeof run>>, kinds: string[]): void {
    const { code, json, h, txns } = res;
    const summary = json['run'] as Record<string, number>;
    assert.equal(summary['notRun'], 0, 'every planned txn ran');
    assert.equal(summary['sessionsLost'], 0, 'every session reconnected');
    assert.equal(h.txnCount, SESSIONS * txns, 'every planned txn is in the history');
    assert.equal(summary['committed']! + summary['aborted']! + summary['unknown']!, SESSIONS * txns);
    assert.deepEqual(h.nodeLabels, ['n1'], 'every txn records the node it ran on');
    const faults = h.faults ?? [];
    assert.ok(faults.length >= 1, 'at least one fault');
    assert.equal(faults.length, summary['faultsInjected']);
    let lastEnd = -Infinity;
    let txnEnd = 0;
    for (let t = 0; t < h.txnCount; t++) txnEnd = Math.max(txnEnd, h.txnEnd![t]!);
    for (const f of faults) {
      assert.ok(kinds.includes(f.kind), f.kind);
      assert.equal(f.node, 'n1');
      assert.ok(f.start > lastEnd && f.start < f.end && f.start < txnEnd, `fault ${f.kind} ${f.start}..${f.end}`);
      lastEnd = f.end;
    }
    assert.equal(code, 0, `SER holds on one MariaDB node: ${JSON.stringify(json).slice(0, 400)}`);
  }

  test('kill -9 and restart: txns hit are aborted or unknown, none lost, SER holds', async () => {
    const res = await run('kill', 11);
    common(res, ['kill']);
    const h = res.h;
    // Each kill cut some txn short: one overlapping it did not commit, with a connection error.
    const f = h.faults![0]!;
    const hit = overlapping(h, f.start, f.end).filter((t) => h.txnStatus[t] !== TXN_COMMITTED);
    assert.ok(hit.length > 0, 'a txn in flight when the node was killed is recorded aborted or unknown');
    for (const t of hit) assert.notEqual(h.txnError![t], '', 'with the error that ended it');
  });

  test('pause, partition and stall: the run goes on, faults recorded, SER holds', async () => {
    common(await run('pause,partition,stall', 5, 600), ['pause', 'partition', 'stall']);
  });
});
