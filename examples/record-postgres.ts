/**
 * Recording an application's own transactions with the recording API, against PostgreSQL.
 *
 *   npm install polysi pg tsx                     # in the checkout: npm ci (which builds the package)
 *   node --import tsx examples/record-postgres.ts postgres://user:password@127.0.0.1:5432/db [ISOLATION]
 *   npx polysi check app-history.jsonl            # SI for REPEATABLE READ (the default here)
 *
 * It imports the recording API from the package, as an application does (`from 'polysi'`; in
 * the checkout that is the package itself, by its own name, through dist/).
 *
 * Four clients each run 50 read-modify-write transactions on a small table. Every value written
 * is unique (client and sequence number), as the checker needs. Each transaction is recorded
 * with what it read and wrote and how it ended: committed, aborted with PostgreSQL's SQLSTATE
 * (e.g. 40001 when REPEATABLE READ refuses a concurrent update), or unknown if the connection
 * failed during COMMIT. Try ISOLATION = 'READ COMMITTED' to see lost updates found.
 */

import pg from 'pg';
import { openHistory } from 'polysi';

const url = process.argv[2];
const isolation = process.argv[3] ?? 'REPEATABLE READ';
if (url === undefined) {
  console.error('usage: node --import tsx examples/record-postgres.ts postgres://... [ISOLATION]');
  process.exit(2);
}

const setup = new pg.Client({ connectionString: url });
await setup.connect();
await setup.query('DROP TABLE IF EXISTS app_kv');
await setup.query('CREATE TABLE app_kv (k integer PRIMARY KEY, v text)');
await setup.query('INSERT INTO app_kv SELECT k, NULL FROM generate_series(0, 4) AS k');
await setup.end();

const history = openHistory('app-history.jsonl');

async function client(id: number): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const session = history.session(`client-${id}`);
  for (let i = 0; i < 50; i++) {
    const key = (id + i) % 5;
    const txn = session.begin();
    let committing = false;
    try {
      await db.query(`BEGIN ISOLATION LEVEL ${isolation}`);
      const res = await db.query('SELECT v FROM app_kv WHERE k = $1', [key]);
      txn.read(key, res.rows[0]?.v ?? null);
      const value = `${id}-${i}`; // unique per key: the checker tells writes apart by value
      await db.query('UPDATE app_kv SET v = $2 WHERE k = $1', [key, value]);
      txn.write(key, value);
      committing = true;
      await db.query('COMMIT');
      txn.commit();
    } catch (err) {
      const code = (err as { code?: string }).code;
      // The server answered with an error: the transaction did not commit. No answer during
      // COMMIT (connection lost): it may have.
      if (code === undefined && committing) txn.unknown('connection-lost');
      else txn.abort(code ?? 'connection-lost');
      await db.query('ROLLBACK').catch(() => {});
    }
  }
  await db.end();
}

await Promise.all([0, 1, 2, 3].map(client));
history.close();
console.log(`recorded ${history.count} transactions in app-history.jsonl; check with: npx polysi check app-history.jsonl`);
