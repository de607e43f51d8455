/**
 * The solver's phase shortcut (solveConstraints' `forwardPhaseModel`, src/solve/solve.ts) against
 * the general path (`phaseShortcut: false`: the CDCL solver with the acyclicity theory), on
 * seeded random histories at the levels it applies to, with pruning stopped after 0, 1 or any
 * number of rounds (so that many constraints, and unsatisfiable ones, reach the solver):
 * - the same result every time;
 * - when the shortcut answers (no theory graph in the outcome), it is 'sat', its choice makes
 *   the known graph plus the chosen sides acyclic (checked by a fresh topological sort), and
 *   uncontracted it is the solver's own model with the solver's stats (no conflict: one decision
 *   and one propagation per variable);
 * - it answers on some cases and declines on others, unsatisfiable ones included;
 * - given an order that the known graph does not follow, or a known graph that is not pg's (no
 *   edges), the same verdict and acyclic models (the model check catches what the theory took
 *   on trust, and the solve runs again from a graph and an order of its own).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { validate } from '../../src/validate/validate.ts';
import { buildPolygraph } from '../../src/graph/polygraph.ts';
import { buildSplitGraph, topoOrder, usesRealTime } from '../../src/graph/split.ts';
import { pruneConstraints } from '../../src/prune/prune.ts';
import { chosenEdges, solveConstraints } from '../../src/solve/solve.ts';
import type { Level } from '../../src/result/types.ts';
import { mulberry32, smallSolveHistory } from '../support/gen.ts';

const LEVELS: Level[] = ['ser', 'si', 'pc', 'strict-si', 'strict-ser'];

test('the phase shortcut agrees with the solver, and its models are acyclic', () => {
  const tally = { graphs: 0, graphOnly: 0, cases: 0, shortcut: 0, declinedSat: 0, unsat: 0, contractedShortcut: 0 };
  for (let seed = 1; seed <= 360; seed++) {
    const rng = mulberry32(seed);
    const h = smallSolveHistory(rng, seed);
    const v = validate(h);
    if (v.anomalies.length > 0) continue;
    const level = LEVELS[seed % LEVELS.length]!;
    // The last: the checker's early stop on a small history, which hands over the graph without a table.
    for (const stop of [{ roundsMax: 0 }, { roundsMax: 1 }, { roundsMax: 1000 }, { roundsMax: 1000, stopAtActive: 1 << 30, contractMinTxns: 1 << 30 }]) {
      const pg = buildPolygraph(v, Number.POSITIVE_INFINITY, undefined, usesRealTime(level));
      const p = pruneConstraints(h, pg, { level, deadlineMs: Number.POSITIVE_INFINITY, ...stop });
      if (p.cyclic || p.activeCount === 0) continue;
      const at = `seed ${seed} ${level} ${JSON.stringify(stop)}`;
      if (p.graph !== null) {
        // The graph handed over is the final known graph's, sorted by `order`.
        tally.graphs++;
        const k = pg.known.views();
        const fresh = buildSplitGraph(pg.nodeCount, k.from.length, k.from, k.to, k.kind, level);
        assert.deepEqual(p.graph.outStart, fresh.outStart, `${at}: pruning's graph`);
        assert.deepEqual(Array.from(p.graph.outTo), Array.from(fresh.outTo), `${at}: pruning's graph`);
        const rank = new Int32Array(p.order!.length);
        p.order!.forEach((u, i) => { rank[u] = i; });
        for (let u = 0; u < p.graph.nodeCount; u++) {
          for (let e = p.graph.outStart[u]!; e < p.graph.outStart[u + 1]!; e++) assert.ok(rank[u]! < rank[p.graph.outTo[e]!]!, `${at}: order`);
        }
      }
      tally.cases++;
      const varOf = new Int32Array(pg.consCount).fill(-1);
      let vars = 0;
      for (let c = 0; c < pg.consCount; c++) if (p.active[c] === 1) varOf[c] = vars++;
      const acyclic = (choice: Uint8Array): boolean => {
        const edges = chosenEdges(pg, p.active, varOf, (y) => choice[varOf.indexOf(y)] === 0);
        return topoOrder(buildSplitGraph(pg.nodeCount, edges.from.length, edges.from, edges.to, edges.kind, level)) !== null;
      };
      // An order the known graph does not follow (reversed; the theory sorts for itself then):
      // the same verdict, and a 'sat' only with an acyclic choice.
      const reversed = solveConstraints(pg, p.active, { level, deadlineMs: Number.POSITIVE_INFINITY, knownOrder: p.order!.slice().reverse(), contract: false });
      const right = solveConstraints(pg, p.active, { level, deadlineMs: Number.POSITIVE_INFINITY, knownOrder: p.order, contract: false, phaseShortcut: false });
      assert.equal(reversed.result, right.result, `${at}: reversed order`);
      if (reversed.result === 'sat') assert.ok(acyclic(reversed.choice!), `${at}: reversed order, a cyclic choice`);
      const empty = { nodeCount: 2 * pg.nodeCount, outStart: new Int32Array(2 * pg.nodeCount + 1), outTo: new Int32Array(0), outEdge: new Int32Array(0) };
      const stale = solveConstraints(pg, p.active, { level, deadlineMs: Number.POSITIVE_INFINITY, knownOrder: p.order, knownGraph: empty, phaseShortcut: false });
      assert.equal(stale.result, right.result, `${at}: a graph without edges`);
      if (stale.result === 'sat') assert.ok(acyclic(stale.choice!), `${at}: a graph without edges, a cyclic choice`);
      for (const table of [false, true]) {
        const base = { level, deadlineMs: Number.POSITIVE_INFINITY, knownOrder: p.order, ...(table ? { reach: p.reach, knownGraph: p.graph } : { contract: false }) };
        if (table && p.graph !== null && p.reach === null) tally.graphOnly++;
        const quick = solveConstraints(pg, p.active, base);
        const slow = solveConstraints(pg, p.active, { ...base, phaseShortcut: false });
        assert.ok(slow.theoryGraph !== undefined, `${at}: the general path builds a theory`);
        assert.equal(quick.result, slow.result, `${at} table ${table}: shortcut ${quick.result}, solver ${slow.result}`);
        if (slow.result === 'unsat') tally.unsat++;
        if (quick.theoryGraph !== undefined) {
          if (!table && slow.result === 'sat') tally.declinedSat++;
          continue;
        }
        // The shortcut answered.
        assert.equal(quick.result, 'sat', at);
        assert.ok(acyclic(quick.choice!), `${at}: the shortcut's choice closes a cycle`);
        if (slow.theoryGraph!.contracted) {
          tally.contractedShortcut++;
        } else {
          tally.shortcut++;
          assert.deepEqual(quick.choice, slow.choice, `${at}: the shortcut's model is not the solver's`);
          assert.deepEqual(quick.stats, slow.stats, `${at}: stats`);
        }
      }
    }
  }
  assert.ok(tally.cases >= 200 && tally.graphOnly >= 20, JSON.stringify(tally));
  assert.ok(tally.shortcut >= 20, `the shortcut answered too rarely: ${JSON.stringify(tally)}`);
  assert.ok(tally.declinedSat >= 5 && tally.unsat >= 5, `too few cases for the solver: ${JSON.stringify(tally)}`);
});
