/**
 * The solver's adjacency builder (src/sat/csr.ts) against a plain definition (each node's
 * out-edges and in-edges in edge order), on seeded random edge lists with loops and repeated
 * edges; an end out of range is a RangeError.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { adjacency } from '../../src/sat/csr.ts';
import { mulberry32 } from '../support/prng.ts';

test('the adjacency holds the out- and in-lists in edge order', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const rng = mulberry32(seed);
    const N = 1 + Math.floor(rng() * (seed % 10 === 0 ? 2000 : 50));
    const m = Math.floor(rng() * 4 * N);
    const from = new Int32Array(m), to = new Int32Array(m), id = new Int32Array(m);
    for (let i = 0; i < m; i++) { from[i] = Math.floor(rng() * N); to[i] = rng() < 0.05 ? from[i]! : Math.floor(rng() * N); id[i] = Math.floor(rng() * 1e6) - 5e5; }
    const adj = adjacency(N, from, to, id);
    assert.equal(adj.outStart[N], m, `seed ${seed}`);
    assert.equal(adj.inStart[N], m, `seed ${seed}`);
    for (let u = 0; u < N; u++) {
      const outs: number[] = [], ids: number[] = [], ins: number[] = [];
      for (let i = 0; i < m; i++) {
        if (from[i] === u) { outs.push(to[i]!); ids.push(id[i]!); }
        if (to[i] === u) ins.push(from[i]!);
      }
      assert.deepEqual(Array.from(adj.outTo.subarray(adj.outStart[u], adj.outStart[u + 1])), outs, `seed ${seed}: out of ${u}`);
      assert.deepEqual(Array.from(adj.outId.subarray(adj.outStart[u], adj.outStart[u + 1])), ids, `seed ${seed}: ids of ${u}`);
      assert.deepEqual(Array.from(adj.inFrom.subarray(adj.inStart[u], adj.inStart[u + 1])), ins, `seed ${seed}: in of ${u}`);
    }
    const bare = adjacency(N, from, to, null);
    assert.deepEqual([bare.outStart, bare.outTo, bare.inStart, bare.inFrom], [adj.outStart, adj.outTo, adj.inStart, adj.inFrom], `seed ${seed}: without ids`);
  }
});

test('an edge end out of range is a RangeError', () => {
  for (const [f, t] of [[3, 0], [0, 3], [-1, 0], [0, -2]]) {
    assert.throws(() => adjacency(3, Int32Array.of(0, f!), Int32Array.of(1, t!), null), RangeError, `${f}->${t}`);
  }
  assert.throws(() => adjacency(3, Int32Array.of(0, 1), Int32Array.of(1), null), RangeError);
});
