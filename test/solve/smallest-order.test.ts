/**
 * solve.ts's `smallestOrder` (the phase-consistent renumbering's Kahn: a scan pointer, and a heap
 * only for nodes that become ready behind it) against the plain Kahn with a min-heap it replaces
 * (written out here: repeatedly take the smallest ready node), on seeded random graphs numbered
 * nearly topologically (some edges backwards), numbered at random, and cyclic.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { smallestOrder } from '../../src/solve/solve.ts';
import { mulberry32 } from '../support/prng.ts';

function csr(N: number, from: number[], to: number[]): { start: Int32Array; to: Int32Array; indeg: Int32Array } {
  const start = new Int32Array(N + 1), indeg = new Int32Array(N);
  for (const u of from) start[u + 1]!++;
  for (let u = 0; u < N; u++) start[u + 1]! += start[u]!;
  const fill = start.slice(0, N), heads = new Int32Array(from.length);
  from.forEach((u, i) => { heads[fill[u]!]! = to[i]!; fill[u]!++; indeg[to[i]!]!++; });
  return { start, to: heads, indeg };
}

/** The reference: the smallest ready node each time, found by a scan of all nodes. */
function reference(N: number, g: { start: Int32Array; to: Int32Array; indeg: Int32Array }): Int32Array | null {
  const indeg = g.indeg.slice(), done = new Uint8Array(N), perm = new Int32Array(N);
  for (let placed = 0; placed < N; placed++) {
    let u = 0;
    while (u < N && (done[u] === 1 || indeg[u] !== 0)) u++;
    if (u === N) return null;
    done[u] = 1;
    perm[u] = placed;
    for (let e = g.start[u]!; e < g.start[u + 1]!; e++) indeg[g.to[e]!]!--;
  }
  return perm;
}

test('smallestOrder is the smallest topological order, or null on a cycle', () => {
  const tally = { orders: 0, cyclic: 0, late: 0 };
  for (let seed = 1; seed <= 600; seed++) {
    const rng = mulberry32(seed);
    const N = 1 + Math.floor(rng() * (seed % 20 === 0 ? 400 : 40));
    const m = Math.floor(rng() * 3 * N);
    const shape = seed % 3; // 0: forwards with a few backward edges, 1: random numbering, 2: forwards only
    const from: number[] = [], to: number[] = [];
    for (let i = 0; i < m; i++) {
      let a = Math.floor(rng() * N), b = Math.floor(rng() * N);
      if (a === b) continue;
      if (shape !== 1 && a > b) [a, b] = [b, a];
      if (shape === 0 && rng() < 0.05) [a, b] = [b, a];
      from.push(a); to.push(b);
    }
    const g = csr(N, from, to);
    const expected = reference(N, g);
    const got = smallestOrder(N, g.start, g.to, g.indeg.slice());
    assert.deepEqual(got === null ? null : Array.from(got), expected === null ? null : Array.from(expected), `seed ${seed}`);
    if (expected === null) tally.cyclic++;
    else {
      tally.orders++;
      for (let u = 0; u < N; u++) if (expected[u] !== u) { tally.late++; break; }
    }
  }
  assert.ok(tally.orders > 200 && tally.cyclic > 50 && tally.late > 100, JSON.stringify(tally));
});
