/**
 * Write-skew opportunities counted from a recorded history (src/history/write-skew-opportunities.ts):
 * overlapping pairs that each read a key the other writes, writing disjoint keys, by outcome.
 * Hand-drawn cases (times in ms, `[start, end]`), then random small histories against an
 * all-pairs count written here from the definition in docs/workloads.md (no code shared).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type TxnStatus } from '../../src/history/model.ts';
import { writeSkewOpportunities } from '../../src/history/write-skew-opportunities.ts';
import { byStart } from '../../src/history/overlap-sweep.ts';
import { mulberry32 } from '../support/prng.ts';

/** r: register read (null = initial), w: write, a: append, l: list read. */
type Op = ['r', string, number | null] | ['w' | 'a', string, number] | ['l', string, number[]];
interface T { s: number; ops: Op[]; at: [number, number]; status?: TxnStatus; code?: string }

function history(txns: T[]) {
  const b = new HistoryBuilder();
  for (const t of txns) {
    const id = b.beginTxn(b.session(t.s), undefined, t.status ?? TXN_COMMITTED);
    for (const op of t.ops) {
      if (op[0] === 'r') b.read(id, op[1], op[2]);
      else if (op[0] === 'l') b.readList(id, op[1], op[2]);
      else if (op[0] === 'w') b.write(id, op[1], op[2]);
      else b.append(id, op[1], op[2]);
    }
    b.setTimes(id, t.at[0], t.at[1]);
    if (t.code !== undefined) b.setError(id, t.code);
  }
  return b.build();
}

const none = { pairs: 0, allowed: 0, blocked: 0, aborted: 0, abortCodes: {}, unknown: 0, other: 0 };

test('each outcome of two overlapping transactions that read x and y and write one each', () => {
  const o = writeSkewOpportunities(history([
    // allowed (the doctors on call): A [0,10] and B [5,15] both read x and y at init; A writes x, B y.
    { s: 0, ops: [['r', 'x', null], ['r', 'y', null], ['w', 'x', 1]], at: [0, 10] },
    { s: 1, ops: [['r', 'x', null], ['r', 'y', null], ['w', 'y', 2]], at: [5, 15] },
    // blocked: D [25,40] ended later and read C's x: its read waited for C's commit.
    { s: 0, ops: [['r', 'x', 1], ['r', 'y', 2], ['w', 'x', 3]], at: [20, 30] },
    { s: 1, ops: [['r', 'x', 3], ['r', 'y', 2], ['w', 'y', 4]], at: [25, 40] },
    // aborted: F aborts with 40001.
    { s: 0, ops: [['r', 'x', 3], ['r', 'y', 4], ['w', 'x', 5]], at: [50, 60] },
    { s: 1, ops: [['r', 'x', 3], ['r', 'y', 4], ['w', 'y', 6]], at: [55, 65], status: TXN_ABORTED, code: '40001' },
    // unknown: H's commit was never confirmed.
    { s: 0, ops: [['r', 'x', 5], ['r', 'y', 4], ['w', 'x', 7]], at: [70, 80] },
    { s: 1, ops: [['r', 'x', 5], ['r', 'y', 4], ['w', 'y', 8]], at: [75, 85], status: TXN_UNKNOWN },
  ]));
  assert.deepEqual(o, { pairs: 4, allowed: 1, blocked: 1, aborted: 1, abortCodes: { '40001': 1 }, unknown: 1, other: 0 });
});

test('no opportunity: a common written key, one direction only, no overlap, no times', () => {
  assert.deepEqual(writeSkewOpportunities(history([
    // Both write x: a lost update's shape (or a write conflict), not a write skew.
    { s: 0, ops: [['r', 'y', null], ['w', 'x', 1], ['w', 'z', 2]], at: [0, 10] },
    { s: 1, ops: [['r', 'z', null], ['w', 'x', 3]], at: [0, 10] },
    // Only one way: E reads what F writes, F reads nothing E writes.
    { s: 2, ops: [['r', 'p', null], ['w', 'q', 4]], at: [20, 30] },
    { s: 3, ops: [['r', 'r', null], ['w', 'p', 5]], at: [20, 30] },
    // Disjoint in time.
    { s: 2, ops: [['r', 'u', null], ['w', 'v', 6]], at: [40, 50] },
    { s: 3, ops: [['r', 'v', null], ['w', 'u', 7]], at: [51, 60] },
  ])), none);
  const b = new HistoryBuilder();
  const t = b.beginTxn(b.session(0));
  b.read(t, 'x', null);
  b.write(t, 'y', 1);
  assert.equal(writeSkewOpportunities(b.build()), null);
});

test('one pair however many keys it shares; blind writes placed by time; lists by their elements', () => {
  const o = writeSkewOpportunities(history([
    // A writes p, q and reads r, s; B the other way round: four shared keys, one pair, allowed.
    { s: 0, ops: [['r', 'r', null], ['r', 's', null], ['w', 'p', 1], ['w', 'q', 2]], at: [0, 10] },
    { s: 1, ops: [['r', 'p', null], ['r', 'q', null], ['w', 'r', 3], ['w', 's', 4]], at: [0, 10] },
    // Blind writes: G read x=11 (written by W, which ended at 19, before H started) and H read
    // y=12 (by W too, ended before G started): each read an older version than the other's: allowed.
    { s: 4, ops: [['w', 'x', 11], ['w', 'y', 12]], at: [18, 19] },
    { s: 0, ops: [['r', 'x', 11], ['w', 'y', 13]], at: [20, 30] },
    { s: 1, ops: [['r', 'y', 12], ['w', 'x', 14]], at: [21, 31] },
    // I read z=15 from V, which ended after J started: not placed, so `other`.
    { s: 4, ops: [['w', 'z', 15]], at: [39, 45] },
    { s: 0, ops: [['r', 'z', 15], ['w', 'w', 16]], at: [46, 50] },
    { s: 1, ops: [['r', 'w', null], ['w', 'z', 17]], at: [40, 50] },
    // Lists: K and L each read both lists without the other's element: allowed.
    { s: 0, ops: [['l', 'l1', []], ['l', 'l2', []], ['a', 'l1', 18]], at: [60, 70] },
    { s: 1, ops: [['l', 'l1', []], ['l', 'l2', []], ['a', 'l2', 19]], at: [60, 70] },
  ]));
  assert.deepEqual(o, { pairs: 4, allowed: 3, blocked: 0, aborted: 0, abortCodes: {}, unknown: 0, other: 1 });
});

// ---------------------------------------------------------------- all pairs, from the definition

function oracle(txns: T[]) {
  const out = { pairs: 0, allowed: 0, blocked: 0, aborted: 0, abortCodes: {} as Record<string, number>, unknown: 0, other: 0 };
  const reads = txns.map((t) => {
    const m = new Map<string, { op: Op; beforeWrite: boolean }>();
    const wrote = new Set<string>();
    for (const op of t.ops) {
      if (op[0] === 'w' || op[0] === 'a') wrote.add(op[1]);
      else if (!m.has(op[1])) m.set(op[1], { op, beforeWrite: !wrote.has(op[1]) });
    }
    return m;
  });
  const writes = txns.map((t) => new Map(t.ops.filter((op) => op[0] === 'w' || op[0] === 'a').map((op) => [op[1], op] as const)));
  const writerOf = (key: string, v: number) => txns.findIndex((t) => t.ops.some((op) => op[0] === 'w' && op[1] === key && op[2] === v));
  const look = (r: number, w: number) => {
    let missed = false, saw = false;
    for (const [key, { op }] of reads[r]!) {
      const wop = writes[w]!.get(key);
      if (wop === undefined) continue;
      if (op[0] === 'l') {
        if (wop[0] !== 'a') continue;
        if (op[2].includes(wop[2])) saw = true; else missed = true;
      } else if (op[2] === wop[2]) saw = true;
      else if (op[2] === null) missed = true;
      else {
        const own = reads[w]!.get(key);
        const src = writerOf(key, op[2] as number);
        if ((own?.beforeWrite === true && own.op[0] === 'r' && own.op[2] === op[2]) || (src >= 0 && txns[src]!.at[1] < txns[w]!.at[0])) missed = true;
      }
    }
    return { missed, saw };
  };
  for (let a = 0; a < txns.length; a++) {
    for (let b = a + 1; b < txns.length; b++) {
      const A = txns[a]!, B = txns[b]!;
      if (!(A.at[0] <= B.at[1] && B.at[0] <= A.at[1])) continue;
      if ([...writes[a]!.keys()].some((k) => writes[b]!.has(k))) continue;
      if (![...reads[a]!.keys()].some((k) => writes[b]!.has(k)) || ![...reads[b]!.keys()].some((k) => writes[a]!.has(k))) continue;
      out.pairs++;
      const sa = A.status ?? TXN_COMMITTED, sb = B.status ?? TXN_COMMITTED;
      if (sa === TXN_ABORTED || sb === TXN_ABORTED) {
        out.aborted++;
        for (const t of [A, B]) if ((t.status ?? TXN_COMMITTED) === TXN_ABORTED) out.abortCodes[t.code ?? 'none'] = (out.abortCodes[t.code ?? 'none'] ?? 0) + 1;
        continue;
      }
      if (sa !== TXN_COMMITTED || sb !== TXN_COMMITTED) { out.unknown++; continue; }
      const ab = look(a, b), ba = look(b, a);
      if (ab.missed && ba.missed) out.allowed++;
      else if (A.at[1] > B.at[1] ? ab.saw : B.at[1] > A.at[1] ? ba.saw : ab.saw || ba.saw) out.blocked++;
      else out.other++;
    }
  }
  return out;
}

function randomTxns(rnd: () => number): T[] {
  const keys = ['x', 'y', 'z'], lists = ['l', 'm'];
  const n = 2 + Math.floor(rnd() * 7);
  let next = 1;
  const written = new Map<string, number[]>();
  const txns: T[] = [];
  for (let i = 0; i < n; i++) {
    const ops: Op[] = [];
    const nOps = 1 + Math.floor(rnd() * 4);
    for (let j = 0; j < nOps; j++) {
      const list = rnd() < 0.25;
      const key = list ? lists[Math.floor(rnd() * 2)]! : keys[Math.floor(rnd() * 3)]!;
      const seen = written.get(key) ?? [];
      if (rnd() < 0.5) {
        if (list) ops.push(['l', key, seen.filter(() => rnd() < 0.5)]);
        else ops.push(['r', key, seen.length === 0 || rnd() < 0.3 ? null : seen[Math.floor(rnd() * seen.length)]!]);
      } else {
        const v = next++;
        ops.push([list ? 'a' : 'w', key, v]);
        written.set(key, [...seen, v]);
      }
    }
    const s = Math.floor(rnd() * 12);
    const status = rnd() < 0.15 ? TXN_ABORTED : rnd() < 0.1 ? TXN_UNKNOWN : TXN_COMMITTED;
    txns.push({ s: i, ops, at: [s, s + 1 + Math.floor(rnd() * 6)], status, ...(status === TXN_ABORTED && rnd() < 0.7 ? { code: rnd() < 0.5 ? 'c1' : 'c2' } : {}) });
  }
  return txns;
}

test('random small histories: the sweep counts what an all-pairs count from the definition counts', () => {
  let pairs = 0, allowed = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const txns = randomTxns(mulberry32(seed));
    const want = oracle(txns);
    assert.deepEqual(writeSkewOpportunities(history(txns)), want, `seed ${seed}: ${JSON.stringify(txns)}`);
    pairs += want.pairs;
    allowed += want.allowed;
  }
  // The generator reaches the interesting cases (measured: 408 pairs, 75 allowed).
  assert.ok(pairs > 300 && allowed > 50, `${pairs} pairs, ${allowed} allowed`);
});

test('byStart: start order, ties by index, from a nearly sorted recording and from a shuffled file', () => {
  for (const shuffled of [false, true]) {
    const rnd = mulberry32(shuffled ? 7 : 8);
    const b = new HistoryBuilder();
    const starts: number[] = [];
    for (let t = 0; t < 3000; t++) {
      // Nearly sorted: each start a little before its index; shuffled: anywhere (past the insertion sort's budget).
      const s = shuffled ? Math.floor(rnd() * 500) : t - Math.floor(rnd() * 20);
      starts.push(s);
      const id = b.beginTxn(b.session(0)); // one session: txn ids in insertion order
      b.write(id, 'x', t + 1);
      b.setTimes(id, s, s + 1);
    }
    const order = [...byStart(b.build())];
    const want = starts.map((s, t) => [s, t] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]).map(([, t]) => t);
    assert.deepEqual(order, want, shuffled ? 'shuffled' : 'nearly sorted');
  }
});
