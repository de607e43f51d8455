// How the SQL drivers turn a failure into an outcome (no database needed): aborted only when
// the transaction certainly did not commit, unknown when COMMIT was in flight and the
// connection went, unreachable at connect; and no message ever shows the password.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyMysql } from '../../src/run/mysql.ts';
import { classifyPg } from '../../src/run/postgres.ts';
import { hidePassword, parseList, redactUrl } from '../../src/run/sql-connection.ts';
import { openDatabase } from '../../src/run/databases.ts';

function err(props: Record<string, unknown>, message = 'boom'): Error {
  return Object.assign(new Error(message), props);
}

test('PostgreSQL errors: SQLSTATE class 40 aborts anywhere; a lost connection at COMMIT is unknown', () => {
  const cases: [Error, 'connect' | 'statement' | 'commit', string, string][] = [
    [err({ code: '40001' }), 'statement', 'aborted', '40001'],
    [err({ code: '40001' }), 'commit', 'aborted', '40001'],
    [err({ code: '40P01' }), 'statement', 'aborted', '40P01'],
    [err({ code: '55P03' }), 'statement', 'aborted', '55P03'],
    [err({ code: '57014' }), 'statement', 'aborted', '57014'],
    [err({ code: '57P01' }), 'statement', 'aborted', '57P01'],
    [err({ code: '57P01' }), 'commit', 'unknown', '57P01'],
    [err({ code: '08006' }), 'commit', 'unknown', '08006'],
    [err({ code: '23505' }), 'commit', 'aborted', '23505'],
    [err({}, 'Connection terminated unexpectedly'), 'statement', 'aborted', 'connection-lost'],
    [err({ code: 'ECONNRESET' }), 'commit', 'unknown', 'connection-lost'],
    [err({ code: '28P01' }), 'connect', 'unreachable', '28P01'],
    [err({ code: 'ECONNREFUSED' }), 'connect', 'unreachable', 'ECONNREFUSED'],
  ];
  for (const [e, phase, kind, code] of cases) {
    assert.deepEqual(classifyPg(e, phase), { kind, code }, `${String((e as { code?: string }).code ?? e.message)} at ${phase}`);
  }
  assert.equal(classifyPg('not an Error', 'statement'), null);
});

test('MariaDB errors: deadlock, lock wait timeout and 1020 abort anywhere; a lost connection at COMMIT is unknown', () => {
  const cases: [Error, 'connect' | 'statement' | 'commit', string, string][] = [
    [err({ errno: 1213, fatal: false }), 'statement', 'aborted', '1213'],
    [err({ errno: 1213, fatal: false }), 'commit', 'aborted', '1213'],
    [err({ errno: 1205, fatal: false }), 'statement', 'aborted', '1205'],
    [err({ errno: 1020, fatal: false }), 'commit', 'aborted', '1020'],
    [err({ errno: 1146, fatal: false }), 'statement', 'aborted', '1146'],
    [err({ errno: 1927, fatal: true }), 'statement', 'aborted', 'connection-lost'],
    [err({ errno: 1927, fatal: true }), 'commit', 'unknown', 'connection-lost'],
    [err({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true }), 'commit', 'unknown', 'connection-lost'],
    [err({ errno: 1180, fatal: false }), 'commit', 'unknown', '1180'],
    [err({ errno: 1045, fatal: true }), 'connect', 'unreachable', '1045'],
    [err({ code: 'ECONNREFUSED', fatal: true }), 'connect', 'unreachable', 'ECONNREFUSED'],
    // What mysql2 really gives for a refused connection: libuv's negated errno beside the name.
    [err({ code: 'ECONNREFUSED', errno: -111, fatal: true }), 'connect', 'unreachable', 'ECONNREFUSED'],
    [err({ code: 'ECONNRESET', errno: -104, fatal: false }), 'commit', 'unknown', 'connection-lost'],
  ];
  for (const [e, phase, kind, code] of cases) {
    assert.deepEqual(classifyMysql(e, phase), { kind, code }, `${String((e as { errno?: number }).errno ?? (e as { code?: string }).code)} at ${phase}`);
  }
});

test('passwords are hidden in URLs and messages, raw and URL-encoded', () => {
  assert.equal(redactUrl(new URL('postgres://u:s%40cret@h:5/db')), 'postgres://u:***@h:5/db');
  assert.equal(redactUrl(new URL('mysql://u@h/db')), 'mysql://u@h/db');
  assert.equal(hidePassword('postgres://u:s@cret@h:5/db and mysql://u:s%40cret@h/db?x=1'), 'postgres://u:***@h:5/db and mysql://u:***@h/db?x=1');
  assert.equal(hidePassword("host=h password='a b\\'c' user=u, PASSWORD=x1"), 'host=h password=*** user=u, PASSWORD=***');
  assert.equal(hidePassword('nothing to hide: mysql://u@h/db, u@h'), 'nothing to hide: mysql://u@h/db, u@h');
  assert.equal(openDatabase('postgres://u:s%40cret@h:5/db').name, 'postgres://u:***@h:5/db');
  assert.throws(() => openDatabase('postgres://u:s3cret@[bad'), (e: Error) => !e.message.includes('s3cret'));
  assert.throws(() => openDatabase('redis://u:s3cret@h/db'), /unknown database scheme/);
});

// A password that is also the user's and the database's name (as "polysi" often is): only the
// URL's password field is hidden; the user and the database stay readable.
test('a password that is also the user and database name: only its field in the URL is hidden', async () => {
  assert.equal(hidePassword('postgres://polysi:***@127.0.0.1:1/polysi: cannot connect: password authentication failed for user "polysi"'),
    'postgres://polysi:***@127.0.0.1:1/polysi: cannot connect: password authentication failed for user "polysi"');
  // Port 1 on loopback: nothing listens, the connection is refused at once; no server needed.
  for (const url of ['postgres://polysi:polysi@127.0.0.1:1/polysi', 'mysql://polysi:polysi@127.0.0.1:1/polysi']) {
    const target = openDatabase(url, { txnTimeoutMs: 5000 });
    assert.equal(target.name, url.replace(':polysi@', ':***@'));
    await assert.rejects(target.connect(0), (e: Error) => {
      assert.ok(e.message.startsWith(`${url.replace(':polysi@', ':***@')}: cannot connect`), e.message);
      assert.ok(!e.message.includes(':polysi@'), e.message);
      return true;
    });
    await assert.rejects(target.setup(1, { registers: true, lists: false }), (e: Error) => e.message.startsWith(url.replace(':polysi@', ':***@')));
  }
});

test('lists are stored as "e1,e2,...,"', () => {
  assert.deepEqual(parseList(''), []);
  assert.deepEqual(parseList(null), []);
  assert.deepEqual(parseList('3,1,2,'), [3, 1, 2]);
  assert.throws(() => parseList('3,x,'), /not an integer/);
});
