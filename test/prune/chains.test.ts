/**
 * The chain cover (src/prune/chains.ts) and the RW lists pruning builds beside it (reach.ts).
 * - `alsoTouched`: txns it marks get a chain even without an edge (pruning passes the constraint
 *   endpoints, which later rounds may connect); a function is called only when the graph leaves
 *   some txn untouched (when none is, it could add nothing). Seeded random DAGs over a few txns.
 * - The scan for a txn's successor stops at the next committed txn of its session, and the
 *   touched txns may come from the first sort's in-degrees: the same cover as the full scan.
 * - RW lists sized by those in-degrees: the same lists as counted from the edges.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type History } from '../../src/history/model.ts';
import { buildSplitGraph, entersNFromDOnly, splitTable, topoOrder, topoOrderSplit, usesRealTime } from '../../src/graph/split.ts';
import { buildPolygraph } from '../../src/graph/polygraph.ts';
import { validate } from '../../src/validate/validate.ts';
import { REACH_CELLS_MAX, ReachTable } from '../../src/prune/reach.ts';
import { K_RW, K_SO, K_WR, K_WW } from '../../src/graph/edges.ts';
import { chainCover } from '../../src/prune/chains.ts';
import { mulberry32, randInt, simulatedSiHistory } from '../support/gen.ts';

/** The columns chainCover reads: every txn committed, in a session of its own. */
function historyOf(n: number): History {
  return { txnCount: n, txnSession: Int32Array.from({ length: n }, (_, t) => t), txnStatus: new Uint8Array(n) } as unknown as History;
}

test('chainCover: txns marked in alsoTouched get a chain, others without an edge none; the function form is called only when a txn is untouched, with the touched txns, and null adds none (2,000 seeded cases)', () => {
  let untouchedCases = 0, allTouchedCases = 0, markedWithoutEdge = 0;
  for (let seed = 1; seed <= 2000; seed++) {
    const rng = mulberry32(seed);
    const n = randInt(rng, 1, 12);
    const m = randInt(rng, 0, 2 * n);
    const from: number[] = [], to: number[] = [];
    // Forward edges in txn order (acyclic).
    for (let i = 0; i < m && n > 1; i++) {
      const a = randInt(rng, 0, n - 2), b = randInt(rng, a + 1, n - 1);
      from.push(a); to.push(b);
    }
    const g = buildSplitGraph(n, from.length, Int32Array.from(from), Int32Array.from(to), new Int32Array(from.length).fill(K_WR), 'si', false);
    const order = topoOrder(g)!;
    const hasEdge = new Uint8Array(n);
    for (let i = 0; i < from.length; i++) { hasEdge[from[i]!] = 1; hasEdge[to[i]!] = 1; }
    const also = Uint8Array.from({ length: n }, () => (rng() < 0.3 ? 1 : 0));
    let calls = 0;
    const h = historyOf(n);
    const viaFunction = chainCover(h, g, order, (touched) => {
      calls++;
      // It sees exactly the txns with an edge.
      assert.deepEqual(touched, hasEdge, `seed ${seed}: the touched txns it is given`);
      return also;
    });
    const viaArray = chainCover(h, g, order, also);
    assert.deepEqual(viaFunction, viaArray, `seed ${seed}: function and array forms differ`);
    // A function answering null adds nothing.
    assert.deepEqual(chainCover(h, g, order, () => null), chainCover(h, g, order, null), `seed ${seed}: null`);
    const untouched = hasEdge.indexOf(0) !== -1;
    assert.equal(calls, untouched ? 1 : 0, `seed ${seed}: alsoTouched called ${calls} times`);
    if (untouched) untouchedCases++; else allTouchedCases++;
    for (let t = 0; t < n; t++) {
      const wanted = hasEdge[t] === 1 || also[t] === 1;
      assert.equal(viaFunction.chainOf[t] !== -1, wanted, `seed ${seed}: txn ${t} ${wanted ? 'has no chain' : 'has a chain'}`);
      if (hasEdge[t] === 0 && also[t] === 1) markedWithoutEdge++;
    }
  }
  assert.ok(untouchedCases > 500 && allTouchedCases > 100 && markedWithoutEdge > 300, `untouched ${untouchedCases}, all touched ${allTouchedCases}, marked without edge ${markedWithoutEdge}`);
});

/** chainCover as it was before its scan could stop at the next committed txn: every Dep edge read. */
function coverReference(h: History, g: ReturnType<typeof buildSplitGraph>, order: Int32Array): { chainOf: Int32Array; posOf: Int32Array; count: number } {
  const n = h.txnCount;
  const touched = new Uint8Array(n);
  for (let u = 0; u < g.nodeCount; u++) for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) { touched[u >> 1] = 1; touched[g.outTo[e]! >> 1] = 1; }
  const chainOf = new Int32Array(n).fill(-1), posOf = new Int32Array(n);
  let count = 0;
  for (const u of order) {
    if ((u & 1) === 1 || touched[u >> 1] === 0) continue;
    const p = u >> 1;
    if (chainOf[p] === -1) { chainOf[p] = count++; posOf[p] = 0; }
    let best = -1, bestRank = -1;
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      const v = g.outTo[e]!;
      if ((v & 1) === 1 || chainOf[v >> 1] !== -1) continue;
      const t = v >> 1;
      const rank = h.txnSession[t] === h.txnSession[p] && t > p ? (h.txnStatus[t] === TXN_COMMITTED ? 2 : 1) : 0;
      if (rank > bestRank || (rank === bestRank && rank > 0 && t < best)) { best = t; bestRank = rank; }
    }
    if (best !== -1) { chainOf[best] = chainOf[p]!; posOf[best] = posOf[p]! + 1; }
  }
  return { chainOf, posOf, count };
}

test('chainCover: the same chains as a scan of every Dep edge (with the in-degrees given or not), on seeded sessions with session-order edges first, other edges in any order, and txns of every outcome (3,000 cases)', () => {
  let stoppedEarly = 0, longChains = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const rng = mulberry32(70_000 + seed);
    const sessions = randInt(rng, 1, 4), n = randInt(rng, 2, 16);
    // Txns grouped by session, in session order; outcomes at random.
    const txnSession = Int32Array.from({ length: n }, (_, t) => Math.min(sessions - 1, Math.floor((t * sessions) / n)));
    const txnStatus = Uint8Array.from({ length: n }, () => (rng() < 0.7 ? TXN_COMMITTED : rng() < 0.5 ? TXN_UNKNOWN : TXN_ABORTED));
    const h = { txnCount: n, txnSession, txnStatus } as unknown as History;
    const from: number[] = [], to: number[] = [], kind: number[] = [];
    // Session order as construction makes it (polygraph.ts): into each non-aborted txn from the
    // last committed one before it, first in the edge list; at random, left out.
    const withSo = rng() < 0.8;
    for (let t = 1; t < n && withSo; t++) {
      if (txnStatus[t] === TXN_ABORTED) continue;
      let last = t - 1;
      while (last >= 0 && txnSession[last] === txnSession[t] && txnStatus[last] !== TXN_COMMITTED) last--;
      if (last >= 0 && txnSession[last] === txnSession[t]) { from.push(last); to.push(t); kind.push(K_SO); }
    }
    // Other edges forward in txn order (acyclic), of Dep and RW kinds.
    const m = randInt(rng, 0, 3 * n);
    for (let i = 0; i < m; i++) {
      const a = randInt(rng, 0, n - 2), b = randInt(rng, a + 1, n - 1);
      from.push(a); to.push(b); kind.push([K_WR, K_WW, K_RW][randInt(rng, 0, 2)]!);
    }
    const g = buildSplitGraph(n, from.length, Int32Array.from(from), Int32Array.from(to), Int32Array.from(kind), 'si', false);
    const order = topoOrder(g)!;
    const got = chainCover(h, g, order);
    const want = coverReference(h, g, order);
    const at = `seed ${seed}`;
    assert.equal(got.count, want.count, `${at}: chains`);
    assert.deepEqual(got.chainOf, want.chainOf, `${at}: chainOf`);
    assert.deepEqual(got.posOf, want.posOf, `${at}: posOf`);
    // Given the graph's in-degrees (as the first sort hands them over), the same cover.
    const inDegrees = new Int32Array(g.nodeCount);
    assert.ok(topoOrderSplit(g, inDegrees) !== null);
    assert.deepEqual(chainCover(h, g, order, null, inDegrees), got, `${at}: with in-degrees`);
    if (withSo) stoppedEarly++;
    if (got.chainLength.some((l) => l >= 3)) longChains++;
  }
  assert.ok(stoppedEarly > 2000 && longChains > 1000, `${stoppedEarly} with session order, ${longChains} with a chain of 3 or more`);
});

test('RW lists sized by the first graph\'s .n in-degrees equal lists counted from the edges, at every level where .n nodes are entered only from .d nodes (not PC)', () => {
  const levels = ['ser', 'si', 'pc', 'psi', 'rr', 'strict-si', 'strict-ser'] as const;
  for (const level of levels) assert.equal(entersNFromDOnly(splitTable(level)), level !== 'pc', level);
  let compared = 0, nonEmpty = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const rng = mulberry32(80_000 + seed);
    const h = simulatedSiHistory(rng, { sessions: 4, txnsPerSession: 8, keys: 4, bug: seed % 3 === 0 ? 'mixed' : 'none' });
    const v = validate(h);
    if (v.anomalies.length > 0) continue;
    for (const level of levels) {
      const pg = buildPolygraph(v, Number.POSITIVE_INFINITY, undefined, usesRealTime(level));
      const k = pg.known.views(), tbl = splitTable(level);
      const g = buildSplitGraph(pg.nodeCount, k.from.length, k.from, k.to, k.kind, level, false);
      const inDegrees = new Int32Array(g.nodeCount);
      const order = topoOrderSplit(g, inDegrees);
      if (order === null || !entersNFromDOnly(tbl)) continue;
      const table = ReachTable.build(h, g, order, REACH_CELLS_MAX, null, Number.POSITIVE_INFINITY);
      const rwOnly = { kind: k.kind, intoN: tbl.intoN };
      const counted = table.columns(k.from.length, k.from, k.to, rwOnly);
      const sized = table.columns(k.from.length, k.from, k.to, rwOnly, inDegrees);
      const at = `seed ${seed} ${level}`;
      assert.deepEqual(sized.rwStart, counted.rwStart, `${at}: starts`);
      assert.deepEqual(sized.rwSess, counted.rwSess, `${at}: columns`);
      assert.deepEqual(sized.rwPos, counted.rwPos, `${at}: positions`);
      compared++;
      if (counted.rwStart[h.txnCount]! > 0) nonEmpty++;
    }
  }
  assert.ok(compared > 800 && nonEmpty > 200, `${compared} compared, ${nonEmpty} with RW lists`);
});
