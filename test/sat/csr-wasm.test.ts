/**
 * The solver's adjacency builder (src/sat/csr-wasm.ts): the WebAssembly counting sort against
 * the JS one and against a plain definition (each node's out-edges and in-edges in edge order),
 * on seeded random edge lists with loops and repeated edges; an end out of range is a RangeError.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { adjacency, csrJs, csrKernelBytes } from '../../src/sat/csr-wasm.ts';
import { mulberry32 } from '../support/prng.ts';

// The kernel is what is under test: POLYSI_NO_WASM=1 from outside would select the JS.
delete process.env['POLYSI_NO_WASM'];

test('the adjacency kernel gives the JS counting sort\'s arrays, which are the out- and in-lists in edge order', () => {
  assert.ok(WebAssembly.validate(csrKernelBytes()));
  for (let seed = 1; seed <= 300; seed++) {
    const rng = mulberry32(seed);
    const N = 1 + Math.floor(rng() * (seed % 10 === 0 ? 2000 : 50));
    const m = Math.floor(rng() * 4 * N);
    const from = new Int32Array(m), to = new Int32Array(m), id = new Int32Array(m);
    for (let i = 0; i < m; i++) { from[i] = Math.floor(rng() * N); to[i] = rng() < 0.05 ? from[i]! : Math.floor(rng() * N); id[i] = Math.floor(rng() * 1e6) - 5e5; }
    const wasm = adjacency(N, from, to, id, 'always'), js = csrJs(N, from, to, id);
    assert.deepEqual(wasm, js, `seed ${seed}`);
    for (let u = 0; u < N; u++) {
      const outs: number[] = [], ids: number[] = [], ins: number[] = [];
      for (let i = 0; i < m; i++) {
        if (from[i] === u) { outs.push(to[i]!); ids.push(id[i]!); }
        if (to[i] === u) ins.push(from[i]!);
      }
      assert.deepEqual(Array.from(wasm.outTo.subarray(wasm.outStart[u], wasm.outStart[u + 1])), outs, `seed ${seed}: out of ${u}`);
      assert.deepEqual(Array.from(wasm.outId.subarray(wasm.outStart[u], wasm.outStart[u + 1])), ids, `seed ${seed}: ids of ${u}`);
      assert.deepEqual(Array.from(wasm.inFrom.subarray(wasm.inStart[u], wasm.inStart[u + 1])), ins, `seed ${seed}: in of ${u}`);
    }
    const bare = adjacency(N, from, to, null, 'always');
    assert.deepEqual([bare.outStart, bare.outTo, bare.inStart, bare.inFrom], [js.outStart, js.outTo, js.inStart, js.inFrom], `seed ${seed}: without ids`);
  }
});

test('an edge end out of range is a RangeError, on both paths', () => {
  for (const kernel of ['always', 'never'] as const) {
    for (const [f, t] of [[3, 0], [0, 3], [-1, 0], [0, -2]]) {
      assert.throws(() => adjacency(3, Int32Array.of(0, f!), Int32Array.of(1, t!), null, kernel), RangeError, `${kernel} ${f}->${t}`);
    }
    assert.throws(() => adjacency(3, Int32Array.of(0, 1), Int32Array.of(1), null, kernel), RangeError);
  }
});

test('without memory for the kernel (RangeError), the JS answers', () => {
  const Memory = WebAssembly.Memory;
  (WebAssembly as { Memory: unknown }).Memory = function NoMemory() { throw new RangeError('no memory here'); };
  try {
    const from = Int32Array.of(2, 0, 2), to = Int32Array.of(1, 1, 0), id = Int32Array.of(7, 8, 9);
    assert.deepEqual(adjacency(3, from, to, id, 'always'), csrJs(3, from, to, id));
  } finally {
    (WebAssembly as { Memory: unknown }).Memory = Memory;
  }
});
