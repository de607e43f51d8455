// HistoryBuilder.value interns non-negative 31-bit integers through its own hash table
// (smallValue) and everything else through a Map: one id per distinct value either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { LabelTable } from '../../src/history/labels.ts';
import { INITIAL_VALUE, valueLabel } from '../../src/history/model.ts';
import { mulberry32 } from '../support/gen.ts';

test('value ids: one per distinct value across table growth, labels as written, other kinds apart', () => {
  const b = new HistoryBuilder('<values>');
  const rng = mulberry32(7);
  const seen = new Map<number, number>();
  const ids = new Set<number>();
  // 50,000 draws from 20,000 numbers (many repeats), including 0 and 2^31-1: the table grows
  // from 1,024 slots several times.
  const pool = [0, 1, 0x7fffffff, ...Array.from({ length: 19_997 }, () => Math.floor(rng() * 0x7fffffff))];
  for (let i = 0; i < 50_000; i++) {
    const x = pool[Math.floor(rng() * pool.length)]!;
    const id = b.value(x);
    const before = seen.get(x);
    if (before === undefined) {
      assert.ok(!ids.has(id), `fresh value ${x} got the id ${id} of another value`);
      seen.set(x, id);
      ids.add(id);
    } else {
      assert.equal(id, before, `value ${x} interned twice`);
    }
  }
  assert.equal(b.value(null), INITIAL_VALUE);
  // Values outside 0 .. 2^31-1, strings and bigints go through the Map and stay distinct.
  const others = [-1, 2 ** 31, 2 ** 40, 1.5, '5', 5n];
  for (const o of others) {
    const id = b.value(o);
    assert.ok(!ids.has(id), `${String(o)} collides with a small value`);
    assert.equal(b.value(o), id);
    ids.add(id);
  }
  assert.notEqual(b.value(5), b.value('5'));
  assert.notEqual(b.value(5), b.value(5n));
  // Labels follow the values (written back by the writers and shown in explanations).
  const t = b.beginTxn(b.session('s'), 't');
  b.write(t, 'k', 0x7fffffff);
  b.write(t, 'j', 12345);
  const h = b.build();
  assert.equal(valueLabel(h, b.value(0x7fffffff)), '2147483647');
  assert.equal(valueLabel(h, b.value(12345)), '12345');
  assert.equal(valueLabel(h, b.value('5')), '"5"');
});

test('integer interning: inputs that all collide under the locality slot still get one id each', () => {
  // x = j * 1025: x ^ (x >>> 10) has the same low 10 bits for every j < 1024, so in the first
  // table every one of these lands in slot 0. The table must switch to scattering and stay exact.
  for (const via of ['value', 'key'] as const) {
    const b = new HistoryBuilder('<collide>');
    const ids = new Map<number, number>();
    for (let round = 0; round < 2; round++) {
      for (let j = 1; j < 3000; j++) {
        const x = j * 1025;
        const id = via === 'value' ? b.value(x) : b.key(x);
        const before = ids.get(x);
        if (before === undefined) ids.set(x, id);
        else assert.equal(id, before, `${via} ${x} interned twice`);
      }
    }
    assert.equal(new Set(ids.values()).size, ids.size, `${via}: two integers share an id`);
    const table = (b as unknown as Record<string, { scatter: boolean }>)[via === 'value' ? 'smallValues' : 'smallKeys']!;
    assert.equal(table.scatter, true, `${via}: the clustered input did not switch the table to scattering`);
  }
});

test('integer keys: one id per distinct key, labels as written, strings and big numbers apart', () => {
  const b = new HistoryBuilder('<keys>');
  const rng = mulberry32(11);
  const seen = new Map<number, number>();
  for (let i = 0; i < 30_000; i++) {
    const x = Math.floor(rng() * 5000) * 7;
    const id = b.key(x);
    const before = seen.get(x);
    if (before === undefined) { assert.equal(id, seen.size, 'key ids are dense in first-use order'); seen.set(x, id); }
    else assert.equal(id, before);
    assert.equal(b.intKey(x), id, 'intKey and key agree');
  }
  assert.notEqual(b.key(7), b.key('7'));
  assert.notEqual(b.key(2 ** 31), b.key(2 ** 31 - 1));
  const t = b.beginTxn(b.session('s'), 't');
  b.write(t, 35, 1);
  assert.equal(b.build().keyLabels[b.key(35)], '35');
});

test('integer interning: the direct array and the table agree as the array grows over integers the table holds', () => {
  const rng = mulberry32(5);
  for (const via of ['value', 'key'] as const) {
    const b = new HistoryBuilder('<dense>');
    const ids = new Map<number, number>();
    const used = new Set<number>();
    const check = (x: number): void => {
      const id = via === 'value' ? b.value(x) : b.key(x);
      const before = ids.get(x);
      if (before === undefined) {
        assert.ok(!used.has(id), `${via} ${x}: id ${id} reused`);
        ids.set(x, id);
        used.add(id);
      } else assert.equal(id, before, `${via} ${x} got two ids`);
    };
    // Large integers first (into the table), then a dense run that makes the array grow over
    // them, then everything again in random order, with far-away integers mixed in.
    for (const x of [100_000, 70_000, 9_000, 2 ** 31 - 1, 5_000_000, 123_457]) check(x);
    for (let x = 1; x <= 150_000; x++) check(x);
    const all = [...ids.keys()];
    for (let i = 0; i < 100_000; i++) {
      check(rng() < 0.8 ? all[Math.floor(rng() * all.length)]! : Math.floor(rng() * 2 ** 31));
    }
    assert.equal(used.size, ids.size, `${via}: two integers share an id`);
    const table = (b as unknown as Record<string, { dense: Int32Array }>)[via === 'value' ? 'smallValues' : 'smallKeys']!;
    assert.ok(table.dense.length > 150_000, `${via}: the dense run did not grow the direct array`);
  }
});

/** A random history fed to `b`: sessions interleaved, values small and large, some omitted txns. */
function feedRandom(b: HistoryBuilder, seed: number, ops: number): void {
  const rng = mulberry32(seed);
  const sessions = Array.from({ length: 1 + Math.floor(rng() * 5) }, (_, i) => b.session(`s${i}`));
  const inOrder = rng() < 0.5; // txns begun session by session, ops txn by txn: build's copy-free path
  let t = -1;
  for (let i = 0; i < ops; i++) {
    if (t < 0 || rng() < 0.25) {
      const s = inOrder ? sessions[Math.min(sessions.length - 1, Math.floor((i / ops) * sessions.length))]! : sessions[Math.floor(rng() * sessions.length)]!;
      t = b.beginTxn(s, rng() < 0.5 ? `${s}.${i}` : undefined);
    }
    const txn = inOrder ? t : Math.floor(rng() * (t + 1));
    const v = rng() < 0.2 ? Math.floor(rng() * 2 ** 40) : Math.floor(rng() * 3000);
    if (rng() < 0.5) b.write(txn, Math.floor(rng() * 50), v, i);
    else b.read(txn, Math.floor(rng() * 50), rng() < 0.1 ? null : v, i);
  }
}

/** Every field of h as plain arrays (typed arrays copied, label tables as their strings). */
function plainCopy(h: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(h)) {
    out[k] = ArrayBuffer.isView(v) ? Array.from(v as Int32Array) : v instanceof LabelTable ? v.toArray() : Array.isArray(v) ? v.slice() : v;
  }
  return out;
}

test('reserve: any reservation (short, exact, generous) builds the same History as none', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const ops = Math.floor(mulberry32(seed)() * 5000);
    const plain = new HistoryBuilder('<r>');
    feedRandom(plain, seed, ops);
    const want = plain.build();
    for (const f of [0.1, 1, 3, 2 ** 40]) { // (the last beyond any address space: ignored)
      const b = new HistoryBuilder('<r>');
      b.reserve(Math.floor(ops * f), Math.floor(ops * f / 4), Math.floor(ops * f / 2));
      feedRandom(b, seed, ops);
      assert.deepStrictEqual(b.build(), want, `seed ${seed}, reserve x${f}`);
    }
  }
});

test('build hands over its columns: using the builder on afterwards leaves the built History unchanged', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const b = new HistoryBuilder('<h>');
    feedRandom(b, seed, 2000);
    const h = b.build();
    const snapshot = plainCopy(h);
    feedRandom(b, seed + 1000, 3000); // past the old capacity too: the columns grow
    const h2 = b.build();
    assert.deepStrictEqual(plainCopy(h), snapshot, `seed ${seed}`);
    assert.ok(h2.opCount > h.opCount);
  }
});
