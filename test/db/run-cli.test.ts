// `polysi run` against the real databases, end to end (workload generator, runner, drivers,
// recorder, check): PostgreSQL REPEATABLE READ exits 0 under SI, READ COMMITTED on few keys
// exits 1; MariaDB REPEATABLE READ on few keys exits 1 with a lost update, SERIALIZABLE 0.
// The recorded file is read back and holds every transaction.
//
// Needs POLYSI_PG_URL / POLYSI_MYSQL_URL (scripts/test-databases.sh); skips locally without them.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main.ts';
import { readHistory } from '../../src/formats/index.ts';
import { needs } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const PG_URL = process.env['POLYSI_PG_URL'] ?? '';
const MYSQL_URL = process.env['POLYSI_MYSQL_URL'] ?? '';
const DIR = scratchDir('polysi-run-db-');

const CASES = [
  { db: 'postgres', url: PG_URL, isolation: 'repeatable-read', keys: 10, check: 'si', code: 0 },
  { db: 'postgres', url: PG_URL, isolation: 'read-committed', keys: 2, check: 'si', code: 1 },
  { db: 'mariadb', url: MYSQL_URL, isolation: 'repeatable-read', keys: 1, check: 'si', code: 1, name: 'lost update' },
  { db: 'mariadb', url: MYSQL_URL, isolation: 'serializable', keys: 10, check: 'ser', code: 0 },
];

for (const c of CASES) {
  const skip = needs(c.url !== '', `POLYSI_${c.db === 'postgres' ? 'PG' : 'MYSQL'}_URL is not set (eval "$(scripts/test-databases.sh start)")`);
  test(`polysi run --db ${c.db} --isolation ${c.isolation} --keys ${c.keys}: exit ${c.code}${c.name ? `, ${c.name}` : ''}`, { skip }, async () => {
    const out = join(DIR, `${c.db}-${c.isolation}.jsonl`);
    let stdout = '', stderr = '';
    const code = await main(['run', '--db', c.url, '--isolation', c.isolation, '--sessions', '6', '--txns', '20', '--ops', '4',
      '--keys', String(c.keys), '--check', c.check, '--json', '--out', out],
    { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; } });
    assert.equal(code, c.code, stderr + stdout.slice(0, 2000));
    const j = JSON.parse(stdout);
    assert.equal(j.run.committed + j.run.aborted + j.run.unknown, 120);
    assert.equal((await readHistory(out, 'jsonl')).history.txnCount, 120, 'every transaction is in the file');
    if (c.name !== undefined) {
      type Named = { explanation?: { class: string } };
      assert.ok(j.anomalies.some((a: Named) => a.explanation?.class === c.name), JSON.stringify(j.anomalies.map((a: Named) => a.explanation?.class)));
    }
  });
}
