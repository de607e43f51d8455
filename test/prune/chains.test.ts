/**
 * The chain cover's `alsoTouched` (src/prune/chains.ts): txns it marks get a chain even without
 * an edge (pruning passes the constraint endpoints, which later rounds may connect), and when
 * it is a function it is called only when the graph leaves some txn untouched (when none is,
 * it could add nothing). Seeded random DAGs over a few txns, some of them without any edge.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { History } from '../../src/history/model.ts';
import { buildSplitGraph, topoOrder } from '../../src/graph/split.ts';
import { K_WR } from '../../src/graph/edges.ts';
import { chainCover } from '../../src/prune/chains.ts';
import { mulberry32, randInt } from '../support/gen.ts';

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
