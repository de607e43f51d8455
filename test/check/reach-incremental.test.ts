/**
 * The pruning reachability table kept up to date between rounds (src/prune/reach.ts,
 * ReachTable.update) must answer exactly like a graph search of the grown graph: pruning must
 * never over-approximate (soundness) and should not under-approximate either (pruning power).
 * Random histories, constraint sides added to the known graph in batches of random size (one
 * side at a time exercises the incremental path, big batches the full pass), and after every
 * batch every reachesD / reachesN answer is compared with a BFS of the split graph.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { validate } from '../../src/validate/validate.ts';
import { buildPolygraph } from '../../src/graph/polygraph.ts';
import { K_RW } from '../../src/graph/edges.ts';
import { buildSplitGraph, splitTable, topoOrder, type SplitGraph } from '../../src/graph/split.ts';
import { REACH_CELLS_MAX, ReachTable } from '../../src/prune/reach.ts';
import type { Level } from '../../src/result/types.ts';
import { mulberry32, randInt, randomHistory, simulatedSiHistory } from '../support/gen.ts';

function reachableFrom(g: SplitGraph, u: number): Uint8Array {
  const seen = new Uint8Array(g.nodeCount);
  const stack = [u];
  seen[u] = 1;
  while (stack.length > 0) {
    const x = stack.pop()!;
    for (let e = g.outStart[x]!; e < g.outStart[x + 1]!; e++) {
      const v = g.outTo[e]!;
      if (seen[v] === 0) { seen[v] = 1; stack.push(v); }
    }
  }
  return seen;
}

function rwColumns(from: number[], to: number[], kind: number[], level: Level): { f: Int32Array; t: Int32Array } {
  const f: number[] = [], t: number[] = [];
  if (level === 'si') for (let i = 0; i < kind.length; i++) if (kind[i] === K_RW) { f.push(from[i]!); t.push(to[i]!); }
  return { f: Int32Array.from(f), t: Int32Array.from(t) };
}

test('incremental pruning reachability equals a graph search after every batch of added edges', () => {
  let checkedBatches = 0, incrementalBatches = 0, filteredChecks = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const rng = mulberry32(seed);
    const h = seed % 2 === 0
      ? randomHistory(rng, { sessionsMax: 4, txnsPerSessionMax: 5, txnsMax: 14, keysMax: 3, opsPerTxnMax: 4 })
      : simulatedSiHistory(rng, { sessions: 4, txnsPerSession: 6, keys: 4, bug: 'mixed' });
    const v = validate(h);
    if (v.anomalies.length > 0) continue;
    for (const level of ['si', 'ser'] as const) {
      const pg = buildPolygraph(v);
      const k = pg.known.views();
      const from = Array.from(k.from), to = Array.from(k.to), kind = Array.from(k.kind);
      const graph = (): SplitGraph => buildSplitGraph(pg.nodeCount, from.length, Int32Array.from(from), Int32Array.from(to), Int32Array.from(kind), level);
      let g = graph();
      let order = topoOrder(g);
      if (order === null) continue;
      const endpoints = new Uint8Array(h.txnCount);
      for (let e = 0; e < pg.ceFrom.length; e++) { endpoints[pg.ceFrom[e]!] = 1; endpoints[pg.ceTo[e]!] = 1; }
      const table = ReachTable.build(h, g, order, REACH_CELLS_MAX, endpoints, Number.POSITIVE_INFINITY);
      const sides = Array.from({ length: 2 * pg.consCount }, (_, i) => i).filter(() => rng() < 0.5);
      let singlesLeft = 0;
      while (sides.length > 0) {
        const size = singlesLeft > 0 ? 1 : randInt(rng, 1, rng() < 0.5 ? 1 : sides.length);
        if (singlesLeft > 0) singlesLeft--;
        const batch = sides.splice(0, size);
        const before = from.length;
        for (const slot of batch) {
          for (let e = pg.edgeStart[slot]!; e < pg.edgeStart[slot + 1]!; e++) { from.push(pg.ceFrom[e]!); to.push(pg.ceTo[e]!); kind.push(pg.ceKind[e]!); }
        }
        const g2 = graph();
        const order2 = topoOrder(g2);
        if (order2 === null) {
          // Cyclic: undo, and retry the batch's sides one at a time.
          from.length = to.length = kind.length = before;
          if (batch.length > 1) { sides.unshift(...batch); singlesLeft = batch.length; }
          continue;
        }
        const grown = new Uint8Array(g2.nodeCount);
        let grownCount = 0;
        for (let i = before; i < from.length; i++) {
          const nodes = level === 'si' && kind[i] === K_RW ? [2 * from[i]!] : [2 * from[i]!, 2 * from[i]! + 1];
          for (const u of nodes) if (grown[u] === 0) { grown[u] = 1; grownCount++; }
        }
        if (table.update(g2, order2, grown, grownCount, Number.POSITIVE_INFINITY) !== null) incrementalBatches++;
        g = g2; order = order2;
        const rw = rwColumns(from, to, kind, level);
        const reach = table.reach(rw.f.length, rw.f, rw.t);
        // The same lists read in place from every known edge, filtered by kind, some txns only
        // (pruning's later rounds): the wanted txns' answers must not change.
        const wanted = Uint8Array.from({ length: h.txnCount }, () => (rng() < 0.5 ? 1 : 0));
        const filtered = table.reach(from.length, Int32Array.from(from), Int32Array.from(to), { kind: Int32Array.from(kind), intoN: splitTable(level).intoN, wanted });
        for (let u = 0; u < g.nodeCount; u++) {
          const seen = reachableFrom(g, u);
          for (let t = 0; t < h.txnCount; t++) {
            if (endpoints[t] === 0) continue;
            assert.equal(reach.reachesD(u, t), seen[2 * t] === 1, `seed ${seed} ${level}: reachesD(${u}, ${t})`);
            // reachesN(t.n, t) is never asked (pruning asks from .d nodes) and answers false.
            if (level === 'si' && u !== 2 * t + 1) assert.equal(reach.reachesN(u, t), seen[2 * t + 1] === 1, `seed ${seed} ${level}: reachesN(${u}, ${t})`);
            if (level === 'si' && u !== 2 * t + 1 && wanted[t] === 1) {
              assert.equal(filtered.reachesN(u, t), seen[2 * t + 1] === 1, `seed ${seed} ${level}: filtered reachesN(${u}, ${t})`);
              filteredChecks++;
            }
          }
        }
        checkedBatches++;
      }
    }
  }
  // Both paths of update ran, often.
  assert.ok(checkedBatches > 200, `only ${checkedBatches} batches checked`);
  assert.ok(incrementalBatches > 50, `only ${incrementalBatches} batches took the incremental path`);
  assert.ok(filteredChecks > 10000, `only ${filteredChecks} filtered reachesN answers checked`);
});
