/**
 * Shortcuts of the pruning stage (src/prune/prune.ts) against the unoptimised path: pruning to
 * the fixpoint with no early stop. Seeded random histories at every polygraph level.
 * - Early stop (`stopBelowFraction`, `stopAtActive`): every constraint it decides, the fixpoint
 *   decides the same way (same known edges added, as a set), a cycle it reports the fixpoint
 *   reports too, and the solver, given what is left (and the table and graph pruning hands it,
 *   as the checker does), reaches the fixpoint's verdict.
 * - Reusing the last round's topological order when every new edge goes forward in it: the
 *   returned order sorts the final known split graph (checked edge by edge), and pruning calls
 *   the known graph cyclic exactly when a fresh sort fails (PSI: or a known RW edge closes).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { validate, type Validated } from '../../src/validate/validate.ts';
import { TXN_COMMITTED, TXN_UNKNOWN, type History } from '../../src/history/model.ts';
import { EdgeList, K_RW, K_WR, K_WW } from '../../src/graph/edges.ts';
import { buildPolygraph, type Polygraph } from '../../src/graph/polygraph.ts';
import { buildSplitGraph, checksRwApart, closingQuery, splitTable, topoOrder, usesRealTime, type SplitGraph } from '../../src/graph/split.ts';
import { closingRw } from '../../src/graph/forbidden.ts';
import { addSide, pruneConstraints, splitEdgesBound, splitEdgesCoarseBound, type PruneOutcome } from '../../src/prune/prune.ts';
import { solveConstraints } from '../../src/solve/solve.ts';
import type { Level } from '../../src/result/types.ts';
import { mulberry32, randomHistory, simulatedSiHistory } from '../support/gen.ts';

const LEVELS: Level[] = ['ser', 'si', 'pc', 'psi', 'rr', 'strict-si'];

/** Small histories, alternately random and from the simulated SI store with bugs, validated. */
function smallCase(rngSeed: number, seed: number): { h: History; v: Validated } {
  const rng = mulberry32(rngSeed);
  const h = seed % 2 === 0
    ? randomHistory(rng, { sessionsMax: 5, txnsPerSessionMax: 6, txnsMax: 20, keysMax: 4, opsPerTxnMax: 4 })
    : simulatedSiHistory(rng, { sessions: 4, txnsPerSession: 7, keys: 5, bug: 'mixed' });
  return { h, v: validate(h) };
}

function verdict(pg: Polygraph, p: PruneOutcome, level: Level, withTable = false): 'valid' | 'violation' {
  if (p.cyclic) return 'violation';
  if (p.activeCount === 0) return 'valid';
  const table = withTable ? { reach: p.reach, knownGraph: p.graph } : {};
  const s = solveConstraints(pg, p.active, { level, deadlineMs: Number.POSITIVE_INFINITY, knownOrder: p.order, ...table });
  assert.notEqual(s.result, 'unknown');
  return s.result === 'sat' ? 'valid' : 'violation';
}

function edgeSet(pg: Polygraph, from: number, to: number): Set<string> {
  const k = pg.known.views();
  const out = new Set<string>();
  for (let i = from; i < to; i++) out.add(`${k.from[i]} ${k.to[i]} ${k.kind[i]} ${k.key[i]}`);
  return out;
}

test('early-stopped pruning decides a subset of what the fixpoint decides, the same way, and the verdict is unchanged', () => {
  let cases = 0, stoppedEarly = 0, violations = 0;
  for (let seed = 1; seed <= 400; seed++) {
    const { h, v } = smallCase(seed, seed);
    if (v.anomalies.length > 0) continue;
    const level = LEVELS[seed % LEVELS.length]!;
    for (const fraction of [1, 0.3]) {
      const pgFull = buildPolygraph(v, Number.POSITIVE_INFINITY, undefined, usesRealTime(level));
      const pgEarly = buildPolygraph(v, Number.POSITIVE_INFINITY, undefined, usesRealTime(level));
      const base = pgFull.known.length;
      const full = pruneConstraints(h, pgFull, { level, roundsMax: 1000, deadlineMs: Number.POSITIVE_INFINITY });
      const early = pruneConstraints(h, pgEarly, { level, roundsMax: 1000, deadlineMs: Number.POSITIVE_INFINITY, stopBelowFraction: fraction });
      const at = `seed ${seed} ${level} fraction ${fraction}`;
      assert.ok(early.rounds <= full.rounds, at);
      if (early.rounds < full.rounds) stoppedEarly++;
      if (early.cyclic) assert.ok(full.cyclic, `${at}: early stop reported a cycle the fixpoint did not`);
      if (!full.cyclic) {
        for (let c = 0; c < pgFull.consCount; c++) if (early.active[c] === 0) assert.equal(full.active[c], 0, `${at}: constraint ${c}`);
        const fullEdges = edgeSet(pgFull, base, pgFull.known.length);
        for (const e of edgeSet(pgEarly, base, pgEarly.known.length)) assert.ok(fullEdges.has(e), `${at}: early stop forced ${e}`);
      }
      const want = verdict(pgFull, full, level);
      if (want === 'violation') violations++;
      assert.equal(verdict(pgEarly, early, level), want, at);
      cases++;
    }
  }
  assert.ok(cases > 300, `only ${cases} cases`);
  assert.ok(stoppedEarly > 30, `early stop changed the rounds in only ${stoppedEarly} cases`);
  assert.ok(violations > 10, `only ${violations} violations`);
});

test('pruning stopped once few constraints are left (with or without a table for the solver) decides what the fixpoint decides, the same way, and the verdict is unchanged', () => {
  let cases = 0, stoppedEarly = 0, violations = 0, solved = 0, withTable = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const { h, v } = smallCase(5000 + seed, seed);
    if (v.anomalies.length > 0) continue;
    const level = LEVELS[seed % LEVELS.length]!;
    // Infinity: always after the first round; 2: only when that few are left.
    for (const stopAtActive of [Number.POSITIVE_INFINITY, 2]) {
      const pgFull = buildPolygraph(v, Number.POSITIVE_INFINITY, undefined, usesRealTime(level));
      const pgEarly = buildPolygraph(v, Number.POSITIVE_INFINITY, undefined, usesRealTime(level));
      const base = pgFull.known.length;
      const full = pruneConstraints(h, pgFull, { level, roundsMax: 1000, deadlineMs: Number.POSITIVE_INFINITY });
      // (contractMinTxns: the checker's small histories get no table after an early stop.)
      const contractMinTxns = stopAtActive === 2 ? Number.POSITIVE_INFINITY : 0;
      const early = pruneConstraints(h, pgEarly, { level, roundsMax: 1000, deadlineMs: Number.POSITIVE_INFINITY, stopAtActive, contractMinTxns });
      const at = `seed ${seed} ${level} stopAtActive ${stopAtActive}`;
      // The order (and graph) handed to the solver are those of the final known graph, and a
      // cycle closed by the last round's forced sides is reported (below contractMinTxns the
      // grown graph is sorted afresh, not repaired).
      checkFinalOrder(pgEarly, early, level, at);
      if (early.graph !== null) checkFinalGraph(pgEarly, early.graph, level, at);
      if (early.rounds < full.rounds && !early.cyclic && early.activeCount > 0) {
        if (contractMinTxns > 0) assert.equal(early.reach, null, `${at}: a table below contractMinTxns`);
        else if (early.reach !== null) withTable++;
      }
      assert.ok(early.rounds <= full.rounds, at);
      if (early.rounds < full.rounds) stoppedEarly++;
      if (early.cyclic) assert.ok(full.cyclic, `${at}: early stop reported a cycle the fixpoint did not`);
      if (!early.cyclic && early.activeCount > 0) {
        // Stopped with constraints left: at most stopAtActive after its last round.
        assert.ok(early.activeCount <= stopAtActive || early.rounds === full.rounds, `${at}: ${early.activeCount} left`);
        solved++;
      }
      if (!full.cyclic) {
        for (let c = 0; c < pgFull.consCount; c++) if (early.active[c] === 0) assert.equal(full.active[c], 0, `${at}: constraint ${c}`);
        const fullEdges = edgeSet(pgFull, base, pgFull.known.length);
        for (const e of edgeSet(pgEarly, base, pgEarly.known.length)) assert.ok(fullEdges.has(e), `${at}: early stop forced ${e}`);
      }
      const want = verdict(pgFull, full, level);
      if (want === 'violation') violations++;
      assert.equal(verdict(pgEarly, early, level, true), want, `${at} (the solver with pruning's table)`);
      assert.equal(verdict(pgEarly, early, level), want, at);
      cases++;
    }
  }
  assert.ok(cases > 250, `only ${cases} cases`);
  assert.ok(stoppedEarly > 30, `the stop changed the rounds in only ${stoppedEarly} cases`);
  assert.ok(solved > 30, `the solver had constraints left in only ${solved} cases`);
  assert.ok(withTable > 10, `an early stop handed the solver its table in only ${withTable} cases`);
  assert.ok(violations > 10, `only ${violations} violations`);
});

/**
 * Five txns, SER: known 1->0, 1->2, 1->3 (WR); constraint 0 between writers 4 and 1 (either
 * 4->1 and the RW 2->1, or 1->4), constraint 1 between 0 and 3 (either 0->3 or 3->0). Txn 4 has
 * no known edge; round 1 finds 2->1 closing a cycle and forces 1->4; constraint 1 stays open.
 */
function endpointCase(status4: number): { h: History; pg: Polygraph } {
  const known = new EdgeList();
  for (const [a, b] of [[1, 0], [1, 2], [1, 3]]) known.push(a!, b!, K_WR, 0);
  const pg: Polygraph = {
    nodeCount: 5, known, consCount: 2, consA: Int32Array.from([4, 0]), consB: Int32Array.from([1, 3]),
    edgeStart: Int32Array.from([0, 2, 3, 4, 5]),
    ceFrom: Int32Array.from([4, 2, 1, 0, 3]), ceTo: Int32Array.from([1, 1, 4, 3, 0]),
    ceKind: Uint8Array.from([K_WW, K_RW, K_WW, K_WW, K_WW]), ceKey: Int32Array.from([0, 0, 0, 1, 1]),
  };
  const h = { txnCount: 5, txnSession: Int32Array.from([0, 1, 2, 3, 4]), txnStatus: Uint8Array.from([0, 0, 0, 0, status4]) } as unknown as History;
  return { h, pg };
}

test('constraint endpoints are skipped only when every untouched txn is uncommitted, and a table that then misses a touched txn is never handed to the solver', () => {
  // Committed, txn 4 is an endpoint with a chain: the table (brought to the final graph) is handed over.
  const ok = endpointCase(TXN_COMMITTED);
  const p1 = pruneConstraints(ok.h, ok.pg, { level: 'ser', roundsMax: 10, deadlineMs: Number.POSITIVE_INFINITY, stopAtActive: Number.POSITIVE_INFINITY, contractMinTxns: 0 });
  assert.equal(p1.activeCount, 1);
  assert.equal(p1.rounds, 1);
  assert.ok(p1.reach !== null && p1.graph !== null, 'a table for the solver');
  assert.ok(p1.reach.sess[4]! >= 0, 'txn 4 has a column');
  assert.ok(p1.reach.reach(0, new Int32Array(0), new Int32Array(0)).reachesD(2 * 1, 4), 'the table says 1 reaches 4');
  // Of unknown outcome (as if the validator had let an untouched one into a constraint): the
  // endpoints are skipped, txn 4 has no chain, and the table, no longer exact, is withheld.
  const broken = endpointCase(TXN_UNKNOWN);
  const p2 = pruneConstraints(broken.h, broken.pg, { level: 'ser', roundsMax: 10, deadlineMs: Number.POSITIVE_INFINITY, stopAtActive: Number.POSITIVE_INFINITY, contractMinTxns: 0 });
  assert.deepEqual(p2.active, p1.active, 'the same decisions');
  assert.equal(p2.reach, null, 'no table missing a touched txn');
  // To the fixpoint as well (the round that forces nothing hands the table over).
  const p3 = pruneConstraints(endpointCase(TXN_UNKNOWN).h, endpointCase(TXN_UNKNOWN).pg, { level: 'ser', roundsMax: 10, deadlineMs: Number.POSITIVE_INFINITY });
  assert.equal(p3.reach, null, 'no table at the fixpoint either');
  const p4 = pruneConstraints(endpointCase(TXN_COMMITTED).h, endpointCase(TXN_COMMITTED).pg, { level: 'ser', roundsMax: 10, deadlineMs: Number.POSITIVE_INFINITY });
  assert.ok(p4.reach !== null && p4.activeCount === 1, 'the fixpoint hands its exact table over');
});

function checkFinalOrder(pg: Polygraph, p: PruneOutcome, level: Level, at: string): void {
  const k = pg.known.views();
  const g = buildSplitGraph(pg.nodeCount, k.from.length, k.from, k.to, k.kind, level);
  const fresh = topoOrder(g);
  const rwCycle = fresh !== null && checksRwApart(level) && closingRw(g, fresh, k.from.length, k.from, k.to, k.kind) !== null;
  assert.equal(p.cyclic, fresh === null || rwCycle, `${at}: cyclic`);
  if (p.cyclic) return;
  assert.ok(p.order !== null, at);
  const rank = new Int32Array(g.nodeCount).fill(-1);
  p.order.forEach((u, i) => { rank[u] = i; });
  for (let u = 0; u < g.nodeCount; u++) {
    assert.ok(rank[u]! >= 0, `${at}: node ${u} missing from the order`);
    for (let e = g.outStart[u]!; e < g.outStart[u + 1]!; e++) assert.ok(rank[u]! < rank[g.outTo[e]!]!, `${at}: edge ${u} -> ${g.outTo[e]} goes backward`);
  }
}

/** `g` is the split graph of every known edge (with edge ids or without). */
function checkFinalGraph(pg: Polygraph, g: SplitGraph, level: Level, at: string): void {
  const k = pg.known.views();
  const want = buildSplitGraph(pg.nodeCount, k.from.length, k.from, k.to, k.kind, level);
  assert.deepEqual(g.outStart, want.outStart, `${at}: graph starts`);
  assert.deepEqual(g.outTo, want.outTo, `${at}: graph targets`);
}

test('the topological order pruning returns sorts the final known graph, and cyclic is reported exactly', () => {
  let cases = 0, cyclic = 0, multiRound = 0;
  for (let seed = 1; seed <= 400; seed++) {
    const { h, v } = smallCase(1000 + seed, seed);
    if (v.anomalies.length > 0) continue;
    for (const level of LEVELS) {
      const pg = buildPolygraph(v, Number.POSITIVE_INFINITY, undefined, usesRealTime(level));
      const p = pruneConstraints(h, pg, { level, roundsMax: 1000, deadlineMs: Number.POSITIVE_INFINITY, stopBelowFraction: seed % 3 === 0 ? 0.05 : 0 });
      checkFinalOrder(pg, p, level, `seed ${seed} ${level}`);
      cases++;
      if (p.cyclic) cyclic++;
      if (p.rounds > 1) multiRound++;
    }
  }
  assert.ok(cases > 1000 && cyclic > 50 && multiRound > 100, `${cases} cases, ${cyclic} cyclic, ${multiRound} with several rounds`);
});

/**
 * Pruning as PolySI states it, for SI: each round, a breadth-first search of the known split
 * graph as it was at the round's start decides every active constraint in order (a side is
 * impossible when one of its edges closes a cycle; the other is forced; both impossible ends
 * the round). Returns the final active flags, or null when the known graph became cyclic.
 */
function naivePruneSi(pg: Polygraph): Uint8Array | null {
  const active = new Uint8Array(pg.consCount).fill(1);
  const known = pg.known;
  for (;;) {
    const k = known.views();
    const g = buildSplitGraph(pg.nodeCount, known.length, k.from, k.to, k.kind, 'si');
    if (topoOrder(g) === null) return null;
    const reaches = (start: number, target: number): boolean => {
      const seen = new Uint8Array(g.nodeCount);
      const stack = [start];
      seen[start] = 1;
      while (stack.length > 0) {
        const x = stack.pop()!;
        if (x === target) return true;
        for (let e = g.outStart[x]!; e < g.outStart[x + 1]!; e++) if (seen[g.outTo[e]!] === 0) { seen[g.outTo[e]!] = 1; stack.push(g.outTo[e]!); }
      }
      return false;
    };
    const impossible = (slot: number): boolean => {
      for (let e = pg.edgeStart[slot]!; e < pg.edgeStart[slot + 1]!; e++) {
        const q = closingQuery(pg.ceFrom[e]!, pg.ceTo[e]!, pg.ceKind[e]!, 'si');
        if (q.targets.some((t) => reaches(q.start, t))) return true;
      }
      return false;
    };
    let decided = 0;
    for (let c = 0; c < pg.consCount; c++) {
      if (active[c] !== 1) continue;
      const either = impossible(2 * c), or = impossible(2 * c + 1);
      if (!either && !or) continue;
      addSide(pg, either ? 2 * c + 1 : 2 * c, known);
      active[c] = 0;
      decided++;
      if (either && or) break;
    }
    if (decided === 0) return active;
  }
}

test('SI pruning to the fixpoint decides exactly what rounds of graph searches decide (RW lists filtered or not, repaired orders, incremental tables)', () => {
  let cases = 0, multiRound = 0, decidedLater = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const rng = mulberry32(5000 + seed);
    const h = seed % 2 === 0
      ? randomHistory(rng, { sessionsMax: 5, txnsPerSessionMax: 6, txnsMax: 20, keysMax: 4, opsPerTxnMax: 4 })
      : simulatedSiHistory(rng, { sessions: 4, txnsPerSession: 8, keys: 4, bug: seed % 3 === 0 ? 'mixed' : 'none' });
    const v = validate(h);
    if (v.anomalies.length > 0) continue;
    const expected = naivePruneSi(buildPolygraph(v));
    // Later rounds' RW lists restricted to the txns active constraints' edges leave (as on
    // large histories), and for every txn (as below RW_LISTS_FILTER_MIN_TXNS).
    for (const rwListsFilterMinTxns of [0, Number.POSITIVE_INFINITY]) {
      const pg = buildPolygraph(v);
      const p = pruneConstraints(h, pg, { level: 'si', roundsMax: 1000, deadlineMs: Number.POSITIVE_INFINITY, rwListsFilterMinTxns });
      const at = `seed ${seed}, lists ${rwListsFilterMinTxns === 0 ? 'filtered' : 'for every txn'}`;
      if (expected === null) { assert.ok(p.cyclic, `${at}: the graph searches found a cycle, pruning did not`); continue; }
      assert.ok(!p.cyclic, `${at}: pruning found a cycle, the graph searches did not`);
      assert.deepEqual(p.active, expected, `${at}: active constraints differ`);
      if (rwListsFilterMinTxns !== 0) continue;
      cases++;
      if (p.rounds > 2) { multiRound++; decidedLater += p.activeCount < pg.consCount ? 1 : 0; }
    }
  }
  assert.ok(cases > 100 && multiRound > 30, `${cases} cases, ${multiRound} with three rounds or more`);
});

test('the split edge bounds the kernel reserves room for: the coarse one is at least the exact one, which is at least the final known graph\'s split edges', () => {
  let cases = 0, strict = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const { h, v } = smallCase(9000 + seed, seed);
    if (v.anomalies.length > 0) continue;
    for (const level of LEVELS) {
      const pg = buildPolygraph(v, Number.POSITIVE_INFINITY, undefined, usesRealTime(level));
      const k0 = pg.known.views();
      const first = buildSplitGraph(pg.nodeCount, k0.from.length, k0.from, k0.to, k0.kind, level).outTo.length;
      const tbl = splitTable(level);
      const exact = splitEdgesBound(pg, first, tbl), coarse = splitEdgesCoarseBound(pg, first, tbl);
      pruneConstraints(h, pg, { level, roundsMax: 1000, deadlineMs: Number.POSITIVE_INFINITY });
      const k = pg.known.views();
      const final = buildSplitGraph(pg.nodeCount, k.from.length, k.from, k.to, k.kind, level).outTo.length;
      assert.ok(final <= exact, `seed ${seed} ${level}: ${final} split edges, exact bound ${exact}`);
      assert.ok(exact <= coarse, `seed ${seed} ${level}: exact bound ${exact}, coarse ${coarse}`);
      cases++;
      if (exact < coarse) strict++;
    }
  }
  assert.ok(cases > 500 && strict > 100, `${cases} cases, ${strict} with a coarser bound`);
});
