import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AcyclicityTheory, findCycle } from '../../src/sat/acyclicity.ts';
import { Solver, mkLit, negate, type Lit } from '../../src/sat/cdcl.ts';
import { clausesSatisfied, CONFIGS, ContractCheckingTheory, isAcyclic, litTrue, mulberry32, randInt, scaled, TIMEOUT_MS } from './helpers.ts';

interface FixedEdge {
  from: number;
  to: number;
  id: number;
}
interface CondEdge extends FixedEdge {
  lit: Lit;
}

/** Random fixed edges, acyclic unless `allowCycles` (forward along a random permutation). */
function randomFixed(rng: () => number, n: number, count: number, allowCycles: boolean): FixedEdge[] {
  const perm = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = randInt(rng, 0, i);
    [perm[i], perm[j]] = [perm[j]!, perm[i]!];
  }
  const edges: FixedEdge[] = [];
  for (let k = 0; k < count; k++) {
    let a = randInt(rng, 0, n - 1);
    let b = randInt(rng, 0, n - 1);
    if (!allowCycles) {
      if (a === b) continue;
      if (a > b) [a, b] = [b, a];
    }
    edges.push({ from: perm[a]!, to: perm[b]!, id: edges.length });
  }
  return edges;
}

function randomCond(rng: () => number, n: number, nVars: number, count: number): CondEdge[] {
  const edges: CondEdge[] = [];
  for (let k = 0; k < count; k++) {
    const from = randInt(rng, 0, n - 1);
    // Self-loops now and then: they must conflict on their own.
    const to = rng() < 0.05 ? from : randInt(rng, 0, n - 1);
    edges.push({ from, to, lit: mkLit(randInt(rng, 0, nVars - 1), rng() < 0.5), id: 1000 + k });
  }
  return edges;
}

type Reorder = 'auto' | 'pk' | 'shift';

function buildTheory(n: number, fixed: FixedEdge[], cond: CondEdge[], reorder: Reorder = 'auto'): AcyclicityTheory {
  const th = new AcyclicityTheory(n, { reorder });
  for (const e of fixed) th.addFixedEdge(e.from, e.to, e.id);
  for (const e of cond) th.addConditionalEdge(e.from, e.to, e.lit, e.id);
  return th;
}

/** Asserts that `ids` name edges forming a closed walk through edges in `present`. */
function assertCycle(ids: number[], present: Map<number, FixedEdge>, what: string): void {
  assert.ok(ids.length > 0, `${what}: empty cycle`);
  assert.equal(new Set(ids).size, ids.length, `${what}: an edge repeats`);
  for (let i = 0; i < ids.length; i++) {
    const e = present.get(ids[i]!);
    const next = present.get(ids[(i + 1) % ids.length]!);
    assert.ok(e !== undefined && next !== undefined, `${what}: edge id not present in the graph`);
    assert.equal(e.to, next.from, `${what}: edges ${e.id} and ${next.id} do not meet`);
  }
}

function isAcyclicLarge(n: number, from: number[], to: number[]): boolean {
  // Kahn's algorithm, independent of the library's implementation.
  const indeg = new Int32Array(n);
  const adj: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < from.length; i++) {
    adj[from[i]!]!.push(to[i]!);
    indeg[to[i]!]++;
  }
  const queue: number[] = [];
  for (let v = 0; v < n; v++) if (indeg[v] === 0) queue.push(v);
  for (let h = 0; h < queue.length; h++) {
    for (const w of adj[queue[h]!]!) if (--indeg[w] === 0) queue.push(w);
  }
  return queue.length === n;
}

test('findCycle agrees with a brute-force DFS and returns real cycles', { timeout: TIMEOUT_MS }, () => {
  const rng = mulberry32(1234);
  const cases = scaled(5000);
  let cyclic = 0;
  for (let t = 0; t < cases; t++) {
    const n = randInt(rng, 1, 8);
    const m = randInt(rng, 0, 14);
    const from = new Int32Array(m);
    const to = new Int32Array(m);
    for (let e = 0; e < m; e++) {
      from[e] = randInt(rng, 0, n - 1);
      to[e] = randInt(rng, 0, n - 1);
    }
    const pairs = Array.from(from, (u, e): [number, number] => [u, to[e]!]);
    const got = findCycle(n, from, to);
    assert.equal(got === null, isAcyclic(n, pairs), `case ${t}`);
    if (got !== null) {
      cyclic++;
      const present = new Map(Array.from(from, (u, e) => [e, { from: u, to: to[e]!, id: e }] as const));
      assertCycle(got, present, `case ${t}`);
    }
  }
  assert.ok(cyclic > cases / 10 && cyclic < cases - cases / 10, `cyclic=${cyclic}`);
});

test('findCycle is iterative: a 300k-node path closed by one back edge', { timeout: TIMEOUT_MS }, () => {
  const n = 300_000;
  const from = new Int32Array(n);
  const to = new Int32Array(n);
  for (let i = 0; i < n - 1; i++) {
    from[i] = i;
    to[i] = i + 1;
  }
  from[n - 1] = n - 1;
  to[n - 1] = 0;
  const cycle = findCycle(n, from, to);
  assert.ok(cycle !== null);
  assert.equal(cycle.length, n);
  assert.equal(findCycle(n, from.subarray(0, n - 1), to.subarray(0, n - 1)), null);
  assert.throws(() => findCycle(2, Int32Array.of(0), Int32Array.of(2)), RangeError);
});

test('initialize reports a cycle among the fixed edges, or null', { timeout: TIMEOUT_MS }, () => {
  const rng = mulberry32(55);
  const cases = scaled(2000);
  let cyclic = 0;
  for (let t = 0; t < cases; t++) {
    const n = randInt(rng, 1, 8);
    const fixed = randomFixed(rng, n, randInt(rng, 0, 12), true);
    const th = buildTheory(n, fixed, []);
    const got = th.initialize();
    assert.equal(got === null, isAcyclic(n, fixed.map((e) => [e.from, e.to])), `case ${t}`);
    if (got !== null) {
      cyclic++;
      assertCycle(got, new Map(fixed.map((e) => [e.id, e])), `case ${t}`);
      assert.deepEqual(th.onAssign(mkLit(0)), [], 'a cyclic fixed graph makes every assignment inconsistent');
    }
  }
  assert.ok(cyclic > 0 && cyclic < cases);
});

// Each reordering on its own ('pk': Pearce-Kelly, 'shift': the forward set moved past x), and
// 'auto' on larger graphs, where both happen (the backward search's budget is 1/64 of the
// region: 0 below 64 nodes, so small graphs only shift).
for (const [reorder, nMin, nMax, fixedMax, condMax] of [['pk', 3, 8, 8, 14], ['shift', 3, 8, 8, 14], ['auto', 3, 8, 8, 14], ['auto', 150, 400, 300, 200]] as const) {
test(`theory alone (${reorder}, ${nMin}-${nMax} nodes): random assign/unassign sequences (onAssign and tryAssign) vs brute force, order stays topological`, { timeout: TIMEOUT_MS }, () => {
  const rng = mulberry32(777);
  const cases = scaled(nMax > 8 ? 300 : 3000);
  let conflicts = 0;
  let steps = 0;
  for (let t = 0; t < cases; t++) {
    const n = randInt(rng, nMin, nMax);
    const nVars = randInt(rng, 1, 6);
    const fixed = randomFixed(rng, n, randInt(rng, 0, fixedMax), false);
    const cond = randomCond(rng, n, nVars, randInt(rng, 1, condMax));
    const th = buildTheory(n, fixed, cond, reorder);
    assert.equal(th.initialize(), null);
    const stack: Lit[] = [];
    for (let step = 0; step < 30; step++) {
      if (stack.length > 0 && (stack.length === nVars || rng() < 0.35)) {
        th.onUnassign(stack.pop()!);
        continue;
      }
      const free = Array.from({ length: nVars }, (_, v) => v).filter((v) => !stack.some((l) => l >> 1 === v));
      const lit = mkLit(free[randInt(rng, 0, free.length - 1)]!, rng() < 0.5);
      stack.push(lit);
      steps++;
      const trueLits = new Set(stack);
      const active = [...fixed, ...cond.filter((e) => trueLits.has((e as CondEdge).lit))];
      // Every third assignment by tryAssign (the greedy descent's: no clause), the rest by onAssign.
      const quiet = step % 3 === 2;
      const clause = quiet ? (th.tryAssign(lit) ? null : []) : th.onAssign(lit);
      const acyclic = isAcyclic(n, active.map((e) => [e.from, e.to]));
      assert.equal(clause === null, acyclic, `case ${t} step ${step}`);
      if (quiet && clause !== null) {
        conflicts++;
        th.onUnassign(stack.pop()!);
      } else if (clause === null) {
        const ord = th.topologicalOrder();
        assert.deepEqual([...ord].sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i));
        for (const e of active) assert.ok(ord[e.from]! < ord[e.to]!, `case ${t}: order violates ${e.from}->${e.to}`);
      } else {
        conflicts++;
        const cycle = th.lastCycle();
        assertCycle(cycle, new Map(active.map((e) => [e.id, e])), `case ${t} step ${step}`);
        // The clause is exactly the negated, deduplicated literals of the cycle's conditional edges.
        const cycleLits = new Set(cycle.filter((id) => id >= 1000).map((id) => cond[id - 1000]!.lit));
        assert.equal(new Set(clause).size, clause.length, 'duplicate literal in clause');
        assert.deepEqual(new Set(clause), new Set([...cycleLits].map(negate)));
        assert.ok(clause.includes(negate(lit)), 'the new literal must be on the cycle');
        for (const l of clause) assert.ok(trueLits.has(negate(l)), 'clause literal is not false');
        // The solver would now backtrack at least this literal.
        th.onUnassign(stack.pop()!);
      }
    }
    while (stack.length > 0) th.onUnassign(stack.pop()!);
    const ord = th.topologicalOrder();
    for (const e of fixed) assert.ok(ord[e.from]! < ord[e.to]!);
  }
  assert.ok(conflicts > steps / 20, `conflicts=${conflicts} of ${steps} assignments`);
});
}

test('conflict cycles use the fewest conditional edges available', { timeout: TIMEOUT_MS }, () => {
  // 0 -> 1 -> 2 -> 3 by fixed edges, and a conditional shortcut 0 -> 3 (lit a); closing edge 3 -> 0 (lit b).
  const th = new AcyclicityTheory(4);
  th.addFixedEdge(0, 1, 10);
  th.addFixedEdge(1, 2, 11);
  th.addFixedEdge(2, 3, 12);
  th.addConditionalEdge(0, 3, mkLit(0), 20);
  th.addConditionalEdge(3, 0, mkLit(1), 21);
  assert.equal(th.initialize(), null);
  assert.equal(th.onAssign(mkLit(0)), null);
  assert.deepEqual(th.onAssign(mkLit(1)), [mkLit(1, true)]);
  assert.deepEqual(th.lastCycle(), [21, 10, 11, 12]);
});

test('solver + acyclicity theory vs brute force over all assignments', { timeout: TIMEOUT_MS }, () => {
  const rng = mulberry32(31337);
  const cases = scaled(3000);
  let sat = 0;
  let unsat = 0;
  for (let t = 0; t < cases; t++) {
    const n = randInt(rng, 3, 8);
    const nVars = randInt(rng, 1, 7);
    const fixed = randomFixed(rng, n, randInt(rng, 0, 8), rng() < 0.05);
    const cond = randomCond(rng, n, nVars, randInt(rng, 0, 14));
    const clauses: Lit[][] = [];
    for (let i = randInt(rng, 0, nVars * 2); i > 0; i--) {
      const len = randInt(rng, 1, 3);
      clauses.push(Array.from({ length: len }, () => mkLit(randInt(rng, 0, nVars - 1), rng() < 0.5)));
    }
    const isModel = (bits: number): boolean =>
      clausesSatisfied(clauses, bits) &&
      isAcyclic(n, [...fixed, ...cond.filter((e) => litTrue(e.lit, bits))].map((e) => [e.from, e.to]));
    let expected = false;
    for (let bits = 0; bits < 1 << nVars && !expected; bits++) expected = isModel(bits);

    const th = buildTheory(n, fixed, cond);
    if (th.initialize() !== null) {
      assert.equal(expected, false, `case ${t}: fixed cycle but brute force found a model`);
      unsat++;
      continue;
    }
    const s = new Solver({ ...CONFIGS[t % 3], probeWithTheory: t % 2 === 0 });
    for (let v = 0; v < nVars; v++) s.newVar();
    for (const c of clauses) s.addClause(c);
    const checker = new ContractCheckingTheory(th);
    s.setTheory(checker);
    const got = s.solve();
    assert.equal(got, expected ? 'sat' : 'unsat', `case ${t}`);
    assert.equal(checker.violations, 0);
    if (got === 'sat') {
      sat++;
      let bits = 0;
      for (let v = 0; v < nVars; v++) if (s.modelValue(v)) bits |= 1 << v;
      assert.ok(isModel(bits), `case ${t}: returned model is not a model`);
    } else {
      unsat++;
    }
  }
  assert.ok(sat > cases / 10 && unsat > cases / 10, `sat=${sat} unsat=${unsat}`);
});

// Its time is reported (t.diagnostic), not asserted: wall-clock budgets belong in benchmarks.
test('a 100k-node DAG with 50k conditional edges (25k either-or pairs): sat after real search, the model acyclic', { timeout: TIMEOUT_MS }, (t) => {
  const rng = mulberry32(2024);
  const n = 100_000;
  const nVars = 25_000;
  const t0 = Date.now();
  const th = new AcyclicityTheory(n);
  const allFrom: number[] = [];
  const allTo: number[] = [];
  let id = 0;
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 2; k++) {
      const j = i + randInt(rng, 1, 30);
      if (j < n) {
        th.addFixedEdge(i, j, id++);
        allFrom.push(i);
        allTo.push(j);
      }
    }
  }
  const s = new Solver();
  const pairs: Array<{ a: number; b: number; forward: Lit }> = [];
  for (let v = 0; v < nVars; v++) {
    s.newVar();
    const a = randInt(rng, 0, n - 41);
    const b = a + randInt(rng, 1, 40);
    // Which polarity is the forward (never cyclic) edge is random, so default phases hit cycles.
    const forward = mkLit(v, rng() < 0.5);
    th.addConditionalEdge(a, b, forward, id++);
    th.addConditionalEdge(b, a, negate(forward), id++);
    pairs.push({ a, b, forward });
  }
  // Clauses satisfied by "every pair forward", so the instance is sat but needs search.
  const clauses: Lit[][] = [];
  for (let i = 0; i < 10_000; i++) {
    const u = randInt(rng, 0, nVars - 1);
    const w = randInt(rng, 0, nVars - 1);
    clauses.push([pairs[u]!.forward, mkLit(w, rng() < 0.5)]);
  }
  for (const c of clauses) s.addClause(c);
  assert.equal(th.initialize(), null);
  s.setTheory(th);
  const tSolve = Date.now();
  const result = s.solve({ deadlineMs: Date.now() + 30_000 });
  const solveMs = Date.now() - tSolve;
  const totalMs = Date.now() - t0;
  assert.equal(result, 'sat');
  assert.ok(s.stats.conflicts > 100, `expected real search, got ${s.stats.conflicts} conflicts`);
  for (const c of clauses) assert.ok(c.some((l) => s.modelValue(l >> 1) !== ((l & 1) === 1)));
  for (const p of pairs) {
    const fwd = s.modelValue(p.forward >> 1) !== ((p.forward & 1) === 1);
    allFrom.push(fwd ? p.a : p.b);
    allTo.push(fwd ? p.b : p.a);
  }
  assert.ok(isAcyclicLarge(n, allFrom, allTo), 'model graph has a cycle');
  t.diagnostic(`took ${totalMs} ms (solve ${solveMs} ms, ${s.stats.conflicts} conflicts)`);
});

test('edges added in bulk (mixed with single ones) behave exactly like edges added one by one', () => {
  const rng = mulberry32(0xb01c);
  for (let round = 0; round < 300; round++) {
    const n = randInt(rng, 2, 14);
    const nVars = randInt(rng, 1, 6);
    const fixed = randomFixed(rng, n, randInt(rng, 0, 2 * n), rng() < 0.2);
    const cond = randomCond(rng, n, nVars, randInt(rng, 0, 3 * n));
    const one = buildTheory(n, fixed, cond);
    const bulk = new AcyclicityTheory(n);
    // The first edge of each list one by one, the rest in two bulk chunks: every path of gather.
    const col = <T>(xs: T[], f: (x: T) => number) => Int32Array.from(xs, f);
    const fHalf = fixed.length >> 1, cHalf = cond.length >> 1;
    const fStart = rng() < 0.5 && fixed.length > 0 ? 1 : 0;
    if (fStart === 1) bulk.addFixedEdge(fixed[0]!.from, fixed[0]!.to, fixed[0]!.id);
    for (const part of [fixed.slice(fStart, Math.max(fStart, fHalf)), fixed.slice(Math.max(fStart, fHalf))]) {
      bulk.addFixedEdges(col(part, (e) => e.from), col(part, (e) => e.to), col(part, (e) => e.id));
    }
    for (const part of [cond.slice(0, cHalf), cond.slice(cHalf)]) {
      bulk.addConditionalEdges(col(part, (e) => e.from), col(part, (e) => e.to), col(part, (e) => e.lit), col(part, (e) => e.id));
    }
    const a = one.initialize(), b = bulk.initialize();
    assert.deepEqual(b, a, `round ${round}: initialize`);
    if (a !== null) continue;
    assert.deepEqual(bulk.topologicalOrder(), one.topologicalOrder(), `round ${round}: initial order`);
    // The same assignments in the same order must give the same conflicts and the same orders.
    for (let v = 0; v < nVars; v++) {
      const lit = mkLit(v, rng() < 0.5);
      const ca = one.onAssign(lit), cb = bulk.onAssign(lit);
      assert.deepEqual(cb, ca, `round ${round}: conflict on ${lit}`);
      if (ca !== null) assert.deepEqual(bulk.lastCycle(), one.lastCycle(), `round ${round}: cycle`);
      if (ca !== null) break;
    }
    assert.deepEqual(bulk.topologicalOrder(), one.topologicalOrder(), `round ${round}: final order`);
  }
});

test('setConditionalGraph checks its shape, its ends, and excludes edges added otherwise', () => {
  const one = Int32Array.of(0), two = Int32Array.of(1);
  const fresh = () => new AcyclicityTheory(2);
  assert.throws(() => fresh().setConditionalGraph(Int32Array.of(0, 1, 2), one, two, one), RangeError);
  assert.throws(() => fresh().setConditionalGraph(Int32Array.of(1, 1), one, two, one), RangeError);
  assert.throws(() => fresh().setConditionalGraph(Int32Array.of(0, 1), one, Int32Array.of(2), one), RangeError);
  const mixed = fresh();
  mixed.addConditionalEdge(0, 1, 0, 0);
  assert.throws(() => mixed.setConditionalGraph(Int32Array.of(0, 1), one, two, one), /otherwise/);
  const given = fresh();
  given.setConditionalGraph(Int32Array.of(0, 1, 1), one, two, one);
  assert.throws(() => given.addConditionalEdge(1, 0, 1, 1), /setConditionalGraph/);
  assert.throws(() => given.addConditionalEdges(two, one, two, two), /setConditionalGraph/);
  // The graph stands: 0 -> 1 under literal 0, nothing under literal 1 (nor 3, beyond it).
  assert.equal(given.initialize(), null);
  assert.equal(given.onAssign(0), null);
  assert.equal(given.activeEdgeCount(), 1);
  assert.equal(given.onAssign(3), null);
});

test('bulk edges are range-checked like single ones', () => {
  const th = new AcyclicityTheory(3);
  assert.throws(() => th.addFixedEdges(Int32Array.of(0), Int32Array.of(3), Int32Array.of(0)), RangeError);
  assert.throws(() => th.addFixedEdges(Int32Array.of(0, 3), Int32Array.of(1, 2), Int32Array.of(0, 1)), /edge 3->2 outside/);
  assert.throws(() => th.addFixedEdges(Int32Array.of(1, -1), Int32Array.of(2, 0), Int32Array.of(0, 1)), /edge -1->0 outside/);
  assert.throws(() => th.addConditionalEdges(Int32Array.of(0, 1), Int32Array.of(-2, 2), Int32Array.of(0, 0), Int32Array.of(0, 1)), /edge 0->-2 outside/);
  assert.throws(() => th.addFixedEdges(Int32Array.of(0, 1), Int32Array.of(1), Int32Array.of(0)), RangeError);
  assert.throws(() => th.addConditionalEdges(Int32Array.of(0), Int32Array.of(1), Int32Array.of(-1), Int32Array.of(0)), RangeError);
});

// setFixedGraph (the uncontracted solve's set-up, solve.ts): the fixed edges as a CSR with a
// topological order given, the in-CSR built on the first backward search that reads it. Against
// the same edges added one by one and sorted by the theory itself, given that theory's first
// order: the same conflicts and the same cycles (fixed edges named -1) after every step, in
// every reordering mode and on graphs wide enough for backward searches ('auto' reads in-edges
// only in regions of 128 positions or more); the same orders too with 'pk' and 'shift'. With
// 'auto' the orders may differ (before its in-edges exist, a region under 128 positions shifts
// where the other theory may complete a Pearce-Kelly search): both must be topological.
test('fixed edges given as a graph with an order (setFixedGraph) behave exactly like edges added one by one', { timeout: TIMEOUT_MS }, () => {
  const rng = mulberry32(0x5e7f);
  let conflicts = 0, steps = 0, orderDiffers = 0;
  for (let round = 0; round < scaled(600); round++) {
    const reorder = (['auto', 'pk', 'shift'] as const)[round % 3]!;
    const n = round % 2 === 0 ? randInt(rng, 2, 14) : randInt(rng, 64, 260);
    const nVars = randInt(rng, 1, 8);
    const fixed = randomFixed(rng, n, randInt(rng, 0, 3 * n), false);
    const cond = randomCond(rng, n, nVars, randInt(rng, 1, n < 20 ? 3 * n : 60));
    const one = buildTheory(n, fixed, cond, reorder);
    assert.equal(one.initialize(), null);
    const rank = one.topologicalOrder();
    const order = new Int32Array(n);
    rank.forEach((p, u) => { order[p] = u; });
    // The CSR by tail, in edge order within a tail (as buildSplitGraph makes it).
    const outStart = new Int32Array(n + 1);
    for (const e of fixed) outStart[e.from + 1]!++;
    for (let u = 0; u < n; u++) outStart[u + 1]! += outStart[u]!;
    const outTo = new Int32Array(fixed.length), fill = outStart.slice(0, n);
    for (const e of fixed) outTo[fill[e.from]!++] = e.to;
    const graph = new AcyclicityTheory(n, { reorder });
    graph.setFixedGraph(outStart, outTo, order);
    graph.addConditionalEdges(Int32Array.from(cond, (e) => e.from), Int32Array.from(cond, (e) => e.to), Int32Array.from(cond, (e) => e.lit), Int32Array.from(cond, (e) => e.id));
    assert.equal(graph.fixedEdgeCount(), fixed.length);
    assert.equal(graph.initialize(), null);
    assert.deepEqual(graph.topologicalOrder(), rank, `round ${round}: initial order`);
    const stack: Lit[] = [];
    for (let step = 0; step < 40; step++) {
      if (stack.length > 0 && (stack.length === nVars || rng() < 0.3)) {
        const l = stack.pop()!;
        one.onUnassign(l); graph.onUnassign(l);
        continue;
      }
      const free = Array.from({ length: nVars }, (_, v) => v).filter((v) => !stack.some((l) => l >> 1 === v));
      const lit = mkLit(free[randInt(rng, 0, free.length - 1)]!, rng() < 0.5);
      steps++;
      const ca = one.onAssign(lit), cb = graph.onAssign(lit);
      assert.deepEqual(cb, ca, `round ${round} step ${step}: conflict on ${lit}`);
      if (ca === null) {
        stack.push(lit);
      } else {
        conflicts++;
        assert.deepEqual(graph.lastCycle(), one.lastCycle().map((id) => (id < 1000 ? -1 : id)), `round ${round} step ${step}: cycle`);
        one.onUnassign(lit); graph.onUnassign(lit);
      }
      if (reorder !== 'auto') {
        assert.deepEqual(graph.topologicalOrder(), one.topologicalOrder(), `round ${round} step ${step}: order`);
      } else {
        const ord = graph.topologicalOrder(), trueLits = new Set(stack);
        assert.deepEqual([...ord].sort((p, q) => p - q), Array.from({ length: n }, (_, i) => i), `round ${round} step ${step}: a permutation`);
        for (const e of [...fixed, ...cond.filter((e) => trueLits.has(e.lit))]) assert.ok(ord[e.from]! < ord[e.to]!, `round ${round} step ${step}: order violates ${e.from}->${e.to}`);
        if (ord.some((p, u) => p !== one.topologicalOrder()[u])) orderDiffers++;
      }
    }
  }
  assert.ok(orderDiffers > 0, 'auto never shifted where the other theory searched');
  assert.ok(conflicts > steps / 20, `conflicts=${conflicts} of ${steps} assignments`);
});

test('setFixedGraph checks its shape and excludes edges added otherwise', () => {
  const th = new AcyclicityTheory(3);
  assert.throws(() => th.setFixedGraph(Int32Array.of(0, 1, 1), Int32Array.of(1), Int32Array.of(0, 1, 2)), /starts/);
  assert.throws(() => th.setFixedGraph(Int32Array.of(0, 1, 1, 2), Int32Array.of(1), Int32Array.of(0, 1, 2)), /starts/);
  assert.throws(() => th.setFixedGraph(Int32Array.of(0, 1, 1, 1), Int32Array.of(1), Int32Array.of(0, 1)), /order of 2 nodes/);
  th.setFixedGraph(Int32Array.of(0, 1, 1, 1), Int32Array.of(1), Int32Array.of(0, 1, 2));
  assert.throws(() => th.addFixedEdge(1, 2, 0), /setFixedGraph/);
  assert.throws(() => th.addFixedEdges(Int32Array.of(1), Int32Array.of(2), Int32Array.of(0)), /setFixedGraph/);
  const other = new AcyclicityTheory(3);
  other.addFixedEdge(0, 1, 0);
  assert.throws(() => other.setFixedGraph(Int32Array.of(0, 1, 1, 1), Int32Array.of(1), Int32Array.of(0, 1, 2)), /one by one/);
  // A head outside 0 .. n-1 is found when the in-edges are built (pk reads them at once).
  const bad = new AcyclicityTheory(3, { reorder: 'pk' });
  bad.setFixedGraph(Int32Array.of(0, 1, 1, 1), Int32Array.of(7), Int32Array.of(0, 1, 2));
  bad.addConditionalEdge(2, 1, mkLit(0, false), 5);
  assert.equal(bad.initialize(), null);
  assert.throws(() => bad.onAssign(mkLit(0, false)), /head is outside/);
});

// Conditional edges already in literal order (the solver adds them variable by variable) are
// kept as they are, without initialize's counting sort. Against the same edges given with their
// literal groups in reverse order (the sort then runs and gives the same sequence, as it is
// stable), one by one in literal order, and one then the rest in bulk: the same conflicts,
// cycles and orders. And edges added in bulk then one by one in literal order, which initialize
// takes one by one first, and two chunks each in literal order but not together: against
// those sequences in one chunk.
test('conditional edges in literal order skip the sort, or given as a CSR by literal (setConditionalGraph), and behave exactly like sorted ones', { timeout: TIMEOUT_MS }, () => {
  const rng = mulberry32(0x1175);
  for (let round = 0; round < scaled(400); round++) {
    const n = randInt(rng, 2, 40);
    const nVars = randInt(rng, 1, 8);
    const fixed = randomFixed(rng, n, randInt(rng, 0, 2 * n), false);
    const cond = randomCond(rng, n, nVars, randInt(rng, 1, 4 * n));
    const sorted = [...cond].sort((p, q) => p.lit - q.lit);
    const groups = [...new Set(sorted.map((e) => e.lit))].reverse();
    const reversed = groups.flatMap((l) => sorted.filter((e) => e.lit === l));
    const col = <T>(xs: T[], f: (x: T) => number) => Int32Array.from(xs, f);
    const make = (edges: CondEdge[], how: 'bulk' | 'single' | 'mixed' | 'late' | 'two' | 'csr'): AcyclicityTheory => {
      const th = new AcyclicityTheory(n);
      for (const e of fixed) th.addFixedEdge(e.from, e.to, e.id);
      if (how === 'csr') {
        // A CSR by literal over all 2 * nVars literals (setConditionalGraph; edges in literal order).
        const litStart = new Int32Array(2 * nVars + 1);
        for (const e of edges) litStart[e.lit + 1]!++;
        for (let l = 0; l < 2 * nVars; l++) litStart[l + 1]! += litStart[l]!;
        th.setConditionalGraph(litStart, col(edges, (e) => e.from), col(edges, (e) => e.to), col(edges, (e) => e.id));
        assert.equal(th.initialize(), null);
        return th;
      }
      const bulk = (xs: CondEdge[]) => { if (xs.length > 0) th.addConditionalEdges(col(xs, (e) => e.from), col(xs, (e) => e.to), col(xs, (e) => e.lit), col(xs, (e) => e.id)); };
      const head = how === 'single' ? edges.length : how === 'mixed' ? 1 : 0;
      if (how === 'late') bulk(edges.slice(0, -1));
      for (const e of how === 'late' ? edges.slice(-1) : edges.slice(0, head)) th.addConditionalEdge(e.from, e.to, e.lit, e.id);
      if (how === 'two') { bulk(edges.slice(0, cut)); bulk(edges.slice(cut)); } else if (how !== 'late') bulk(edges.slice(head));
      assert.equal(th.initialize(), null);
      return th;
    };
    // Two chunks: the upper literals' edges, then the lower ones', each in literal order.
    const mid = sorted[sorted.length >> 1]!.lit, upperFirst = sorted.filter((e) => e.lit >= mid).concat(sorted.filter((e) => e.lit < mid));
    const cut = sorted.filter((e) => e.lit >= mid).length;
    const ref = make(reversed, 'bulk'), refLate = make(sorted.slice(-1).concat(sorted.slice(0, -1)), 'bulk'), refTwo = make(upperFirst, 'bulk');
    const pairs: [AcyclicityTheory, AcyclicityTheory][] = [
      [make(sorted, 'bulk'), ref], [make(sorted, 'single'), ref], [make(reversed, 'mixed'), ref], [make(sorted, 'late'), refLate], [make(upperFirst, 'two'), refTwo],
      [make(sorted, 'csr'), ref],
    ];
    const refs = [ref, refLate, refTwo], all = [...refs, ...pairs.map((p) => p[0])];
    const stack: Lit[] = [];
    for (let step = 0; step < 30; step++) {
      if (stack.length > 0 && (stack.length === nVars || rng() < 0.3)) {
        const l = stack.pop()!;
        for (const th of all) th.onUnassign(l);
        continue;
      }
      const free = Array.from({ length: nVars }, (_, v) => v).filter((v) => !stack.some((l) => l >> 1 === v));
      const lit = mkLit(free[randInt(rng, 0, free.length - 1)]!, rng() < 0.5);
      const want = refs.map((r) => r.onAssign(lit));
      for (const [i, [th, r]] of pairs.entries()) {
        const w = want[refs.indexOf(r)]!;
        assert.deepEqual(th.onAssign(lit), w, `round ${round} step ${step} theory ${i}: conflict`);
        if (w !== null) assert.deepEqual(th.lastCycle(), r.lastCycle(), `round ${round} step ${step} theory ${i}: cycle`);
        assert.deepEqual(th.topologicalOrder(), r.topologicalOrder(), `round ${round} step ${step} theory ${i}: order`);
      }
      // Both references see the same edges (in another order within a literal): the same verdict.
      assert.ok(want.every((w) => (w === null) === (want[0] === null)), `round ${round} step ${step}: references`);
      if (want[0] === null) stack.push(lit);
      else for (const th of all) th.onUnassign(lit);
    }
  }
});
