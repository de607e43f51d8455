/**
 * The model check's Kahn (src/solve/kahn.ts): the WebAssembly kernel against the JS passes and
 * against a recursive depth-first search, on seeded random graph pairs (a CSR and an edge list;
 * acyclic by construction, or with cycles that need both graphs, one graph, or a loop), each
 * also the other way round; malformed graphs are errors.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { embeddedKahnBytes, kahnCount, kahnCountJs, type Csr, type EdgeList } from '../../src/solve/kahn.ts';
import { mulberry32, type Rng } from '../support/prng.ts';

// The kernel is what is under test: POLYSI_NO_WASM=1 from outside would select the JS passes.
delete process.env['POLYSI_NO_WASM'];

function csr(N: number, from: number[], to: number[]): Csr {
  const start = new Int32Array(N + 1);
  for (const u of from) start[u + 1]!++;
  for (let u = 0; u < N; u++) start[u + 1]! += start[u]!;
  const fill = start.slice(0, N), heads = new Int32Array(from.length);
  from.forEach((u, i) => { heads[fill[u]!]! = to[i]!; fill[u]!++; });
  return { start, to: heads };
}

/** Does the union have a cycle? Colouring DFS, recursive (the graphs here are small). */
function cyclic(N: number, a: Csr, b: Csr): boolean {
  const colour = new Uint8Array(N);
  const visit = (u: number): boolean => {
    colour[u] = 1;
    for (const g of [a, b]) {
      for (let e = g.start[u]!; e < g.start[u + 1]!; e++) {
        const v = g.to[e]!;
        if (colour[v] === 1 || (colour[v] === 0 && visit(v))) return true;
      }
    }
    colour[u] = 2;
    return false;
  };
  for (let u = 0; u < N; u++) if (colour[u] === 0 && visit(u)) return true;
  return false;
}

/** Two random graphs on N nodes, forwards in a random order; `back` edges of b (and of a, with `aBack`) against it. */
function pair(rng: Rng, N: number, m: number, back: number, aBack: number): { a: Csr; b: Csr } {
  const order = Array.from({ length: N }, (_, i) => i);
  for (let i = N - 1; i > 0; i--) { const j = Math.floor(rng() * (i + 1)); [order[i], order[j]] = [order[j]!, order[i]!]; }
  const edges = (count: number, against: number) => {
    const from: number[] = [], to: number[] = [];
    for (let i = 0; i < count; i++) {
      let x = Math.floor(rng() * N), y = Math.floor(rng() * N);
      if (x === y) continue;
      if ((x < y) === (i < against)) [x, y] = [y, x];
      from.push(order[x]!); to.push(order[y]!);
    }
    return { from, to };
  };
  const ea = edges(m, aBack), eb = edges(Math.floor(m / 4), back);
  return { a: csr(N, ea.from, ea.to), b: csr(N, eb.from, eb.to) };
}

test('the WebAssembly Kahn sorts what the JS passes sort, and all of an acyclic union only', () => {
  assert.ok(WebAssembly.validate(embeddedKahnBytes()));
  const tally = { acyclic: 0, cyclic: 0 };
  for (let seed = 1; seed <= 400; seed++) {
    const rng = mulberry32(seed);
    const N = 1 + Math.floor(rng() * (seed % 10 === 0 ? 3000 : 60));
    const m = Math.floor(rng() * 4 * N);
    const back = seed % 3 === 0 ? 0 : Math.floor(rng() * 3);
    const aBack = seed % 7 === 0 ? 1 : 0;
    const { a, b } = pair(rng, N, m, back, aBack);
    if (seed % 11 === 0 && N > 1) {
      // A loop u -> u in b: a cycle of one edge.
      const u = Math.floor(rng() * N);
      const loop = csr(N, [...edgesOf(b).from, u], [...edgesOf(b).to, u]);
      b.start = loop.start; b.to = loop.to;
    }
    const expected = cyclic(N, a, b);
    const wasm = kahnCount(N, a, list(b), 'always'), js = kahnCountJs(N, a, list(b));
    assert.equal(wasm, js, `seed ${seed}: the kernel and the JS passes`);
    assert.equal(wasm === N, !expected, `seed ${seed}: sorted ${wasm} of ${N}, cyclic ${expected}`);
    assert.equal(kahnCount(N, b, list(a), 'always'), wasm, `seed ${seed}: the graphs swapped`);
    tally[expected ? 'cyclic' : 'acyclic']++;
  }
  assert.ok(tally.acyclic >= 100 && tally.cyclic >= 100, JSON.stringify(tally));
});

function list(g: Csr): EdgeList {
  const e = edgesOf(g);
  return { from: Int32Array.from(e.from), to: Int32Array.from(e.to) };
}

function edgesOf(g: Csr): { from: number[]; to: number[] } {
  const from: number[] = [], to: number[] = [];
  for (let u = 0; u + 1 < g.start.length; u++) for (let e = g.start[u]!; e < g.start[u + 1]!; e++) { from.push(u); to.push(g.to[e]!); }
  return { from, to };
}

for (const path of ['always', 'never'] as const) test(`the model check refuses malformed graphs instead of reading past them (kernel ${path})`, () => {
  const good = csr(3, [0, 1], [1, 2]);
  const empty = { from: new Int32Array(0), to: new Int32Array(0) };
  assert.equal(kahnCount(3, good, empty, path), 3);
  assert.equal(kahnCount(3, good, { from: Int32Array.of(2), to: Int32Array.of(0) }, path), 0);
  const bad = (g: Csr) => assert.throws(() => kahnCount(3, g, empty, path), /malformed CSR/);
  const badList = (b: EdgeList) => assert.throws(() => kahnCount(3, good, b, path), /malformed CSR/);
  badList({ from: Int32Array.of(0, 1), to: Int32Array.of(2) }); // lengths differ
  badList({ from: Int32Array.of(3), to: Int32Array.of(0) }); // a tail past the nodes
  badList({ from: Int32Array.of(0), to: Int32Array.of(3) }); // a head past the nodes
  badList({ from: Int32Array.of(-1), to: Int32Array.of(0) }); // a negative tail
  bad({ start: new Int32Array([0, 1, 2]), to: new Int32Array([1, 2]) }); // too few starts
  bad({ start: new Int32Array([0, 1, 2, 3]), to: new Int32Array([1, 2]) }); // last start is not the edge count
  bad({ start: new Int32Array([0, 1, 2, 2]), to: new Int32Array([1, 3]) }); // a head past the nodes
  bad({ start: new Int32Array([0, 1, 2, 2]), to: new Int32Array([1, -1]) }); // a negative head
  bad({ start: new Int32Array([0, 2, 1, 2]), to: new Int32Array([1, 2]) }); // a start that decreases
});

test('without memory for the kernel (RangeError), the JS passes answer', () => {
  const Memory = WebAssembly.Memory;
  (WebAssembly as { Memory: unknown }).Memory = function NoMemory() { throw new RangeError('no memory here'); };
  try {
    const g = csr(3, [0, 1], [1, 2]);
    assert.equal(kahnCount(3, g, { from: Int32Array.of(2), to: Int32Array.of(0) }, 'always'), 0);
    assert.equal(kahnCount(3, g, { from: Int32Array.of(0), to: Int32Array.of(2) }, 'always'), 3);
  } finally {
    (WebAssembly as { Memory: unknown }).Memory = Memory;
  }
});
