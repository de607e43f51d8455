/**
 * Step 3 of the predicate check at the levels decided by saturation (pl-1, ru, pl-2, mav, rc,
 * ss-rc, ra, tcc; docs/levels.md, "Predicates", "How it is decided"): a complete search over the
 * predicate reads' choices, by lazy clause generation.
 *
 * Takes: a predicate History, its necessary lowering `nec` (choices left out; valid at the level,
 * else step 1 decided), the rows' versions, the constrained inserts, step 1's result, and the check
 * functions. Gives: a CheckResult about the input, `decidedBy` 'choice-search' (or 'limit').
 *
 * Once every choice has a version, these levels are decided exactly by saturation (Biswas & Enea):
 * the version order is not a choice there. So the SAT problem is over the choices only:
 * - a selector per (choice, candidate) (the initial version, other txns' deletes and final writes
 *   of the choice's class, as predicate-search.ts takes them), at least one per choice; a count's
 *   rows exactly one each, and exactly n (less the txn's own matching rows) of them matching
 *   (predicate-search.ts's `exactly`, one implementation);
 * - a model is lowered ('picked') and checked by the level's own saturation. Valid: the picked
 *   history is the witness (with constrained inserts, a commit order of its saturated graph that
 *   keeps each insert right after an absent version must be found too, else `unknown`).
 *   Violation: the picks the saturated cycle rests on (its WR edges' reads, each derived edge's
 *   read and the read or causal path by which the reader observed the writer) form a *core*,
 *   verified by checking the necessary lowering plus those picks alone (if that is not a
 *   violation, every pick of the model is the core); the clause "not all of these picks" is
 *   added and the solver runs again.
 * Lazily: a choice gets variables only when a core names it (a count: all its rows at once);
 * until then it keeps a default pick (the version the recorded times put last before the reader,
 * else the initial one; a count's rows adjusted to add up), which every model uses.
 *
 * Why sound and complete: saturation is *monotone in the reads it is given* at each of these
 * levels. Each axiom's premise (rc, mav: an earlier statement's read observed t2; ss-rc: also t2
 * before t3 in session; ra: any read or session order; tcc: the causal past over SO and WR) and
 * conclusion only mention reads that are there, so more reads give a superset of the graph's
 * edges; the one-statement rule (History.opStatement) groups a predicate read's rows by the op
 * they come from, which dropping other rows does not change; an unknown-outcome txn that a pick
 * reads takes part (adds its node and edges; session order skips such txns either way); pl-1 and
 * ru do not look at reads at all (validation's G1a/G1b are allowed there). Hence a verified core
 * violates under every choice of the other observations (leaving an observation out is a subset),
 * and blocking it loses no valid choice; the loop ends (each clause blocks the current model) and
 * 'unsat' means every choice of versions violates the level. At ru and pl-1 a count may see
 * dirty versions the candidates do not hold: 'unsat' there is `unknown`, never a violation.
 * Bounds: iterations and the outer solver's conflicts (WEAK_ITERATIONS_DEFAULT and
 * CHOICE_CONFLICTS_DEFAULT without a caller's limit), the caller's deadline, WEAK_VARIABLES_MAX:
 * past any, `unknown` with the reason.
 * Invariant: 'valid' only with a picked history the level's check found valid (and an order
 * keeping the inserts); 'violation' only after 'unsat', with certified anomalies.
 */

import type { History } from '../history/model.ts';
import { INITIAL_VALUE, OP_COUNT, OP_SELECT, TXN_COMMITTED, TXN_UNKNOWN, TXN_ABORTED, txnLabel } from '../history/model.ts';
import { matches, type Predicate, type Scalar } from '../history/predicate.ts';
import { rowKey, rowValue } from '../history/predicate-table.ts';
import { lowerPredicates, type Lowered, type RowVersions } from '../validate/predicate-lower.ts';
import { validate, type Validated } from '../validate/validate.ts';
import { checkSaturationLevel, E_DERIVED, E_WR, VIA_HB, type LevelOutcome, type SaturationLevel } from '../levels/index.ts';
import { Solver, mkLit, negate, type Lit } from '../sat/cdcl.ts';
import { IntMinHeap } from '../sat/heap.ts';
import { AcyclicityTheory } from '../sat/acyclicity.ts';
import { INIT_TXN, type CheckOptions, type CheckResult } from '../result/types.ts';
import { exactly, fits, ownMatches } from './predicate-search.ts';
import { CHOICE_CONFLICTS_DEFAULT } from './choice-search.ts';

/** Models checked at most when the caller set no time limit (each costs a lowering and one or two checks). */
export const WEAK_ITERATIONS_DEFAULT = 1_000;

/** Most selector variables the search may make (a choice's candidates grow with its row's writers). */
export const WEAK_VARIABLES_MAX = 2_000_000;

type CheckFn = (h: History, opts: CheckOptions, parseMs?: number) => CheckResult;
type InInput = (h: History, low: Lowered, r: CheckResult, opts: CheckOptions) => CheckResult;

/** The check functions the search runs (passed in: check/index.ts imports the predicate check). */
export interface WeakFns { check: CheckFn; inInput: InInput }

/** A candidate version: its writer (INIT_TXN for the initial one) and its lowered value id. */
interface Cand { txn: number; value: number }

class Bound extends Error {}

/** Validation's anomalies read uncommitted and PL-1 allow (check/index.ts drops them there too). */
const RU_ALLOWS: ReadonlySet<string> = new Set(['G1a', 'G1b']);

export function searchWeak(
  h: History, opts: CheckOptions, level: SaturationLevel, nec: Lowered, rows: RowVersions, inserts: Map<number, number[]>, first: CheckResult, fns: WeakFns,
): CheckResult {
  const deadlineMs = Math.min(opts.deadlineMs ?? Number.POSITIVE_INFINITY, opts.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + opts.timeoutMs);
  const unbounded = deadlineMs === Number.POSITIVE_INFINITY && opts.conflictsMax === undefined;
  const conflictsMax = opts.conflictsMax ?? (unbounded ? CHOICE_CONFLICTS_DEFAULT : Number.POSITIVE_INFINITY);
  const iterationsMax = unbounded ? WEAK_ITERATIONS_DEFAULT : Number.POSITIVE_INFINITY;
  const o: CheckOptions = { ...opts, explain: false, deadlineMs };
  delete o.timeoutMs;
  const s = new Search(h, level, nec, rows, inserts);
  const out = (r: CheckResult, note: string): CheckResult => {
    r.level = opts.level;
    r.counts = { ...first.counts };
    (r.notes ??= []).push(note);
    return r;
  };
  const unknown = (reason: string): CheckResult => {
    const r: CheckResult = { ...first, verdict: 'unknown', decidedBy: 'limit', anomalies: [], anomalySearchComplete: false, unknownReason: reason };
    r.notes = [...(first.notes ?? [])];
    return r;
  };
  const impossible = s.impossibleCount();
  if (impossible !== null) {
    return unknown(`${txnLabel(h, impossible.txn)}'s count cannot add up whatever versions it saw (its own matching rows exceed it), which the search does not report as an anomaly`);
  }
  let iterations = 0, lastViolation: Lowered | null = null, insertBlocked = 0;
  try {
    for (;;) {
      if (Date.now() >= deadlineMs) return unknown(`the search over the predicate reads' choices reached its deadline after ${iterations} models (${s.active} choices given variables)`);
      if (iterations >= iterationsMax) {
        return unknown(`the search over the predicate reads' choices checked ${iterations} choices of versions, each violating ${opts.level}, ` +
          `and stopped (${WEAK_ITERATIONS_DEFAULT.toLocaleString('en')} models, the default without a time limit: give one, e.g. --timeout 600, to search longer)`);
      }
      const res = s.solve(Math.max(0, conflictsMax - s.conflicts), deadlineMs);
      if (res === 'unknown') {
        return unknown(`the search over the predicate reads' choices stopped after ${s.conflicts.toLocaleString('en')} conflicts and ${iterations} models` +
          (unbounded ? ` (${CHOICE_CONFLICTS_DEFAULT.toLocaleString('en')} conflicts, the default without a time limit: give one, e.g. --timeout 600, to search longer)` : ''));
      }
      if (res === 'unsat') break;
      iterations++;
      const picks = s.picks();
      const low = lowerPredicates(h, 'picked', (i) => picks[i]!);
      const r = fns.check(low.history, o);
      if (r.verdict === 'unknown') return unknown(`the search over the predicate reads' choices stopped at its model ${iterations} (${s.active} choices given variables): ${r.unknownReason ?? 'a limit'}`);
      if (r.verdict === 'valid') {
        if (inserts.size > 0) {
          const ord = s.insertOrder(low.history, deadlineMs);
          if (ord.ok === 'unknown') return unknown(`a choice of versions satisfies ${opts.level}, but the search for a commit order that keeps every insert right after an absent version of its row stopped`);
          if (ord.ok === 'no') {
            // No commit order keeps the inserts with these picks: block the whole model, unless
            // the necessary lowering alone (a subset of every pick's graph) already has none.
            if (s.necInsertsImpossible(deadlineMs)) {
              return unknown(`no commit order that ${opts.level} allows keeps every insert right after an absent version of its row, whatever versions ` +
                `the predicate reads saw (a row inserted over a present version: a violation, which is not certified as a cycle is; docs/levels.md, "Predicates")`);
            }
            insertBlocked++;
            s.block(s.allPicks());
            continue;
          }
        }
        r.decidedBy = 'choice-search';
        r.timesMs = sumTimes(first, r);
        return out(fns.inInput(h, low, r, opts), `a search over ${nec.choices.length} choices (rows that predicate reads did not return, each possibly seen in several versions; ` +
          `${s.active} given variables) found after ${iterations} models a version of each under which the history satisfies ${opts.level} (docs/levels.md, "Predicates")`);
      }
      lastViolation = low;
      const core = s.core(low, fns.check, o);
      s.block(core);
    }
  } catch (err) {
    if (err instanceof Bound) return unknown(`${err.message} (after ${iterations} models, ${s.active} choices given variables)`);
    throw err;
  }
  if (insertBlocked > 0) {
    return unknown(`every choice of versions the search considered violates ${opts.level}, but for ${insertBlocked} of them only because no commit order ` +
      `keeps every insert right after an absent version of its row, which is not certified as a cycle is`);
  }
  if (level === 'ru' || level === 'pl-1') {
    return unknown(`every choice of committed versions the search considered violates ${opts.level}, but read uncommitted lets a count see aborted or intermediate versions, which it does not consider`);
  }
  return s.counterexample(opts, deadlineMs, first, lastViolation, iterations, fns);
}

function sumTimes(a: CheckResult, b: CheckResult): CheckResult['timesMs'] {
  const t = { ...a.timesMs };
  t.validate += b.timesMs.validate; t.construct += b.timesMs.construct; t.prune += b.timesMs.prune; t.solve += b.timesMs.solve;
  return t;
}

/** The search's state: candidates, default picks, the lazily grown SAT problem and the cores found. */
class Search {
  private readonly solver = new Solver();
  /** Per choice: its candidates (computed when first needed). */
  private readonly cands: (Cand[] | undefined)[];
  /** Per choice: the default pick's candidate index (used while the choice has no variables). */
  private readonly dflt: Int32Array;
  /** Per choice: its first selector variable (candidates in order), or -1 while it has none. */
  private readonly selStart: Int32Array;
  /** Per count op: its choices. */
  private readonly countRows = new Map<number, number[]>();
  /** (input op, row) -> choice index. */
  private readonly choiceAt = new Map<number, number>();
  /** Choices whose single pick alone was a core: choice -> candidate indices. */
  readonly alone = new Map<number, Set<number>>();
  private readonly keyOf: (k: number) => Scalar;
  private readonly valueOf: (v: number) => Scalar | null;
  private readonly predOf: (op: number) => Predicate | null;
  private readonly nKeys: number;
  private vars = 0;
  active = 0;
  conflicts = 0;
  private unsat = false;

  constructor(
    private readonly h: History, private readonly level: SaturationLevel, private readonly nec: Lowered, private readonly rows: RowVersions,
    private readonly insertsByRow: Map<number, number[]>,
  ) {
    const n = nec.choices.length, pt = h.predicates!;
    this.cands = new Array(n);
    this.dflt = new Int32Array(n);
    this.selStart = new Int32Array(n).fill(-1);
    this.nKeys = h.keyLabels.length;
    this.keyOf = (k) => rowKey(h, k);
    this.valueOf = (v) => (v === INITIAL_VALUE || v >= h.valueCount ? null : rowValue(h, v));
    this.predOf = (op) => (h.opKind[op] === OP_SELECT || h.opKind[op] === OP_COUNT ? pt.parsed[h.opValue[op]!]! : null);
    for (let i = 0; i < n; i++) {
      const c = nec.choices[i]!;
      this.choiceAt.set(c.op * this.nKeys + c.key, i);
      if (c.count >= 0) {
        const l = this.countRows.get(c.op);
        if (l === undefined) this.countRows.set(c.op, [i]); else l.push(i);
      }
      this.dflt[i] = this.timePick(i);
    }
    for (const [op, list] of this.countRows) this.fitCount(op, list);
  }

  /** Choice i's candidates: the initial version, then other txns' versions of its class. */
  private candidates(i: number): Cand[] {
    const known = this.cands[i];
    if (known !== undefined) return known;
    const c = this.nec.choices[i]!, rows = this.rows, p = this.predOf(c.op);
    const out: Cand[] = [{ txn: INIT_TXN, value: INITIAL_VALUE }];
    for (let j = rows.start[c.key]!; j < rows.start[c.key + 1]!; j++) {
      const w = rows.txn[j]!, v = rows.value[j]!;
      if (w !== c.txn && fits(c, p, this.keyOf(c.key), this.valueOf(v))) out.push({ txn: w, value: v });
    }
    return (this.cands[i] = out);
  }

  private matching(i: number, cand: Cand): boolean {
    const c = this.nec.choices[i]!, v = this.valueOf(cand.value);
    return v !== null && matches(this.predOf(c.op)!, this.keyOf(c.key), v);
  }

  /** The candidate the recorded times put last before the reader began (a snapshot's version); else the initial one. */
  private timePick(i: number): number {
    const h = this.h, start = h.txnStart, end = h.txnEnd;
    if (start === undefined || end === undefined) return 0;
    const c = this.nec.choices[i]!, at = start[c.txn]!;
    if (Number.isNaN(at)) return 0;
    const cs = this.candidates(i);
    let best = 0, bestEnd = Number.NEGATIVE_INFINITY;
    for (let j = 1; j < cs.length; j++) {
      const e = end[cs[j]!.txn]!;
      if (!Number.isNaN(e) && e < at && e > bestEnd && h.txnStatus[cs[j]!.txn] === TXN_COMMITTED) { best = j; bestEnd = e; }
    }
    // A later version of another class (a matching one, for a 'nomatch' row) means the read could not have seen this one at that time; it stays a guess.
    return best;
  }

  /** How many of a count's rows must match: its n less the txn's own matching rows. */
  private want(op: number): number {
    return this.h.predicates!.count[this.nec.choices[this.countRows.get(op)![0]!]!.count]! - ownMatches(this.h, op);
  }

  /** Adjusts a count's default picks so that exactly `want` of its rows match (when they can). */
  private fitCount(op: number, list: number[]): void {
    let need = this.want(op);
    if (need < 0) return;
    for (const i of list) if (this.matching(i, this.candidates(i)[this.dflt[i]!]!)) need--;
    for (const i of list) {
      if (need === 0) break;
      const cs = this.candidates(i), m = this.matching(i, cs[this.dflt[i]!]!);
      if (need > 0 && !m) {
        const j = cs.findIndex((x) => this.matching(i, x));
        if (j >= 0) { this.dflt[i] = j; need--; }
      } else if (need < 0 && m) {
        this.dflt[i] = 0; need++;
      }
    }
  }

  /** A count whose own matching rows exceed it (no choice of versions adds up), or null. */
  impossibleCount(): { txn: number } | null {
    for (const [op, list] of this.countRows) if (this.want(op) < 0) return { txn: this.nec.choices[list[0]!]!.txn };
    return null;
  }

  private newVars(k: number): number {
    if (this.vars + k > WEAK_VARIABLES_MAX) throw new Bound(`the search over the predicate reads' choices would need more than ${WEAK_VARIABLES_MAX.toLocaleString('en')} variables`);
    this.vars += k;
    // One at a time: newVar grows the solver's arrays by doubling, newVars(k) to the exact size
    // (quadratic over the many small activations here).
    const first = this.solver.newVar();
    for (let x = 1; x < k; x++) this.solver.newVar();
    return first;
  }

  /** Gives choice i (a count: all its rows) selectors and their clauses; its default pick is the preferred phase. */
  private activate(i: number): void {
    if (this.selStart[i]! >= 0) return;
    const c = this.nec.choices[i]!;
    const group = c.count >= 0 ? this.countRows.get(c.op)! : [i];
    const ms: Lit[] = [];
    for (const j of group) {
      const cs = this.candidates(j);
      const v0 = this.newVars(cs.length);
      this.selStart[j] = v0;
      this.active++;
      const sels = cs.map((_, x) => mkLit(v0 + x));
      for (let x = 0; x < cs.length; x++) this.solver.setPhase(v0 + x, x === this.dflt[j]);
      if (c.count < 0) { this.add(sels); continue; }
      exactly(sels, 1, () => this.newVars(1), this.pending);
      const m = mkLit(this.newVars(1));
      const matchingSels = sels.filter((_, x) => this.matching(j, cs[x]!));
      this.pending.push([negate(m), ...matchingSels]);
      for (const sl of matchingSels) this.pending.push([negate(sl), m]);
      ms.push(m);
    }
    if (c.count >= 0) exactly(ms, this.want(c.op), () => this.newVars(1), this.pending);
    this.flush();
  }

  private readonly pending: Lit[][] = [];
  private flush(): void {
    for (const cl of this.pending) this.add(cl);
    this.pending.length = 0;
  }

  private add(cl: Lit[]): void {
    if (!this.solver.addClause(cl)) this.unsat = true;
  }

  solve(conflictsMax: number, deadlineMs: number): 'sat' | 'unsat' | 'unknown' {
    if (this.unsat) return 'unsat';
    if (this.active === 0) return 'sat';
    const before = this.solver.stats.conflicts;
    const r = this.solver.solve({ conflictsMax, deadlineMs });
    this.conflicts += this.solver.stats.conflicts - before;
    if (r === 'unsat') this.unsat = true;
    return r;
  }

  /** The candidate index each choice takes now: its first true selector, or its default. */
  private pickIndex(i: number): number {
    const v0 = this.selStart[i]!;
    if (v0 < 0) return this.dflt[i]!;
    const n = this.candidates(i).length;
    for (let x = 0; x < n; x++) if (this.solver.modelValue(v0 + x)) return x;
    throw new Error('internal error: a choice with no selector true in a model');
  }

  /** Per choice, the lowered value id it reads in the current model. */
  picks(): Int32Array {
    const n = this.nec.choices.length, out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = this.candidates(i)[this.pickIndex(i)]!.value;
    return out;
  }

  /** Adds "not all of these picks" for a core (choice -> candidate index). */
  block(core: Map<number, number>): void {
    for (const i of core.keys()) this.activate(i);
    if (core.size === 1) {
      const [[i, x]] = [...core];
      let set = this.alone.get(i!);
      if (set === undefined) this.alone.set(i!, (set = new Set()));
      set.add(x!);
    }
    this.add([...core].map(([i, x]) => mkLit(this.selStart[i]! + x, true)));
  }

  /**
   * The core of a violating picked lowering: the picks its saturated cycle rests on, verified by
   * checking the necessary lowering plus those picks alone; all picks when that fails.
   */
  /** Every choice's current pick, as a core (the whole model). */
  allPicks(): Map<number, number> {
    return new Map(this.nec.choices.map((_, i) => [i, this.pickIndex(i)]));
  }

  /** Whether the necessary lowering's own graph (in every pick's) has no commit order keeping the inserts (computed once). */
  necInsertsImpossible(deadlineMs: number): boolean {
    return (this.necImpossible ??= this.insertOrder(this.nec.history, deadlineMs).ok === 'no');
  }

  private necImpossible: boolean | undefined;

  core(low: Lowered, check: CheckFn, o: CheckOptions): Map<number, number> {
    const all = (): Map<number, number> => this.allPicks();
    const v = validate(low.history);
    const core = new Map<number, number>();
    const add = (op: number): void => {
      const i = this.choiceAt.get(low.origin[op]! * this.nKeys + low.history.opKey[op]!);
      if (i !== undefined) core.set(i, this.pickIndex(i));
    };
    // A pick validation rejects (a future read: a version of a later txn of the reader's own
    // session) is left out of the reads the level sees: the anomaly's op is the core.
    for (const a of v.anomalies) if (a.op >= 0 && (this.level === 'ru' || this.level === 'pl-1' ? !RU_ALLOWS.has(a.name) : true)) add(a.op);
    if (core.size === 0) {
      const out = checkSaturationLevel(v, this.level);
      if (out.verdict !== 'violation') return all();
      for (const r of cycleReads(v, out)) add(v.reads.op[r]!);
    }
    if (core.size === 0) return all();
    const only = lowerPredicates(this.h, 'picked', (i) => (core.has(i) ? this.candidates(i)[core.get(i)!]!.value : -1));
    const vr = check(only.history, o);
    if (vr.verdict === 'unknown') throw new Bound(`the search over the predicate reads' choices stopped while checking a core (${vr.unknownReason ?? 'a limit'})`);
    return vr.verdict === 'violation' ? core : all();
  }

  /**
   * Whether the picked lowering's saturated graph has a topological order (a commit order of the
   * level) that keeps every constrained insert right after an absent version of its row:
   * 'yes' (with the positions), 'no' (none exists), or 'unknown' (a limit). First a greedy Kahn
   * pass (txns by recorded completion, else index; an insert over a present row held back), then
   * an exact search: the writers' order per constrained row as literals of pairs, the graph's
   * edges fixed, acyclicity as the theory, each insert's precondition as clauses.
   */
  insertOrder(lowered: History, deadlineMs: number): { ok: 'yes'; position: Int32Array } | { ok: 'no' | 'unknown' } {
    const n = this.h.txnCount;
    const input = this.level === 'ru' || this.level === 'pl-1'
      ? { ...lowered, txnStatus: lowered.txnStatus.map((st) => (st === TXN_UNKNOWN ? TXN_ABORTED : st)) as History['txnStatus'] } : lowered;
    const v = validate(input);
    const g = checkSaturationLevel(v, this.level).graph;
    const greedy = this.greedyOrder(g.from.view(), g.to.view(), g.length);
    if (greedy !== null && this.keepsInserts(greedy, v.included)) return { ok: 'yes', position: greedy };
    // Exact: pair literals over each constrained row's writers that take part.
    const solver = new Solver(), theory = new AcyclicityTheory(n);
    for (let e = 0; e < g.length; e++) theory.addFixedEdge(g.from.get(e), g.to.get(e), e);
    const pairVar = new Map<number, number>();
    const before = (a: number, b: number): Lit => {
      const lo = Math.min(a, b), hi = Math.max(a, b);
      let x = pairVar.get(lo * n + hi);
      if (x === undefined) {
        x = solver.newVar();
        pairVar.set(lo * n + hi, x);
        theory.addConditionalEdge(lo, hi, mkLit(x), -1);
        theory.addConditionalEdge(hi, lo, mkLit(x, true), -1);
      }
      return mkLit(x, a !== lo);
    };
    for (const [k, ins] of this.insertsByRow) {
      const present: number[] = [], dead: number[] = [];
      for (let j = this.rows.start[k]!; j < this.rows.start[k + 1]!; j++) {
        const t = this.rows.txn[j]!;
        if (v.included[t] === 1) (this.rows.value[j]! >= this.h.valueCount ? dead : present).push(t);
      }
      for (const I of ins) {
        if (v.included[I] !== 1) continue;
        for (const P of present) {
          if (P === I) continue;
          // P before I implies a delete d between them.
          const clause: Lit[] = [negate(before(P, I))];
          for (const d of dead) {
            if (d === I || d === P) continue;
            const y = mkLit(solver.newVar());
            solver.addClause([negate(y), before(P, d)]);
            solver.addClause([negate(y), before(d, I)]);
            clause.push(y);
          }
          solver.addClause(clause);
        }
      }
    }
    if (theory.initialize() !== null) return { ok: 'no' };
    solver.setTheory(theory);
    const r = solver.solve({ conflictsMax: CHOICE_CONFLICTS_DEFAULT, deadlineMs });
    if (r !== 'sat') return { ok: r === 'unsat' ? 'no' : 'unknown' };
    const position = theory.topologicalOrder();
    return this.keepsInserts(position, v.included) ? { ok: 'yes', position } : { ok: 'unknown' };
  }

  /** Whether, in the order `position`, each constrained insert of a txn taking part follows an absent version of its row (or none). */
  private keepsInserts(position: Int32Array, included: Uint8Array): boolean {
    for (const [k, ins] of this.insertsByRow) {
      const idx: number[] = [];
      for (let j = this.rows.start[k]!; j < this.rows.start[k + 1]!; j++) if (included[this.rows.txn[j]!] === 1) idx.push(j);
      idx.sort((a, b) => position[this.rows.txn[a]!]! - position[this.rows.txn[b]!]!);
      for (let x = 1; x < idx.length; x++) {
        if (ins.includes(this.rows.txn[idx[x]!]!) && this.rows.value[idx[x - 1]!]! < this.h.valueCount) return false;
      }
    }
    return true;
  }

  /** Kahn's order of the graph (txns by recorded completion, else by index; an insert over a present row held back while another txn is ready); null if cyclic. */
  private greedyOrder(from: Int32Array, to: Int32Array, m: number): Int32Array | null {
    const h = this.h, n = h.txnCount, end = h.txnEnd;
    const byPrio = Array.from({ length: n }, (_, t) => t);
    if (end !== undefined) byPrio.sort((a, b) => (Number.isNaN(end[a]!) ? Infinity : end[a]!) - (Number.isNaN(end[b]!) ? Infinity : end[b]!) || a - b);
    const rank = new Int32Array(n);
    byPrio.forEach((t, i) => { rank[t] = i; });
    const indeg = new Int32Array(n), start = new Int32Array(n + 1);
    for (let e = 0; e < m; e++) { indeg[to[e]!]!++; start[from[e]! + 1]!++; }
    for (let t = 0; t < n; t++) start[t + 1]! += start[t]!;
    const fill = start.slice(0, n), adj = new Int32Array(m);
    for (let e = 0; e < m; e++) adj[fill[from[e]!]!++] = to[e]!;
    const insertsOf = new Map<number, number[]>(), writes = new Map<number, number[]>();
    for (const [k, ins] of this.insertsByRow) {
      for (const t of ins) { const l = insertsOf.get(t); if (l === undefined) insertsOf.set(t, [k]); else l.push(k); }
      for (let j = this.rows.start[k]!; j < this.rows.start[k + 1]!; j++) {
        const t = this.rows.txn[j]!, l = writes.get(t);
        if (l === undefined) writes.set(t, [k, this.rows.value[j]!]); else l.push(k, this.rows.value[j]!);
      }
    }
    const present = new Set<number>();
    const safe = (t: number): boolean => (insertsOf.get(t) ?? []).every((k) => !present.has(k));
    const heap = new IntMinHeap(n);
    for (let t = 0; t < n; t++) if (indeg[t] === 0) heap.push(rank[t]!);
    const position = new Int32Array(n), held: number[] = [];
    let placed = 0;
    while (heap.length > 0) {
      let t = byPrio[heap.pop()]!;
      while (!safe(t) && heap.length > 0 && held.length < 32) { held.push(t); t = byPrio[heap.pop()]!; }
      if (!safe(t) && held.length > 0) { held.push(t); t = held.shift()!; }
      for (const x of held) heap.push(rank[x]!);
      held.length = 0;
      position[t] = placed++;
      const w = writes.get(t) ?? [];
      for (let j = 0; j < w.length; j += 2) if (w[j + 1]! < h.valueCount) present.add(w[j]!); else present.delete(w[j]!);
      for (let e = start[t]!; e < start[t + 1]!; e++) if (--indeg[adj[e]!]! === 0) heap.push(rank[adj[e]!]!);
    }
    return placed === n ? position : null;
  }

  /** The result after 'unsat': certified anomalies per candidate when one choice carries the proof, else one concrete choice's, marked. */
  counterexample(opts: CheckOptions, deadlineMs: number, first: CheckResult, last: Lowered | null, iterations: number, fns: WeakFns): CheckResult {
    const h = this.h;
    const o: CheckOptions = { ...opts, explain: opts.explain === true, deadlineMs };
    delete o.timeoutMs;
    const base = (r: CheckResult): CheckResult => {
      r.level = opts.level;
      r.decidedBy = 'choice-search';
      r.anomalySearchComplete = false;
      r.counts = { ...first.counts };
      r.timesMs = sumTimes(first, r);
      return r;
    };
    for (const [i, set] of this.alone) {
      const cs = this.candidates(i);
      if (set.size !== cs.length) continue;
      const found: CheckResult[] = [];
      for (const cand of cs) {
        const low = lowerPredicates(h, 'picked', (j) => (j === i ? cand.value : -1));
        const one = fns.check(low.history, o);
        if (one.verdict !== 'violation' || one.anomalies.length === 0) break;
        found.push(fns.inInput(h, low, one, opts));
      }
      if (found.length !== cs.length) continue;
      const c = this.nec.choices[i]!;
      const r = base(found[0]!);
      r.anomalies = found.map((f) => f.anomalies[0]!);
      (r.notes ??= []).push(`${txnLabel(h, c.txn)}'s ${c.want === 'absent' ? 'read' : 'predicate read'} of row ${h.keyLabels[c.key]} saw one of ${cs.length} ` +
        `versions of it (${cs.map((x) => (x.txn < 0 ? 'the initial version' : `${txnLabel(h, x.txn)}'s`)).join(', ')}); each violates ${opts.level} ` +
        `(one certified counterexample per version, in order). The search over ${this.nec.choices.length} choices found no version of each that satisfies it`);
      return r;
    }
    if (last !== null) {
      const one = fns.check(last.history, o);
      if (one.verdict === 'violation' && one.anomalies.length > 0) {
        const r = base(fns.inInput(h, last, one, opts));
        (r.notes ??= []).push(`the search over ${this.nec.choices.length} choices (${iterations} models) found that every choice of versions violates ${opts.level}, ` +
          `but no one read's choice alone does: the counterexample shown is certified for ONE choice (the last one the search tried); ` +
          `that every other choice fails too is the search's proof (its cores, each verified by a check), not certified independently`);
        return r;
      }
    }
    const r: CheckResult = { ...first, verdict: 'unknown', decidedBy: 'limit', anomalies: [], anomalySearchComplete: false,
      unknownReason: 'the search over the predicate reads\' choices found no good choice, but no certified counterexample was found' };
    return r;
  }
}

/** The reads (v.reads indices) a saturation violation rests on: its WR edges', each derived edge's read and how the reader observed the writer. */
function cycleReads(v: Validated, out: LevelOutcome): number[] {
  const g = out.graph, reads: number[] = [];
  const observed = (t2: number, read: number, via: number): void => {
    reads.push(read);
    if (via >= 0) reads.push(via);
    else if (via === VIA_HB) reads.push(...causalReads(out, t2, v.reads.txn[read]!));
  };
  if (out.initViolation !== null) observed(out.initViolation.t2, out.initViolation.read, out.initViolation.via);
  for (const e of out.cycle ?? []) {
    const kind = g.kind.get(e);
    if (kind === E_WR) reads.push(g.why.get(e));
    else if (kind === E_DERIVED) observed(g.from.get(e), g.why.get(e), g.via.get(e));
  }
  return reads;
}

/** The reads along a shortest path of session order and reads from t2 to t3 (backward breadth-first search). */
function causalReads(out: LevelOutcome, t2: number, t3: number): number[] {
  const b = out.graph.base;
  const next = new Map<number, { to: number; read: number }>([[t3, { to: t3, read: -1 }]]);
  const queue = [t3];
  for (let head = 0; head < queue.length && !next.has(t2); head++) {
    const u = queue[head]!;
    if (b.soPrev[u]! >= 0 && !next.has(b.soPrev[u]!)) { next.set(b.soPrev[u]!, { to: u, read: -1 }); queue.push(b.soPrev[u]!); }
    for (let i = b.readStart[u]!; i < b.readStart[u + 1]!; i++) {
      const r = b.readIdx[i]!;
      for (let j = b.obsStart[r]!; j < b.obsStart[r + 1]!; j++) {
        const p = b.obs[j]!;
        if (!next.has(p)) { next.set(p, { to: u, read: r }); queue.push(p); }
      }
    }
  }
  const reads: number[] = [];
  if (!next.has(t2)) return reads;
  for (let u = t2; u !== t3; u = next.get(u)!.to) if (next.get(u)!.read >= 0) reads.push(next.get(u)!.read);
  return reads;
}
