/**
 * The greedy descent (src/solve/descent.ts) against a brute-force replay of its rule, and the
 * solve stage with the descent against the CDCL solver alone (`phaseShortcut: false`).
 * - Theory level: random fixed DAGs with random either/or edges; the descent's flips, phases
 *   and failure point equal a replay that re-checks acyclicity from scratch (isAcyclic) for each
 *   variable's literals in turn; after a model the theory's order sorts every chosen edge, after
 *   a failure the theory holds no literal (every literal can be assigned again from scratch).
 * - Solve level: seeded random histories, pruning stopped after 0, 1 or any rounds: the same
 *   result with and without the descent, and every 'sat' choice acyclic (a fresh sort); the
 *   descent both answers (with flips) and falls back on some cases.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { AcyclicityTheory } from '../../src/sat/acyclicity.ts';
import { DESCENT_TIMED_OUT, greedyDescent } from '../../src/solve/descent.ts';
import { validate } from '../../src/validate/validate.ts';
import { buildPolygraph } from '../../src/graph/polygraph.ts';
import { buildSplitGraph, topoOrder, usesRealTime } from '../../src/graph/split.ts';
import { pruneConstraints } from '../../src/prune/prune.ts';
import { chosenEdges, solveConstraints } from '../../src/solve/solve.ts';
import type { Level } from '../../src/result/types.ts';
import { isAcyclic, mulberry32, randInt, TIMEOUT_MS } from '../sat/helpers.ts';
import { smallSolveHistory } from '../support/gen.ts';

/** The descent's rule, replayed with a fresh acyclicity test per try. */
function replay(n: number, fixed: Array<[number, number]>, sides: Array<[number, number]>[][], phase: Uint8Array): { flips: number; phase: Uint8Array } {
  const p = phase.slice();
  const chosen: Array<[number, number]> = [...fixed];
  let flips = 0;
  for (let x = 0; x < p.length; x++) {
    const first = sides[x]![p[x] === 1 ? 0 : 1]!;
    if (isAcyclic(n, [...chosen, ...first])) { chosen.push(...first); continue; }
    const other = sides[x]![p[x] === 1 ? 1 : 0]!;
    if (!isAcyclic(n, [...chosen, ...other])) return { flips: -1, phase: p };
    chosen.push(...other);
    p[x] ^= 1;
    flips++;
  }
  return { flips, phase: p };
}

test('the greedy descent follows its rule exactly, and leaves the theory sorted or empty', { timeout: TIMEOUT_MS }, () => {
  const tally = { models: 0, flipped: 0, failed: 0 };
  for (let seed = 1; seed <= 400; seed++) {
    const rng = mulberry32(seed);
    const n = randInt(rng, 4, 14);
    // Fixed edges forwards in a random order (a DAG), conditional ones anywhere.
    const perm = Array.from({ length: n }, (_, i) => i).sort(() => rng() - 0.5);
    const fixed: Array<[number, number]> = [];
    for (let e = randInt(rng, 0, 2 * n); e > 0; e--) {
      const a = randInt(rng, 0, n - 2), b = randInt(rng, a + 1, n - 1);
      fixed.push([perm[a]!, perm[b]!]);
    }
    const vars = randInt(rng, 1, 8);
    const sides: Array<[number, number]>[][] = [];
    for (let x = 0; x < vars; x++) {
      sides.push([0, 1].map(() => Array.from({ length: randInt(rng, 1, 3) }, (): [number, number] => [randInt(rng, 0, n - 1), randInt(rng, 0, n - 1)])));
    }
    const phase = Uint8Array.from({ length: vars }, () => (rng() < 0.5 ? 1 : 0));
    const build = (): AcyclicityTheory => {
      const t = new AcyclicityTheory(n);
      fixed.forEach(([u, v], i) => t.addFixedEdge(u, v, i));
      sides.forEach((s, x) => s.forEach((edges, side) => edges.forEach(([u, v], i) => t.addConditionalEdge(u, v, 2 * x + side, 100 * x + 10 * side + i))));
      return t;
    };
    const theory = build();
    if (theory.initialize() !== null) continue;
    const want = replay(n, fixed, sides, phase);
    const got = phase.slice();
    const flips = greedyDescent(theory, got);
    assert.equal(flips, want.flips, `seed ${seed}: flips`);
    assert.deepEqual(got, want.phase, `seed ${seed}: phases`);
    if (flips >= 0) {
      tally.models++;
      if (flips > 0) tally.flipped++;
      const ord = theory.topologicalOrder();
      const chosen = [...fixed, ...sides.flatMap((s, x) => s[got[x] === 1 ? 0 : 1]!)];
      for (const [u, v] of chosen) assert.ok(ord[u]! < ord[v]!, `seed ${seed}: ${u}->${v} not sorted`);
    } else {
      tally.failed++;
      assert.equal(theory.activeEdgeCount(), 0, `seed ${seed}: edges left active after a failed descent`);
      // Nothing is left assigned: the variables before the failure take their literals again,
      // in order, exactly as on a fresh theory.
      const fresh = build();
      fresh.initialize();
      for (let x = 0; x < vars; x++) {
        const l = 2 * x + (got[x] === 1 ? 0 : 1);
        assert.equal(theory.onAssign(l) === null, fresh.onAssign(l) === null, `seed ${seed}: variable ${x} after a failed descent`);
      }
    }
  }
  assert.ok(tally.models >= 100 && tally.flipped >= 30 && tally.failed >= 30, JSON.stringify(tally));
});

const LEVELS: Level[] = ['ser', 'si', 'pc', 'strict-si', 'strict-ser', 'rr'];

test('the solve stage with the descent gives the solver\'s verdicts, and acyclic models', { timeout: TIMEOUT_MS }, () => {
  const tally = { cases: 0, descentFlips: 0, unsat: 0, sat: 0 };
  for (let seed = 1; seed <= 300; seed++) {
    const rng = mulberry32(seed);
    const h = smallSolveHistory(rng, seed);
    const v = validate(h);
    if (v.anomalies.length > 0) continue;
    const level = LEVELS[seed % LEVELS.length]!;
    for (const stop of [{ roundsMax: 0 }, { roundsMax: 1 }, { roundsMax: 1000, stopAtActive: 1 << 30, contractMinTxns: 1 << 30 }]) {
      const pg = buildPolygraph(v, Number.POSITIVE_INFINITY, undefined, usesRealTime(level));
      const p = pruneConstraints(h, pg, { level, deadlineMs: Number.POSITIVE_INFINITY, ...stop });
      if (p.cyclic || p.activeCount === 0) continue;
      const at = `seed ${seed} ${level} ${JSON.stringify(stop)}`;
      tally.cases++;
      const base = { level, deadlineMs: Number.POSITIVE_INFINITY, knownOrder: p.order, knownGraph: p.graph };
      const quick = solveConstraints(pg, p.active, base);
      const slow = solveConstraints(pg, p.active, { ...base, phaseShortcut: false });
      assert.equal(quick.result, slow.result, `${at}: descent ${quick.result}, solver ${slow.result}`);
      if (quick.result === 'unsat') { tally.unsat++; continue; }
      tally.sat++;
      const s = quick.stats;
      if (s.conflicts > 0 && s.decisions === s.variables && s.propagations === s.variables) tally.descentFlips++;
      const varOf = new Int32Array(pg.consCount).fill(-1);
      let vars = 0;
      for (let c = 0; c < pg.consCount; c++) if (p.active[c] === 1) varOf[c] = vars++;
      const edges = chosenEdges(pg, p.active, varOf, (y) => quick.choice![varOf.indexOf(y)] === 0);
      assert.ok(topoOrder(buildSplitGraph(pg.nodeCount, edges.from.length, edges.from, edges.to, edges.kind, level)) !== null, `${at}: a cyclic choice`);
    }
  }
  assert.ok(tally.cases >= 200 && tally.descentFlips >= 10 && tally.unsat >= 5, JSON.stringify(tally));
});

test('the descent gives up once its deadline has passed, reading the clock every 64 variables', () => {
  // 100 variables, each an edge forwards in 0 -> 1 -> ... (any literal fits).
  const theory = new AcyclicityTheory(101);
  for (let x = 0; x < 100; x++) {
    theory.addConditionalEdge(x, x + 1, 2 * x, x);
    theory.addConditionalEdge(x, x + 1, 2 * x + 1, x);
  }
  assert.equal(theory.initialize(), null);
  assert.equal(greedyDescent(theory, new Uint8Array(100).fill(1), 0), DESCENT_TIMED_OUT);
  const fresh = new AcyclicityTheory(64);
  for (let x = 0; x < 63; x++) fresh.addConditionalEdge(x, x + 1, 2 * x, x);
  assert.equal(fresh.initialize(), null);
  assert.equal(greedyDescent(fresh, new Uint8Array(63).fill(1), 0), 0, 'fewer than 64 variables: no clock read');
});
