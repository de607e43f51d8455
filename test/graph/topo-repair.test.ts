/**
 * Pruning's topological orders (src/graph/split.ts): topoOrderSplit (Kahn with each t.n kept
 * next to its t.d) and repairTopoOrder (a grown graph's order from the last one, re-sorting
 * only the runs of positions that backward edges span), against plain Kahn on seeded random
 * graphs at every polygraph level: an order exactly when plain Kahn finds one (null on a
 * cycle), and then a permutation of the nodes in which every edge goes forward.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  backwardSpans, backwardSpansOrResort, buildSplitGraph, repairTopoOrder, splitTable, topoOrder, topoOrderSplit, type SplitGraph,
} from '../../src/graph/split.ts';

const LEVELS = ['ser', 'strict-ser', 'si', 'strict-si', 'pc', 'psi', 'rr'] as const;

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 0x100000000; };
}

/** Fails unless `order` is a permutation of g's nodes in which every edge goes forward. */
function assertSorts(g: SplitGraph, order: Int32Array, what: string): void {
  assert.equal(order.length, g.nodeCount, `${what}: length`);
  const rank = new Int32Array(g.nodeCount).fill(-1);
  for (let i = 0; i < order.length; i++) {
    assert.equal(rank[order[i]!], -1, `${what}: node ${order[i]} twice`);
    rank[order[i]!] = i;
  }
  for (let u = 0; u < g.nodeCount; u++) {
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) {
      assert.ok(rank[u]! < rank[g.outTo[e]!]!, `${what}: edge ${u} -> ${g.outTo[e]} goes backward`);
    }
  }
}

/**
 * Edges over n txns that mostly follow a hidden order (so that many graphs are acyclic), with
 * a few against it (so that some are not).
 */
function randomEdges(r: () => number, n: number, total: number, pAgainst: number): { from: Int32Array; to: Int32Array; kind: Int32Array } {
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); [perm[i], perm[j]] = [perm[j]!, perm[i]!]; }
  const from = new Int32Array(total), to = new Int32Array(total), kind = new Int32Array(total);
  for (let i = 0; i < total; i++) {
    let a = Math.floor(r() * n), b = Math.floor(r() * n);
    if (a === b && pAgainst === 0) b = (a + 1) % n;
    if ((perm[a]! > perm[b]!) !== (r() < pAgainst)) [a, b] = [b, a];
    from[i] = a; to[i] = b; kind[i] = Math.floor(r() * 5);
  }
  return { from, to, kind };
}

test('topoOrderSplit: an order exactly when plain Kahn finds one, with each source t.n right after its t.d (3,000 seeded graphs)', () => {
  let acyclic = 0, cyclic = 0, twinsChecked = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const r = rng(seed);
    const n = 1 + Math.floor(r() * 30);
    const total = Math.floor(r() * 3 * n);
    const { from, to, kind } = randomEdges(r, n, total, r() < 0.5 ? 0 : 0.03);
    const level = LEVELS[seed % LEVELS.length]!;
    const g = buildSplitGraph(n, total, from, to, kind, level);
    const plain = topoOrder(g), order = topoOrderSplit(g);
    assert.equal(order === null, plain === null, `seed ${seed} ${level}: cyclic differs`);
    if (order === null) { cyclic++; continue; }
    acyclic++;
    assertSorts(g, order, `seed ${seed} ${level}`);
    const rank = new Int32Array(g.nodeCount);
    for (let i = 0; i < order.length; i++) rank[order[i]!] = i;
    const hasIn = new Uint8Array(g.nodeCount);
    for (const v of g.outTo) hasIn[v] = 1;
    for (let t = 0; t < n; t++) {
      if (hasIn[2 * t + 1] === 1) continue;
      assert.equal(rank[2 * t + 1], rank[2 * t]! + 1, `seed ${seed} ${level}: t${t}.n is not right after t${t}.d`);
      twinsChecked++;
    }
  }
  assert.ok(acyclic > 1500 && cyclic > 100, `acyclic ${acyclic}, cyclic ${cyclic}`);
  assert.ok(twinsChecked > 4000, `only ${twinsChecked} twins checked`);
});

/**
 * The order topoOrderSplit promises, written plainly: Kahn with a FIFO queue, sources in node
 * order, each t.n parked until its t.d is placed and then placed right after it; null when some
 * node is never placed.
 */
function twinKahnReference(g: SplitGraph): Int32Array | null {
  const N = g.nodeCount;
  const indeg = new Int32Array(N);
  for (const v of g.outTo) indeg[v]!++;
  const placed = new Uint8Array(N), parked = new Uint8Array(N);
  const out: number[] = [];
  const place = (u: number): void => {
    if ((u & 1) === 1 && placed[u - 1] === 0) { parked[u] = 1; return; }
    out.push(u); placed[u] = 1;
    if ((u & 1) === 0 && parked[u + 1] === 1) { parked[u + 1] = 0; out.push(u + 1); placed[u + 1] = 1; }
  };
  for (let u = 0; u < N; u++) if (indeg[u] === 0) place(u);
  for (let head = 0; head < out.length; head++) {
    const u = out[head]!;
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) if (--indeg[g.outTo[e]!]! === 0) place(g.outTo[e]!);
  }
  return out.length === N ? Int32Array.from(out) : null;
}

test('topoOrderSplit: exactly the twin-Kahn order of a plain reference, else plain Kahn\'s answer (3,000 seeded graphs)', () => {
  let same = 0, fallback = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const r = rng(7919 * seed);
    const n = 1 + Math.floor(r() * 40);
    const total = Math.floor(r() * 4 * n);
    const { from, to, kind } = randomEdges(r, n, total, r() < 0.5 ? 0 : 0.03);
    const level = LEVELS[seed % LEVELS.length]!;
    const g = buildSplitGraph(n, total, from, to, kind, level);
    const want = twinKahnReference(g), got = topoOrderSplit(g);
    if (want !== null) { assert.deepEqual(got, want, `seed ${seed} ${level}`); same++; continue; }
    assert.deepEqual(got, topoOrder(g), `seed ${seed} ${level}: the fallback`);
    fallback++;
  }
  assert.ok(same > 1500 && fallback > 100, `same ${same}, fallback ${fallback}`);
});

/**
 * A seeded case of a graph that grows: `total` edges over n txns at a level chosen by the seed,
 * of which the first `cut` make the first graph, sorted by the twins' order (as pruning) or
 * plain Kahn's (`order0`); null when that first graph is cyclic. `r` goes on with the seed's draws.
 */
function grownCase(seed: number) {
  const r = rng(seed);
  const n = 2 + Math.floor(r() * 60);
  const total = Math.floor(r() * 4 * n);
  const { from, to, kind } = randomEdges(r, n, total, r() < 0.6 ? 0 : 0.02);
  const level = LEVELS[seed % LEVELS.length]!;
  const tbl = splitTable(level);
  const cut = Math.floor(r() * (total + 1));
  const g0 = buildSplitGraph(n, cut, from, to, kind, level);
  const order0 = r() < 0.5 ? topoOrderSplit(g0) : topoOrder(g0);
  return order0 === null ? null : { r, n, total, from, to, kind, level, tbl, cut, order0 };
}

test('repairTopoOrder: the grown graph sorted exactly when plain Kahn sorts it, re-sorting only spanned runs (4,000 seeded cases)', () => {
  let repaired = 0, foundCyclic = 0, partial = 0;
  for (let seed = 1; seed <= 4000; seed++) {
    const grown = grownCase(seed);
    if (grown === null) continue;
    const { n, total, from, to, kind, level, tbl, cut, order0 } = grown;
    const g = buildSplitGraph(n, total, from, to, kind, level);
    const plain = topoOrder(g);
    const spans = backwardSpans(order0, cut, total, from, to, kind, tbl);
    if (spans === null) {
      assert.ok(plain !== null, `seed ${seed} ${level}: no backward edge, yet cyclic`);
      assertSorts(g, order0, `seed ${seed} ${level} (unchanged)`);
      continue;
    }
    let spanned = 0;
    for (let i = 0, depth = 0; i < g.nodeCount; i++) { depth += spans[i]!; if (depth > 0) spanned++; }
    if (spanned * 2 <= g.nodeCount) partial++;
    const before = order0.slice();
    const order = repairTopoOrder(g, order0, spans);
    assert.equal(order === null, plain === null, `seed ${seed} ${level}: cyclic differs`);
    if (order === null) { foundCyclic++; continue; }
    assertSorts(g, order, `seed ${seed} ${level}`);
    if (spanned * 2 <= g.nodeCount) {
      // Positions no backward edge spans keep their node.
      const depthAt = new Int32Array(g.nodeCount);
      const fresh = backwardSpans(before, cut, total, from, to, kind, tbl)!;
      for (let i = 0, depth = 0; i < g.nodeCount; i++) { depth += fresh[i]!; depthAt[i] = depth; }
      for (let i = 0; i < g.nodeCount; i++) if (depthAt[i] === 0) assert.equal(order[i], before[i], `seed ${seed}: position ${i} moved`);
    }
    repaired++;
  }
  assert.ok(repaired > 1000 && foundCyclic > 100 && partial > 500, `repaired ${repaired}, cyclic ${foundCyclic}, partial ${partial}`);
});

test('backwardSpansOrResort: backwardSpans exactly, or resort only when all the spans cover more than half the positions (4,000 seeded cases, chunks of 1 to 8 edges)', () => {
  let resorts = 0, same = 0, fullyScannedOverHalf = 0;
  for (let seed = 1; seed <= 4000; seed++) {
    const grown = grownCase(seed);
    if (grown === null) continue;
    const { r, n, total, from, to, kind, tbl, cut, order0 } = grown;
    const chunk = 1 + Math.floor(r() * 8);
    const full = backwardSpans(order0, cut, total, from, to, kind, tbl);
    const got = backwardSpansOrResort(order0, cut, total, from, to, kind, tbl, chunk);
    let covered = 0;
    if (full !== null) for (let i = 0, depth = 0; i < 2 * n; i++) { depth += full[i]!; if (depth > 0) covered++; }
    if (got === 'resort') {
      assert.ok(covered * 2 > 2 * n, `seed ${seed}: resort, yet the spans cover ${covered} of ${2 * n}`);
      resorts++;
      continue;
    }
    assert.deepEqual(got, full, `seed ${seed}: spans differ`);
    if (covered * 2 > 2 * n) fullyScannedOverHalf++;
    same++;
  }
  assert.ok(resorts > 300 && same > 1000 && fullyScannedOverHalf > 50, `resorts ${resorts}, same ${same}, scanned to the end over half ${fullyScannedOverHalf}`);
});
