/**
 * Recording: the seeded scheduler reproduces a run byte for byte (wall times aside), the JSON
 * Lines written by the recorder read back with every field (times and error codes included)
 * and survive `convert`'s writer, and the reader rejects malformed times and errors.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonl, writeJsonl } from '../../src/formats/jsonl.ts';
import { InputError } from '../../src/history/errors.ts';
import { TXN_ABORTED } from '../../src/history/model.ts';
import { generateWorkload, DEFAULT_WORKLOAD, W_READ, W_WRITE, type TxnPlan, type WorkloadPlan } from '../../src/workload/index.ts';
import { connectAll, runWorkload } from '../../src/run/runner.ts';
import { DbError, type Connection, type Target } from '../../src/run/types.ts';
import { runMemory, SMALL } from './support.ts';
import { MemoryTarget } from '../../src/run/store/memory.ts';
import { MEMORY_MODES } from '../../src/run/store/modes.ts';
import { scratchDir } from '../support/scratch.ts';

/** Every session's planned transactions. */
const all = (p: WorkloadPlan): TxnPlan[][] => Array.from({ length: p.options.sessions }, (_, s) => [...p.session(s)]);

const withoutTimes = (text: string) => text.replace(/,"start":[0-9.e+-]+,"end":[0-9.e+-]+/g, '');

test('same seed, same history (byte-identical but for wall times); another seed, another history', async () => {
  for (const mode of ['snapshot', 'causality', 'aborted-read'] as const) {
    for (const workload of ['register', 'list-append'] as const) {
      const a = await runMemory(mode, { seed: 7, workload });
      const b = await runMemory(mode, { seed: 7, workload });
      const c = await runMemory(mode, { seed: 8, workload });
      assert.ok(a.text.includes('"start":'), 'times are recorded');
      assert.equal(withoutTimes(a.text), withoutTimes(b.text), `${mode} ${workload}`);
      assert.notEqual(withoutTimes(a.text), withoutTimes(c.text), `${mode} ${workload}`);
    }
  }
});

test('the synchronous fast path and the asynchronous Connection path record the same history for a seed', async () => {
  for (const mode of ['snapshot', 'serializable', 'aborted-read', 'causality'] as const) {
    for (const workload of ['register', 'list-append'] as const) {
      for (const seed of [1, 2, 3]) {
        const a = await runMemory(mode, { seed, workload }, 'sync');
        const b = await runMemory(mode, { seed, workload }, 'async');
        assert.equal(withoutTimes(a.text), withoutTimes(b.text), `${mode} ${workload} seed ${seed}`);
        assert.deepEqual(a.summary.errors, b.summary.errors);
      }
    }
  }
});

test('the byte encoder writes exactly txnLine for every mode and both workloads (errors, lists, nulls)', async () => {
  const { encodeTxn, txnBytesMax } = await import('../../src/run/encode.ts');
  const { txnLine } = await import('../../src/run/recorder.ts');
  const buf = Buffer.alloc(1 << 16);
  let n = 0;
  for (const mode of MEMORY_MODES.map((m) => m.name)) {
    for (const workload of ['register', 'list-append'] as const) {
      const plan = generateWorkload({ ...SMALL, workload, seed: 3 });
      const target = new MemoryTarget(mode, 3);
      const conns = await connectAll(target, SMALL.sessions);
      await runWorkload(target, conns, plan, {
        isolation: 'snapshot',
        onTxn: (r) => {
          const end = encodeTxn(buf, 0, r, 1.25);
          assert.ok(end <= txnBytesMax(r));
          assert.equal(buf.toString('utf8', 0, end), txnLine(r, 1.25));
          n++;
        },
      });
    }
  }
  assert.equal(n, MEMORY_MODES.length * 2 * SMALL.sessions * SMALL.txnsPerSession);
});

test('a txn record with a node: the byte encoder writes txnLine, and the node reads back (issue 24)', async () => {
  const { encodeTxn, txnBytesMax } = await import('../../src/run/encode.ts');
  const { txnLine } = await import('../../src/run/recorder.ts');
  const plan: TxnPlan = { kinds: [W_WRITE, W_READ], keys: [1, 2], values: [7, 0] };
  const buf = Buffer.alloc(4096);
  const lines: string[] = [];
  for (const node of ['n1', 'db "2"', 'nœud']) {
    const r = { session: 0, index: lines.length, plan, done: 2, seen: [undefined, null], outcome: 'aborted' as const, start: 1, end: 2, error: '1213', node };
    const line = txnLine(r);
    if (txnBytesMax(r) > 0) assert.equal(buf.toString('utf8', 0, encodeTxn(buf, 0, r, 0)), line);
    else assert.equal(node, 'nœud'); // non-ASCII goes the string path
    lines.push(line);
  }
  const h = parseJsonl(lines.join('\n'));
  assert.deepEqual([...h.txnNode!].map((n) => h.nodeLabels![n]), ['n1', 'db "2"', 'nœud']);
});

test('workloads: defaults from the paper, unique written values, read fraction and seeds respected', () => {
  const p = generateWorkload({ ...DEFAULT_WORKLOAD });
  const ps = all(p);
  assert.equal(ps.length, 20);
  assert.ok(ps.every((s) => s.length === 100 && s.every((t) => t.kinds.length === 15)));
  assert.deepEqual(all(p), ps, 'a session\'s stream restarts with the same transactions');
  const seen = new Set<number>();
  let reads = 0, ops = 0;
  for (const s of ps) for (const t of s) for (let i = 0; i < t.kinds.length; i++) {
    ops++;
    if (t.kinds[i] === W_READ) { reads++; continue; }
    assert.equal(t.kinds[i], W_WRITE);
    assert.ok(!seen.has(t.values[i]!), 'written values are unique');
    seen.add(t.values[i]!);
    assert.ok(t.keys[i]! >= 0 && t.keys[i]! < 10_000);
  }
  assert.ok(Math.abs(reads / ops - 0.5) < 0.02, `read fraction ${reads / ops}`);
  const hot = generateWorkload({ ...DEFAULT_WORKLOAD, distribution: 'hotspot', keys: 1000 });
  let onHot = 0, n = 0;
  for (const s of all(hot)) for (const t of s) for (const k of t.keys) { n++; if (k < 200) onHot++; }
  assert.ok(Math.abs(onHot / n - 0.8) < 0.02, `hotspot share ${onHot / n}`);
  const zipf = generateWorkload({ ...DEFAULT_WORKLOAD, distribution: 'zipfian', keys: 1000 });
  let k0 = 0, kLast = 0;
  for (const s of all(zipf)) for (const t of s) for (const k of t.keys) { if (k === 0) k0++; if (k === 999) kLast++; }
  assert.ok(k0 > 50 * Math.max(1, kLast), `zipfian: key 0 drawn ${k0} times, key 999 ${kLast}`);
  const long = generateWorkload({ ...DEFAULT_WORKLOAD, longFraction: 0.1, longOps: 40 });
  const lengths = all(long).flat().map((t) => t.kinds.length);
  const longShare = lengths.filter((l) => l === 40).length / lengths.length;
  assert.ok(Math.abs(longShare - 0.1) < 0.03, `long share ${longShare}`);
  assert.throws(() => generateWorkload({ ...DEFAULT_WORKLOAD, readFraction: 1.5 }), /read fraction/);
});

test('the recorder\'s JSON Lines round-trip through parseJsonl and writeJsonl with times and errors', async () => {
  const r = await runMemory('snapshot', { seed: 2, keys: 3 });
  const h = r.history;
  assert.ok(h.txnStart !== undefined && h.txnEnd !== undefined && h.txnError !== undefined);
  const aborted = [...h.txnStatus].filter((s) => s === TXN_ABORTED).length;
  assert.ok(aborted > 0);
  const again = parseJsonl(writeJsonl(h), 'again');
  assert.deepEqual([...again.txnStart!], [...h.txnStart!]);
  assert.deepEqual([...again.txnEnd!], [...h.txnEnd!]);
  assert.deepEqual(again.txnError, h.txnError);
  assert.equal(writeJsonl(again), writeJsonl(h));
});

test('the JSONL reader checks start / end / error and names the line', () => {
  const head = '{"format":"polysi-history","version":1}\n';
  const bad: [string, RegExp][] = [
    ['{"session":1,"ops":[],"start":1}', /"end"/],
    ['{"session":1,"ops":[],"start":"1","end":2}', /"start"/],
    ['{"session":1,"ops":[],"start":5,"end":2}', /before "start"/],
    ['{"session":1,"ops":[],"error":40001}', /"error" to be a string/],
  ];
  for (const [line, re] of bad) {
    assert.throws(() => parseJsonl(head + line), (e: unknown) => e instanceof InputError && re.test(e.message) && /line 2/.test(e.message), line);
  }
  const ok = parseJsonl(`${head}{"session":1,"ops":[],"start":1.5,"end":2,"status":"aborted","error":"40001"}\n{"session":1,"ops":[]}\n`);
  assert.equal(ok.txnStart![0], 1.5);
  assert.ok(Number.isNaN(ok.txnStart![1]!));
  assert.deepEqual(ok.txnError, ['40001', '']);
});

/** A target whose connections fail on demand, to test outcome decisions without a database. */
class FlakyTarget implements Target {
  readonly name = 'flaky';
  connects = 0;
  constructor(private readonly failAt: (call: string, n: number) => DbError | null, private readonly reachable = () => true) {}
  async setup(): Promise<void> {}
  async connect(): Promise<Connection> {
    this.connects++;
    if (!this.reachable()) throw new DbError('flaky: unreachable', 'unreachable');
    let n = 0;
    const step = async (call: string) => { const e = this.failAt(call, n++); if (e) throw e; };
    return {
      begin: () => step('begin'), read: async () => { await step('read'); return null; },
      write: () => step('write'), append: () => step('append'), readList: async () => { await step('readList'); return []; },
      commit: () => step('commit'), rollback: async () => {}, close: async () => {},
    };
  }
  async close(): Promise<void> {}
}

test('outcomes: lost connection before COMMIT = aborted, during COMMIT = unknown; the session reconnects and goes on', async () => {
  const plan = generateWorkload({ ...DEFAULT_WORKLOAD, sessions: 1, txnsPerSession: 3, opsPerTxn: 2 });
  // Call numbers per connection: begin 0, op 1, op 2, commit 3, begin 4, ...
  const target = new FlakyTarget((_call, n) => (n === 1 ? new DbError('lost', 'unknown', '57P01') : null));
  const recs: { outcome: string; error?: string; done: number }[] = [];
  const sum = await runWorkload(target, await connectAll(target, 1), plan, { isolation: 'serializable', onTxn: (r) => recs.push(r) });
  assert.deepEqual(recs.map((r) => r.outcome), ['aborted', 'aborted', 'aborted']);
  assert.equal(recs[0]!.error, '57P01');
  assert.equal(recs[0]!.done, 0);
  assert.equal(target.connects, 4, 'one reconnect per lost connection');
  assert.equal(sum.aborted, 3);

  const t2 = new FlakyTarget((call) => (call === 'commit' ? new DbError('lost', 'unknown') : null));
  const recs2: { outcome: string; error?: string; done: number }[] = [];
  await runWorkload(t2, await connectAll(t2, 1), plan, { isolation: 'serializable', onTxn: (r) => recs2.push(r) });
  assert.deepEqual(recs2.map((r) => [r.outcome, r.error, r.done]), [['unknown', 'connection-lost', 2], ['unknown', 'connection-lost', 2], ['unknown', 'connection-lost', 2]]);
});

test('a hung statement times out: unknown at commit, aborted before; the run never hangs', async () => {
  const plan = generateWorkload({ ...DEFAULT_WORKLOAD, sessions: 2, txnsPerSession: 2, opsPerTxn: 1 });
  const hang = new Promise<never>(() => {});
  const target: Target = {
    name: 'hang', async setup() {}, async close() {},
    async connect(session) {
      return {
        begin: async () => {}, write: async () => {}, append: async () => {}, readList: async () => [], rollback: async () => {}, close: async () => {},
        read: () => (session === 0 ? hang : Promise.resolve(null)),
        commit: () => (session === 1 ? hang : Promise.resolve()),
      };
    },
  };
  const recs: { session: number; outcome: string; error?: string }[] = [];
  const sum = await runWorkload(target, await connectAll(target, 2), plan, { isolation: 'serializable', txnTimeoutMs: 50, onTxn: (r) => recs.push(r) });
  for (const r of recs) {
    assert.equal(r.error, 'timeout');
    // Session 0 hangs in a read (only reads can hang there; writes pass): aborted unless it reached commit.
    if (r.session === 1) assert.equal(r.outcome, 'unknown');
  }
  assert.equal(recs.length, 4);
  assert.equal(sum.committed + sum.aborted + sum.unknown, 4);
});

test('connectAll: one unreachable session closes the others and rejects', async () => {
  let closed = 0, calls = 0;
  const target: Target = {
    name: 'half', async setup() {}, async close() {},
    async connect() {
      if (++calls === 3) throw new DbError('half: connection refused', 'unreachable');
      return { begin: async () => {}, read: async () => null, write: async () => {}, append: async () => {}, readList: async () => [], commit: async () => {}, rollback: async () => {}, close: async () => { closed++; } };
    },
  };
  await assert.rejects(connectAll(target, 5), /connection refused/);
  assert.equal(closed, 2);
});

test('convert keeps times and error codes in jsonl and notes their loss in formats without them', async () => {
  const { main } = await import('../../src/cli/main.ts');
  const { writeFileSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = scratchDir('polysi-rec-');
  const r = await runMemory('snapshot', { seed: 4, keys: 3 });
  const src = join(dir, 'run.jsonl');
  writeFileSync(src, r.text);
  const io = () => { const o = { out: '', err: '' }; return { o, io: { stdout: (s: string) => { o.out += s; }, stderr: (s: string) => { o.err += s; } } }; };
  const a = io();
  assert.equal(await main(['convert', src, join(dir, 'copy.jsonl'), '--to', 'jsonl'], a.io), 0, a.o.err);
  assert.doesNotMatch(a.o.err, /left out/);
  const copy = parseJsonl(readFileSync(join(dir, 'copy.jsonl'), 'utf8'));
  assert.deepEqual(copy.txnError, r.history.txnError);
  // PolySI text holds committed txns only: convert a run without aborts.
  const rc = await runMemory('read-committed', { seed: 4, keys: 50 });
  const src2 = join(dir, 'rc.jsonl');
  writeFileSync(src2, rc.text);
  const b = io();
  assert.equal(await main(['convert', src2, join(dir, 'rc.txt'), '--to', 'text'], b.io), 0, b.o.err);
  assert.match(b.o.err, /text cannot hold the transactions' start\/end times; they are left out/);
});
