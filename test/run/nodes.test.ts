/**
 * Several nodes (issue 24), without a database: how sessions are placed on nodes and replicas,
 * the flags' checks, error classes per database, and the runner over a MultiTarget of fake
 * servers: every txn records its node, a session whose node dies reconnects to the next (the
 * txn in flight aborted or unknown with its error, the node change visible in the history), and
 * a lost update across nodes is explained with the nodes (text, DOT, --json).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { placeSession, MultiTarget } from '../../src/run/multi-target.ts';
import { nodePlan } from '../../src/cli/run-nodes.ts';
import { UsageError } from '../../src/cli/args.ts';
import { mysqlErrorClass, pgErrorClass } from '../../src/run/error-class.ts';
import { connectAll, runWorkload, type TxnRecord } from '../../src/run/runner.ts';
import { DbError, type Connection, type Target } from '../../src/run/types.ts';
import { generateWorkload, DEFAULT_WORKLOAD, W_WRITE, W_APPEND } from '../../src/workload/index.ts';
import { main } from '../../src/cli/main.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

test('sessions: round-robin over the nodes; the last read-only ones round-robin over the replicas (else the nodes)', () => {
  const places = (sessions: number, nodes: number, replicas: number, ro: number) =>
    Array.from({ length: sessions }, (_, s) => { const p = placeSession(s, sessions, nodes, replicas, ro); return `${p.pool[0]}${p.index}`; }).join(' ');
  assert.equal(places(7, 3, 0, 0), 'n0 n1 n2 n0 n1 n2 n0');
  assert.equal(places(7, 3, 2, 3), 'n0 n1 n2 n0 r0 r1 r0');
  assert.equal(places(5, 2, 0, 2), 'n0 n1 n0 n0 n1');
  assert.equal(places(3, 1, 1, 1), 'n0 n0 r0');
});

test('node flags: names n1.. and r1.. unless NAME=URL, read-only sessions default to one per replica, mistakes are usage errors', () => {
  const pg = 'postgres://u:secret@127.0.0.1:5432/db';
  assert.equal(nodePlan({ db: [pg] }, 10), null, 'one server: no plan');
  const p = nodePlan({ db: [pg, `east=${pg}`], replica: [pg] }, 10)!;
  assert.deepEqual(p.nodes.map((n) => n.name), ['n1', 'east']);
  assert.deepEqual(p.replicas.map((n) => n.name), ['r1']);
  assert.equal(p.readOnlySessions, 1);
  assert.equal(p.barrierTimeoutMs, 60_000);
  assert.equal(nodePlan({ db: [pg, pg], 'read-only-sessions': '3', 'barrier-timeout': '2.5' }, 10)!.barrierTimeoutMs, 2500);
  const bad: [Parameters<typeof nodePlan>[0], RegExp][] = [
    [{ db: ['memory', 'memory'] }, /must be a database URL/],
    [{ db: [`a=${pg}`, `a=${pg}`] }, /name a is given to two servers/],
    [{ db: [pg], 'read-only-sessions': '2' }, /needs --replica/],
    [{ db: [pg], replica: [pg], 'read-only-sessions': '-1' }, /integer ≥ 0/],
    [{ db: [pg], replica: [pg], 'read-only-sessions': '10' }, /every session would be read-only/],
    [{ db: [pg], replica: [pg], 'read-only-sessions': '11' }, /more than the 10 sessions/],
    [{ db: [pg, pg], 'barrier-timeout': '0' }, /--barrier-timeout/],
  ];
  for (const [v, msg] of bad) {
    assert.throws(() => nodePlan(v, 10), (e: unknown) => e instanceof UsageError && msg.test(e.message) && !e.message.includes('secret'), JSON.stringify(v));
  }
});

test('error classes: Galera certification (1213 at COMMIT or WSREP text) vs deadlock, node not ready, PostgreSQL standby and shutdown, duplicate key', () => {
  const my = (errno: number | undefined, phase: 'statement' | 'commit', message = 'x', fatal = false) =>
    mysqlErrorClass(Object.assign(new Error(message), { errno, fatal }), phase);
  assert.equal(my(1213, 'statement', 'Deadlock found when trying to get lock; try restarting transaction'), 'deadlock');
  assert.equal(my(1213, 'commit', 'Deadlock found when trying to get lock; try restarting transaction'), 'certification-failure');
  assert.equal(my(1213, 'statement', 'WSREP detected deadlock/conflict and aborted the transaction. Try restarting the transaction'), 'galera-conflict');
  assert.equal(my(1047, 'statement', 'WSREP has not yet prepared node for application use'), 'node-not-ready');
  assert.equal(my(1180, 'commit'), 'commit-error');
  assert.equal(my(1205, 'statement'), 'lock-timeout');
  assert.equal(my(1020, 'statement'), 'snapshot-conflict');
  assert.equal(my(2013, 'commit', 'Lost connection', true), 'connection-lost');
  assert.equal(my(undefined, 'statement'), 'connection-lost');
  assert.equal(my(1062, 'statement', "Duplicate entry '47' for key 'PRIMARY'"), 'duplicate-key');
  assert.equal(my(1064, 'statement'), 'other');
  const pg = (code: string | undefined) => pgErrorClass(Object.assign(new Error('x'), code === undefined ? {} : { code }), 'statement');
  assert.deepEqual(['40001', '40P01', '25006', '57P01', '57P03', '55P03', '08006', '23505', undefined].map(pg),
    ['serialization-failure', 'deadlock', 'read-only', 'admin-shutdown', 'node-not-ready', 'lock-timeout', 'connection-lost', 'duplicate-key', 'connection-lost']);
});

/** A fake server: registers in a shared map (one database), and a switch that kills it. */
class FakeServer implements Target {
  down = false;
  /** Commits before the server dies in the middle of the next one (then stays down). */
  commitsBeforeCrash = Infinity;
  constructor(readonly name: string, private readonly data: Map<number, number>) {}
  async setup(): Promise<void> {}
  async close(): Promise<void> {}
  async connect(): Promise<Connection> {
    if (this.down) throw new DbError(`${this.name}: cannot connect: ECONNREFUSED`, 'unreachable', 'ECONNREFUSED', 'connection-lost');
    const srv = this, data = this.data;
    let writes: [number, number][] = [];
    const alive = () => { if (srv.down) throw new DbError(`${srv.name}: connection lost`, 'aborted', 'connection-lost', 'connection-lost'); };
    return {
      async begin() { alive(); writes = []; },
      async read(k) { alive(); return data.get(k) ?? null; },
      async write(k, v) { alive(); writes.push([k, v]); },
      async append() { throw new Error('not used'); },
      async readList() { throw new Error('not used'); },
      async commit() {
        alive();
        if (srv.commitsBeforeCrash-- <= 0) {
          srv.down = true;
          throw new DbError(`${srv.name}: connection lost during COMMIT`, 'unknown', 'connection-lost', 'connection-lost');
        }
        for (const [k, v] of writes) data.set(k, v);
      },
      async rollback() {},
      async close() {},
    };
  }
}

test('runner over several nodes: txns record their node; a session whose node dies mid-COMMIT reconnects to the next, the txn unknown', async () => {
  const data = new Map<number, number>();
  const a = new FakeServer('A', data), b = new FakeServer('B', data), c = new FakeServer('C', data);
  const multi = new MultiTarget([{ name: 'n1', target: a }, { name: 'n2', target: b }], [{ name: 'r1', target: c }], 5, 1);
  const plan = generateWorkload({ ...DEFAULT_WORKLOAD, sessions: 5, txnsPerSession: 10, opsPerTxn: 4, keys: 20, seed: 3 });
  const conns = await connectAll(multi, 5);
  multi.reconnectMs = 1000;
  a.commitsBeforeCrash = 7;
  const recs: TxnRecord[] = [];
  const sum = await runWorkload(multi, conns, plan, { isolation: 'serializable', txnTimeoutMs: 1e9, readOnly: (s) => multi.isReadOnly(s), onTxn: (r) => recs.push(r) });
  assert.equal(recs.length, 50, 'every planned txn was run and recorded');
  assert.equal(sum.notRun, 0);
  assert.equal(sum.sessionsLost, 0);
  // The read-only session 4 ran on the replica, reads only.
  for (const r of recs.filter((x) => x.session === 4)) {
    assert.equal(r.node, 'r1');
    assert.ok(r.plan.kinds.every((k) => k !== W_WRITE && k !== W_APPEND));
  }
  assert.ok(recs.filter((x) => x.session !== 4).some((r) => r.plan.kinds.includes(W_WRITE)));
  // Sessions 1 and 3 stayed on n2; 0 and 2 began on n1 and, once it died, went on on n2.
  for (const s of [1, 3]) assert.ok(recs.filter((r) => r.session === s).every((r) => r.node === 'n2'));
  const crashed = recs.filter((r) => r.outcome === 'unknown');
  assert.equal(crashed.length, 1, 'the commit in flight when n1 died is unknown');
  assert.equal(crashed[0]!.node, 'n1');
  for (const s of [0, 2]) {
    const nodes = recs.filter((r) => r.session === s).sort((x, y) => x.index - y.index).map((r) => r.node);
    const firstN2 = nodes.indexOf('n2');
    assert.ok(firstN2 > 0 && nodes.slice(0, firstN2).every((n) => n === 'n1') && nodes.slice(firstN2).every((n) => n === 'n2'), `session ${s}: ${nodes.join(' ')}`);
  }
  assert.equal(sum.errorClasses['connection-lost'], recs.filter((r) => r.outcome !== 'committed').length);
  assert.ok(sum.reconnects >= 2, `reconnects ${sum.reconnects}`);
  assert.equal(multi.failovers, 2);
});

test('a session whose every node is down is lost: the run says so (exit 3 in the CLI), nothing it ran is dropped', async () => {
  const data = new Map<number, number>();
  const a = new FakeServer('A', data), b = new FakeServer('B', data);
  const multi = new MultiTarget([{ name: 'n1', target: a }, { name: 'n2', target: b }], [], 2, 0);
  const plan = generateWorkload({ ...DEFAULT_WORKLOAD, sessions: 2, txnsPerSession: 10, opsPerTxn: 2, keys: 5, seed: 1 });
  const conns = await connectAll(multi, 2);
  a.commitsBeforeCrash = 3;
  b.down = true;
  const recs: TxnRecord[] = [];
  const sum = await runWorkload(multi, conns, plan, { isolation: 'serializable', txnTimeoutMs: 1e9, onTxn: (r) => recs.push(r) });
  assert.equal(sum.sessionsLost, 2);
  assert.equal(recs.length + sum.notRun, 20);
  assert.ok(recs.every((r) => r.node === 'n1' || r.node === 'n2'));
});

test('a lost update across nodes is explained with the nodes: text, DOT and --json (schema field "node")', async () => {
  const dir = scratchDir('polysi-nodes-');
  const file = join(dir, 'lu.jsonl');
  writeFileSync(file, [
    '{"session":"a","txn":"T0","ops":[["w","x",1]],"node":"n1"}',
    '{"session":"b","txn":"T1","ops":[["r","x",1],["w","x",2]],"node":"n1"}',
    '{"session":"c","txn":"T2","ops":[["r","x",1],["w","x",3]],"node":"n2"}',
  ].join('\n'));
  const run = async (...args: string[]) => {
    let out = '';
    const code = await main(args, { stdout: (s) => { out += s; }, stderr: () => {} });
    return { code, out };
  };
  const text = await run('check', file, '--explain');
  assert.equal(text.code, 1);
  assert.match(text.out, /T1 \(session b #0 on n1, .*line 2\)/);
  assert.match(text.out, /T2\s+session c #0 on n2, line 3/);
  await run('check', file, '--dot', join(dir, 'lu.dot'));
  assert.match(readFileSync(join(dir, 'lu.dot'), 'utf8'), /T2 {2}\(session c #0 on n2\)/);
  const json = JSON.parse((await run('check', file, '--json', '--explain')).out) as unknown;
  assert.match(JSON.stringify(json), /"node":"n2"/);
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  const validate = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schema', 'check-result.schema.json'), 'utf8')) as object);
  assert.ok(validate(json), ajv.errorsText(validate.errors));
});

test('a connection of a MultiTarget has the predicate operations of its server; the barrier asks each server about the relations too', async () => {
  const { MemoryTarget } = await import('../../src/run/store/memory.ts');
  const { parsePredicate } = await import('../../src/history/predicate.ts');
  const kinds = { registers: false, lists: false, relations: [{ name: 'accounts', keys: [0, 1, 2] }] };
  const multi = new MultiTarget([{ name: 'n1', target: new MemoryTarget('serializable', 1) }], [], 1, 0);
  await multi.setup(3, kinds);
  const c = await multi.connect(0);
  assert.equal(c.node, 'n1');
  await c.begin('serializable');
  await c.insert!('accounts', 1, 10);
  assert.deepEqual(await c.select!('accounts', parsePredicate('value > 5')), [1, 10]);
  assert.equal(await c.count!('accounts', parsePredicate('value > 5')), 1);
  assert.equal(await c.update!('accounts', 1, 11), true);
  assert.equal(await c.readRow!('accounts', 1), 11);
  assert.equal(await c.delete!('accounts', 2), false);
  await c.commit();
  await c.close();

  // Fake servers that say what the barrier asked them about.
  const asked: string[] = [];
  const server = (name: string): Target => ({
    name, setup: async () => {}, connect: async () => { throw new Error('not used'); }, close: async () => {},
    markRun: async () => {},
    runVisible: async (_keys, k) => { asked.push(`${name}:${(k.relations ?? []).map((r) => r.name).join(',')}`); return null; },
  });
  const two = new MultiTarget([{ name: 'n1', target: server('a') }], [{ name: 'r1', target: server('b') }], 2, 1);
  assert.ok(await two.barrier(3, kinds, 1000, 'tok') >= 0);
  assert.deepEqual(asked.sort(), ['a:accounts', 'b:accounts']);
});
