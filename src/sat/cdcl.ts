/**
 * A MiniSat-style CDCL SAT solver with a pluggable theory (lazy SMT, "DPLL(T)" without theory
 * propagation).
 *
 * Takes: variables (`newVar`), clauses over literals (`addClause`), optionally a `Theory` that
 * watches assignments and reports conflict clauses, and budgets (`conflictsMax`, `deadlineMs`).
 * Gives: 'sat' with a model (`modelValue`), 'unsat', or 'unknown' when a budget ran out;
 * level-0 facts (`fixedValue`); counters (`stats`).
 *
 * Features: two watched literals with blockers; first-UIP learning with recursive (iteratively
 * coded) clause minimization; VSIDS on an indexed heap; phase saving; Luby restarts with trail
 * reuse (partial restarts); learnt-clause reduction by LBD (glue clauses, LBD <= 2, are kept),
 * with lazy deletion; chronological backtracking for long backjumps (Nadel & Ryvchin 2018);
 * failed-literal probing at level 0 when a theory is set. The last three exist because every
 * (re)decision costs a theory insertion: see `probe`, `reusedTrailLevel`, `learnFromConflict`.
 *
 * Invariants between public calls and between search steps:
 * - A clause in the arena `mem` at offset `cr` is `[size, info, lit0, lit1, ...]`, `size >= 2`;
 *   a live clause is watched exactly by `lit0` and `lit1` (it sits in `watches[lit0]` and
 *   `watches[lit1]`); a deleted one may linger in watch lists until propagation drops it.
 * - If clause `cr` is the reason of variable v, then `lit0` is v's literal, it is true, and
 *   `level[v]` is the highest level among the clause's literals.
 * - `trail[0..trailLen)` lists assigned literals in assignment order; `trailLim[d]` is the
 *   position of the decision of level d+1, and every literal before it has level <= d. Under
 *   chronological backtracking literals of lower levels may sit after it (the trail is not
 *   sorted by level), so code that needs "the literals of level d" filters by `level`.
 * - `qhead` / `theoryHead` count the trail literals already given to unit propagation / to the
 *   theory; the theory has seen exactly `trail[0..theoryHead)`, in order, and is told to
 *   unassign them in exact reverse order.
 * - No decision is made before every trail literal was propagated and checked by the theory
 *   without conflict.
 * Library code: no console output, no recursion (the JS stack is shallow).
 */

import { VarHeap } from './heap.ts';
import type { Lit, SolveLimits, SolveResult, SolverOptions, SolverStats, Theory } from './types.ts';

export * from './types.ts';

const L_TRUE = 1;
const L_FALSE = -1;
const NO_REASON = -1;
/** `propagateAll` results besides a clause offset. */
const CONFLICT_NONE = -1;
const CONFLICT_THEORY = -2;
/** Clause header `info` bits: bit 0 learnt, bit 1 deleted, bits 2.. the LBD. */
const INFO_LEARNT = 1;
const INFO_DELETED = 2;
const LBD_SHIFT = 2;
const GLUE_LBD = 2;

const RESTART_UNIT_CONFLICTS = 100;
const REDUCE_FIRST_CONFLICTS = 2000;
const REDUCE_INCREMENT_CONFLICTS = 300;
const VAR_DECAY = 0.95;
const ACTIVITY_LIMIT = 1e100;
/** The clock is read once per this many search steps (a step = one conflict or one decision). */
const CLOCK_EVERY_STEPS = 64;
/** Probing stops after this many propagations per variable (plus one per arena word). */
const PROBE_PROPAGATIONS_PER_VAR = 40;
const CHRONO_THRESHOLD_LEVELS = 100;

/** The x-th element (0-based) of the Luby sequence 1 1 2 1 1 2 4 ..., as a power of y. */
function luby(y: number, x: number): number {
  let size = 1;
  let seq = 0;
  while (size < x + 1) {
    seq++;
    size = 2 * size + 1;
  }
  while (size - 1 !== x) {
    size = (size - 1) >> 1;
    seq--;
    x = x % size;
  }
  return Math.pow(y, seq);
}

export class Solver {
  readonly stats: SolverStats = {
    conflicts: 0,
    decisions: 0,
    propagations: 0,
    restarts: 0,
    learnts: 0,
    reductions: 0,
    compactions: 0,
  };

  private nVars = 0;
  private capVars = 0;
  /** `vals[l]`: 1 if literal l is true, -1 if false, 0 if unassigned (both polarities kept in sync). */
  private vals = new Int8Array(0);
  /** `level[v]`: decision level at which v was assigned (stale if v is unassigned). */
  private level = new Int32Array(0);
  /** `reason[v]`: arena offset of the clause that implied v, or NO_REASON (decision, fact, unassigned). */
  private reason = new Int32Array(0);
  /** `phase[v]`: saved polarity, 1 if v was last assigned true (phase saving); starts at 0 = false. */
  private phase = new Uint8Array(0);
  /** `seen[v]`: scratch mark of analyze/minimize; all zero outside `analyze`. */
  private seen = new Uint8Array(0);
  /** `trail[i]`: the i-th literal assigned, i < trailLen. */
  private trail = new Int32Array(0);
  private trailLen = 0;
  /** `trailLim[d]`: trail length when decision level d+1 began; its length is the decision level. */
  private trailLim: number[] = [];
  private qhead = 0;
  private theoryHead = 0;
  /** `levelStamp[d]`: scratch for LBD counting: the epoch at which level d was last counted. */
  private levelStamp = new Int32Array(0);
  private levelEpoch = 0;
  /** `model[v]`: 1 if v was true in the last model. */
  private model = new Uint8Array(0);

  /** `watches[l]`: flat pairs (clause offset, blocker literal) for the clauses watching l. */
  private watches: number[][] = [];
  /** The clause arena; see the module invariant for the layout. */
  private mem = new Int32Array(1024);
  private memLen = 0;
  /** Offsets of the live learnt clauses in the arena. */
  private learnts: number[] = [];
  /** Arena words held by deleted clauses (reclaimed by `compact`). */
  private wastedWords = 0;

  private readonly heap = new VarHeap();
  private varInc = 1;
  private ok = true;
  private theory: Theory | null = null;
  private theoryConflict: Lit[] | null = null;
  private readonly restartUnitConflicts: number;
  private readonly probeWithTheory: boolean;
  private readonly chronoThresholdLevels: number;
  private probed = false;
  private readonly reduceIncrementConflicts: number;
  private nextReduceConflicts: number;
  private reduceIntervalConflicts: number;

  // Reusable scratch lists (no per-conflict allocation once warm).
  private readonly learnt: number[] = [];
  private readonly toClear: number[] = [];
  private readonly analyzeStack: number[] = [];
  private readonly keptScratch: number[] = [];

  constructor(options: SolverOptions = {}) {
    this.restartUnitConflicts = options.restartUnitConflicts ?? RESTART_UNIT_CONFLICTS;
    this.reduceIntervalConflicts = options.reduceFirstConflicts ?? REDUCE_FIRST_CONFLICTS;
    this.nextReduceConflicts = this.reduceIntervalConflicts;
    this.reduceIncrementConflicts = options.reduceIncrementConflicts ?? REDUCE_INCREMENT_CONFLICTS;
    this.probeWithTheory = options.probeWithTheory ?? true;
    this.chronoThresholdLevels = options.chronoThresholdLevels ?? CHRONO_THRESHOLD_LEVELS;
  }

  get varCount(): number {
    return this.nVars;
  }

  newVar(): number {
    const v = this.nVars++;
    if (this.nVars > this.capVars) this.grow(Math.max(16, this.capVars * 2));
    this.watches.push([], []);
    this.reason[v] = NO_REASON;
    this.heap.insert(v);
    return v;
  }

  /**
   * `count` new variables at once, numbered from `varCount` on (returned): newVar's work with one
   * grow of the per-variable arrays, instead of one per doubling (the solve makes all its
   * variables up front; ~125 on a 360-txn history: four grows of eleven arrays, cold).
   */
  newVars(count: number): number {
    const first = this.nVars;
    if (first + count > this.capVars) this.grow(Math.max(16, first + count));
    for (let i = 0; i < count; i++) {
      const v = this.nVars++;
      this.watches.push([], []);
      this.reason[v] = NO_REASON;
      this.heap.insert(v);
    }
    return first;
  }

  /**
   * Adds a clause (at decision level 0; a model left by a previous 'sat' is dropped first).
   * Returns false if the formula is now known unsat.
   */
  addClause(lits: Lit[]): boolean {
    if (!this.ok) return false;
    this.backtrack(0);
    const ps = lits.slice().sort((a, b) => a - b);
    const vals = this.vals;
    let j = 0;
    let prev = -1;
    for (const l of ps) {
      this.checkLit(l);
      // Sorted, so l and its negation are adjacent: a tautology shows as l === prev ^ 1.
      if (vals[l] === L_TRUE || l === (prev ^ 1)) return true;
      if (vals[l] !== L_FALSE && l !== prev) {
        ps[j++] = l;
        prev = l;
      }
    }
    ps.length = j;
    if (j === 0) {
      this.ok = false;
      return false;
    }
    if (j === 1) {
      this.enqueue(ps[0]!, NO_REASON, 0);
      if (this.propagate() !== CONFLICT_NONE) this.ok = false;
      return this.ok;
    }
    this.attach(this.alloc(ps, false, 0));
    return true;
  }

  /** Replaces the theory. The new theory will be told every literal already fixed at level 0. */
  setTheory(t: Theory | null): void {
    this.backtrack(0);
    this.theory = t;
    this.theoryHead = 0;
    this.probed = false;
  }

  /**
   * Searches for a model. After 'sat' the satisfying assignment stays on the trail (and so in
   * the theory's state) until the next addClause/setTheory/solve; after 'unknown' the solver is
   * back at level 0 and may be called again (learnt clauses are kept).
   */
  solve(limits: SolveLimits = {}): SolveResult {
    this.backtrack(0);
    if (!this.ok) return 'unsat';
    const conflictsMax = limits.conflictsMax ?? Infinity;
    const deadlineMs = limits.deadlineMs ?? Infinity;
    const stats = this.stats;
    const conflictsStart = stats.conflicts;
    let restartIndex = 0;
    let restartLimit = luby(2, restartIndex) * this.restartUnitConflicts;
    let conflictsSinceRestart = 0;
    let steps = 0;

    if (this.theory !== null && this.probeWithTheory && !this.probed) {
      this.probed = true;
      const r = this.probe(conflictsStart + conflictsMax, deadlineMs);
      if (r !== null) return r;
    }

    for (;;) {
      const confl = this.propagateAll();
      if (confl !== CONFLICT_NONE) {
        stats.conflicts++;
        conflictsSinceRestart++;
        if (!this.learnFromConflict(confl)) return 'unsat';
        if (stats.conflicts - conflictsStart >= conflictsMax) return this.giveUp();
        if (++steps % CLOCK_EVERY_STEPS === 0 && Date.now() >= deadlineMs) return this.giveUp();
        if (stats.conflicts >= this.nextReduceConflicts) {
          this.reduceIntervalConflicts += this.reduceIncrementConflicts;
          this.nextReduceConflicts = stats.conflicts + this.reduceIntervalConflicts;
          this.reduceDb();
        }
        if (conflictsSinceRestart >= restartLimit) {
          this.backtrack(this.reusedTrailLevel());
          stats.restarts++;
          restartLimit = luby(2, ++restartIndex) * this.restartUnitConflicts;
          conflictsSinceRestart = 0;
        }
      } else {
        if (++steps % CLOCK_EVERY_STEPS === 0 && Date.now() >= deadlineMs) return this.giveUp();
        const lit = this.pickBranchLit();
        if (lit < 0) {
          this.saveModel();
          return 'sat';
        }
        this.stats.decisions++;
        this.trailLim.push(this.trailLen);
        this.enqueue(lit, NO_REASON, this.trailLim.length);
      }
    }
  }

  /**
   * Learns from a conflict (clause offset or CONFLICT_THEORY) and backjumps, leaving the
   * asserting literal enqueued. Returns false (and marks the formula unsat) for a conflict at
   * level 0.
   */
  private learnFromConflict(confl: number): boolean {
    let theoryLits: Lit[] | null = null;
    let maxLevel: number;
    if (confl === CONFLICT_THEORY) {
      theoryLits = this.theoryConflict!;
      this.theoryConflict = null;
      maxLevel = this.theoryClauseLevel(theoryLits);
    } else {
      maxLevel = this.clauseLevel(confl);
    }
    if (maxLevel <= 0) {
      this.ok = false;
      return false;
    }
    // The conflict may lie wholly below the current level (a lazy theory, or literals assigned
    // late under chronological backtracking): analysis needs a literal of the current level.
    if (maxLevel < this.trailLim.length) this.backtrack(maxLevel);
    const assertLevel = this.analyze(confl, theoryLits);
    const learnt = this.learnt;
    const lbd = learnt.length > 1 ? this.computeLbd(learnt, 0, learnt.length) : 1;
    const dl = this.trailLim.length;
    this.backtrack(dl - assertLevel > this.chronoThresholdLevels ? dl - 1 : assertLevel);
    if (learnt.length === 1) {
      this.enqueue(learnt[0]!, NO_REASON, 0);
    } else {
      const cr = this.alloc(learnt, true, lbd);
      this.attach(cr);
      this.learnts.push(cr);
      this.stats.learnts = this.learnts.length;
      this.enqueue(learnt[0]!, cr, assertLevel);
    }
    this.varInc /= VAR_DECAY;
    return true;
  }

  /**
   * Failed-literal probing at level 0, once per solver, when a theory is set: each literal of
   * each unassigned variable is decided alone at level 1; a conflict there yields a unit (its
   * negation, or a stronger 1-UIP fact) at level 0.
   * Why: a decision whose theory conflict involves only itself (e.g. an edge closing a cycle
   * with fixed edges) learns a unit, and a unit costs a backjump to level 0 and redoing every
   * decision; found during search one by one, such units make the search quadratic. Probing
   * finds them in one linear pass. Bounded by a propagation budget and the caller's limits.
   * Pre/post: decision level 0. Returns 'unsat'/'unknown' to end the solve, or null to go on.
   */
  private probe(conflictsEnd: number, deadlineMs: number): SolveResult | null {
    const stats = this.stats;
    const budgetPropagations = stats.propagations + PROBE_PROPAGATIONS_PER_VAR * this.nVars + this.memLen;
    // Level-0 facts first, so the theory has seen them before any probe.
    if (this.propagateAll() !== CONFLICT_NONE) {
      this.ok = false;
      return 'unsat';
    }
    for (let v = 0; v < this.nVars; v++) {
      if (v % CLOCK_EVERY_STEPS === 0 && Date.now() >= deadlineMs) return this.giveUp();
      // Saved phase first (what search would decide), then the other polarity: if search
      // later implies it, a failure found only then would cost a long backjump.
      for (let k = 0; k < 2; k++) {
        if (this.vals[2 * v] !== 0) break;
        if (stats.propagations >= budgetPropagations) return null;
        this.trailLim.push(this.trailLen);
        this.enqueue(2 * v + ((this.phase[v] === 1) === (k === 0) ? 0 : 1), NO_REASON, 1);
        const confl = this.propagateAll();
        if (confl === CONFLICT_NONE) {
          this.backtrack(0);
          continue;
        }
        stats.conflicts++;
        // At level 1 every other literal of the learnt clause is a level-0 fact: it is a unit.
        if (!this.learnFromConflict(confl)) return 'unsat';
        if (this.propagateAll() !== CONFLICT_NONE) {
          this.ok = false;
          return 'unsat';
        }
        if (stats.conflicts >= conflictsEnd) return this.giveUp();
      }
    }
    return null;
  }

  /** Sets the polarity v is first tried with (phase saving takes over once it is assigned). */
  setPhase(v: number, value: boolean): void {
    this.phase[v] = value ? 1 : 0;
  }

  /** Value of v in the last model. Pre: the last solve returned 'sat'. */
  modelValue(v: number): boolean {
    return this.model[v] === 1;
  }

  /** Value of v if it is assigned at decision level 0 (a fact of the formula), else undefined. */
  fixedValue(v: number): boolean | undefined {
    const x = this.vals[2 * v];
    if (x === 0 || x === undefined || this.level[v] !== 0) return undefined;
    return x === L_TRUE;
  }

  // ---------------------------------------------------------------- assignment

  private grow(capacity: number): void {
    const vals = new Int8Array(2 * capacity);
    vals.set(this.vals);
    this.vals = vals;
    const level = new Int32Array(capacity);
    level.set(this.level);
    this.level = level;
    const reason = new Int32Array(capacity).fill(NO_REASON);
    reason.set(this.reason);
    this.reason = reason;
    const phase = new Uint8Array(capacity);
    phase.set(this.phase);
    this.phase = phase;
    const seen = new Uint8Array(capacity);
    seen.set(this.seen);
    this.seen = seen;
    const trail = new Int32Array(capacity);
    trail.set(this.trail);
    this.trail = trail;
    const levelStamp = new Int32Array(capacity + 1);
    levelStamp.set(this.levelStamp);
    this.levelStamp = levelStamp;
    this.heap.grow(capacity);
    this.capVars = capacity;
  }

  private checkLit(l: Lit): void {
    if (!Number.isInteger(l) || l < 0 || l >> 1 >= this.nVars) {
      throw new RangeError(`literal ${l} does not name a variable (have ${this.nVars})`);
    }
  }

  /**
   * Makes `lit` true at decision level `lvl` (<= the current level; lower only for implied
   * literals under chronological backtracking). Pre: lit is unassigned.
   */
  private enqueue(lit: Lit, from: number, lvl: number): void {
    const v = lit >> 1;
    this.vals[lit] = L_TRUE;
    this.vals[lit ^ 1] = L_FALSE;
    this.level[v] = lvl;
    this.reason[v] = from;
    this.trail[this.trailLen++] = lit;
  }

  /**
   * Pre: level >= 0. If level < the current decision level: every literal assigned above
   * `level` is unassigned (polarity saved, variable back in the heap). Literals at or below
   * `level` that sit above the cut on the trail (placed there by chronological backtracking) are
   * kept, moved down in their order, and queued again for propagation and for the theory.
   * The theory gets `onUnassign` for every literal it had seen above the cut, kept or not, in
   * exact reverse order of `onAssign` (kept ones are then re-assigned: its calls stay LIFO).
   * Post: decision level === min(level, old level); qhead, theoryHead <= trailLen.
   */
  private backtrack(level: number): void {
    if (this.trailLim.length <= level) return;
    const lim = this.trailLim[level]!;
    const trail = this.trail;
    const vals = this.vals;
    const lvl = this.level;
    const theory = this.theory;
    const kept = this.keptScratch;
    kept.length = 0;
    for (let i = this.trailLen - 1; i >= lim; i--) {
      const l = trail[i]!;
      const v = l >> 1;
      if (theory !== null && i < this.theoryHead) theory.onUnassign(l);
      if (lvl[v]! <= level) {
        kept.push(l);
        continue;
      }
      vals[l] = 0;
      vals[l ^ 1] = 0;
      this.reason[v] = NO_REASON;
      this.phase[v] = (l & 1) === 0 ? 1 : 0;
      this.heap.insert(v);
    }
    let t = lim;
    for (let k = kept.length - 1; k >= 0; k--) trail[t++] = kept[k]!;
    this.trailLen = t;
    this.qhead = lim;
    if (this.theoryHead > lim) this.theoryHead = lim;
    this.trailLim.length = level;
  }

  private giveUp(): SolveResult {
    this.backtrack(0);
    return 'unknown';
  }

  private saveModel(): void {
    if (this.model.length < this.nVars) this.model = new Uint8Array(this.capVars);
    const vals = this.vals;
    for (let v = 0; v < this.nVars; v++) this.model[v] = vals[2 * v] === L_TRUE ? 1 : 0;
  }

  /**
   * The level a restart needs to go back to (partial restart with trail reuse, van der Tak,
   * Ramos & Heule 2011): decisions as active as the best unassigned variable would be made
   * again, in the same order and with the same saved phases, so levels up to the first decision
   * less active than that variable are kept.
   * Why: redoing a decision costs a theory insertion too; full restarts on 10^5+ variables
   * spent most of the search re-deciding the same prefix.
   */
  private reusedTrailLevel(): number {
    const heap = this.heap;
    while (heap.length > 0 && this.vals[2 * heap.top()] !== 0) heap.removeMax();
    if (heap.length === 0) return this.trailLim.length;
    const act = heap.activity;
    const nextActivity = act[heap.top()]!;
    for (let d = 0; d < this.trailLim.length; d++) {
      if (act[this.trail[this.trailLim[d]!]! >> 1]! < nextActivity) return d;
    }
    return this.trailLim.length;
  }

  /** The unassigned variable of highest activity with its saved phase, or -1 if all are assigned. */
  private pickBranchLit(): Lit {
    const heap = this.heap;
    while (heap.length > 0) {
      const v = heap.removeMax();
      if (this.vals[2 * v] === 0) return 2 * v + (this.phase[v] === 1 ? 0 : 1);
    }
    return -1;
  }

  // ---------------------------------------------------------------- clauses

  /** Stores a clause (>= 2 literals) in the arena and returns its offset; does not watch it. */
  private alloc(lits: ArrayLike<number>, learnt: boolean, lbd: number): number {
    const n = lits.length;
    const need = this.memLen + 2 + n;
    if (need > this.mem.length) {
      const mem = new Int32Array(Math.max(need, this.mem.length * 2));
      mem.set(this.mem.subarray(0, this.memLen));
      this.mem = mem;
    }
    const mem = this.mem;
    const cr = this.memLen;
    mem[cr] = n;
    mem[cr + 1] = (learnt ? INFO_LEARNT : 0) | (lbd << LBD_SHIFT);
    for (let i = 0; i < n; i++) mem[cr + 2 + i] = lits[i]!;
    this.memLen = need;
    return cr;
  }

  private attach(cr: number): void {
    const l0 = this.mem[cr + 2]!;
    const l1 = this.mem[cr + 3]!;
    this.watches[l0]!.push(cr, l1);
    this.watches[l1]!.push(cr, l0);
  }

  /** True if clause cr is the reason of a currently assigned variable (must not be deleted). */
  private locked(cr: number): boolean {
    const l0 = this.mem[cr + 2]!;
    return this.vals[l0] === L_TRUE && this.reason[l0 >> 1] === cr;
  }

  /** Number of distinct decision levels among `lits[start..end)` (all assigned). */
  private computeLbd(lits: ArrayLike<number>, start: number, end: number): number {
    const epoch = ++this.levelEpoch;
    const stamp = this.levelStamp;
    let lbd = 0;
    for (let i = start; i < end; i++) {
      const d = this.level[lits[i]! >> 1]!;
      if (stamp[d] !== epoch) {
        stamp[d] = epoch;
        lbd++;
      }
    }
    return lbd;
  }

  /** A learnt clause took part in a conflict: tighten its LBD if it is now lower (Glucose). */
  private touchClause(cr: number): void {
    const mem = this.mem;
    const info = mem[cr + 1]!;
    if ((info & INFO_LEARNT) === 0 || info >> LBD_SHIFT <= GLUE_LBD) return;
    const lbd = this.computeLbd(mem, cr + 2, cr + 2 + mem[cr]!);
    if (lbd < info >> LBD_SHIFT) mem[cr + 1] = (info & (INFO_LEARNT | INFO_DELETED)) | (lbd << LBD_SHIFT);
  }

  /**
   * Deletes about half of the non-glue learnt clauses, worst (highest LBD, then longest) first,
   * never a clause that is a reason. Deletion is lazy: the clause is flagged, propagation drops
   * its watches when it meets them, and the arena is compacted once half of it is garbage.
   * Why lazy: a full rewatch touches every literal's list, too slow to do every few thousand
   * conflicts with 10^6 variables. (A flagged clause is never used again, so never a reason.)
   */
  private reduceDb(): void {
    const mem = this.mem;
    const learnts = this.learnts;
    learnts.sort((a, b) => {
      const la = mem[a + 1]! >> LBD_SHIFT;
      const lb = mem[b + 1]! >> LBD_SHIFT;
      return la !== lb ? lb - la : mem[b]! - mem[a]!;
    });
    const target = learnts.length >> 1;
    let removed = 0;
    for (let i = 0; i < learnts.length && removed < target; i++) {
      const cr = learnts[i]!;
      if (mem[cr + 1]! >> LBD_SHIFT <= GLUE_LBD || this.locked(cr)) continue;
      mem[cr + 1] = mem[cr + 1]! | INFO_DELETED;
      this.wastedWords += 2 + mem[cr]!;
      removed++;
    }
    let j = 0;
    for (let i = 0; i < learnts.length; i++) {
      const cr = learnts[i]!;
      if ((mem[cr + 1]! & INFO_DELETED) === 0) learnts[j++] = cr;
    }
    learnts.length = j;
    this.stats.learnts = j;
    this.stats.reductions++;
    if (this.wastedWords * 2 > this.memLen) this.compact();
  }

  /**
   * Copies live clauses into a fresh arena, forwards reasons, and rebuilds all watch lists.
   * Why a full rewatch: clauses are always watched by their first two literals, so the rebuilt
   * lists hold exactly the live pairs; it costs one pass over the clauses, like MiniSat's cleanup.
   */
  private compact(): void {
    const old = this.mem;
    const oldLen = this.memLen;
    let liveWords = 0;
    for (let cr = 0; cr < oldLen; cr += 2 + old[cr]!) {
      // Defensive: a flagged clause that is somehow a reason survives (unflagged) as a learnt.
      if ((old[cr + 1]! & INFO_DELETED) !== 0 && this.locked(cr)) old[cr + 1] = old[cr + 1]! & ~INFO_DELETED;
      if ((old[cr + 1]! & INFO_DELETED) === 0) liveWords += 2 + old[cr]!;
    }
    const mem = new Int32Array(Math.max(1024, liveWords * 2));
    const learnts = this.learnts;
    learnts.length = 0;
    let w = 0;
    for (let cr = 0; cr < oldLen; ) {
      const size = old[cr]!;
      const info = old[cr + 1]!;
      const next = cr + 2 + size;
      if ((info & INFO_DELETED) === 0) {
        for (let k = cr; k < next; k++) mem[w + k - cr] = old[k]!;
        if ((info & INFO_LEARNT) !== 0) learnts.push(w);
        old[cr] = w; // forwarding address; the size was read above
        w += 2 + size;
      }
      cr = next;
    }
    for (let i = 0; i < this.trailLen; i++) {
      const v = this.trail[i]! >> 1;
      const r = this.reason[v]!;
      if (r !== NO_REASON) this.reason[v] = old[r]!; // reasons are locked, hence live
    }
    this.mem = mem;
    this.memLen = w;
    this.wastedWords = 0;
    this.stats.compactions++;
    for (const ws of this.watches) if (ws.length !== 0) ws.length = 0;
    for (let cr = 0; cr < w; cr += 2 + mem[cr]!) this.attach(cr);
    this.stats.learnts = learnts.length;
  }

  // ---------------------------------------------------------------- propagation

  /**
   * Unit propagation over the trail from `qhead`.
   * Pre: every clause has both watched literals non-false, or one true, or is unit/false only
   * because of literals at trail positions >= qhead.
   * Post: returns CONFLICT_NONE with qhead === trailLen and no clause unit or false; or returns
   * the offset of a clause whose literals are all false (qhead === trailLen, the rest of that
   * literal's watch list intact). Implied literals are enqueued with their clause as reason,
   * moved to position 0 of that clause.
   */
  private propagate(): number {
    const vals = this.vals;
    const trail = this.trail;
    const watches = this.watches;
    const level = this.level;
    const mem = this.mem; // propagation never allocates clauses, so the arena cannot move
    let confl = CONFLICT_NONE;
    while (this.qhead < this.trailLen) {
      const falseLit = trail[this.qhead++]! ^ 1;
      const ws = watches[falseLit]!;
      this.stats.propagations++;
      const n = ws.length;
      let i = 0;
      let j = 0;
      while (i < n) {
        const cr = ws[i]!;
        const blocker = ws[i + 1]!;
        i += 2;
        if (vals[blocker] === L_TRUE) {
          ws[j++] = cr;
          ws[j++] = blocker;
          continue;
        }
        if ((mem[cr + 1]! & INFO_DELETED) !== 0) continue; // lazily deleted: drop the watch
        const base = cr + 2;
        // Keep the false literal at position 1 so position 0 is the candidate unit.
        if (mem[base] === falseLit) {
          mem[base] = mem[base + 1]!;
          mem[base + 1] = falseLit;
        }
        const first = mem[base]!;
        if (first !== blocker && vals[first] === L_TRUE) {
          ws[j++] = cr;
          ws[j++] = first;
          continue;
        }
        const end = base + mem[cr]!;
        let moved = false;
        for (let k = base + 2; k < end; k++) {
          const l = mem[k]!;
          if (vals[l] !== L_FALSE) {
            mem[base + 1] = l;
            mem[k] = falseLit;
            watches[l]!.push(cr, first);
            moved = true;
            break;
          }
        }
        if (moved) continue;
        ws[j++] = cr;
        ws[j++] = first;
        if (vals[first] === L_FALSE) {
          confl = cr;
          this.qhead = this.trailLen;
          while (i < n) ws[j++] = ws[i++]!;
        } else {
          // Its level is that of the latest of the other (false) literals: below the current
          // level when chronological backtracking left lower-level literals high on the trail.
          let lvl = 0;
          for (let k = base + 1; k < end; k++) {
            const d = level[mem[k]! >> 1]!;
            if (d > lvl) lvl = d;
          }
          this.enqueue(first, cr, lvl);
        }
      }
      if (j !== n) ws.length = j;
      if (confl !== CONFLICT_NONE) break;
    }
    return confl;
  }

  /**
   * Unit propagation to a fixpoint, then the theory over the new trail literals in order.
   * Returns CONFLICT_NONE, a clause offset (all literals false), or CONFLICT_THEORY with the
   * clause in `theoryConflict`. The theory only reports conflicts (no implied literals), so
   * one round reaches the joint fixpoint.
   */
  private propagateAll(): number {
    const confl = this.propagate();
    if (confl !== CONFLICT_NONE) return confl;
    const theory = this.theory;
    if (theory === null) return CONFLICT_NONE;
    while (this.theoryHead < this.trailLen) {
      const lit = this.trail[this.theoryHead++]!;
      const clause = theory.onAssign(lit);
      if (clause !== null) {
        this.theoryConflict = clause;
        return CONFLICT_THEORY;
      }
    }
    return CONFLICT_NONE;
  }

  /** Highest decision level among the literals of arena clause cr (all assigned). */
  private clauseLevel(cr: number): number {
    const mem = this.mem;
    let maxLevel = 0;
    for (let k = cr + 2, end = cr + 2 + mem[cr]!; k < end; k++) {
      const d = this.level[mem[k]! >> 1]!;
      if (d > maxLevel) maxLevel = d;
    }
    return maxLevel;
  }

  /** Highest decision level among the theory's conflict literals (-1 if empty); checks they are false. */
  private theoryClauseLevel(lits: Lit[]): number {
    let maxLevel = -1;
    for (const l of lits) {
      this.checkLit(l);
      if (this.vals[l] !== L_FALSE) throw new Error(`theory conflict clause has literal ${l} that is not false`);
      const d = this.level[l >> 1]!;
      if (d > maxLevel) maxLevel = d;
    }
    return maxLevel;
  }

  // ---------------------------------------------------------------- analysis

  private bumpVar(v: number): void {
    const act = this.heap.activity;
    if ((act[v] = act[v]! + this.varInc) > ACTIVITY_LIMIT) {
      for (let u = 0; u < this.nVars; u++) act[u] = act[u]! / ACTIVITY_LIMIT;
      this.varInc /= ACTIVITY_LIMIT;
    }
    this.heap.increased(v);
  }

  /**
   * First-UIP conflict analysis.
   * Pre: the conflict (arena clause `confl`, or `theoryLits` when given) has every literal
   * false and at least one literal at the current decision level, which is > 0; `seen` is all 0.
   * Post: `this.learnt` is the minimized learnt clause: [0] is the negation of the first UIP
   * (the asserting literal), the others are false at lower levels with the highest of them at
   * [1]; returns that level (0 for a unit). `seen` is all 0 again. Involved variables are bumped.
   */
  /**
   * One literal of the conflict or of a reason: the first time its variable (above level 0) is
   * met it is bumped and marked `seen`; a literal below the current level `dl` goes into the
   * learnt clause. Returns 1 for a newly seen literal of the current level (one more to
   * resolve away before the UIP), else 0.
   */
  private visitConflictLit(q: Lit, dl: number): number {
    const v = q >> 1;
    const level = this.level;
    if (this.seen[v] !== 0 || !(level[v]! > 0)) return 0;
    this.bumpVar(v);
    this.seen[v] = 1;
    if (level[v]! >= dl) return 1;
    this.learnt.push(q);
    return 0;
  }

  private analyze(confl: number, theoryLits: Lit[] | null): number {
    const out = this.learnt;
    out.length = 1; // slot 0 is reserved for the asserting literal
    const seen = this.seen;
    const level = this.level;
    const reason = this.reason;
    const trail = this.trail;
    const dl = this.trailLim.length;
    const mem = this.mem;
    let pathC = 0;

    if (theoryLits !== null) {
      for (const q of theoryLits) pathC += this.visitConflictLit(q, dl);
    } else {
      this.touchClause(confl);
      const end = confl + 2 + mem[confl]!;
      for (let k = confl + 2; k < end; k++) pathC += this.visitConflictLit(mem[k]!, dl);
    }

    // Without a literal of the current level there is no UIP: the walk below would not stop.
    if (pathC === 0) throw new Error('analyze: conflict has no literal at the current decision level');
    let index = this.trailLen - 1;
    let p = -1;
    for (;;) {
      // Only current-level literals count; lower ones may sit above them under chronological BT.
      for (;;) {
        const v = trail[index]! >> 1;
        if (seen[v] !== 0 && level[v] === dl) break;
        index--;
      }
      p = trail[index--]!;
      const pv = p >> 1;
      seen[pv] = 0;
      if (--pathC === 0) break;
      // p is not the UIP, so it was implied at this level: resolve with its reason (skip [0] = p).
      const c = reason[pv]!;
      this.touchClause(c);
      const end = c + 2 + mem[c]!;
      for (let k = c + 3; k < end; k++) pathC += this.visitConflictLit(mem[k]!, dl);
    }
    out[0] = p ^ 1;

    // Minimization: drop literals implied by the others (MiniSat's recursive mode, iterative here).
    const toClear = this.toClear;
    toClear.length = 0;
    for (let i = 0; i < out.length; i++) toClear.push(out[i]!);
    let abstractLevels = 0;
    for (let i = 1; i < out.length; i++) abstractLevels |= 1 << (level[out[i]! >> 1]! & 31);
    let j = 1;
    for (let i = 1; i < out.length; i++) {
      const l = out[i]!;
      if (reason[l >> 1] === NO_REASON || !this.litRedundant(l, abstractLevels)) out[j++] = l;
    }
    out.length = j;

    let backtrackLevel = 0;
    if (out.length > 1) {
      let maxI = 1;
      for (let i = 2; i < out.length; i++) {
        if (level[out[i]! >> 1]! > level[out[maxI]! >> 1]!) maxI = i;
      }
      const t = out[1]!;
      out[1] = out[maxI]!;
      out[maxI] = t;
      backtrackLevel = level[out[1]! >> 1]!;
    }
    for (let i = 0; i < toClear.length; i++) seen[toClear[i]! >> 1] = 0;
    return backtrackLevel;
  }

  /**
   * True if false literal p (with a reason) is implied by literals marked `seen`, following
   * reasons through levels in `abstractLevels`. Marks what it proves redundant (recorded in
   * toClear); on failure unmarks what this call marked.
   */
  private litRedundant(p: Lit, abstractLevels: number): boolean {
    const stack = this.analyzeStack;
    const toClear = this.toClear;
    const seen = this.seen;
    const level = this.level;
    const reason = this.reason;
    const mem = this.mem;
    stack.length = 0;
    stack.push(p);
    const top = toClear.length;
    while (stack.length > 0) {
      const c = reason[stack.pop()! >> 1]!;
      const end = c + 2 + mem[c]!;
      for (let k = c + 3; k < end; k++) {
        const l = mem[k]!;
        const v = l >> 1;
        if (seen[v] !== 0 || level[v] === 0) continue;
        if (reason[v] !== NO_REASON && ((1 << (level[v]! & 31)) & abstractLevels) !== 0) {
          seen[v] = 1;
          stack.push(l);
          toClear.push(l);
        } else {
          for (let t = top; t < toClear.length; t++) seen[toClear[t]! >> 1] = 0;
          toClear.length = top;
          return false;
        }
      }
    }
    return true;
  }
}
