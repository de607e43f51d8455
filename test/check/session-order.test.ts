/**
 * Session order around transactions of unknown outcome (docs/checking.md, "Session order").
 *
 * A txn whose outcome the client never learned may commit at any later time, so nothing after
 * it in its session is ordered after it; everything after it is still ordered after the
 * committed txns before it. Each case is checked by the pipeline (pruning on and off) and by
 * both brute-force oracles, which implement the rule independently; the two regression cases
 * from the issue go through the real JSONL and EDN readers.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { checkHistory } from '../../src/check/index.ts';
/** The levels the polygraph pipeline decides, which these oracles check (the weak levels have their own tests). */
type Level = 'si' | 'ser';
import { readHistory } from '../../src/formats/index.ts';
import { TXN_UNKNOWN, type History } from '../../src/history/model.ts';
import { validate } from '../../src/validate/validate.ts';
import { buildPolygraph } from '../../src/graph/polygraph.ts';
import { K_SO } from '../../src/graph/edges.ts';
import { buildSplitGraph, topoOrder } from '../../src/graph/split.ts';
import { chainCover } from '../../src/prune/chains.ts';
import { bruteForceCheck, bruteForceGraph } from '../oracle/brute-force.ts';
import { tinyHistory, type TinyTxn } from '../support/tiny-history.ts';
import { verifyResult } from '../support/verify-result.ts';
import { scratchDir } from '../support/scratch.ts';

type Expected = Record<Level, 'valid' | 'violation'>;

/** Pipeline (pruning on and off, explained) and both oracles must all give `expected`. */
function assertVerdicts(h: History, expected: Expected): void {
  for (const level of ['si', 'ser'] as const) {
    for (const pruning of [true, false]) {
      const r = checkHistory(h, { level, pruning, explain: true });
      assert.equal(r.verdict, expected[level], `pipeline, level ${level}, pruning ${pruning}: ${JSON.stringify(r.anomalies.map((a) => a.type === 'cycle' ? a.edges : a.name))}`);
      assert.deepEqual(verifyResult(h, level, r), [], `pipeline result, level ${level}, pruning ${pruning}`);
    }
    assert.equal(bruteForceCheck(h, level), expected[level], `operational oracle, level ${level}`);
    assert.equal(bruteForceGraph(h, level), expected[level], `axiomatic oracle, level ${level}`);
  }
}

async function withFile<T>(name: string, text: string, fn: (path: string) => Promise<T>): Promise<T> {
  const dir = scratchDir('polysi-so-');
  try {
    const path = join(dir, name);
    writeFileSync(path, text);
    return await fn(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// s1: U (unknown) w(x,1) ; T r(x,init)      s2: R r(x,1)
// R read U's write, so U committed; but U may have committed after T began, so T reading the
// initial value is allowed. Before the fix: SO U -> T and RW T -> U, a "session guarantee
// violation".
test('JSONL: a session continuing after an unknown-outcome txn is not ordered after it (issue 7, item 2)', async () => {
  const text = [
    '{"session":"s1","txn":"U","status":"unknown","ops":[["w","x",1]]}',
    '{"session":"s1","txn":"T","status":"committed","ops":[["r","x",null]]}',
    '{"session":"s2","txn":"R","status":"committed","ops":[["r","x",1]]}',
  ].join('\n') + '\n';
  const { history } = await withFile('repro.jsonl', text, (p) => readHistory(p, 'jsonl'));
  assertVerdicts(history, { si: 'valid', ser: 'valid' });
});

// Jepsen: process 0's write times out (:info), then process 0 invokes again and reads nil;
// process 1 reads the timed-out write. Same shape as above, through the EDN reader.
test('EDN: a process invoking again after :info is not ordered after the :info txn', async () => {
  const text = [
    '{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :index 0}',
    '{:type :info, :f :txn, :value [[:w :x 1]], :process 0, :index 1}',
    '{:type :invoke, :f :txn, :value [[:r :x nil]], :process 0, :index 2}',
    '{:type :ok, :f :txn, :value [[:r :x nil]], :process 0, :index 3}',
    '{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :index 4}',
    '{:type :ok, :f :txn, :value [[:r :x 1]], :process 1, :index 5}',
  ].join('\n') + '\n';
  const { history } = await withFile('info.edn', text, (p) => readHistory(p, 'edn'));
  assert.equal(history.sessionCount, 2, 'process 0 stays one session');
  assertVerdicts(history, { si: 'valid', ser: 'valid' });
});

/** Hand-written cases around the rule, each with the verdict the definition gives. */
const CASES: { name: string; txns: TinyTxn[]; expected: Expected }[] = [
  {
    // A (committed) ; U (unknown, read by R) ; T. T still follows A: reading x's initial value
    // after A wrote it breaks the session guarantee, whatever U did.
    name: 'what precedes an unknown txn still precedes what follows it',
    txns: [
      { s: 1, ops: 'w(x,1)' },
      { s: 1, ops: 'w(y,1)', status: 'unknown' },
      { s: 1, ops: 'r(x,0)' },
      { s: 2, ops: 'r(y,1)' },
    ],
    expected: { si: 'violation', ser: 'violation' },
  },
  {
    // The same with U left out (nobody read it): A -> T holds directly.
    name: 'an excluded unknown txn does not cut the session',
    txns: [
      { s: 1, ops: 'w(x,1)' },
      { s: 1, ops: 'w(y,1)', status: 'unknown' },
      { s: 1, ops: 'r(x,0)' },
    ],
    expected: { si: 'violation', ser: 'violation' },
  },
  {
    // U1 ; U2, both unknown and both read by R: U2 need not see U1 (U1 may commit later).
    name: 'an unknown txn is not ordered after an earlier unknown txn',
    txns: [
      { s: 1, ops: 'w(y,1)', status: 'unknown' },
      { s: 1, ops: 'r(y,0) w(z,1)', status: 'unknown' },
      { s: 2, ops: 'r(y,1) r(z,1)' },
    ],
    expected: { si: 'valid', ser: 'valid' },
  },
  {
    // A ; U1 ; U2, both read by R: U2 started after A committed, so it must see A (the edge
    // A -> U2 must survive even though U1, which has no edge out, stands between them).
    name: 'an unknown txn still follows the committed txns before it',
    txns: [
      { s: 1, ops: 'w(x,1)' },
      { s: 1, ops: 'w(y,1)', status: 'unknown' },
      { s: 1, ops: 'r(x,0) w(z,1)', status: 'unknown' },
      { s: 2, ops: 'r(y,1) r(z,1)' },
    ],
    expected: { si: 'violation', ser: 'violation' },
  },
  {
    // U ; T where U reads x from T's write: U may still have been in flight when T ran, so this
    // is fine even though U comes first in the session.
    name: 'an unknown txn may even read from a later txn of its session',
    txns: [
      { s: 1, ops: 'r(x,1) w(y,1)', status: 'unknown' },
      { s: 1, ops: 'w(x,1)' },
      { s: 2, ops: 'r(y,1)' },
    ],
    expected: { si: 'valid', ser: 'valid' },
  },
];

for (const c of CASES) {
  test(`session order: ${c.name}`, () => {
    assertVerdicts(tinyHistory(c.txns), c.expected);
  });
}

// Pruning's chain cover may only chain two txns joined by a Dep edge of the graph: chaining an
// unknown txn to its session successor would make reachability over-approximate.
test('chain cover: chains follow real Dep edges, and a session\'s committed txns stay one chain', () => {
  // s1: C1 ; U (unknown, read by R) ; C2 ; U2 (unknown, read by R) ; C3      s2: R
  const h = tinyHistory([
    { s: 1, ops: 'w(x,1)' },
    { s: 1, ops: 'w(y,1)', status: 'unknown' },
    { s: 1, ops: 'w(x,2)' },
    { s: 1, ops: 'w(z,1)', status: 'unknown' },
    { s: 1, ops: 'r(x,2)' },
    { s: 2, ops: 'r(y,1) r(z,1)' },
  ]);
  const v = validate(h);
  assert.equal(v.includedCount, 6);
  const pg = buildPolygraph(v);
  const k = pg.known;
  const g = buildSplitGraph(pg.nodeCount, k.length, k.from.view(), k.to.view(), k.kind.view(), 'si');
  const order = topoOrder(g);
  assert.ok(order !== null);
  const cover = chainCover(h, g, order);
  const hasDep = (a: number, b: number) => {
    for (let e = g.outStart[2 * a]!; e < g.outStart[2 * a + 1]!; e++) if (g.outTo[e] === 2 * b) return true;
    return false;
  };
  for (let c = 0; c < cover.count; c++) {
    const members = [...Array(h.txnCount).keys()].filter((t) => cover.chainOf[t] === c).sort((a, b) => cover.posOf[a]! - cover.posOf[b]!);
    for (let i = 1; i < members.length; i++) assert.ok(hasDep(members[i - 1]!, members[i]!), `chain ${c}: ${members[i - 1]} -> ${members[i]} has no Dep edge`);
  }
  // No SO edge leaves an unknown txn.
  for (let i = 0; i < k.length; i++) if (k.kind.get(i) === K_SO) assert.notEqual(h.txnStatus[k.from.get(i)], TXN_UNKNOWN, `SO edge out of unknown txn ${k.from.get(i)}`);
  // C1, C2 and the last txn (T5) form one chain, in session order.
  assert.equal(cover.chainOf[0], cover.chainOf[2]);
  assert.equal(cover.chainOf[2], cover.chainOf[4]);
  assert.ok(cover.posOf[0]! < cover.posOf[2]! && cover.posOf[2]! < cover.posOf[4]!);
});
