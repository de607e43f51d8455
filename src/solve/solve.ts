/**
 * Encoding the undecided constraints for the SAT solver and reading back the answer.
 *
 * Takes: the Polygraph after pruning (known edges + active constraints) and a level.
 * Gives: `SolveOutcome`: 'sat' (some choice of every constraint leaves the split graph acyclic:
 * the history satisfies the level), 'unsat' with a witness cycle, or 'unknown' (budget).
 * Encoding: one Boolean variable per active constraint (true = either, false = or); known edges
 * are fixed edges of the acyclicity theory, each side's edges are conditional on its literal.
 * Search: uncontracted (small histories), the phases alone when they all go forwards, else a
 * greedy descent on the theory (descent.ts), else (or contracted, or PSI) the CDCL solver.
 * Invariant: a 'sat' answer is re-checked here by building the chosen graph and confirming it is
 * acyclic (a model checker at the stage boundary); an 'unsat' answer comes with a cycle in the
 * graph of one concrete choice (every choice has one).
 * With `extra` (SolveOptions: variables, clauses and conditional edges of the caller's, e.g. the
 * predicate reads' choices, check/predicate-search.ts) the same search runs over both, on the
 * whole known graph (no contraction, no phase shortcut, no descent); a 'sat' model is checked on
 * the extra edges and clauses too, and an 'unsat' answer has no cycle (no single choice of
 * constraints need carry one: the caller certifies its own counterexample).
 */

import type { Level } from '../result/types.ts';
import type { Polygraph } from '../graph/polygraph.ts';
import { buildSplitGraph, checksRwApart, ranks, splitPairs, topoOrder, type SplitGraph } from '../graph/split.ts';
import { KIND_NAMES } from '../graph/edges.ts';
import { closingRw, closingRws, forbiddenCycle } from '../graph/forbidden.ts';
import { AcyclicityTheory } from '../sat/acyclicity.ts';
import type { ReachTable } from '../prune/reach.ts';
import { contract } from './contract.ts';
import { kahnCount, type EdgeList } from './kahn.ts';
import { mkLit, Solver } from '../sat/cdcl.ts';
import type { Lit } from '../sat/types.ts';
import { GrowableInt32 } from '../util/growable.ts';
import { IntMinHeap } from '../sat/heap.ts';
import { greedyDescent } from './descent.ts';

/** PSI: clauses added per model at most (each rules out one RW edge closing a Dep path). */
const PSI_CLAUSES_PER_MODEL = 256;

export interface SolveOptions {
  level: Level;
  deadlineMs: number;
  conflictsMax?: number;
  /** A topological order of the known split graph, if the caller has one (pruning does). */
  knownOrder?: Int32Array | null;
  /**
   * Pruning's reachability table of the final known graph (PruneOutcome.reach), if exact: the
   * theory then gets the contracted graph (contract.ts) instead of the whole known graph.
   */
  reach?: ReachTable | null;
  /** The known split graph `reach` was computed on (PruneOutcome.graph): models are checked on it. */
  knownGraph?: SplitGraph | null;
  /** Use the contraction when `reach` allows it (default true; false for differential tests). */
  contract?: boolean;
  /**
   * Try the phases first (default true; false for differential tests): when every constraint's
   * phase side (the one the solver would try first) has all its split edges forwards in the
   * known graph's topological order, that choice is a model and no solver is built; otherwise,
   * uncontracted, the greedy descent (descent.ts) before the CDCL solver.
   */
  phaseShortcut?: boolean;
  /**
   * Variables, clauses and conditional dependency edges beyond the constraints'. Disables the
   * contraction, the phase shortcut and the descent. At PSI the extra RW edges whose literal
   * holds join the lazy clauses' check like the constraints' (a clause negates their literals).
   */
  extra?: ExtraEncoding;
}

/**
 * A caller's own encoding, made once the active constraints are numbered: `consLit(c)` is the
 * literal true when active constraint c takes its either side (consA[c] before consB[c]), null
 * for an inactive one; the caller's variables are numbered from `firstVar` on.
 */
export interface ExtraEncoding {
  /** `rank[u]`: split node u's place in a topological order of the known split graph (for phases). */
  build(consLit: (c: number) => Lit | null, firstVar: number, rank: Int32Array): ExtraBuilt;
}

/** Extra variables `firstVar .. firstVar + variables - 1`; clauses; edge i is from[i] -kind[i]-> to[i] on key[i], present when lit[i] is true. */
export interface ExtraBuilt {
  variables: number;
  clauses: Lit[][];
  from: Int32Array;
  to: Int32Array;
  kind: Int32Array;
  key: Int32Array;
  lit: Int32Array;
  /** The extra variables set to true first (phases; the rest start false). Any choice is sound: phases only steer. */
  phaseTrue?: readonly number[];
  /**
   * Lazy clauses of the caller's (check/rr-search.ts: repeatable read's cycles through predicate
   * anti-dependencies, which no acyclicity of one graph states): called with each model the
   * search finds (`holds(l)`: literal l is true in it; not combined with PSI's clauses). It returns
   * clauses the model breaks (each must rule that model out, and no model the caller accepts),
   * added to the same solver before it searches again; [] when the model stands; null to give
   * up (the caller's bound: the outcome is then 'unknown').
   */
  refine?: (holds: (l: Lit) => boolean) => Lit[][] | null;
}

/** The solve stage's statistics (CheckResult.solver). */
export interface SolveStats {
  variables: number;
  /** CDCL conflicts (0 when the descent found the model and no solver was built). */
  conflicts: number;
  decisions: number;
  propagations: number;
  /** Phases the greedy descent flipped (descent.ts), whether or not it ended at a model. */
  flips: number;
}

export interface SolveOutcome {
  result: 'sat' | 'unsat' | 'unknown';
  /** For 'unsat': the dependency edges of a cycle, as indices into `edges` below. */
  cycle: Int32Array | null;
  /** The edge table the cycle indexes: known edges, then the chosen sides' edges. */
  edges: ChosenEdges | null;
  /** For 'sat': `choice[c]` = 0 if the model picks constraint c's either side, 1 for or (active c only). */
  choice?: Uint8Array;
  /** For 'unsat': `fixed[c]` = the side fixed at level 0 (0 either, 1 or), -1 if none (active c only). */
  fixed?: Int8Array;
  /** `conflicts`, `decisions`, `propagations`: the CDCL search's (decisions and propagations one per variable for a descent's model); `flips`: the greedy descent's (descent.ts). */
  stats: SolveStats;
  /** The theory's graph: its node and fixed-edge counts, and whether it was contracted. */
  theoryGraph?: { nodes: number; edges: number; contracted: boolean };
  /** With `extra`, for 'sat': the value of each extra variable (index i: variable firstVar + i), 1 true. */
  extraModel?: Uint8Array;
}

export interface ChosenEdges {
  from: Int32Array;
  to: Int32Array;
  kind: Int32Array;
  key: Int32Array;
  /** The constraint an edge was chosen from, or -1 for a known edge. */
  constraint: Int32Array;
  /** The constraint edge (index into `pg.ce*`) a chosen edge copies, or -1 for a known edge. */
  ce: Int32Array;
}

/**
 * `trust` (internal): whether the caller's `knownOrder` and `knownGraph` are used; false for the
 * second run after a model check that failed with them (see below).
 */
export function solveConstraints(pg: Polygraph, active: Uint8Array, opts: SolveOptions, trust = true): SolveOutcome {
  const known = pg.known;
  // A topological order of the known graph: the theory starts from it (no sort of its own), and
  // the ranks in it give every variable its initial phase. When it is computed here, so is the
  // known split graph (the uncontracted theory's fixed edges).
  let computed: SplitGraph | null = null;
  const given = sessionOrderHint(pg, opts.level) ?? (trust ? opts.knownOrder ?? null : null);
  const order = given ?? topoOrder(computed = knownSplitGraph(pg, opts.level));
  const knownCycle = order === null || !checksRwApart(opts.level) ? null : knownClosingRw(pg, order);
  if (order === null || knownCycle !== null) {
    // Only with pruning off: the known graph itself is cyclic.
    const edges = chosenEdges(pg, active, new Int32Array(pg.consCount), () => true);
    return { result: 'unsat', cycle: witnessCycle(pg.nodeCount, edges, opts.level), edges, stats: { variables: 0, conflicts: 0, decisions: 0, propagations: 0, flips: 0 } };
  }
  const rank = ranks(order);
  const pairs = flatPairs(opts.level);
  // The active constraints as a list, made once: every pass below then visits only those
  // (fig8 30 %: 6,929 of 157,073).
  const act = activeList(active);
  // The theory's nodes: the contracted graph's when pruning's table allows it (0, 1, 2, ... is a
  // topological order of its fixed edges), else the split nodes themselves, with the known split
  // graph as the fixed edges (pruning's, when it hands it over: not copied) and `order` as the
  // theory's first order.
  const extra = opts.extra ?? null;
  const tableless = extra !== null || opts.reach === undefined || opts.reach === null || opts.contract === false;
  const h = tableless ? null : contract(pg, active, opts.level, order, opts.reach!, opts.deadlineMs, act);
  const cons = conditionalSplitEdges(pg, act, pairs, h === null ? rank : h.nodeOf, known.length);
  const built = extra === null ? null : buildExtra(extra, pg, act, rank);
  const cond = built === null ? cons : withExtraEdges(cons, built, act.length, pairs, known.length + pg.ceFrom.length);
  const variables = act.length;
  // Start every variable on the side that agrees with the known graph's order (initialPhases).
  const phase = new Uint8Array(variables);
  const phasesForwards = initialPhases(pg, act, cond.backward, cond.stuck, rank, phase);
  // The phase shortcut, only without a table (small histories: pruning hands none over below
  // CONTRACT_MIN_TXNS, or pruning is off), and only when every phase side's split edges go
  // forwards in the known graph's order: then the model check in that order (every known split
  // edge forwards too) proves the phases a model, with no theory built. Otherwise the descent
  // below tries the phases on the theory.
  // With a table the contracted search is cheap and a try is not (fig8 30 %, 125k, 250k: their
  // phases are not a model).
  const descend = extra === null && opts.phaseShortcut !== false && tableless && !checksRwApart(opts.level);
  if (descend && phasesForwards && modelForwards(pg, act, phase, pairs, rank)) {
    // The solver's stats for a conflict-free run: the theory propagates nothing, so one
    // decision and one propagation per variable (test/solve/phase-shortcut.test.ts).
    return { result: 'sat', cycle: null, edges: null, choice: choiceOf(pg.consCount, act, phase), stats: { variables, conflicts: 0, decisions: variables, propagations: variables, flips: 0 } };
  }
  const theory = new AcyclicityTheory(h === null ? 2 * pg.nodeCount : h.nodeCount);
  let g: SplitGraph | null = null;
  if (h === null) {
    g = computed ?? (trust && opts.knownGraph !== undefined && opts.knownGraph !== null && opts.knownGraph.nodeCount === 2 * pg.nodeCount
      ? opts.knownGraph : knownSplitGraph(pg, opts.level));
    theory.setFixedGraph(g.outStart, g.outTo, order);
  }
  const theoryGraph = { nodes: h === null ? 2 * pg.nodeCount : h.nodeCount, edges: 0, contracted: h !== null };
  if (h !== null) {
    // The contracted graph is small: renumber it so that the phases' edges go forwards too, and
    // a search that follows its phases inserts no edge against the order (each such insertion is
    // a Pearce-Kelly search; 250k txns: 0.87 s of a 2.8 s solve with no conflict at all).
    const { from, to, lit } = contractedEdges(cond.from, cond.to, cond.litStart, h.nodeOf);
    const perm = phaseConsistentOrder(h.nodeCount, h.from, h.to, from, to, lit, phase);
    theory.addFixedEdges(renumbered(h.from, perm), renumbered(h.to, perm), new Int32Array(h.from.length).fill(-1));
    theory.setConditionalGraph(cond.litStart, renumbered(from, perm), renumbered(to, perm), cond.id);
  } else {
    theory.setConditionalGraph(cond.litStart, cond.from, cond.to, cond.id);
  }
  theoryGraph.edges = theory.fixedEdgeCount();
  if (theory.initialize() !== null) throw new Error('internal error: the known graph is cyclic under a topological order');
  // The greedy descent (descent.ts) first, where the shortcut applies: on a small valid history
  // it usually ends at a model, and the CDCL solver is never built.
  const d = descend ? greedyDescent(theory, phase, opts.deadlineMs) : { result: 'stuck' as const, flips: 0 };
  const flips = d.flips;
  if (d.result === 'timeout') return { result: 'unknown', cycle: null, edges: null, stats: { variables, conflicts: 0, decisions: 0, propagations: 0, flips }, theoryGraph };
  const s = d.result === 'model'
    ? { result: 'sat' as const, model: phase, stats: { variables, conflicts: 0, decisions: variables, propagations: variables, flips }, psiCycle: null }
    : searchModel(pg, active, act, phase, theory, opts, flips, built);
  if (s.result === 'unknown') return { result: 'unknown', cycle: null, edges: null, stats: s.stats, theoryGraph };
  if (built !== null) return extraOutcome(pg, act, s, built, pairs, theory, theoryGraph);
  if (s.psiCycle !== null) return { result: 'unsat', cycle: s.psiCycle.cycle, edges: s.psiCycle.edges, stats: s.stats, theoryGraph };
  if (s.result === 'sat') {
    // Model check, on the whole graph and with edges re-derived from `pg` (not the arrays the
    // theory was given): uncontracted, the theory's order must put every chosen split edge
    // forwards; contracted, the theory only ordered E', so the chosen graph is sorted afresh.
    if (h !== null) {
      if (!chosenGraphAcyclic(pg, act, s.model, opts.level, opts.knownGraph ?? null)) {
        throw new Error('internal error: the solver returned a model whose graph is cyclic (contracted)');
      }
    } else if (!modelForwards(pg, act, s.model, pairs, theory.topologicalOrder())) {
      // The theory took the caller's order and graph on trust (setFixedGraph): an order that the
      // graph does not follow, or a graph that is not pg's, can hide a cycle from it. Then solve
      // again from a graph built and sorted here (test/solve/phase-shortcut.test.ts: a reversed
      // order); a model that fails then is the solver's error.
      if (trust && (opts.knownOrder !== undefined && opts.knownOrder !== null || g !== computed)) return solveConstraints(pg, active, opts, false);
      throw new Error('internal error: the solver returned a model whose graph is cyclic');
    }
    return { result: 'sat', cycle: null, edges: null, stats: s.stats, theoryGraph, choice: choiceOf(pg.consCount, act, s.model) };
  }
  // Unsat: every choice has a cycle; show the one for the choices fixed at level 0, else "either".
  const fixedSide = s.fixed!;
  const edges = chosenEdges(pg, active, variableOf(act, pg.consCount), (x) => fixedSide[x] !== 0);
  const cycle = witnessCycle(pg.nodeCount, edges, opts.level);
  if (cycle === null) throw new Error('internal error: the solver said unsat but the chosen graph is acyclic');
  const fixed = new Int8Array(pg.consCount).fill(-1);
  for (let x = 0; x < variables; x++) if (fixedSide[x] !== -1) fixed[act[x]!] = fixedSide[x] === 1 ? 0 : 1;
  return { result: 'unsat', cycle, edges, stats: s.stats, theoryGraph, fixed };
}

/** What the CDCL search gives back: for 'sat' the model (1 = either side), for 'unsat' the level-0 facts. */
interface SearchOutcome {
  result: 'sat' | 'unsat' | 'unknown';
  /** `model[x]` = 1 when the model takes variable x true (the either side). */
  model: Uint8Array;
  /** 'unsat': `fixed[x]` = 1 (true), 0 (false) at level 0, -1 (not fixed). */
  fixed?: Int8Array;
  stats: SolveOutcome['stats'];
  /** PSI: a clause with no literal, i.e. a cycle among known edges alone (unsat, with its witness). */
  psiCycle: { cycle: Int32Array; edges: ChosenEdges } | null;
}

/**
 * The CDCL search over the variables of `act` (phases `phase`) with the initialized `theory`;
 * PSI's RW clauses are added lazily on each model.
 */
function searchModel(
  pg: Polygraph, active: Uint8Array, act: Int32Array, phase: Uint8Array, theory: AcyclicityTheory, opts: SolveOptions, flips: number, built: ExtraBuilt | null = null,
): SearchOutcome {
  // No start-up probing: the known graph is already pruned to a fixpoint, so probing each
  // polarity mostly re-discovers nothing at the price of two graph insertions per variable
  // (measured: 3.6 s instead of 0.3 s on a write-only fig7 history with 42,264 variables).
  const solver = new Solver({ probeWithTheory: false });
  const variables = act.length + (built?.variables ?? 0);
  // Variable x is constraint act[x]; `varOf()` is the inverse, made when first needed (PSI's
  // clauses, an unsat witness: not for a 'sat' at the other levels).
  let varOfMemo: Int32Array | null = null;
  const varOf = (): Int32Array => (varOfMemo ??= variableOf(act, pg.consCount));
  solver.newVars(variables);
  for (let x = 0; x < act.length; x++) solver.setPhase(x, phase[x] === 1);
  if (built !== null) {
    for (let x = act.length; x < variables; x++) solver.setPhase(x, false);
    for (const x of built.phaseTrue ?? []) solver.setPhase(x, true);
  }
  const stats = (): SolveStats => ({ variables, conflicts: solver.stats.conflicts, decisions: solver.stats.decisions, propagations: solver.stats.propagations, flips });
  const model = new Uint8Array(variables);
  solver.setTheory(theory);
  const limits: { deadlineMs: number; conflictsMax?: number } = { deadlineMs: opts.deadlineMs };
  if (opts.conflictsMax !== undefined) limits.conflictsMax = opts.conflictsMax;
  // The caller's clauses (extra): one that cannot hold makes the formula unsat at once.
  let result = built !== null && !built.clauses.every((c) => solver.addClause(c)) ? 'unsat' : solver.solve(limits);
  // PSI: the theory keeps the Dep graph acyclic; an RW edge closing a Dep path is found on each
  // model and ruled out by a clause over the choices that made it (lazy clause generation).
  // Each clause removes at least the current model, so the loop ends.
  while (result === 'sat' && checksRwApart(opts.level)) {
    const base = chosenEdges(pg, active, varOf(), (x) => solver.modelValue(x));
    // The extra edges whose literal holds, after the chosen ones: `extraLit[i - base count]`.
    const { edges, extraLit } = built === null ? { edges: base, extraLit: null } : withTrueExtraEdges(base, built, (l) => solver.modelValue(l >> 1) !== ((l & 1) === 1));
    const g = buildSplitGraph(pg.nodeCount, edges.from.length, edges.from, edges.to, edges.kind, opts.level);
    const order = topoOrder(g);
    if (order === null) throw new Error('internal error: the solver returned a model whose graph is cyclic');
    // Many closing RW edges per model, one clause each: far fewer rounds than one at a time.
    const cycles = closingRws(g, order, edges.from.length, edges.from, edges.to, edges.kind, PSI_CLAUSES_PER_MODEL);
    if (cycles.length === 0) break;
    const clauses: number[][] = [];
    for (const cycle of cycles) {
      const clause: number[] = [];
      const seen = new Set<number>();
      for (const i of cycle) {
        if (extraLit !== null && i >= base.from.length) {
          // An extra edge's literal holds: the clause says not all of them again.
          const l = extraLit[i - base.from.length]!;
          if (!seen.has(-1 - l)) { seen.add(-1 - l); clause.push(l ^ 1); }
          continue;
        }
        const c = edges.constraint[i]!;
        if (c < 0 || seen.has(c)) continue;
        seen.add(c);
        const x = varOf()[c]!;
        clause.push(mkLit(x, solver.modelValue(x)));
      }
      if (clause.length === 0) return { result: 'unsat', model, stats: stats(), psiCycle: { cycle, edges } };
      clauses.push(clause);
    }
    if (Date.now() >= opts.deadlineMs) return { result: 'unknown', model, stats: stats(), psiCycle: null };
    result = clauses.every((c) => solver.addClause(c)) ? solver.solve(limits) : 'unsat';
  }
  // The caller's lazy clauses (ExtraBuilt.refine): each rules out at least the current model.
  while (result === 'sat' && built !== null && built.refine !== undefined) {
    const clauses = built.refine((l) => solver.modelValue(l >> 1) !== ((l & 1) === 1));
    if (clauses === null) return { result: 'unknown', model, stats: stats(), psiCycle: null };
    if (clauses.length === 0) break;
    if (Date.now() >= opts.deadlineMs) return { result: 'unknown', model, stats: stats(), psiCycle: null };
    result = clauses.every((c) => solver.addClause(c)) ? solver.solve(limits) : 'unsat';
  }
  if (result === 'sat') for (let x = 0; x < variables; x++) model[x] = solver.modelValue(x) ? 1 : 0;
  if (result !== 'unsat') return { result, model, stats: stats(), psiCycle: null };
  const fixed = new Int8Array(variables);
  for (let x = 0; x < variables; x++) {
    const f = solver.fixedValue(x);
    fixed[x] = f === undefined ? -1 : f ? 1 : 0;
  }
  return { result, model, fixed, stats: stats(), psiCycle: null };
}

/**
 * Sets `phase[x]` (1 = either) for every variable: the side that agrees with the known graph's
 * order, i.e. the side with fewer split edges pointing backwards in it (`backward`; ties: the
 * writers' own order, `rank`). Returns whether every chosen side has all its split edges
 * forwards (`stuck` = 0: the phase shortcut's condition).
 * Why: real histories come from a database with a real commit order, which the known graph
 * (SO, WR and all that pruning forced) approximates, so the guess is usually right and the
 * search needs few conflicts; each backward edge costs the theory a reordering search when it is
 * inserted. Any guess is sound: phases only steer the search.
 */
function initialPhases(pg: Polygraph, act: Int32Array, backward: Int32Array, stuck: Int32Array, rank: Int32Array, phase: Uint8Array): boolean {
  let forwards = true;
  for (let x = 0; x < act.length; x++) {
    const c = act[x]!;
    const back0 = backward[2 * x]!, back1 = backward[2 * x + 1]!;
    const either = back0 !== back1 ? back0 < back1 : rank[2 * pg.consA[c]!]! < rank[2 * pg.consB[c]!]!;
    phase[x] = either ? 1 : 0;
    if (stuck[2 * x + (either ? 0 : 1)] !== 0) forwards = false;
  }
  return forwards;
}

/** `choice[c]` = 0 where variable x of constraint c = act[x] takes the either side (`model[x]` = 1), 1 for or. */
function choiceOf(consCount: number, act: Int32Array, model: Uint8Array): Uint8Array {
  const choice = new Uint8Array(consCount);
  for (let x = 0; x < act.length; x++) if (model[x] === 0) choice[act[x]!] = 1;
  return choice;
}

/**
 * The indices of the active constraints, increasing (variable x of the solver is constraint
 * `act[x]`): found by the engine's own search for the next 1 (`indexOf`), one call per active
 * constraint, where a loop over the flags ran cold over all of them (after pruning nearly all
 * are 0: fig8 30 %, 6,929 of 157,073; a 360-txn history, ~125 of ~1,340).
 */
export function activeList(active: Uint8Array): Int32Array {
  const list = new Int32Array(active.length);
  let m = 0;
  for (let c = active.indexOf(1); c >= 0; c = active.indexOf(1, c + 1)) list[m++] = c;
  return list.slice(0, m);
}

/** `varOf[c]`: the variable of constraint c (its index in `act`), -1 for an inactive one. */
function variableOf(act: Int32Array, consCount: number): Int32Array {
  const varOf = new Int32Array(consCount).fill(-1);
  for (let x = 0; x < act.length; x++) varOf[act[x]!] = x;
  return varOf;
}

/**
 * Does every split edge of the known edges and of the sides `model` picks (variable x:
 * constraint `act[x]`, `model[x]` = 1: either) go forwards in `at` (`at[u]` < `at[v]`: then `at`
 * sorts the chosen graph, which is acyclic)? Re-derived from `pg` (not from what the theory was
 * given): the model check of the uncontracted solve, and the phase shortcut's proof. The chosen
 * sides' edges are read in place, in pg's constraint-edge columns (no copy).
 */
function modelForwards(pg: Polygraph, act: Int32Array, model: Uint8Array, pairs: FlatPairs, at: Int32Array): boolean {
  const chosen: EdgeSet = { from: pg.ceFrom, to: pg.ceTo, kind: pg.ceKind, slots: chosenSlots(act, model), start: pg.edgeStart };
  return splitEdgesForwards(pg.nodeCount, [pg.known.views(), chosen], pairs, at);
}

/** The chosen side of each active constraint (variable x: constraint act[x]; `model[x]` = 1: either), as its edge slot. */
function chosenSlots(act: Int32Array, model: Uint8Array): Int32Array {
  const slots = new Int32Array(act.length);
  for (let x = 0; x < act.length; x++) slots[x] = 2 * act[x]! + (model[x] === 1 ? 0 : 1);
  return slots;
}

/**
 * Dependency edges as columns: edge i is from[i] -> to[i] of kind[i]; all of them, or with
 * `slots` and `start` (a CSR over slots) only edges start[s] .. start[s+1]-1 of each slot s in
 * `slots` (pg's constraint edges of the chosen sides).
 */
export interface EdgeSet { from: Int32Array; to: Int32Array; kind: Int32Array | Uint8Array; slots?: Int32Array; start?: Int32Array }

/**
 * Does every split edge (`pairs`: a level's, flatPairs) of the dependency edges in `sets` over
 * n transactions go forwards in `at` (2n positions)? The position table is made once for all
 * the sets. `how` 'general' takes the loop over the pairs whatever the level (tests compare the
 * two).
 */
export function splitEdgesForwards(
  n: number, sets: readonly EdgeSet[], pairs: FlatPairs, at: Int32Array, how: 'auto' | 'general' = 'auto',
): boolean {
  const t = how === 'general' ? null : positionTable(n, pairs, at);
  for (const e of sets) {
    const slots = e.slots ?? null, start = e.start ?? null;
    const ok = t === null
      ? (slots === null || start === null ? !knownBackwards(e.from, e.to, e.kind, 0, e.from.length, pairs, at) : slotsForwardsGeneral(e, slots, start, pairs, at))
      : (slots === null || start === null ? edgesForwards(e.from, e.to, e.kind, t, n) : slotsForwards(e.from, e.to, e.kind, slots, start, t, n));
    if (!ok) return false;
  }
  return true;
}

/**
 * Every level's split edges of one kind share their head's layer y and take their tails from
 * layers {0}, {1} or {0, 1} (split.ts's ENCODING): then all of an edge a -> b's split edges go
 * forwards in `at` iff (the later of its tail nodes) < at[2b + y]. So one table of positions
 * over the transactions, two blocks of n per kind k: at 2kn its tails' (the later of the twins,
 * layer 0's (.d) or layer 1's (.n) position, or -1 for a kind with no split edge: always
 * forwards), at (2k+1)n its heads'; edge a -> b of kind k goes forwards iff
 * pos[2kn + a] < pos[2kn + n + b]. Null when a kind does not fit (the general loop then runs).
 * Why: the model check reads every known edge once, cold (360 txns: ~4,200 edges): one load
 * of the kind, two of the ends and two of positions is the least interpreted work per edge
 * (before: a per-kind case split and the layer arithmetic, then offsets read from per-kind
 * tables); the blocks are copied natively from four made in one pass over the transactions.
 */
function positionTable(n: number, pairs: FlatPairs, at: Int32Array): Int32Array | null {
  const { count: cnt, x: X, y: Y } = pairs;
  const kinds = cnt.length, base = 2 * kinds * n;
  // The sources, after the kinds' blocks: the later twin, .d, .n, -1.
  const pos = new Int32Array(base + 4 * n);
  fillPositions(n, at, pos, base);
  pos.fill(-1, base + 3 * n);
  for (let k = 0; k < kinds; k++) {
    const c = cnt[k]!;
    if (c === 2 && (Y[2 * k] !== Y[2 * k + 1] || X[2 * k] === X[2 * k + 1])) return null;
    const tail = c === 0 ? 3 : c === 2 ? 0 : 1 + X[2 * k]!, head = c === 0 ? 1 : 1 + Y[2 * k]!;
    pos.copyWithin(2 * k * n, base + tail * n, base + (tail + 1) * n);
    pos.copyWithin((2 * k + 1) * n, base + head * n, base + (head + 1) * n);
  }
  return pos;
}

/** positionTable's sources at `base`: the later twin's position, .d's, .n's. */
function fillPositions(n: number, at: Int32Array, pos: Int32Array, base: number): void {
  for (let a = 0; a < n; a++) {
    const d = at[2 * a]!, m = at[2 * a + 1]!;
    pos[base + a] = d > m ? d : m;
    pos[base + n + a] = d;
    pos[base + 2 * n + a] = m;
  }
}

/** Does every edge of from/to/kind go forwards (positionTable's `pos` over n txns)? */
function edgesForwards(from: Int32Array, to: Int32Array, kind: Int32Array | Uint8Array, pos: Int32Array, n: number): boolean {
  const n2 = 2 * n, m = from.length;
  for (let i = 0; i < m; i++) {
    const o = kind[i]! * n2;
    if (pos[o + from[i]!]! >= pos[o + n + to[i]!]!) return false;
  }
  return true;
}

/** edgesForwards over the edges start[s] .. start[s+1]-1 of each slot s in `slots`. */
function slotsForwards(from: Int32Array, to: Int32Array, kind: Int32Array | Uint8Array, slots: Int32Array, start: Int32Array, pos: Int32Array, n: number): boolean {
  const n2 = 2 * n;
  for (let x = 0; x < slots.length; x++) {
    for (let e = start[slots[x]!]!, end = start[slots[x]! + 1]!; e < end; e++) {
      const o = kind[e]! * n2;
      if (pos[o + from[e]!]! >= pos[o + n + to[e]!]!) return false;
    }
  }
  return true;
}

/** The general loop over the slots' edges (see slotsForwards). */
function slotsForwardsGeneral(e: EdgeSet, slots: Int32Array, start: Int32Array, pairs: FlatPairs, at: Int32Array): boolean {
  for (let x = 0; x < slots.length; x++) {
    if (knownBackwards(e.from, e.to, e.kind, start[slots[x]!]!, start[slots[x]! + 1]!, pairs, at)) return false;
  }
  return true;
}

/** Does any split edge of the dependency edges lo .. hi-1 of from/to/kind go backwards (or nowhere) in `at`? */
function knownBackwards(from: Int32Array, to: Int32Array, kind: Int32Array | Uint8Array, lo: number, hi: number, pairs: FlatPairs, at: Int32Array): boolean {
  const { count: cnt, x: X, y: Y } = pairs;
  for (let i = lo; i < hi; i++) {
    const a = from[i]!, b = to[i]!, k = kind[i]!;
    for (let p = 0; p < cnt[k]!; p++) if (at[2 * a + X[2 * k + p]!]! >= at[2 * b + Y[2 * k + p]!]!) return true;
  }
  return false;
}

/**
 * Is the split graph of the known edges plus the sides `choose` picks acyclic? Kahn's algorithm
 * over the known split graph `g` (built here when not given) and the chosen sides' split edges
 * (a small CSR of their own), so the known graph is not copied. O(nodes + edges).
 */
function chosenGraphAcyclic(pg: Polygraph, act: Int32Array, model: Uint8Array, level: Level, g: SplitGraph | null): boolean {
  const k = pg.known.views();
  const known = g ?? buildSplitGraph(pg.nodeCount, k.from.length, k.from, k.to, k.kind, level);
  if (known.nodeCount !== 2 * pg.nodeCount) throw new Error('internal error: the known split graph has the wrong size');
  const { count: cnt, x: X, y: Y } = flatPairs(level);
  const N = known.nodeCount;
  const slots = chosenSlots(act, model);
  return kahnCount(N, { start: known.outStart, to: known.outTo }, chosenSplitEdges(pg, slots, cnt, X, Y)) === N;
}

/** The chosen sides' split edges (edge slots `slots`), as a list. */
function chosenSplitEdges(pg: Polygraph, slots: Int32Array, cnt: Int8Array, X: Int8Array, Y: Int8Array): EdgeList {
  const { edgeStart, ceFrom, ceTo, ceKind } = pg;
  let room = 0;
  for (let x = 0; x < slots.length; x++) room += edgeStart[slots[x]! + 1]! - edgeStart[slots[x]!]!;
  // At most two split edges per edge (flatPairs checks).
  const from = new Int32Array(2 * room), to = new Int32Array(2 * room);
  let m = 0;
  for (let x = 0; x < slots.length; x++) {
    const slot = slots[x]!;
    for (let e = edgeStart[slot]!; e < edgeStart[slot + 1]!; e++) {
      const a = ceFrom[e]!, b = ceTo[e]!, k2 = ceKind[e]!;
      for (let p = 0; p < cnt[k2]!; p++) { from[m] = 2 * a + X[2 * k2 + p]!; to[m] = 2 * b + Y[2 * k2 + p]!; m++; }
    }
  }
  return { from: from.subarray(0, m), to: to.subarray(0, m) };
}

/** A level's split-edge pairs per kind, flat for the hot loops: `count[k]`, then (x, y) at 2k and 2k+1. */
export interface FlatPairs { count: Int8Array; x: Int8Array; y: Int8Array }

export function flatPairs(level: Level): FlatPairs {
  const count = new Int8Array(KIND_NAMES.length), x = new Int8Array(2 * KIND_NAMES.length), y = new Int8Array(2 * KIND_NAMES.length);
  for (let k = 0; k < KIND_NAMES.length; k++) {
    const p = splitPairs(k, level);
    if (p.length > 2) throw new Error(`internal error: more than two split edges per ${KIND_NAMES[k]} edge`);
    count[k] = p.length;
    for (let i = 0; i < p.length; i++) { x[2 * k + i] = p[i]![0]!; y[2 * k + i] = p[i]![1]!; }
  }
  return { count, x, y };
}

/**
 * The active constraints' split edges (split nodes; the contracted solve maps them to its
 * nodes), in literal order: literal l = 2x + side (variable x for constraint `act[x]`, negated
 * for the or side) guards edges `litStart[l] .. litStart[l+1]-1`, id = `idBase` + constraint
 * edge index; `backward[l]`: how many of that side's split edges u -> v point backwards in `pos`
 * (pos u > pos v: the phases' count), and `stuck[l]`: how many do not go forwards (pos u >=
 * pos v: a loop too). One pass, with pg's columns in locals (the pass runs cold).
 */
function conditionalSplitEdges(pg: Polygraph, act: Int32Array, pairs: FlatPairs, pos: Int32Array, idBase: number) {
  const { count: cnt, x: X, y: Y } = pairs;
  const { edgeStart, ceFrom, ceTo, ceKind } = pg;
  // Room for two split edges per constraint edge (flatPairs checks there are at most two), so
  // that only the constraints are visited here, not their edges; the columns are cut to size.
  let m = 0;
  for (let x = 0; x < act.length; x++) m += edgeStart[2 * act[x]! + 2]! - edgeStart[2 * act[x]!]!;
  const from = new Int32Array(2 * m), to = new Int32Array(2 * m), id = new Int32Array(2 * m);
  const backward = new Int32Array(2 * act.length), stuck = new Int32Array(2 * act.length);
  // Literal l = 2x + side (mkLit) guards edges litStart[l] .. litStart[l+1]-1: they are made in
  // literal order.
  const litStart = new Int32Array(2 * act.length + 1);
  let j = 0;
  for (let l = 0; l < 2 * act.length; l++) {
    const slot = 2 * act[l >> 1]! + (l & 1);
    let back = 0, notForwards = 0;
    for (let e = edgeStart[slot]!, end = edgeStart[slot + 1]!; e < end; e++) {
      const a2 = 2 * ceFrom[e]!, b2 = 2 * ceTo[e]!, k2 = 2 * ceKind[e]!;
      for (let p = 0; p < cnt[k2 >> 1]!; p++) {
        const u = a2 + X[k2 + p]!, v = b2 + Y[k2 + p]!;
        const pu = pos[u]!, pv = pos[v]!;
        if (pu > pv) back++;
        if (pu >= pv) notForwards++;
        from[j] = u; to[j] = v; id[j] = idBase + e; j++;
      }
    }
    backward[l] = back;
    stuck[l] = notForwards;
    litStart[l + 1] = j;
  }
  return { from: from.subarray(0, j), to: to.subarray(0, j), id: id.subarray(0, j), litStart, backward, stuck };
}

/**
 * The split edges from/to (a CSR by literal `litStart`) as the contracted graph's edges: both
 * ends mapped by `node`, and each edge's literal. One pass.
 */
function contractedEdges(from: Int32Array, to: Int32Array, litStart: Int32Array, node: Int32Array) {
  const m = from.length;
  const cFrom = new Int32Array(m), cTo = new Int32Array(m), lit = new Int32Array(m);
  let l = 0;
  for (let i = 0; i < m; i++) {
    while (litStart[l + 1]! <= i) l++;
    cFrom[i] = node[from[i]!]!;
    cTo[i] = node[to[i]!]!;
    lit[i] = l;
  }
  return { from: cFrom, to: cTo, lit };
}

/**
 * A renumbering of the theory's N nodes (`perm[u]` = new number) that is a topological order of
 * the fixed edges plus the conditional edges the phases make true (`lit` true when
 * `phase[var] ^ negated` = 1), the smallest such order by old numbers (Kahn with a min-heap: it
 * keeps nodes near their old places, which keeps Pearce-Kelly's searches short when the search
 * leaves its phases). Null when the old numbering already is one, or when there is none (the
 * phases close a cycle: the search will leave them anyway).
 */
function phaseConsistentOrder(
  N: number, fixFrom: Int32Array, fixTo: Int32Array, from: Int32Array, to: Int32Array, lit: Int32Array, phase: Uint8Array,
): Int32Array | null {
  // Which conditional edges the phases make true, once (the passes below read it three times).
  const chosen = new Uint8Array(from.length);
  let forward = true;
  for (let i = 0; i < from.length; i++) {
    const l = lit[i]!;
    if ((phase[l >> 1]! ^ (l & 1)) !== 1) continue;
    chosen[i] = 1;
    if (from[i]! >= to[i]!) forward = false;
  }
  if (forward) return null;
  const outStart = new Int32Array(N + 1);
  for (let e = 0; e < fixFrom.length; e++) outStart[fixFrom[e]! + 1]!++;
  for (let i = 0; i < from.length; i++) if (chosen[i] === 1) outStart[from[i]! + 1]!++;
  for (let u = 0; u < N; u++) outStart[u + 1]! += outStart[u]!;
  const outTo = new Int32Array(outStart[N]!), fill = outStart.slice(0, N), indeg = new Int32Array(N);
  for (let e = 0; e < fixFrom.length; e++) { outTo[fill[fixFrom[e]!]!++] = fixTo[e]!; indeg[fixTo[e]!]!++; }
  for (let i = 0; i < from.length; i++) if (chosen[i] === 1) { outTo[fill[from[i]!]!++] = to[i]!; indeg[to[i]!]!++; }
  return smallestOrder(N, outStart, outTo, indeg);
}

/**
 * The smallest topological order by node numbers (Kahn taking the smallest ready node each
 * time) of a CSR graph with in-degrees `indeg` (consumed), as `perm[u]` = place; null if cyclic.
 * The numbering is nearly topological already (the phases' backward edges are few), so most
 * nodes are ready when a pointer scanning upwards reaches them: those are taken there, and only
 * nodes that become ready behind the pointer go through a min-heap. The heap's minimum is then
 * below the pointer, hence the smallest ready node; else the next ready node at the pointer is.
 * Why: a heap push and pop for every node cost most of this pass on fig8 30 % (16,665 nodes).
 */
export function smallestOrder(N: number, outStart: Int32Array, outTo: Int32Array, indeg: Int32Array): Int32Array | null {
  const ready = new Uint8Array(N);
  for (let u = 0; u < N; u++) if (indeg[u] === 0) ready[u] = 1;
  const late = new IntMinHeap(N);
  const perm = new Int32Array(N);
  let placed = 0, p = 0;
  for (;;) {
    let u: number;
    if (late.length > 0) {
      u = late.pop();
    } else {
      while (p < N && ready[p] === 0) p++;
      if (p === N) break;
      u = p++;
    }
    perm[u] = placed++;
    for (let e = outStart[u]!; e < outStart[u + 1]!; e++) {
      const v = outTo[e]!;
      if (--indeg[v]! !== 0) continue;
      if (v < p) late.push(v);
      else ready[v] = 1;
    }
  }
  return placed === N ? perm : null;
}

/** `a` with every node u replaced by `perm[u]` (a new array), or `a` itself when `perm` is null. */
function renumbered(a: Int32Array, perm: Int32Array | null): Int32Array {
  if (perm === null) return a;
  const out = new Int32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = perm[a[i]!]!;
  return out;
}

/**
 * RR, PL-3 and PL-SI leave session order out of their graphs (Adya's have none), but the database
 * still ran each session in order, so a topological order that also respects the SO edges, when
 * there is one, is a far better first guess for the phases (measured for RR: fig8 histories from
 * a 60 s timeout to seconds). It is taken from the strong-session level's split graph (SER's for
 * RR and PL-3, SI's for PL-SI), a supergraph of the level's own, so the theory may start from it.
 */
function sessionOrderHint(pg: Polygraph, level: Level): Int32Array | null {
  const strong = level === 'rr' || level === 'pl-3' ? 'ser' : level === 'pl-si' ? 'si' : null;
  if (strong === null) return null;
  const k = pg.known;
  return topoOrder(buildSplitGraph(pg.nodeCount, k.length, k.from.view(), k.to.view(), k.kind.view(), strong));
}

/** PSI: an RW edge closing a Dep path among the known edges alone (then every choice violates). */
function knownClosingRw(pg: Polygraph, order: Int32Array): Int32Array | null {
  const k = pg.known;
  return closingRw(buildSplitGraph(pg.nodeCount, k.length, k.from.view(), k.to.view(), k.kind.view(), 'psi'), order, k.length, k.from.view(), k.to.view(), k.kind.view());
}

/** The split graph of the known edges (without edge ids: the theory has no use for them). */
function knownSplitGraph(pg: Polygraph, level: Level): SplitGraph {
  const k = pg.known;
  return buildSplitGraph(pg.nodeCount, k.length, k.from.view(), k.to.view(), k.kind.view(), level, false);
}

/** Known edges plus, for each active constraint, the edges of the side `choose(var)` picks. */
export function chosenEdges(pg: Polygraph, active: Uint8Array, varOf: Int32Array, choose: (x: number) => boolean): ChosenEdges {
  const from = new GrowableInt32(), to = new GrowableInt32(), kind = new GrowableInt32(), key = new GrowableInt32(), cons = new GrowableInt32();
  const ce = new GrowableInt32();
  const k = pg.known;
  for (let i = 0; i < k.length; i++) {
    from.push(k.from.get(i)); to.push(k.to.get(i)); kind.push(k.kind.get(i)); key.push(k.key.get(i)); cons.push(-1); ce.push(-1);
  }
  for (let c = 0; c < pg.consCount; c++) {
    if (active[c] !== 1) continue;
    const slot = 2 * c + (choose(varOf[c]!) ? 0 : 1);
    for (let e = pg.edgeStart[slot]!; e < pg.edgeStart[slot + 1]!; e++) {
      from.push(pg.ceFrom[e]!); to.push(pg.ceTo[e]!); kind.push(pg.ceKind[e]!); key.push(pg.ceKey[e]!); cons.push(c); ce.push(e);
    }
  }
  return { from: from.toArray(), to: to.toArray(), kind: kind.toArray(), key: key.toArray(), constraint: cons.toArray(), ce: ce.toArray() };
}

/** A short cycle of the split graph of `edges`, as indices into `edges`; null if acyclic. */
export function witnessCycle(n: number, edges: ChosenEdges, level: Level): Int32Array | null {
  return forbiddenCycle(n, edges.from.length, edges.from, edges.to, edges.kind, level);
}

/**
 * PSI's lazy check with extra edges: the chosen edges `base` followed by the extra edges whose
 * literal holds (`holds`), as one table (constraint -1, ce -1), and those edges' literals in order.
 */
function withTrueExtraEdges(base: ChosenEdges, built: ExtraBuilt, holds: (l: Lit) => boolean): { edges: ChosenEdges; extraLit: Int32Array } {
  const take: number[] = [];
  for (let i = 0; i < built.lit.length; i++) if (holds(built.lit[i]!)) take.push(i);
  const m = base.from.length, n = m + take.length;
  const grow = (a: Int32Array, f: (i: number) => number): Int32Array => {
    const out = new Int32Array(n);
    out.set(a);
    take.forEach((i, j) => { out[m + j] = f(i); });
    return out;
  };
  const edges: ChosenEdges = {
    from: grow(base.from, (i) => built.from[i]!), to: grow(base.to, (i) => built.to[i]!), kind: grow(base.kind, (i) => built.kind[i]!),
    key: grow(base.key, (i) => built.key[i]!), constraint: grow(base.constraint, () => -1), ce: grow(base.ce, () => -1),
  };
  return { edges, extraLit: Int32Array.from(take, (i) => built.lit[i]!) };
}

/** The caller's encoding (SolveOptions.extra), its variables numbered after the active constraints'. */
function buildExtra(extra: ExtraEncoding, pg: Polygraph, act: Int32Array, rank: Int32Array): ExtraBuilt {
  const varOf = variableOf(act, pg.consCount);
  const built = extra.build((c) => (varOf[c]! < 0 ? null : mkLit(varOf[c]!)), act.length, rank);
  const lits = 2 * (act.length + built.variables);
  for (let i = 0; i < built.lit.length; i++) {
    if (built.lit[i]! < 0 || built.lit[i]! >= lits) throw new Error(`internal error: an extra edge's literal ${built.lit[i]} is not a variable's`);
  }
  return built;
}

/**
 * The constraints' conditional split edges (a CSR by literal over their 2A literals) merged with
 * the extra edges' split edges (`pairs`: the level's), in one CSR by literal over all 2(A + E)
 * literals; ids of extra edges from `idBase` on (the theory only reports them).
 */
function withExtraEdges(
  cons: ReturnType<typeof conditionalSplitEdges>, built: ExtraBuilt, a: number, pairs: FlatPairs, idBase: number,
): ReturnType<typeof conditionalSplitEdges> {
  const { count: cnt, x: X, y: Y } = pairs;
  const lits = 2 * (a + built.variables);
  const litStart = new Int32Array(lits + 1);
  for (let l = 0; l < 2 * a; l++) litStart[l + 1] = cons.litStart[l + 1]! - cons.litStart[l]!;
  for (let i = 0; i < built.lit.length; i++) litStart[built.lit[i]! + 1]! += cnt[built.kind[i]!]!;
  for (let l = 0; l < lits; l++) litStart[l + 1]! += litStart[l]!;
  const m = litStart[lits]!;
  const from = new Int32Array(m), to = new Int32Array(m), id = new Int32Array(m);
  const fill = litStart.slice(0, lits);
  for (let l = 0; l < 2 * a; l++) {
    for (let e = cons.litStart[l]!; e < cons.litStart[l + 1]!; e++) { const j = fill[l]!++; from[j] = cons.from[e]!; to[j] = cons.to[e]!; id[j] = cons.id[e]!; }
  }
  for (let i = 0; i < built.lit.length; i++) {
    const k = built.kind[i]!, l = built.lit[i]!;
    for (let p = 0; p < cnt[k]!; p++) {
      const j = fill[l]!++;
      from[j] = 2 * built.from[i]! + X[2 * k + p]!; to[j] = 2 * built.to[i]! + Y[2 * k + p]!; id[j] = idBase + i;
    }
  }
  return { from, to, id, litStart, backward: cons.backward, stuck: cons.stuck };
}

/**
 * The answer of a search with extra variables: for 'sat', the model checked here (every known,
 * chosen and extra split edge whose literal holds goes forwards in the theory's order; every
 * extra clause holds) and the extra variables' values; for 'unsat', no cycle.
 */
function extraOutcome(
  pg: Polygraph, act: Int32Array, s: SearchOutcome, built: ExtraBuilt, pairs: FlatPairs, theory: AcyclicityTheory,
  theoryGraph: NonNullable<SolveOutcome['theoryGraph']>,
): SolveOutcome {
  if (s.result === 'unsat') return { result: 'unsat', cycle: null, edges: null, stats: s.stats, theoryGraph };
  const model = s.model;
  const holds = (l: Lit): boolean => (model[l >> 1]! ^ (l & 1)) === 1;
  const at = theory.topologicalOrder();
  if (!modelForwards(pg, act, model, pairs, at)) throw new Error('internal error: the solver returned a model whose graph is cyclic (extra)');
  const { count: cnt, x: X, y: Y } = pairs;
  for (let i = 0; i < built.lit.length; i++) {
    if (!holds(built.lit[i]!)) continue;
    const k = built.kind[i]!;
    for (let p = 0; p < cnt[k]!; p++) {
      if (at[2 * built.from[i]! + X[2 * k + p]!]! >= at[2 * built.to[i]! + Y[2 * k + p]!]!) throw new Error('internal error: the solver returned a model with an extra edge backwards');
    }
  }
  for (const c of built.clauses) if (!c.some(holds)) throw new Error('internal error: the solver returned a model that breaks an extra clause');
  return {
    result: 'sat', cycle: null, edges: null, stats: s.stats, theoryGraph,
    choice: choiceOf(pg.consCount, act, model), extraModel: model.slice(act.length),
  };
}
