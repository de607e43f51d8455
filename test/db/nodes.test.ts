// `polysi run` over several nodes against the real servers (issue 24): the mechanics, with one
// server standing for every node (so it "replicates" at once) and, for the barrier, two servers
// that do not replicate. A real Galera cluster and PostgreSQL standby: docs/distributed.md.
// - PostgreSQL as n1, n2 and a replica r1, with --session-init: every txn records its node,
//   sessions round-robin, the read-only session runs on r1 and only reads; the JSON says so.
// - MariaDB, two nodes, REPEATABLE READ on one key: a lost update whose txns name their nodes.
// - PostgreSQL node + MariaDB "replica": the barrier times out naming r1 and what it lacks, no file.
// - A --session-init statement that fails: exit 2 naming the statement, no file.
// - The barrier's look at a server (runVisible) checks the relations' tables of the predicate
//   workload too: one not there yet, or with rows, is named; and a predicate run over two
//   nodes and a replica passes the barrier.
//
// Needs POLYSI_PG_URL / POLYSI_MYSQL_URL (scripts/test-databases.sh); skips locally without them.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/main.ts';
import { openDatabase } from '../../src/run/databases.ts';
import type { TableKinds } from '../../src/run/types.ts';
import { readHistory } from '../../src/formats/index.ts';
import { OP_WRITE, txnNodeLabel } from '../../src/history/model.ts';
import { needs } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const PG_URL = process.env['POLYSI_PG_URL'] ?? '';
const MYSQL_URL = process.env['POLYSI_MYSQL_URL'] ?? '';
const DIR = scratchDir('polysi-nodes-db-');
const pgSkip = needs(PG_URL !== '', 'POLYSI_PG_URL is not set (eval "$(scripts/test-databases.sh start)")');
const mySkip = needs(MYSQL_URL !== '', 'POLYSI_MYSQL_URL is not set (eval "$(scripts/test-databases.sh start)")');
const bothSkip = pgSkip === false ? mySkip : pgSkip;

async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '', stderr = '';
  const code = await main(['run', ...args], { stdout: (s) => { stdout += s; }, stderr: (s) => { stderr += s; } });
  return { code, stdout, stderr };
}

test('PostgreSQL as n1, n2 and replica r1: every txn records its node, the read-only session reads on r1', { skip: pgSkip }, async () => {
  const out = join(DIR, 'pg-nodes.jsonl');
  const r = await run('--db', PG_URL, '--db', `n2=${PG_URL}`, '--replica', PG_URL, '--session-init', "SET application_name = 'polysi-node'",
    '--isolation', 'repeatable-read', '--sessions', '5', '--txns', '10', '--ops', '4', '--keys', '10', '--json', '--out', out);
  assert.equal(r.code, 0, r.stderr + r.stdout.slice(0, 2000));
  const j = JSON.parse(r.stdout);
  assert.deepEqual(j.run.nodes.map((n: { name: string; role: string; sessions: number[] }) => [n.name, n.role, n.sessions]),
    [['n1', 'node', [0, 2]], ['n2', 'node', [1, 3]], ['r1', 'replica', [4]]]);
  assert.ok(!j.run.target.includes('polysi-test-pw'), 'no password in the output');
  const { history: h } = await readHistory(out, 'jsonl');
  assert.equal(h.txnCount, 50);
  for (let t = 0; t < h.txnCount; t++) {
    const s = Number(h.sessionLabels[h.txnSession[t]!]);
    assert.equal(txnNodeLabel(h, t), ['n1', 'n2', 'n1', 'n2', 'r1'][s]);
    if (s === 4) for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) assert.notEqual(h.opKind[op], OP_WRITE);
  }
});

test('MariaDB, two nodes, REPEATABLE READ on one key: the lost update names the nodes of its txns', { skip: mySkip }, async () => {
  const out = join(DIR, 'my-nodes.jsonl');
  const r = await run('--db', MYSQL_URL, '--db', MYSQL_URL, '--isolation', 'repeatable-read', '--sessions', '6', '--txns', '20', '--ops', '4',
    '--keys', '1', '--check', 'si', '--explain', '--out', out);
  assert.equal(r.code, 1, r.stderr + r.stdout.slice(0, 2000));
  assert.match(r.stdout, /session \d+ #\d+ on n[12]/);
});

test('the barrier: a "replica" that never shows the tables stops the run before it starts, naming it (exit 2, no file)', { skip: bothSkip }, async () => {
  const out = join(DIR, 'barrier.jsonl');
  const t0 = performance.now();
  const r = await run('--db', PG_URL, '--replica', MYSQL_URL, '--barrier-timeout', '1', '--sessions', '3', '--txns', '2', '--out', out);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /not visible after 1 s on r1 \(mysql:\/\/polysi:\*\*\*@.*polysi_run.*\)/);
  assert.ok(performance.now() - t0 < 15_000);
  assert.equal(existsSync(out), false);
});

test('a --session-init statement that fails: exit 2 naming it, no file', { skip: pgSkip }, async () => {
  const out = join(DIR, 'init.jsonl');
  const r = await run('--db', PG_URL, '--session-init', 'SET no_such_setting = 1', '--sessions', '2', '--txns', '2', '--out', out);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--session-init statement "SET no_such_setting = 1" failed/);
  assert.ok(!r.stderr.includes('polysi-test-pw'));
  assert.equal(existsSync(out), false);
});

/** Runs one statement on the database of `url` over a connection of its own. */
async function admin(url: string, sql: string): Promise<void> {
  if (url.startsWith('postgres')) {
    const pg = (await import('pg')).default;
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try { await c.query(sql); } finally { await c.end(); }
  } else {
    const mysql = await import('mysql2/promise');
    const c = await mysql.createConnection(url);
    try { await c.query(sql); } finally { await c.end(); }
  }
}

for (const [db, url, skip] of [['PostgreSQL', PG_URL, pgSkip], ['MariaDB', MYSQL_URL, mySkip]] as const) {
  test(`the barrier on ${db}: a relation's table not there yet, or not empty, keeps a server waiting`, { skip }, async () => {
    const target = openDatabase(url, { tablePrefix: 'barrier_rel' });
    const kinds: TableKinds = { registers: true, lists: false, relations: [{ name: 'accounts', keys: [0, 1, 2] }] };
    try {
      await target.setup(3, kinds);
      await target.markRun!('tok1');
      assert.equal(await target.runVisible!(3, kinds, 'tok1'), null);
      await admin(url, 'INSERT INTO barrier_rel_rel_accounts (k, v) VALUES (1, 10)');
      assert.equal(await target.runVisible!(3, kinds, 'tok1'), 'barrier_rel_rel_accounts has 1 rows, none expected (setup leaves it empty)');
      await admin(url, 'DROP TABLE barrier_rel_rel_accounts');
      assert.match((await target.runVisible!(3, kinds, 'tok1'))!, /^barrier_rel_rel_accounts is not there yet: .*\((42P01|1146)\)$/);
      // Without relations asked for, the same server passes: the check is the relations'.
      assert.equal(await target.runVisible!(3, { registers: true, lists: false }, 'tok1'), null);
    } finally {
      await target.drop!().catch(() => {});
      await admin(url, 'DROP TABLE IF EXISTS barrier_rel_rel_accounts').catch(() => {});
      await target.close();
    }
  });
}

test('the predicate workload over two nodes and a replica passes the barrier and records every txn', { skip: pgSkip }, async () => {
  const out = join(DIR, 'pg-predicate-nodes.jsonl');
  const r = await run('--db', PG_URL, '--db', PG_URL, '--replica', PG_URL, '--workload', 'predicate', '--isolation', 'serializable',
    '--sessions', '3', '--txns', '5', '--keys', '12', '--check', 'none', '--json', '--out', out);
  assert.equal(r.code, 0, r.stderr + r.stdout.slice(0, 2000));
  const j = JSON.parse(r.stdout);
  assert.ok(j.run.barrierMs >= 0);
  const { history: h } = await readHistory(out, 'jsonl');
  assert.equal(h.txnCount, 15);
  assert.ok(h.predicates !== undefined, 'the history has its relations');
});
