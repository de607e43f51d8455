/**
 * Step 3 of the predicate check at repeatable read (Adya's PL-2.99; docs/levels.md, "Predicates",
 * "How it is decided"): a complete search over the predicate reads' choices, by lazy refinement.
 *
 * Takes: a predicate History, its 'item-only' lowering (every predicate observation left out;
 * valid at `rr`, or step 1 would have decided), the rows' versions, the inserts given an implicit
 * read, and the check functions. Gives: a CheckResult about the input.
 *
 * Why not the choice search as it is: PL-2.99 forbids G1c and G2-item (a cycle with at least one
 * *item* anti-dependency) and allows cycles whose anti-dependencies are all predicate ones, which
 * is not the acyclicity of one graph the solver keeps. So (counterexample-guided refinement):
 * - the SAT search (check/predicate-search.ts's encoding over the polygraph of the 'item-only'
 *   lowering) gets as theory edges only those whose every cycle rr forbids: write-write,
 *   write-read (item and predicate) and item anti-dependencies (the polygraph's, and those of the
 *   choices that are item reads: a read of an absent row, an insert's implicit read). A cycle of
 *   them is G1c or G2-item, so **unsat is a violation** (for every choice and version order);
 * - each model is then tested whole (`refine`, called by the solve stage: solve.ts,
 *   ExtraBuilt.refine): its version order, the versions it selects, and the predicate
 *   anti-dependencies too (the choices' and the forced observations', which step 1 left out).
 *   An item anti-dependency inside a strongly connected component lies on a forbidden cycle
 *   (G2-item through a phantom): the shortest such cycle is found and a clause forbids the
 *   literals that put its conditional edges there (selectors, auxiliary literals, constraint
 *   sides). Every model with all those edges has that cycle, so no rr-valid choice is lost, and
 *   the model at hand is ruled out. None -> **valid** (the model is the witness: its graph is a
 *   supergraph of the graph of one choice of versions, so that choice has no forbidden cycle);
 * - bounded: REFINE_ROUNDS_MAX rounds, the conflict budget of the choice search and the deadline;
 *   past them `unknown`, saying which.
 * The counterexample of an unsat search is certified by the usual pipeline on a lowering with
 * versions picked (`check` at rr on it, whose cycle must carry an anti-dependency that is not a
 * predicate read's, else it is not shown): one choice's every candidate (the proof), else one
 * concrete choice (the last refuted model's, with only the predicate reads on its cycle kept),
 * and a note says which part is the SAT search's proof.
 * Invariant: never 'valid' without a model that passed the whole test, never a violation without
 * a certified cycle that rr forbids; unsat over an incomplete encoding is 'unknown'.
 */

import type { History } from '../history/model.ts';
import { OP_COUNT, OP_SELECT, txnLabel } from '../history/model.ts';
import { lowerPredicates, type Lowered, type RowVersions } from '../validate/predicate-lower.ts';
import type { CheckOptions, CheckResult, CycleAnomaly, DepEdge } from '../result/types.ts';
import { CERTIFY_CONSTRAINTS_MAX } from '../explain/index.ts';
import type { Polygraph } from '../graph/polygraph.ts';
import { K_RW, K_WR, K_WW } from '../graph/edges.ts';
import type { ExtraBuilt, ExtraEncoding } from '../solve/solve.ts';
import { mkLit, negate, type Lit } from '../sat/types.ts';
import { predicateOnlyPairs } from '../explain/phantom.ts';
import { choiceEncoding, emptyInfo, type ChoiceEncodingInfo } from './predicate-search.ts';
import { CHOICE_CONFLICTS_DEFAULT, choiceSaw, concretePick, solveChoices, unknownResult, type SearchFns } from './choice-search.ts';
import { components, forbiddenAtRr } from './rr-predicates.ts';

/**
 * Refinement rounds (models refuted) at most; past it `unknown`. Each re-solves (the solver keeps
 * its learnt clauses and phases) and re-tests the whole graph: bench/predicates.ts at rr, 100 txns
 * x 100 rows without times, took 53 rounds (10 s, 2.3 s of it in the tests).
 */
export const REFINE_ROUNDS_MAX = 500;

/** Cycles ruled out per refuted model at most (each one clause): fewer rounds than one at a time. */
const CLAUSES_PER_ROUND = 64;

/** Choices tried alone for a counterexample at most (each costs one check per candidate). */
const COUNTEREXAMPLE_CHOICES_MAX = 64;

/** What the refinement saw last: the model's picks and the predicate observations on its refuted cycle. */
interface Refuted {
  /** Per choice, the lowered value of its first selected candidate (-1: its reader takes no part). */
  pick: Int32Array;
  /** `txn * keys + key` of each predicate anti-dependency on the refuted cycle. */
  onCycle: Set<number>;
}

interface RefineState { rounds: number; gaveUp: boolean; last: Refuted | null }

/** `result`: step 1's (its times are added). */
export function searchRr(
  h: History, opts: CheckOptions, nec: Lowered, rows: RowVersions, implicit: Map<number, number[]> | null, result: CheckResult, fns: SearchFns,
): CheckResult {
  const { inInput } = fns;
  const info = emptyInfo();
  const state: RefineState = { rounds: 0, gaveUp: false, last: null };
  // The forced predicate observations (only the initial version fits): step 1's 'item-only'
  // lowering left them out, the 'necessary' one reads them (flagged predicate).
  const forced = forcedObservations(lowerPredicates(h, 'necessary', undefined, implicit));
  const solved = solveChoices(h, opts, nec, fns, (pg, included, fixedSide) => rrEncoding(h, nec, rows, pg, included, fixedSide, info, forced, state));
  if (!('sink' in solved)) return solved;
  const { r, sink, deadlineMs, unbounded } = solved;
  r.timesMs = sumTimes(result, r);
  if (state.gaveUp) {
    return unknownResult(r, `the refinement at repeatable read stopped after ${REFINE_ROUNDS_MAX.toLocaleString('en')} rounds (each rules out models ` +
      `whose cycles pass through predicate anti-dependencies and an item one) without an answer`);
  }
  if (sink.outcome === null) {
    if (unbounded && r.verdict === 'unknown') {
      r.unknownReason = `${r.unknownReason ?? 'a limit'} (${CHOICE_CONFLICTS_DEFAULT.toLocaleString('en')} conflicts, the default without a time limit: give one, e.g. --timeout 600, to search longer)`;
    }
    return inInput(h, nec, r, opts);
  }
  const rounds = `${state.rounds} model${state.rounds === 1 ? '' : 's'} refuted`;
  if (sink.outcome.result === 'sat') {
    (r.notes ??= []).push(`a search over ${info.searched} choices (rows that predicate reads did not return, each possibly seen in several versions) ` +
      `found a version of each and a version order under which no cycle has an item anti-dependency (no G1c, no G2-item; ${rounds} on the way), ` +
      `so the history satisfies rr (docs/levels.md, "Predicates")`);
    return r;
  }
  if (info.incomplete) {
    return unknownResult(r, 'every choice of versions the search considered closes a cycle rr forbids, but some versions of unknown-outcome transactions ' +
      'that no committed one read were not among the candidates');
  }
  return counterexample(h, opts, deadlineMs, nec, implicit, info, state, r, rounds, fns);
}

/** `txn * keys + key` of each forced predicate observation (a read flagged predicate in the 'necessary' lowering). */
function forcedObservations(low: Lowered): number[] {
  const lh = low.history, nKeys = lh.keyLabels.length, out: number[] = [];
  for (let t = 0; t < lh.txnCount; t++) {
    for (let op = lh.txnOpStart[t]!; op < lh.txnOpStart[t + 1]!; op++) if (low.predicate[op] === 1) out.push(t * nKeys + lh.opKey[op]!);
  }
  return out;
}

function isPredicateChoice(h: History, nec: Lowered, i: number): boolean {
  const kind = h.opKind[nec.choices[i]!.op];
  return kind === OP_SELECT || kind === OP_COUNT;
}

/**
 * The choice encoding with its predicate anti-dependencies taken out of the theory and into the
 * refinement (see the module header).
 */
function rrEncoding(
  h: History, nec: Lowered, rows: RowVersions, pg: Polygraph, included: Uint8Array, fixedSide: (c: number) => number,
  info: ChoiceEncodingInfo, forced: readonly number[], state: RefineState,
): ExtraEncoding {
  const base = choiceEncoding(h, nec.choices, rows, pg, included, fixedSide, info, null);
  return {
    build: (consLit, firstVar, rank): ExtraBuilt => {
      const b = base.build(consLit, firstVar, rank);
      const nKeys = h.keyLabels.length;
      const g = new CandidateEdges();
      // Known edges (no session order, no real time: Adya's DSG has neither), and each
      // constraint's sides: the literal that chooses the side, or none where pruning fixed it.
      const k = pg.known;
      const kFrom = k.from.view(), kTo = k.to.view(), kKind = k.kind.view(), kKey = k.key.view();
      for (let e = 0; e < k.length; e++) {
        const kind = kKind[e]!;
        if (kind === K_WR || kind === K_WW || kind === K_RW) g.add(kFrom[e]!, kTo[e]!, kind, kKey[e]!, -1, -1);
      }
      for (let c = 0; c < pg.consCount; c++) {
        const l = consLit(c);
        const sides = l === null ? [fixedSide(c)] : [0, 1];
        for (const side of sides) {
          const lit = l === null ? -1 : side === 0 ? l : negate(l);
          for (let e = pg.edgeStart[2 * c + side]!; e < pg.edgeStart[2 * c + side + 1]!; e++) g.add(pg.ceFrom[e]!, pg.ceTo[e]!, pg.ceKind[e]!, pg.ceKey[e]!, lit, -1);
        }
      }
      // The encoding's edges: predicate anti-dependencies to the refinement only.
      const keep: number[] = [];
      for (let i = 0; i < b.lit.length; i++) {
        const ch = info.edgeChoice[i]!;
        const pred = b.kind[i] === K_RW && ch >= 0 && isPredicateChoice(h, nec, ch);
        if (pred) g.add(b.from[i]!, b.to[i]!, PRED_RW, b.key[i]!, b.lit[i]!, b.from[i]! * nKeys + b.key[i]!);
        else { keep.push(i); g.add(b.from[i]!, b.to[i]!, b.kind[i]!, b.key[i]!, b.lit[i]!, -1); }
      }
      // Forced observations: the initial version precedes every writer of the row.
      for (const rk of forced) {
        const t = Math.floor(rk / nKeys), key = rk - t * nKeys;
        if (included[t] !== 1) continue;
        for (let j = rows.start[key]!; j < rows.start[key + 1]!; j++) {
          const w = rows.txn[j]!;
          if (w !== t && included[w] === 1) g.add(t, w, PRED_RW, key, -1, rk);
        }
      }
      const pick = (holds: (l: Lit) => boolean): Int32Array => Int32Array.from(info.selectors, (sels, i) => {
        const j = sels.findIndex((s) => holds(mkLit(s)));
        return j < 0 ? -1 : info.candidates[i]![j]!.value;
      });
      const sub = (a: Int32Array | ArrayLike<number>) => Int32Array.from(keep, (i) => a[i]!);
      g.pairWrites();
      return {
        ...b, from: sub(b.from), to: sub(b.to), kind: sub(b.kind), key: sub(b.key), lit: sub(b.lit),
        refine: (holds) => {
          if (state.rounds >= REFINE_ROUNDS_MAX) { state.gaveUp = true; return null; }
          const found = g.forbiddenCycles(pg.nodeCount, holds, CLAUSES_PER_ROUND);
          if (found.clauses.length === 0) return [];
          state.rounds++;
          state.last = { pick: pick(holds), onCycle: found.onCycle };
          return found.clauses;
        },
      };
    },
  };
}

/** A predicate anti-dependency's kind code among the candidate edges (beside edges.ts's K_WR, K_WW, K_RW). */
const PRED_RW = -1;

/**
 * Every edge the model may have: its kind (K_WR, K_WW, K_RW: an item anti-dependency, PRED_RW),
 * key, the literal that puts it there (-1: always) and, for a predicate anti-dependency, its
 * `txn * keys + key`.
 * Why the write-write edges are looked up: the polygraph (and the choice encoding) give a reader
 * R of a version an anti-dependency to *every* later writer W of the key, not only the next one;
 * that over-approximation keeps every cycle for acyclicity (R -RW-> next -WW*-> W) but not the
 * kind: when R writes the key itself before W, R -RW-> W stands for R -WW-> W, not for an item
 * anti-dependency. So an item anti-dependency R -> W counts as one only when the model puts W's
 * version before R's (or R does not write the key), and its clause then holds that literal too.
 */
class CandidateEdges {
  private from: number[] = [];
  private to: number[] = [];
  private kind: number[] = [];
  private key: number[] = [];
  private lit: number[] = [];
  private obs: number[] = [];
  /** Per edge, for K_RW a -> b: the candidate WW edges a -> b and b -> a on its key (-1: none). */
  private wwSame: Int32Array = new Int32Array(0);
  private wwBack: Int32Array = new Int32Array(0);

  add(from: number, to: number, kind: number, key: number, lit: Lit, obs: number): void {
    this.from.push(from); this.to.push(to); this.kind.push(kind); this.key.push(key); this.lit.push(lit); this.obs.push(obs);
  }

  /** Links each item anti-dependency to the write-write edges between its ends on its key (after the last `add`). */
  pairWrites(): void {
    const ww = new Map<string, number>();
    for (let e = 0; e < this.from.length; e++) {
      if (this.kind[e] !== K_WW) continue;
      // One edge per (from, to, key); an unconditional one wins (it is present in every model).
      const k = `${this.from[e]} ${this.to[e]} ${this.key[e]}`, had = ww.get(k);
      if (had === undefined || this.lit[e]! < 0) ww.set(k, e);
    }
    this.wwSame = new Int32Array(this.from.length).fill(-1);
    this.wwBack = new Int32Array(this.from.length).fill(-1);
    for (let e = 0; e < this.from.length; e++) {
      if (this.kind[e] !== K_RW) continue;
      this.wwSame[e] = ww.get(`${this.from[e]} ${this.to[e]} ${this.key[e]}`) ?? -1;
      this.wwBack[e] = ww.get(`${this.to[e]} ${this.from[e]} ${this.key[e]}`) ?? -1;
    }
  }

  /**
   * The edges present in the model (`holds`), and for each item anti-dependency a -> b inside a
   * strongly connected component (at most `max`), the shortest path b ~> a closing it: a clause
   * negating the literals of the cycle's conditional edges (and of the order that makes a -> b an
   * item one). An empty clause: a cycle of edges present in every model.
   */
  forbiddenCycles(n: number, holds: (l: Lit) => boolean, max: number): { clauses: Lit[][]; onCycle: Set<number> } {
    const present = (e: number): boolean => this.lit[e]! < 0 || holds(this.lit[e]!);
    const ids: number[] = [];
    for (let e = 0; e < this.from.length; e++) if (present(e)) ids.push(e);
    const from = ids.map((e) => this.from[e]!), to = ids.map((e) => this.to[e]!);
    const comp = components(n, from, to);
    const clauses: Lit[][] = [], onCycle = new Set<number>();
    let adj: { start: Int32Array; edge: Int32Array } | null = null;
    const seenClause = new Set<string>();
    for (let i = 0; i < ids.length && clauses.length < max; i++) {
      const e = ids[i]!;
      if (this.kind[e] !== K_RW || comp[from[i]!] !== comp[to[i]!]) continue;
      const same = this.wwSame[e]!;
      if (same >= 0 && present(same)) continue; // a -WW-> b: not an item anti-dependency here
      adj ??= csr(n, from);
      const path = shortestPath(adj, from, to, comp, to[i]!, from[i]!);
      const cycle = [e, ...path.map((p) => ids[p]!)];
      const back = this.wwBack[e]!;
      if (back >= 0) cycle.push(back);
      const lits = new Set<number>();
      for (const x of cycle) if (this.lit[x]! >= 0) lits.add(negate(this.lit[x]!));
      const clause = [...lits].sort((a, b) => a - b);
      const sig = clause.join(' ');
      if (seenClause.has(sig)) continue;
      seenClause.add(sig);
      if (clauses.length === 0) for (const x of cycle) if (this.obs[x]! >= 0) onCycle.add(this.obs[x]!);
      clauses.push(clause);
    }
    return { clauses, onCycle };
  }
}

/** Out-edges per node (edge indices), CSR. */
function csr(n: number, from: readonly number[]): { start: Int32Array; edge: Int32Array } {
  const start = new Int32Array(n + 1);
  for (const f of from) start[f + 1]!++;
  for (let u = 0; u < n; u++) start[u + 1]! += start[u]!;
  const fill = start.slice(0, n), edge = new Int32Array(from.length);
  for (let e = 0; e < from.length; e++) edge[fill[from[e]!]!++] = e;
  return { start, edge };
}

/** The edges (indices) of a shortest path s ~> t inside s's component (t is in it). */
function shortestPath(adj: { start: Int32Array; edge: Int32Array }, from: readonly number[], to: readonly number[], comp: Int32Array, s: number, t: number): number[] {
  if (s === t) return [];
  const via = new Map<number, number>(); // node -> edge that reached it
  const queue = [s];
  via.set(s, -1);
  for (let q = 0; q < queue.length; q++) {
    const u = queue[q]!;
    for (let j = adj.start[u]!; j < adj.start[u + 1]!; j++) {
      const e = adj.edge[j]!, v = to[e]!;
      if (via.has(v) || comp[v] !== comp[s]) continue;
      via.set(v, e);
      if (v === t) {
        const path: number[] = [];
        for (let x = t; x !== s;) { const pe = via.get(x)!; path.push(pe); x = from[pe]!; }
        return path.reverse();
      }
      queue.push(v);
    }
  }
  throw new Error('internal error: no path inside a strongly connected component');
}

/** The violation found by the search, with a certified counterexample rr forbids (see the module header). */
function counterexample(
  h: History, opts: CheckOptions, deadlineMs: number, nec: Lowered, implicit: Map<number, number[]> | null, info: ChoiceEncodingInfo,
  state: RefineState, r: CheckResult, rounds: string, fns: SearchFns,
): CheckResult {
  const { check, inInput } = fns;
  const o: CheckOptions = { ...opts, explain: opts.explain === true, deadlineMs };
  delete o.timeoutMs;
  /** The checked lowering's anomalies that rr forbids as shown (a cycle with an anti-dependency that is not a predicate read's, or none), mapped to the input; null if none. */
  const certified = (low: Lowered): CheckResult | null => {
    const one = check(low.history, o);
    if (one.verdict !== 'violation') return null;
    const pred = predicateOnlyPairs(low);
    const ok = one.anomalies.filter((a) => {
      if (a.type !== 'cycle') return false;
      const alts = alternatives(a);
      return alts !== null && forbiddenAtRr(low.history, pred, alts);
    });
    if (ok.length === 0) return null;
    one.anomalies = ok;
    return inInput(h, low, one, opts);
  };
  const order = info.candidates.map((_, i) => i).filter((i) => info.candidates[i]!.length > 0).sort((a, b) => info.candidates[a]!.length - info.candidates[b]!.length);
  for (const i of order.slice(0, COUNTEREXAMPLE_CHOICES_MAX)) {
    if (Date.now() >= deadlineMs) break;
    const found: CheckResult[] = [];
    for (const cand of info.candidates[i]!) {
      const one = certified(lowerPredicates(h, 'picked', (j) => (j === i ? cand.value : -1), implicit));
      if (one === null) break;
      found.push(one);
    }
    if (found.length !== info.candidates[i]!.length) continue;
    const c = nec.choices[i]!;
    r.verdict = 'violation';
    r.anomalies = found.map((f) => f.anomalies[0]!);
    r.anomalySearchComplete = false;
    (r.notes ??= []).push(`${choiceSaw(h, c, found.length)}; each closes a cycle with an item anti-dependency (G2-item) or none (G1c), which rr forbids (one certified counterexample per version, in order: ` +
      `${info.candidates[i]!.map((x) => (x.txn < 0 ? 'the initial version' : `${txnLabel(h, x.txn)}'s`)).join(', ')}). ` +
      `The search over ${info.searched} choices (${rounds}) found no version of each that satisfies rr`);
    return r;
  }
  // One concrete choice: the last refuted model's versions with only the predicate reads on its
  // cycle kept (the others could close cycles rr allows first), else every read kept.
  const pickOf = state.last === null ? concretePick(nec, info) : (j: number) => state.last!.pick[j]!;
  const full = lowerPredicates(h, 'picked', pickOf, implicit);
  const tries = state.last === null ? [full] : [keepPredicateReads(full, state.last.onCycle), full];
  for (const low of tries) {
    if (Date.now() >= deadlineMs) break;
    const one = certified(low);
    if (one === null) continue;
    r.verdict = 'violation';
    r.anomalies = one.anomalies;
    r.anomalySearchComplete = false;
    (r.notes ??= []).push(`the search over ${info.searched} choices (rows that predicate reads did not return, each possibly seen in several versions; ${rounds}) ` +
      `found that every choice of versions and version order closes a cycle rr forbids, but no one read's choice alone does: the counterexample shown is ` +
      `certified for ONE choice (${state.last === null ? 'each read given its first candidate version' : 'the versions of the last model the search refuted'}); ` +
      `that every other choice fails too is the SAT search's proof, not certified independently`);
    return r;
  }
  return unknownResult(r, 'the search over the predicate reads\' choices found no choice that satisfies rr, but no certified counterexample with an item ' +
    'anti-dependency was found for a concrete choice');
}

/**
 * The edge sets a shown cycle stands for: with an explanation, its certain edges with each choice
 * of its write orders (at most CERTIFY_CONSTRAINTS_MAX of them, as the certificate enumerates;
 * more, or an explanation not certified: null, and it is not shown), else the witness cycle itself.
 */
function alternatives(a: CycleAnomaly): DepEdge[][] | null {
  const cx = a.explanation;
  if (cx === undefined || cx.cycle === null) return [a.edges];
  if (cx.constraints.length > CERTIFY_CONSTRAINTS_MAX || cx.certificate.status !== 'certified') return null;
  const certain = cx.edges.filter((e) => e.constraint < 0);
  const out: DepEdge[][] = [];
  for (let choice = 0; choice < 1 << cx.constraints.length; choice++) {
    const edges = [...certain];
    cx.constraints.forEach((c, i) => { for (const id of ((choice >> i) & 1) === 0 ? c.either : c.or) edges.push(cx.edges[id]!); });
    out.push(edges);
  }
  return out;
}

/** `low` without the predicate observations whose `txn * keys + key` is not in `keep` (op ids renumbered, `origin` kept in step). */
function keepPredicateReads(low: Lowered, keep: ReadonlySet<number>): Lowered {
  const lh = low.history, nKeys = lh.keyLabels.length;
  const ops: number[] = [];
  const txnOpStart = new Int32Array(lh.txnCount + 1);
  for (let t = 0; t < lh.txnCount; t++) {
    txnOpStart[t] = ops.length;
    for (let op = lh.txnOpStart[t]!; op < lh.txnOpStart[t + 1]!; op++) if (low.predicate[op] !== 1 || keep.has(t * nKeys + lh.opKey[op]!)) ops.push(op);
  }
  txnOpStart[lh.txnCount] = ops.length;
  const pickU8 = (a: Uint8Array) => Uint8Array.from(ops, (op) => a[op]!);
  const pickI32 = (a: Int32Array) => Int32Array.from(ops, (op) => a[op]!);
  const history: History = {
    ...lh, opCount: ops.length, txnOpStart, opKind: pickU8(lh.opKind), opKey: pickI32(lh.opKey), opValue: pickI32(lh.opValue),
    opLoc: Float64Array.from(ops, (op) => lh.opLoc[op]!),
    ...(lh.opStatement === undefined ? {} : { opStatement: pickI32(lh.opStatement) }),
  };
  return { ...low, history, origin: pickI32(low.origin), predicate: pickU8(low.predicate) };
}

function sumTimes(a: CheckResult, b: CheckResult): CheckResult['timesMs'] {
  const t = { ...a.timesMs };
  t.validate += b.timesMs.validate; t.construct += b.timesMs.construct; t.prune += b.timesMs.prune; t.solve += b.timesMs.solve;
  return t;
}
