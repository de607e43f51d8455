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
  assert.equal(hidePassword('bad s@cret and s%40cret', 's@cret'), 'bad *** and ***');
  assert.equal(hidePassword('nothing to hide', ''), 'nothing to hide');
  assert.equal(openDatabase('postgres://u:s%40cret@h:5/db').name, 'postgres://u:***@h:5/db');
  assert.throws(() => openDatabase('postgres://u:s3cret@[bad'), (e: Error) => !e.message.includes('s3cret'));
  assert.throws(() => openDatabase('redis://u:s3cret@h/db'), /unknown database scheme/);
});

test('lists are stored as "e1,e2,...,"', () => {
  assert.deepEqual(parseList(''), []);
  assert.deepEqual(parseList(null), []);
  assert.deepEqual(parseList('3,1,2,'), [3, 1, 2]);
  assert.throws(() => parseList('3,x,'), /not an integer/);
});
