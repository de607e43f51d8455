/**
 * The etcd target without a server (src/run/etcd.ts, src/run/targets.ts): the URL, the one
 * isolation level, sessions spread over the members, and an unreachable member said at
 * connect. Runs against a real 3-member cluster are in test/cluster/etcd.test.ts.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdTarget, parseEtcdUrl } from '../../src/run/etcd.ts';
import { openTarget, TargetSpecError } from '../../src/run/targets.ts';
import { DbError } from '../../src/run/types.ts';

test('etcd:// names the members\' client addresses', () => {
  assert.deepEqual(parseEtcdUrl('etcd://127.0.0.1:2379'), ['http://127.0.0.1:2379']);
  assert.deepEqual(parseEtcdUrl('etcd://127.0.0.1:1,localhost:2,[::1]:3/'), ['http://127.0.0.1:1', 'http://localhost:2', 'http://[::1]:3']);
  for (const bad of ['etcd://', 'etcd://127.0.0.1', 'etcd://127.0.0.1:1,', 'etcd://a:1/db', 'etcd:127.0.0.1:1']) {
    assert.throws(() => parseEtcdUrl(bad), /expected etcd:\/\/HOST:PORT\[,HOST:PORT\.\.\.\]/, bad);
  }
});

test('--db etcd:// runs at its one level, serializable, checked as ser; another level is refused', async () => {
  const r = await openTarget('etcd://127.0.0.1:1', undefined, 1);
  assert.equal(r.isolation, 'serializable');
  assert.equal(r.defaultCheck, 'ser');
  assert.equal(r.target.name, 'etcd://127.0.0.1:1');
  await assert.rejects(openTarget('etcd://127.0.0.1:1', 'snapshot', 1), (err: unknown) => {
    assert.ok(err instanceof TargetSpecError);
    assert.match((err as Error).message, /etcd has one isolation level .*not snapshot/);
    return true;
  });
  await assert.rejects(openTarget('etcd://nohost', undefined, 1), /--db: expected etcd:\/\/HOST:PORT.*"nohost" is not HOST:PORT/);
});

test('session s talks to member s mod n', () => {
  const t = new EtcdTarget('etcd://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3');
  assert.deepEqual([0, 1, 2, 3, 4].map((s) => t.memberOf(s)),
    ['http://127.0.0.1:1', 'http://127.0.0.1:2', 'http://127.0.0.1:3', 'http://127.0.0.1:1', 'http://127.0.0.1:2']);
});

test('a member nobody listens on is unreachable at connect, named with its address', async () => {
  const t = new EtcdTarget('etcd://127.0.0.1:1', { txnTimeoutMs: 3000, connectTimeoutMs: 1000 });
  await assert.rejects(t.connect(0), (err: unknown) => {
    assert.ok(err instanceof DbError, String(err));
    assert.equal(err.kind, 'unreachable');
    assert.match(err.message, /cannot connect to http:\/\/127\.0\.0\.1:1/);
    assert.equal(err.code, 'UNAVAILABLE');
    return true;
  });
});
