// The recording API's runnable example (examples/record-postgres.ts), run as a user would
// against PostgreSQL, and its history checked: REPEATABLE READ records 40001 aborts and
// satisfies SI; READ COMMITTED commits lost updates, found and named.
//
// Needs POLYSI_PG_URL (scripts/test-databases.sh); skips locally with one line without it.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { checkHistory } from '../../src/check/index.ts';
import { readHistory } from '../../src/formats/index.ts';
import { TXN_ABORTED } from '../../src/history/model.ts';
import { needs } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const PG_URL = process.env['POLYSI_PG_URL'] ?? '';
const EXAMPLE = resolve(import.meta.dirname, '..', '..', 'examples', 'record-postgres.ts');

async function runExample(isolation: string) {
  const dir = scratchDir('polysi-example-');
  // As documented: node --import tsx examples/record-postgres.ts URL ISOLATION (from another cwd).
  await promisify(execFile)(process.execPath, ['--import', import.meta.resolve('tsx'), EXAMPLE, PG_URL, isolation], { cwd: dir });
  return (await readHistory(join(dir, 'app-history.jsonl'), 'auto')).history;
}

describe('examples/record-postgres.ts', { skip: needs(PG_URL !== '', 'POLYSI_PG_URL is not set (eval "$(scripts/test-databases.sh start)")') }, () => {
  test('REPEATABLE READ: 200 transactions recorded, refused updates recorded as 40001 aborts, SI holds', async () => {
    const h = await runExample('REPEATABLE READ');
    assert.equal(h.txnCount, 200);
    for (let t = 0; t < h.txnCount; t++) {
      if (h.txnStatus[t] === TXN_ABORTED) assert.equal(h.txnError?.[t], '40001');
    }
    const r = checkHistory(h, { level: 'si', pruning: true });
    assert.equal(r.verdict, 'valid');
  });

  test('READ COMMITTED: lost updates are found and named', async () => {
    const h = await runExample('READ COMMITTED');
    const r = checkHistory(h, { level: 'si', pruning: true, explain: true });
    assert.equal(r.verdict, 'violation');
    assert.ok(r.anomalies.some((a) => a.explanation?.class === 'lost update'), r.anomalies.map((a) => a.explanation?.class).join(', '));
  });
});
