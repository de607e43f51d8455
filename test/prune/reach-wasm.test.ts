/**
 * The WebAssembly kernel of pruning's reachability (src/prune/reach-wasm.ts) must compute the
 * same table as the JS passes of src/prune/reach.ts, cell for cell, and the same changed rows:
 * thousands of seeded random DAGs (random orders, parallel edges, untracked and chainless
 * txns, row widths S below 4, at multiples of 4 and between), a full pass, then edges added
 * in batches and brought in by the incremental update or by another full pass.
 * Also: POLYSI_NO_WASM=1 selects the JS passes, the module validates, and the one policy
 * (util/wasm.ts's kernelRuns) keeps small tables in JS unless a test asks for the kernel.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { SplitGraph } from '../../src/graph/split.ts';
import { minReachablePositions, updateRows } from '../../src/prune/reach.ts';
import { embeddedKernelBytes, kernelWanted, wasmAvailable, WasmReach } from '../../src/prune/reach-wasm.ts';
import { KERNEL_MIN_CELLS } from '../../src/util/wasm.ts';
import { mulberry32, randInt, type Rng } from '../support/gen.ts';

const INF_MS = Number.POSITIVE_INFINITY;
const WIDTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 25, 31, 40];

function csr(N: number, from: number[], to: number[]): SplitGraph {
  const outStart = new Int32Array(N + 1);
  for (const u of from) outStart[u + 1]!++;
  for (let u = 0; u < N; u++) outStart[u + 1]! += outStart[u]!;
  const fill = outStart.slice(0, N), outTo = new Int32Array(from.length);
  from.forEach((u, i) => { outTo[fill[u]!++] = to[i]!; });
  return { nodeCount: N, outStart, outTo, outEdge: new Int32Array(0) };
}

/** Random forward edges of `order` (a random permutation of the N nodes), parallel ones included. */
function addEdges(rng: Rng, order: Int32Array, from: number[], to: number[], count: number): void {
  const N = order.length;
  for (let k = 0; k < count && N > 1; k++) {
    const i = randInt(rng, 0, N - 2), j = randInt(rng, i + 1, N - 1);
    from.push(order[i]!); to.push(order[j]!);
    if (rng() < 0.1) { from.push(order[i]!); to.push(order[j]!); }
  }
}

test('the WebAssembly kernel is available here, and POLYSI_NO_WASM=1 turns it off', () => {
  assert.ok(WebAssembly.validate(embeddedKernelBytes()), 'the kernel module validates');
  assert.equal(wasmAvailable(), true);
  const old = process.env['POLYSI_NO_WASM'];
  try {
    process.env['POLYSI_NO_WASM'] = '1';
    assert.equal(wasmAvailable(), false);
    const g = csr(2, [0], [1]);
    assert.equal(WasmReach.create(1, new Int32Array(1), new Int32Array(1), g, 0), null);
  } finally {
    if (old === undefined) delete process.env['POLYSI_NO_WASM'];
    else process.env['POLYSI_NO_WASM'] = old;
  }
});

test('kernel rows equal the JS passes on thousands of random graphs (full pass, incremental update, full pass again)', () => {
  let graphs = 0, updates = 0, changedRows = 0;
  for (let seed = 1; seed <= 2500; seed++) {
    const rng = mulberry32(seed);
    const n = randInt(rng, 1, seed % 10 === 0 ? 300 : 40), N = 2 * n;
    const S = WIDTHS[seed % WIDTHS.length]!;
    const order = Int32Array.from({ length: N }, (_, i) => i);
    for (let i = N - 1; i > 0; i--) { const j = randInt(rng, 0, i); [order[i], order[j]] = [order[j]!, order[i]!]; }
    // Columns: some txns untracked (-1); positions small so that chains collide.
    const sess = Int32Array.from({ length: n }, () => (rng() < 0.15 ? -1 : randInt(rng, 0, S - 1)));
    const pos = Int32Array.from({ length: n }, () => randInt(rng, 0, 12));
    const from: number[] = [], to: number[] = [];
    addEdges(rng, order, from, to, randInt(rng, 0, 3 * N));
    let g = csr(N, from, to);
    const js = new Int32Array(N * S);
    minReachablePositions(g, order, S, sess, pos, js, INF_MS);
    // Room reserved for every later graph, or (odd seeds) none: the memory then grows.
    const kernel = WasmReach.create(S, sess, pos, g, seed % 2 === 0 ? 8 * N + 10 : 0);
    assert.ok(kernel !== null);
    kernel.full(g, order, INF_MS);
    assert.deepEqual(kernel.table, js, `seed ${seed}: full pass`);
    graphs++;
    for (let round = 0; round < 3; round++) {
      const before = from.length;
      addEdges(rng, order, from, to, randInt(rng, 1, round === 2 ? 2 * N : 6));
      g = csr(N, from, to);
      const grown = new Uint8Array(N);
      for (let i = before; i < from.length; i++) grown[from[i]!] = 1;
      if (rng() < 0.75) {
        const jsChanged = updateRows(g, order, S, js, grown, INF_MS);
        const wChanged = kernel.update(g, order, grown, INF_MS);
        assert.deepEqual(kernel.table, js, `seed ${seed} round ${round}: update`);
        assert.deepEqual(wChanged, jsChanged, `seed ${seed} round ${round}: changed rows`);
        for (const c of jsChanged) changedRows += c;
        updates++;
      } else {
        minReachablePositions(g, order, S, sess, pos, js, INF_MS);
        kernel.full(g, order, INF_MS);
        assert.deepEqual(kernel.table, js, `seed ${seed} round ${round}: full pass after growth`);
      }
    }
  }
  assert.equal(graphs, 2500);
  assert.ok(updates > 4000 && changedRows > 10_000, `updates ${updates}, changed rows ${changedRows}`);
});

test('the kernel honours the deadline between blocks', () => {
  const N = 20_000, S = 4;
  const order = Int32Array.from({ length: N }, (_, i) => i);
  const g = csr(N, [], []);
  const kernel = WasmReach.create(S, new Int32Array(N / 2), new Int32Array(N / 2), g, 0)!;
  assert.throws(() => kernel.full(g, order, Date.now() - 1), { name: 'TimeLimitError' });
});

test('pruning with the kernel (passes and scan) decides exactly what the JS passes decide, at every level', async () => {
  const { validate } = await import('../../src/validate/validate.ts');
  const { buildPolygraph } = await import('../../src/graph/polygraph.ts');
  const { usesRealTime } = await import('../../src/graph/split.ts');
  const { pruneConstraints } = await import('../../src/prune/prune.ts');
  const { randomHistory, simulatedSiHistory } = await import('../support/gen.ts');
  const levels = ['ser', 'si', 'pc', 'psi', 'rr', 'strict-si', 'strict-ser'] as const;
  // These tables are small: the kernel must run on them all the same ('always').
  let cases = 0, decided = 0, cyclic = 0, kernelTables = 0;
  {
    for (let seed = 1; seed <= 500; seed++) {
      const rng = mulberry32(seed);
      const h = seed % 2 === 0
        ? randomHistory(rng, { sessionsMax: 5, txnsPerSessionMax: 8, txnsMax: 30, keysMax: 4, opsPerTxnMax: 4 })
        : simulatedSiHistory(rng, { sessions: 5, txnsPerSession: 8, keys: 5, bug: seed % 4 === 1 ? 'none' : 'mixed' });
      const v = validate(h);
      if (v.anomalies.length > 0) continue;
      const level = levels[seed % levels.length]!;
      const run = (kernel: 'always' | 'never') => {
        const pg = buildPolygraph(v, INF_MS, undefined, usesRealTime(level));
        const p = pruneConstraints(h, pg, {
          level, roundsMax: 1000, deadlineMs: INF_MS, stopBelowFraction: seed % 3 === 0 ? 0.5 : 0, kernel,
        });
        const k = pg.known.views();
        return {
          p: { active: Array.from(p.active), activeCount: p.activeCount, rounds: p.rounds, cyclic: p.cyclic, note: p.note, order: p.order && Array.from(p.order) },
          provenance: { forced: Array.from(p.provenance.forcedCe.view()), blocking: Array.from(p.provenance.blockingCe), reachKnown: Array.from(p.provenance.reachKnown) },
          known: [Array.from(k.from), Array.from(k.to), Array.from(k.kind)],
          table: p.reach === null ? null : { S: p.reach.S, minPos: Array.from(p.reach.minPos), wasm: p.reach.usesWasm },
        };
      };
      const js = run('never'), wasm = run('always');
      assert.equal(js.table?.wasm ?? false, false);
      if (wasm.table !== null) { assert.equal(wasm.table.wasm, true); kernelTables++; delete (wasm.table as { wasm?: boolean }).wasm; delete (js.table as { wasm?: boolean }).wasm; }
      assert.deepEqual(wasm, js, `seed ${seed} ${level}`);
      cases++;
      decided += js.p.active.length - js.p.activeCount;
      if (js.p.cyclic) cyclic++;
    }
  }
  assert.ok(cases > 150 && decided > 1000 && cyclic > 5 && cases - cyclic > 50 && kernelTables > 40, `cases ${cases}, decided ${decided}, cyclic ${cyclic}, kernel tables ${kernelTables}`);
});

test('small tables keep the JS passes unless the caller asks for the kernel', () => {
  assert.equal(kernelWanted(KERNEL_MIN_CELLS - 1), false);
  assert.equal(kernelWanted(KERNEL_MIN_CELLS), true);
  assert.equal(kernelWanted(1, 'always'), true);
  assert.equal(kernelWanted(KERNEL_MIN_CELLS, 'never'), false);
});
