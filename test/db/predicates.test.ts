/**
 * Relations on PostgreSQL and MariaDB (issue 22): the drivers' row operations and predicate
 * reads, against the predicate language's own evaluation. A table of rows (negative values
 * included, for MOD's sign) is filled through `insert`; every predicate of a list is then run as
 * `select` and `count`, and must return exactly the rows `matches` accepts. Also: an insert of a
 * present row is the database's abort (23505 / 1062), update / delete of an absent row answer
 * false.
 * Needs the servers (POLYSI_PG_URL, POLYSI_MYSQL_URL); skips locally with one line, fails in CI.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { matches, parsePredicate } from '../../src/history/predicate.ts';
import { openDatabase } from '../../src/run/databases.ts';
import { DbError } from '../../src/run/types.ts';
import { needs } from '../support/requirements.ts';

const PG_URL = process.env['POLYSI_PG_URL'] ?? '';
const MYSQL_URL = process.env['POLYSI_MYSQL_URL'] ?? '';
const DBS = [
  { name: 'postgres', url: PG_URL, dup: '23505', skip: needs(PG_URL !== '', 'POLYSI_PG_URL is not set (eval "$(scripts/test-databases.sh start)")') },
  { name: 'mariadb', url: MYSQL_URL, dup: '1062', skip: needs(MYSQL_URL !== '', 'POLYSI_MYSQL_URL is not set (eval "$(scripts/test-databases.sh start)")') },
] as const;

const PREDICATES = [
  'true', 'false', 'value % 3 = 0', 'value % 3 = -1', 'value % 2 != 0', 'key between 3 and 9', 'not (value between -5 and 5)',
  'value % 4 != 0 and key % 2 = 0', 'value > 10 or key < 2', 'value = "x"', 'not (value = "x")', 'value != "x" or key = 4',
  '10 % 4 = 2 and value >= 0', 'value % 7 < key % 3', 'key = value',
];

for (const db of DBS) {
  describe(`${db.name}: relations`, { skip: db.skip }, () => {
    test('select and count return exactly the rows the predicate language matches', async () => {
      const target = openDatabase(db.url, { tablePrefix: 'polysi_pred_t' });
      const rows = new Map<number, number>();
      for (let k = 0; k < 20; k++) if (k % 5 !== 1) rows.set(k, ((k * 37) % 61) - 20);
      rows.set(7, 7);
      try {
        await target.setup(0, { registers: false, lists: false, relations: [{ name: 'rel', keys: [...Array(20).keys()] }] });
        const c = await target.connect(0);
        await c.begin('read-committed');
        for (const [k, v] of rows) await c.insert!('rel', k, v);
        await c.commit();
        await c.begin('repeatable-read');
        for (const text of PREDICATES) {
          const p = parsePredicate(text);
          const want: number[] = [];
          for (const [k, v] of [...rows].sort((a, b) => a[0] - b[0])) if (matches(p, k, v)) want.push(k, v);
          assert.deepEqual(await c.select!('rel', p), want, text);
          assert.equal(await c.count!('rel', p), want.length / 2, text);
        }
        assert.equal(await c.readRow!('rel', 1), null);
        assert.equal(await c.readRow!('rel', 7), 7);
        assert.equal(await c.update!('rel', 1, 5), false);
        assert.equal(await c.delete!('rel', 1), false);
        assert.equal(await c.delete!('rel', 2), true);
        assert.equal(await c.update!('rel', 3, 99), true);
        await c.commit();
        await c.begin('read-committed');
        await assert.rejects(c.insert!('rel', 3, 100), (e) => e instanceof DbError && e.kind === 'aborted' && e.code === db.dup);
        await c.rollback();
        await c.close();
      } finally {
        await target.drop?.();
        await target.close();
      }
    });
  });
}
