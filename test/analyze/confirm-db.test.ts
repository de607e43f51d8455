// `polysi analyze --confirm` against real databases (issue 11): the withdraw lost update,
// predicted under EC and confirmed on the interpreter, is reproduced on MariaDB REPEATABLE READ
// (InnoDB's, which lets lost updates commit) and on PostgreSQL READ COMMITTED, and is not on
// PostgreSQL REPEATABLE READ / SERIALIZABLE, where one of the two withdrawals aborts instead.
// Needs the servers of scripts/test-databases.sh (POLYSI_PG_URL, POLYSI_MYSQL_URL); those tests
// skip locally with one line without them and fail under CI. The usage-error tests need nothing.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeProgram, parseProgram } from '../../src/analyze/index.ts';
import { analyzeProgram as access } from '../../src/analyze/lang/access.ts';
import { confirmOnDb, itemsPerRound, type DbConfirmOptions, type DbConfirmResult } from '../../src/analyze/confirm-db.ts';
import type { InitialDb } from '../../src/analyze/interp.ts';
import type { Witness } from '../../src/analyze/queries.ts';
import type { ProgramInfo } from '../../src/analyze/lang/access.ts';
import { needs } from '../support/requirements.ts';
import { runCli } from '../support/run-cli.ts';

const PG_URL = process.env['POLYSI_PG_URL'] ?? '';
const MYSQL_URL = process.env['POLYSI_MYSQL_URL'] ?? '';
const pgSkip = needs(PG_URL !== '', 'POLYSI_PG_URL is not set (eval "$(scripts/test-databases.sh start)")');
const mySkip = needs(MYSQL_URL !== '', 'POLYSI_MYSQL_URL is not set (eval "$(scripts/test-databases.sh start)")');
const WITHDRAW = 'examples/anode/withdraw.anode';
const ROUNDS = 20;

/** The withdraw lost update as analysed once (Z3 loads once for the whole file). */
let info: ProgramInfo;
let witness: Witness;
let initial: InitialDb;

before(async () => {
  const program = parseProgram(readFileSync(WITHDRAW, 'utf8'), WITHDRAW);
  const r = await analyzeProgram(program, { model: 'ec', bound: 2, prove: false, timeoutMs: 60_000 });
  assert.equal(r.anomaly?.explanation.class, 'lost update');
  assert.equal(r.anomaly.confirmation.reproduced, true);
  info = access(program);
  witness = r.anomaly.witness;
  initial = r.anomaly.confirmation.db!;
});

async function confirm(db: string, isolation: DbConfirmOptions['isolation'], extra: Partial<DbConfirmOptions> = {}): Promise<DbConfirmResult> {
  const d = await confirmOnDb(info, witness, initial, { db, isolation, rounds: ROUNDS, seed: 1, ...extra });
  // Every instance of every round ends one way or another, and is counted once.
  assert.equal(d.committed + d.aborted + d.unknown, ROUNDS * witness.execution.instances.length);
  assert.match(d.target, /:\*\*\*@/, 'the target is named with its password hidden');
  assert.match(d.tablePrefix ?? '', /^polysi_anode_[0-9a-f]+$/);
  return d;
}

/** The tables whose name starts with `prefix` (none once a run has cleaned up). */
async function tablesLike(url: string, prefix: string): Promise<string[]> {
  if (url.startsWith('postgres')) {
    const pg = (await import('pg')).default;
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = await c.query('SELECT tablename FROM pg_tables WHERE tablename LIKE $1', [`${prefix}%`]);
      return r.rows.map((row: { tablename: string }) => row.tablename);
    } finally { await c.end(); }
  }
  const mysql = await import('mysql2/promise');
  const c = await mysql.createConnection(url);
  try {
    const [rows] = await c.query('SELECT table_name AS t FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE ?', [`${prefix}%`]);
    return (rows as { t: string }[]).map((row) => row.t);
  } finally { await c.end(); }
}

describe('--confirm on MariaDB', { skip: mySkip }, () => {
  test('REPEATABLE READ: the withdraw lost update is reproduced and named; the run\'s tables are dropped', async () => {
    const d = await confirm(MYSQL_URL, 'repeatable-read');
    assert.ok(d.violations >= 1, `reproduced in ${d.violations} of ${ROUNDS} rounds`);
    assert.deepEqual(d.anomalyNames, ['lost update']);
    assert.deepEqual(await tablesLike(MYSQL_URL, d.tablePrefix!), []);
  });

  test('snapshot (innodb_snapshot_isolation) and SERIALIZABLE: not reproduced, the losers abort', async () => {
    for (const iso of ['snapshot', 'serializable'] as const) {
      const d = await confirm(MYSQL_URL, iso);
      assert.equal(d.violations, 0, `${iso}: ${d.anomalyNames.join(', ')}`);
      assert.ok(d.aborted > 0, `${iso}: ${d.aborted} aborts`);
    }
  });

  test('two runs at once on one database: each has tables of its own, neither disturbs the other', async () => {
    const [a, b] = await Promise.all([confirm(MYSQL_URL, 'repeatable-read'), confirm(MYSQL_URL, 'repeatable-read')]);
    assert.notEqual(a.tablePrefix, b.tablePrefix);
    assert.ok(a.violations >= 1 && b.violations >= 1);
  });
});

describe('--confirm on PostgreSQL', { skip: pgSkip }, () => {
  test('REPEATABLE READ and SERIALIZABLE: not reproduced, aborts counted; the run\'s tables are dropped', async () => {
    for (const iso of ['repeatable-read', 'serializable'] as const) {
      const d = await confirm(PG_URL, iso);
      assert.equal(d.violations, 0, `${iso}: ${d.anomalyNames.join(', ')}`);
      assert.ok(d.aborted > 0, `${iso}: ${d.aborted} aborts`);
      assert.deepEqual(await tablesLike(PG_URL, d.tablePrefix!), []);
    }
  });

  test('READ COMMITTED: the lost update is reproduced', async () => {
    const d = await confirm(PG_URL, 'read-committed');
    assert.ok(d.violations >= 1, `reproduced in ${d.violations} of ${ROUNDS} rounds`);
    assert.deepEqual(d.anomalyNames, ['lost update']);
    assert.equal(d.aborted, 0);
  });

  test('a wrong password: exit 2, neither password in the output', async () => {
    const bad = PG_URL.replace(/:([^:@/]*)@/, ':wrong-pw-123@');
    const r = await runCli('analyze', WITHDRAW, '--model', 'ec', '--confirm', '--db', bad, '--rounds', '1');
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /polysi analyze --confirm: postgres:\/\/polysi:\*\*\*@.*cannot connect/);
    for (const pw of ['wrong-pw-123', 'polysi-test-pw']) assert.ok(!r.err.includes(pw) && !r.out.includes(pw));
  });

  test('the CLI: reproduced / not reproduced lines, and the JSON dynamic object', async () => {
    const rr = await runCli('analyze', WITHDRAW, '--model', 'ec', '--json', '--confirm', '--db', PG_URL, '--isolation', 'REPEATABLE READ', '--rounds', '10');
    assert.equal(rr.code, 1);
    const j = JSON.parse(rr.out);
    assert.equal(j.dynamic.isolation, 'repeatable-read');
    assert.equal(j.dynamic.reproduced, false);
    assert.equal(j.dynamic.committed + j.dynamic.aborted + j.dynamic.unknown, 20);
    assert.ok(!rr.out.includes('polysi-test-pw') && !rr.err.includes('polysi-test-pw'));
  });
});

describe('--confirm usage errors', () => {
  test('an unreachable database: exit 2, the password hidden', async () => {
    const r = await runCli('analyze', WITHDRAW, '--model', 'ec', '--confirm', '--db', 'postgres://polysi:s3cret-pw@127.0.0.1:1/polysi', '--rounds', '2');
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /polysi analyze --confirm: postgres:\/\/polysi:\*\*\*@127\.0\.0\.1:1\/polysi: cannot connect/);
    assert.ok(!r.err.includes('s3cret-pw') && !r.out.includes('s3cret-pw'));
  });

  test('isolation names as databases spell them; an unknown one is a usage error', async () => {
    const ok = await runCli('analyze', WITHDRAW, '--model', 'ec', '--confirm', '--db', 'memory:lost-update', '--isolation', 'REPEATABLE READ', '--rounds', '5');
    assert.equal(ok.code, 1, ok.err);
    assert.match(ok.out, /REPRODUCED on memory:lost-update \(repeatable-read\)/);
    const bad = await runCli('analyze', WITHDRAW, '--model', 'ec', '--confirm', '--isolation', 'snapshot isolation');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--isolation must be one of .* got "snapshot isolation"/);
  });

  test('itemsPerRound bounds the register items of one round (the keys a SQL target is set up with)', () => {
    // withdraw: SELECT (Balance + existence) and UPDATE (Balance + existence), two instances.
    assert.equal(itemsPerRound(info, witness), 2 * (2 + 1 + 2 + 1));
  });
});
