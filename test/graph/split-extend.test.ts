/**
 * extendSplitGraph (src/graph/split.ts) against a rebuild: pruning's later rounds extend the last
 * split graph with the edges forced since instead of rebuilding it, so the extension must be the
 * rebuilt graph exactly (out-lists in edge order, edge ids), at every polygraph level, with and
 * without edge ids, extended once or several times in a row.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSplitGraph, extendSplitGraph, forEachSplitEdge, type SplitGraph } from '../../src/graph/split.ts';

const LEVELS = ['ser', 'strict-ser', 'si', 'strict-si', 'pc', 'psi', 'rr'] as const;

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 0x100000000; };
}

/** A random graph's known edges: up to 200 edges of 5 kinds among up to 40 txns. */
function randomCase(r: () => number) {
  const n = 1 + Math.floor(r() * 40);
  const total = Math.floor(r() * 200);
  const from = new Int32Array(total), to = new Int32Array(total), kind = new Int32Array(total);
  for (let i = 0; i < total; i++) { from[i] = Math.floor(r() * n); to[i] = Math.floor(r() * n); kind[i] = Math.floor(r() * 5); }
  return { n, total, from, to, kind };
}

/** Where the edges are cut: the first build, then one to `maxSteps` extensions (some adding nothing); the last cut is every edge. */
function randomCuts(r: () => number, total: number, maxSteps: number): number[] {
  const cuts = [Math.floor(r() * (total + 1))];
  const steps = 1 + Math.floor(r() * maxSteps);
  for (let s = 0; s < steps; s++) cuts.push(cuts[cuts.length - 1]! + Math.floor(r() * (total - cuts[cuts.length - 1]! + 1)));
  cuts[cuts.length - 1] = total;
  return cuts;
}

function same(a: SplitGraph, b: SplitGraph, what: string): void {
  assert.equal(a.nodeCount, b.nodeCount, `${what}: nodeCount`);
  assert.deepEqual(a.outStart, b.outStart, `${what}: outStart`);
  assert.deepEqual(a.outTo, b.outTo, `${what}: outTo`);
  assert.deepEqual(a.outEdge, b.outEdge, `${what}: outEdge`);
}

/** The split graph as its definition says, one edge at a time: each node's list in edge order, then pair order. */
function referenceSplitGraph(n: number, total: number, from: Int32Array, to: Int32Array, kind: Int32Array, level: (typeof LEVELS)[number], withEdges: boolean): SplitGraph {
  const lists: { v: number; e: number }[][] = Array.from({ length: 2 * n }, () => []);
  for (let i = 0; i < total; i++) forEachSplitEdge(from[i]!, to[i]!, kind[i]!, level, (u, v) => { lists[u]!.push({ v, e: i }); });
  const flat = lists.flat();
  const outStart = new Int32Array(2 * n + 1);
  for (let u = 0; u < 2 * n; u++) outStart[u + 1] = outStart[u]! + lists[u]!.length;
  return { nodeCount: 2 * n, outStart, outTo: Int32Array.from(flat, (x) => x.v), outEdge: withEdges ? Int32Array.from(flat, (x) => x.e) : new Int32Array(0) };
}

test('buildSplitGraph (and a later extension) is the graph forEachSplitEdge defines, lists in edge then pair order (2,000 seeded cases, every level)', () => {
  for (let seed = 1; seed <= 2000; seed++) {
    const r = rng(104729 * seed);
    const { n, total, from, to, kind } = randomCase(r);
    const level = LEVELS[seed % LEVELS.length]!;
    const withEdges = r() < 0.5;
    const cut = Math.floor(r() * (total + 1));
    same(buildSplitGraph(n, total, from, to, kind, level, withEdges), referenceSplitGraph(n, total, from, to, kind, level, withEdges), `seed ${seed} ${level}`);
    const g = extendSplitGraph(buildSplitGraph(n, cut, from, to, kind, level, withEdges), cut, total, from, to, kind, level, withEdges);
    same(g, referenceSplitGraph(n, total, from, to, kind, level, withEdges), `seed ${seed} ${level} extended from ${cut}`);
  }
});

test('extending a split graph with new edges gives the rebuilt graph exactly (2,000 seeded cases, every level)', () => {
  let cases = 0, nonEmptyGrowth = 0;
  for (let seed = 1; seed <= 2000; seed++) {
    const r = rng(seed);
    const { n, total, from, to, kind } = randomCase(r);
    const level = LEVELS[seed % LEVELS.length]!;
    const withEdges = r() < 0.5;
    const cuts = randomCuts(r, total, 3);
    let g = buildSplitGraph(n, cuts[0]!, from, to, kind, level, withEdges);
    for (let s = 1; s < cuts.length; s++) {
      g = extendSplitGraph(g, cuts[s - 1]!, cuts[s]!, from, to, kind, level, withEdges);
      if (cuts[s]! > cuts[s - 1]!) nonEmptyGrowth++;
      same(g, buildSplitGraph(n, cuts[s]!, from, to, kind, level, withEdges), `seed ${seed} ${level} cut ${s}`);
    }
    cases++;
  }
  assert.equal(cases, 2000);
  assert.ok(nonEmptyGrowth > 1500, `only ${nonEmptyGrowth} extensions added edges`);
});

test('extending in place (with a capacity) gives the rebuilt graph exactly too (2,000 seeded cases, every level)', () => {
  let inPlace = 0;
  for (let seed = 1; seed <= 2000; seed++) {
    const r = rng(seed + 10_000);
    const { n, total, from, to, kind } = randomCase(r);
    const level = LEVELS[seed % LEVELS.length]!;
    const withEdges = r() < 0.5;
    const cuts = randomCuts(r, total, 4);
    // Sometimes too little room (a copy), mostly enough for every later graph (in place).
    const capacity = r() < 0.2 ? 1 + Math.floor(r() * 50) : 2 * total + 1;
    let g = buildSplitGraph(n, cuts[0]!, from, to, kind, level, withEdges);
    for (let s = 1; s < cuts.length; s++) {
      const buffer = g.outTo.buffer, before = g.outTo.length;
      g = extendSplitGraph(g, cuts[s - 1]!, cuts[s]!, from, to, kind, level, withEdges, capacity);
      if (g.outTo.buffer === buffer && g.outTo.length > before) inPlace++;
      same(g, buildSplitGraph(n, cuts[s]!, from, to, kind, level, withEdges), `seed ${seed} ${level} cut ${s} capacity ${capacity}`);
    }
  }
  assert.ok(inPlace > 1500, `only ${inPlace} extensions that added edges were made in place`);
});

test('extendSplitGraph refuses a range that goes backwards and a graph built with the other edge-id setting', () => {
  const from = Int32Array.of(0, 1), to = Int32Array.of(1, 0), kind = Int32Array.of(0, 1);
  const g = buildSplitGraph(2, 2, from, to, kind, 'ser', false);
  assert.throws(() => extendSplitGraph(g, 2, 1, from, to, kind, 'ser', false), /since 2 > count 1/);
  assert.throws(() => extendSplitGraph(g, 2, 2, from, to, kind, 'ser', true), /withEdges differs/);
});
