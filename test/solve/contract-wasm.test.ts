/**
 * contract.ts's edge pass as WebAssembly (src/solve/contract-wasm.ts) against its JS pass, edge
 * for edge (same nodes, same edges in the same order), on seeded simulated SI stores (2-25
 * sessions, with and without bugs) and crossed-reader shapes, pruned 0, 1 or many rounds, with
 * all constraints and with the active ones. test/check/contraction.test.ts checks what the
 * edges mean (the same reachability as the known graph), through the kernel.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { validate } from '../../src/validate/validate.ts';
import { buildPolygraph } from '../../src/graph/polygraph.ts';
import { usesRealTime } from '../../src/graph/split.ts';
import { pruneConstraints } from '../../src/prune/prune.ts';
import { contract } from '../../src/solve/contract.ts';
import { edgeKernel, embeddedContractKernelBytes } from '../../src/solve/contract-wasm.ts';
import type { History } from '../../src/history/model.ts';
import type { Level } from '../../src/result/types.ts';
import { caseSeed, mulberry32, randInt, simulatedSiHistory } from '../support/gen.ts';
import { crossedReadersHistory } from '../support/gen-solver.ts';

// The kernel is what is under test: POLYSI_NO_WASM=1 from outside would select the JS pass.
delete process.env['POLYSI_NO_WASM'];

const LEVELS: Level[] = ['si', 'ser', 'strict-si', 'strict-ser', 'psi', 'rr'];

test('the contraction kernel gives the JS pass\'s edges, in its order', () => {
  assert.ok(WebAssembly.validate(embeddedContractKernelBytes()));
  const tally = { compared: 0, edges: 0, cEdges: 0 };
  for (let i = 0; i < 240; i++) {
    const rng = mulberry32(caseSeed(0x5c1, i));
    const h: History = i % 4 === 3 ? crossedReadersHistory(rng) : simulatedSiHistory(rng, {
      sessions: randInt(rng, 2, 25), txnsPerSession: randInt(rng, 3, 30), keys: randInt(rng, 3, 40),
      pRead: 0.3 + 0.5 * rng(), bug: rng() < 0.3 ? 'mixed' : 'none', pBug: 0.02,
    });
    const level = LEVELS[i % LEVELS.length]!;
    const v = validate(h, undefined, Number.POSITIVE_INFINITY);
    if (v.anomalies.length > 0) continue;
    const pg = buildPolygraph(v, Number.POSITIVE_INFINITY, undefined, usesRealTime(level));
    const p = pruneConstraints(h, pg, { level, roundsMax: [0, 1, 1000][i % 3]!, deadlineMs: Number.POSITIVE_INFINITY, contractMinTxns: 0 });
    if (p.cyclic || p.order === null || p.reach === null) continue;
    for (const active of [p.active, new Uint8Array(pg.consCount).fill(1)]) {
      const wasm = contract(pg, active, level, p.order, p.reach, Number.POSITIVE_INFINITY, undefined, 'always');
      const js = contract(pg, active, level, p.order, p.reach, Number.POSITIVE_INFINITY, undefined, 'never');
      const what = `case ${i} at ${level}`;
      assert.equal(wasm === null, js === null, what);
      if (wasm === null || js === null) continue;
      assert.deepEqual(wasm.splitOf, js.splitOf, `${what}: nodes`);
      assert.deepEqual(wasm.from, js.from, `${what}: edge tails`);
      assert.deepEqual(wasm.to, js.to, `${what}: edge heads`);
      tally.compared++;
      tally.edges += js.from.length;
      for (let e = 0; e < js.to.length; e++) if ((js.splitOf[js.to[e]!]! & 1) === 1) tally.cEdges++;
    }
  }
  assert.ok(tally.compared >= 120 && tally.edges > 20000 && tally.cEdges > 1000, JSON.stringify(tally));
});

test('without memory for the kernel (RangeError), contract takes its JS pass', () => {
  const Memory = WebAssembly.Memory;
  (WebAssembly as { Memory: unknown }).Memory = function NoMemory() { throw new RangeError('no memory here'); };
  try {
    const into = { start: new Int32Array(2), end: new Int32Array(1), pred: new Int32Array(0) };
    const one = Int32Array.of(0);
    assert.equal(edgeKernel({ splitOf: one, nodeOf: Int32Array.of(0, -1), S: 1, pos: one, minPos: Int32Array.of(0, 0), at: Int32Array.of(0, -1), base: Int32Array.of(0, 1), len: Int32Array.of(1), into }, 'always'), null);
  } finally {
    (WebAssembly as { Memory: unknown }).Memory = Memory;
  }
});
