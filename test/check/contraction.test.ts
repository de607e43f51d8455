/**
 * The solver's contracted graph (src/solve/contract.ts) against the whole known graph.
 *
 * - Reachability: on every seeded case, for every pair of contracted nodes, "u reaches v in the
 *   contracted graph" must equal "u reaches v in the known split graph" (BFS on both, no shared
 *   code with contract.ts), with the endpoints of every constraint (active or not) and of the
 *   active ones only; and every contracted edge must be a path of the known graph.
 * - Solving: solveConstraints with and without the contraction must give the same result; a
 *   violation's witness cycle must be a real cycle of the known edges plus chosen sides (its
 *   edges meet end to start in the split graph), since explain expands it.
 * Cases: tiny mixed histories, crossed-reader shapes that pruning cannot settle (the solver
 * decides them), and simulated SI stores with and without bugs, at every level the polygraph
 * decides. Seeds are fixed; a failure names the case.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { History } from '../../src/history/model.ts';
import type { Level } from '../../src/result/types.ts';
import { validate } from '../../src/validate/validate.ts';
import { buildPolygraph, type Polygraph } from '../../src/graph/polygraph.ts';
import { buildSplitGraph, forEachSplitEdge, usesRealTime, type SplitGraph } from '../../src/graph/split.ts';
import { pruneConstraints } from '../../src/prune/prune.ts';
import { contract, contractible } from '../../src/solve/contract.ts';
import { solveConstraints } from '../../src/solve/solve.ts';
import { caseSeed, mulberry32, randInt, simulatedSiHistory, tinyMixedHistory } from '../support/gen.ts';
import { crossedReadersHistory } from '../support/gen-solver.ts';
import { TimeLimitError } from '../../src/util/deadline.ts';

const SCALE = Number(process.env['POLYSI_FUZZ_SCALE'] ?? '1');
const LEVELS: Level[] = ['si', 'ser', 'strict-si', 'strict-ser', 'psi', 'rr', 'pc'];

/** Nodes reachable from `s` (s itself included) in a CSR graph. */
function reachable(nodeCount: number, outStart: ArrayLike<number>, outTo: ArrayLike<number>, s: number): Uint8Array {
  const seen = new Uint8Array(nodeCount);
  const stack = [s];
  seen[s] = 1;
  while (stack.length > 0) {
    const u = stack.pop()!;
    for (let e = outStart[u]!; e < outStart[u + 1]!; e++) {
      const v = outTo[e]!;
      if (seen[v] === 0) { seen[v] = 1; stack.push(v); }
    }
  }
  return seen;
}

function csr(n: number, from: Int32Array, to: Int32Array): { start: Int32Array; to: Int32Array } {
  const start = new Int32Array(n + 1);
  for (const u of from) start[u + 1]!++;
  for (let u = 0; u < n; u++) start[u + 1]! += start[u]!;
  const out = new Int32Array(from.length);
  const fill = start.slice(0, n);
  for (let e = 0; e < from.length; e++) out[fill[from[e]!]!++] = to[e]!;
  return { start, to: out };
}

interface Prepared { pg: Polygraph; active: Uint8Array; order: Int32Array; g: SplitGraph; reach: NonNullable<ReturnType<typeof pruneConstraints>['reach']> | null; pruneGraph: SplitGraph | null }

function prepare(h: History, level: Level): Prepared | null {
  const v = validate(h, undefined, Number.POSITIVE_INFINITY);
  if (v.anomalies.length > 0) return null;
  const pg = buildPolygraph(v, Number.POSITIVE_INFINITY, undefined, usesRealTime(level));
  const p = pruneConstraints(h, pg, { level, roundsMax: 1000, deadlineMs: Number.POSITIVE_INFINITY });
  if (p.cyclic || p.order === null) return null;
  const k = pg.known.views();
  const g = buildSplitGraph(pg.nodeCount, k.from.length, k.from, k.to, k.kind, level);
  if (p.reach !== null) assert.ok(p.graph !== null && p.graph.outTo.length === g.outTo.length, 'pruning returns its final graph with its table');
  return { pg, active: p.active, order: p.order, g, reach: p.reach, pruneGraph: p.graph };
}

/** Asserts the contracted graph's reachability equals the known graph's on its nodes; returns whether it contracted. */
function checkReach(pr: Prepared, level: Level, active: Uint8Array, what: string): boolean {
  if (pr.reach === null) return false;
  const h = contract(pr.pg, active, level, pr.order, pr.reach);
  if (h === null) {
    assert.ok(!contractible(level), `${what}: exact table at ${level} but no contraction`);
    return false;
  }
  // Every endpoint of an active constraint's split edges is a node.
  for (let c = 0; c < pr.pg.consCount; c++) {
    if (active[c] !== 1) continue;
    for (let e = pr.pg.edgeStart[2 * c]!; e < pr.pg.edgeStart[2 * c + 2]!; e++) {
      forEachSplitEdge(pr.pg.ceFrom[e]!, pr.pg.ceTo[e]!, pr.pg.ceKind[e]!, level, (u, v) => {
        assert.ok(h.nodeOf[u]! >= 0 && h.nodeOf[v]! >= 0, `${what}: endpoint ${u} or ${v} missing`);
      });
    }
  }
  const hc = csr(h.nodeCount, h.from, h.to);
  for (let i = 0; i < h.nodeCount; i++) {
    const inG = reachable(pr.g.nodeCount, pr.g.outStart, pr.g.outTo, h.splitOf[i]!);
    const inH = reachable(h.nodeCount, hc.start, hc.to, i);
    for (let j = 0; j < h.nodeCount; j++) {
      assert.equal(inH[j], inG[h.splitOf[j]!], `${what}: ${h.splitOf[i]} reaches ${h.splitOf[j]}: known graph ${inG[h.splitOf[j]!]}, contracted ${inH[j]}`);
    }
  }
  return true;
}

/** Asserts contracted and uncontracted solving agree, and that a witness is a real cycle. */
function checkSolve(pr: Prepared, level: Level, what: string): { contracted: boolean; unsat: boolean } | null {
  let left = 0;
  for (const a of pr.active) left += a;
  if (left === 0) return null;
  // Both through the solver (the phase shortcut builds no theory: test/solve/phase-shortcut.test.ts).
  const plain = solveConstraints(pr.pg, pr.active, { level, deadlineMs: Number.POSITIVE_INFINITY, knownOrder: pr.order, reach: pr.reach, contract: false, phaseShortcut: false });
  const small = solveConstraints(pr.pg, pr.active, { level, deadlineMs: Number.POSITIVE_INFINITY, knownOrder: pr.order, reach: pr.reach, knownGraph: pr.pruneGraph, phaseShortcut: false });
  assert.equal(plain.theoryGraph?.contracted, false, what);
  assert.equal(small.result, plain.result, `${what}: contracted ${small.result}, whole graph ${plain.result}`);
  if (small.result === 'unsat') {
    const e = small.edges!, cyc = small.cycle!;
    assert.ok(cyc.length > 0, `${what}: empty witness`);
    // Consecutive dependency edges meet (a -> b then b -> c), and the last returns to the first.
    for (let i = 0; i < cyc.length; i++) {
      const a = cyc[i]!, b = cyc[(i + 1) % cyc.length]!;
      assert.equal(e.to[a], e.from[b], `${what}: witness edges ${a} and ${b} do not meet`);
    }
  }
  return { contracted: small.theoryGraph?.contracted === true, unsat: small.result === 'unsat' };
}

function runCases(name: string, count: number, seed: number, make: (rng: () => number) => History): { contracted: number; solved: number; unsat: number } {
  const tally = { contracted: 0, solved: 0, unsat: 0 };
  for (let i = 0; i < count; i++) {
    const rng = mulberry32(caseSeed(seed, i));
    const h = make(rng);
    const level = LEVELS[randInt(rng, 0, LEVELS.length - 1)]!;
    const what = `${name} case ${i} (seed ${caseSeed(seed, i)}) at ${level}`;
    const pr = prepare(h, level);
    if (pr === null) continue;
    if (checkReach(pr, level, new Uint8Array(pr.pg.consCount).fill(1), `${what}, all constraints`)) tally.contracted++;
    checkReach(pr, level, pr.active, `${what}, active constraints`);
    const s = checkSolve(pr, level, what);
    if (s !== null && s.contracted) { tally.solved++; if (s.unsat) tally.unsat++; }
  }
  return tally;
}

test('contracted graph: same reachability and same solver verdicts as the whole known graph (tiny mixed histories)', () => {
  const t = runCases('tiny', Math.round(6000 * SCALE), 0xc0a7, (rng) => tinyMixedHistory(rng, 6).history);
  assert.ok(t.contracted > 300 && t.unsat > 0, `only ${t.contracted} cases contracted (${t.unsat} violations)`);
});

test('contracted graph: the same on shapes pruning cannot settle (the solver decides them)', () => {
  const t = runCases('crossed', Math.round(2000 * SCALE), 0xc0a8, (rng) => crossedReadersHistory(rng));
  // The point of these: the contracted solve runs, and finds violations and models alike.
  assert.ok(t.solved > 600, `only ${t.solved} contracted solves`);
  assert.ok(t.unsat > 100 && t.solved - t.unsat > 300, `solved ${t.solved}, of which unsat ${t.unsat}`);
});

test('contracted graph: the same on simulated stores of a few hundred txns, with and without bugs', () => {
  const t = runCases('sim', Math.round(120 * SCALE), 0xc0a9, (rng) => simulatedSiHistory(rng, {
    sessions: randInt(rng, 2, 6), txnsPerSession: randInt(rng, 5, 40), keys: randInt(rng, 3, 30),
    pRead: 0.3 + 0.5 * rng(), bug: rng() < 0.3 ? 'mixed' : 'none', pBug: 0.02,
  }));
  assert.ok(t.contracted > 40, `only ${t.contracted} cases contracted`);
});

test('contraction honours the deadline (TimeLimitError naming the solve stage)', () => {
  let tried = 0;
  for (let i = 0; i < 200 && tried === 0; i++) {
    const rng = mulberry32(caseSeed(0xc0aa, i));
    const pr = prepare(crossedReadersHistory(rng), 'si');
    if (pr === null || pr.reach === null || !pr.active.includes(1)) continue;
    tried++;
    assert.notEqual(contract(pr.pg, pr.active, 'si', pr.order, pr.reach), null);
    assert.throws(() => contract(pr.pg, pr.active, 'si', pr.order, pr.reach!, Date.now() - 1000),
      (e: unknown) => e instanceof TimeLimitError && e.message.includes('solv'));
  }
  assert.equal(tried, 1, 'no crossed-reader case reached the solver');
});
