/**
 * The embedded store's relations (issue 22), judged by the rows it returns: inserts, deletes,
 * updates and predicate reads per mode. The boundaries, each a two-transaction schedule:
 *
 *   predicate write skew (G2 with predicates; Hermitage's "G2"):
 *     T1: count(value % 3 = 0) -> 0          T2: count(value % 3 = 0) -> 0
 *     T1: insert(a, 30); commit              T2: insert(b, 42); commit
 *   snapshot commits both (each missed the other's insert: an anti-dependency cycle through the
 *   predicate); serializable aborts T2 (its count would now be 1).
 *
 *   predicate-many-preceders (Hermitage's "PMP"):
 *     T1: select(value % 3 = 0) -> []        T2: insert(c, 30); commit
 *     T1: select(value % 3 = 0) -> ?
 *   snapshot: [] again (one snapshot); read-committed: [(c, 30)].
 *
 * And the predicate workload's recording: a header declaring the relations, each select's rows
 * matching its predicate, values unique per key.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePredicate, matches } from '../../src/history/predicate.ts';
import { MemoryTarget } from '../../src/run/store/memory.ts';
import type { MemoryMode } from '../../src/run/store/modes.ts';
import { DbError, type SyncSession } from '../../src/run/types.ts';
import { generateWorkload, DEFAULT_WORKLOAD } from '../../src/workload/index.ts';
import { connectAll, runWorkload } from '../../src/run/runner.ts';
import { headerLine, planNames, txnLine } from '../../src/run/recorder.ts';

const P = parsePredicate('value % 3 = 0');
const A = 1, B = 2, C = 3;

async function sessions(mode: MemoryMode, n: number): Promise<SyncSession[]> {
  const t = new MemoryTarget(mode, 1);
  await t.setup(0, { registers: false, lists: false, relations: [{ name: 'test', keys: [A, B, C] }] });
  const out: SyncSession[] = [];
  for (let s = 0; s < n; s++) out.push((await t.connect(s)).sync!);
  return out;
}

function code(f: () => void): string | null {
  try {
    f();
    return null;
  } catch (err) {
    if (err instanceof DbError) return err.code ?? err.kind;
    throw err;
  }
}

/** The write skew above; returns T2's commit error (null: committed) and what a later reader counts. */
async function writeSkew(mode: MemoryMode): Promise<{ t2: string | null; after: number }> {
  const [t1, t2, r] = await sessions(mode, 3);
  t1!.begin('snapshot'); t2!.begin('snapshot');
  assert.equal(t1!.count!('test', P), 0);
  assert.equal(t2!.count!('test', P), 0);
  t1!.insert!('test', A, 30);
  t2!.insert!('test', B, 42);
  t1!.commit();
  const e = code(() => t2!.commit());
  r!.begin('snapshot');
  const after = r!.count!('test', P);
  r!.commit();
  return { t2: e, after };
}

test('memory:snapshot allows a predicate write skew (both inserts commit)', async () => {
  assert.deepEqual(await writeSkew('snapshot'), { t2: null, after: 2 });
});

test('memory:serializable aborts the second of a predicate write skew (its count changed)', async () => {
  assert.deepEqual(await writeSkew('serializable'), { t2: 'serialization-failure', after: 1 });
});

test('memory:serializable commits predicate reads whose result did not change (an insert that does not match)', async () => {
  const [t1, t2] = await sessions('serializable', 2);
  t1!.begin('snapshot'); t2!.begin('snapshot');
  assert.deepEqual(t1!.select!('test', P), []);
  t2!.insert!('test', B, 43); // 43 % 3 = 1: not in T1's predicate
  t2!.commit();
  t1!.insert!('test', A, 30);
  t1!.commit();
});

// Serializable certifies backward: even a read-only T1 aborts once its predicate's result changed.
for (const [mode, want, commit] of [['snapshot', [], null], ['read-committed', [C, 30], null], ['serializable', [], 'serialization-failure']] as const) {
  test(`memory:${mode}: PMP, a predicate read after a concurrent insert committed returns ${JSON.stringify(want)}, T1's commit ${commit ?? 'succeeds'}`, async () => {
    const [t1, t2] = await sessions(mode, 2);
    t1!.begin('snapshot');
    assert.deepEqual(t1!.select!('test', parsePredicate('value = 30')), []);
    t2!.begin('snapshot');
    t2!.insert!('test', C, 30);
    t2!.commit();
    assert.deepEqual(t1!.select!('test', P), want);
    assert.equal(code(() => t1!.commit()), commit);
  });
}

test('memory: row operations: insert of a present row fails, delete / update of an absent row change nothing, own writes are seen', async () => {
  const [t1, t2] = await sessions('snapshot', 2);
  t1!.begin('snapshot');
  assert.equal(t1!.delete!('test', A), false);
  assert.equal(t1!.update!('test', A, 5), false);
  assert.equal(t1!.readRow!('test', A), null);
  t1!.insert!('test', A, 6);
  assert.equal(t1!.readRow!('test', A), 6);
  assert.equal(code(() => t1!.insert!('test', A, 7)), 'duplicate-key');
  t1!.begin('snapshot');
  t1!.insert!('test', A, 9);
  assert.equal(t1!.update!('test', A, 12), true);
  assert.deepEqual(t1!.select!('test', P), [A, 12]);
  t1!.commit();
  t2!.begin('snapshot');
  assert.equal(code(() => t2!.insert!('test', A, 8)), 'duplicate-key');
  t2!.begin('snapshot');
  assert.equal(t2!.delete!('test', A), true);
  assert.deepEqual(t2!.select!('test', parsePredicate('true')), []);
  t2!.insert!('test', A, 15); // deleted in this txn: insertable again
  t2!.commit();
});

test('memory:read-committed: two concurrent inserts of one row: the second fails at commit (a unique key)', async () => {
  const [t1, t2] = await sessions('read-committed', 2);
  t1!.begin('snapshot'); t2!.begin('snapshot');
  t1!.insert!('test', A, 3);
  t2!.insert!('test', A, 6);
  t1!.commit();
  assert.equal(code(() => t2!.commit()), 'duplicate-key');
});

test('the predicate workload records relations in the header, select rows that match, unique values per key', async () => {
  const plan = generateWorkload({ ...DEFAULT_WORKLOAD, workload: 'predicate', sessions: 4, txnsPerSession: 40, keys: 30, seed: 3 });
  const target = new MemoryTarget('snapshot', 3);
  await target.setup(30, plan.kinds);
  const names = planNames(plan)!;
  const lines = [headerLine(4, names.relations)];
  const sum = await runWorkload(target, await connectAll(target, 4), plan, { isolation: 'snapshot', onTxn: (r) => lines.push(txnLine(r, 0, names)) });
  assert.equal(sum.committed + sum.aborted, 160);
  const header = JSON.parse(lines[0]!) as { relations: Record<string, number[]> };
  assert.deepEqual(Object.keys(header.relations), ['r0', 'r1', 'r2']);
  assert.deepEqual(header.relations['r1'], [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  const kinds = new Map<string, number>();
  const written = new Set<string>();
  for (const line of lines.slice(1)) {
    const t = JSON.parse(line) as { ops: unknown[][] };
    for (const op of t.ops) {
      kinds.set(op[0] as string, (kinds.get(op[0] as string) ?? 0) + 1);
      if (op[0] === 'select') {
        const p = parsePredicate(op[2] as string);
        for (const [k, v] of op[3] as [number, number][]) {
          assert.ok(header.relations[op[1] as string]!.includes(k), line);
          assert.ok(matches(p, k, v), `row (${k}, ${v}) does not match ${op[2] as string}: ${line}`);
        }
      }
      if (op[0] === 'insert' || op[0] === 'w') {
        const id = `${String(op[1])}=${String(op[2])}`;
        assert.ok(!written.has(id), `value written twice: ${id}`);
        assert.notEqual(op[2], 0);
        written.add(id);
      }
    }
  }
  for (const k of ['select', 'count', 'insert', 'delete', 'r', 'w']) assert.ok((kinds.get(k) ?? 0) > 0, `no ${k} op recorded: ${[...kinds].join(' ')}`);
  assert.ok((sum.errors['duplicate-key'] ?? 0) > 0, 'some insert met a present row');
});
