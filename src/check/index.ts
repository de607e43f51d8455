/**
 * The checker's entry point: History -> verdict (PolySI, Algorithm 2).
 *
 * Takes: a History and CheckOptions. Gives: a CheckResult (data; the CLI renders it).
 * Stages: validate (non-cycle anomalies) -> build polygraph (known graph + coalesced
 * constraints) -> prune to a fixpoint -> SAT with acyclicity -> verdict.
 * Invariant: 'violation' always comes with at least one anomaly whose evidence is in the
 * result; 'unknown' always comes with `unknownReason`; `decidedBy` names the stage that settled
 * the verdict. Throws InputError only for unsupported input (non-unique written values), and
 * RangeError for a malformed option.
 */

import { TXN_ABORTED, TXN_UNKNOWN, type History } from '../history/model.ts';
import { ANOMALIES_MAX_DEFAULT, validate, type Validated } from '../validate/validate.ts';
import { buildPolygraph, countConstraints, CONSTRAINT_EDGES_MAX, CONSTRAINTS_MAX, type Polygraph } from '../graph/polygraph.ts';
import { TimeLimitError } from '../util/deadline.ts';
import { MemoryBudget, MemoryLimitError, STAGE_BYTES } from '../util/memory.ts';
import { KIND_NAMES } from '../graph/edges.ts';
import { buildSplitGraph, topoOrder, usesRealTime, type SplitGraph } from '../graph/split.ts';
import {
  CONTRACT_MIN_TXNS, pruneConstraints, PRUNE_STOP_AT_ACTIVE, PRUNE_STOP_AT_MIN_CONSTRAINTS, PRUNE_STOP_BELOW_FRACTION, type PruneProvenance,
} from '../prune/prune.ts';
import { REACH_CELLS_MAX, type ReachTable } from '../prune/reach.ts';
import { solveConstraints, witnessCycle, chosenEdges, type ChosenEdges, type ExtraEncoding } from '../solve/solve.ts';
import {
  EXPLAIN_TIMEOUT_MS_DEFAULT, explainCycles, explainNonCycle, knownDep, MAX_ANOMALIES_DEFAULT, unsatCycle, type Dep,
} from '../explain/index.ts';
import {
  LEVEL_NAMES, LEVEL_TITLES, type Anomaly, type CheckOptions, type CheckResult, type ProgressEvent, type CycleAnomaly, type Level, type LevelName, type NonCycleAnomaly, type StageTimesMs,
} from '../result/types.ts';
import { validResultOf } from '../result/valid.ts';
import { checkSaturationLevel, type SaturationLevel } from '../levels/index.ts';
import { explainSaturation } from '../explain/saturated.ts';
import { now } from '../util/clock.ts';
import { checkPredicateHistory } from './predicates.ts';

export * from '../result/types.ts';

/**
 * The levels checkHistory decides, one entry per member of `Level`: a level added to that union
 * is a compile error here until it is listed, so `IMPLEMENTED_LEVELS` (what the CLI's --level
 * and --levels, and the public API, accept) never lags behind the dispatch.
 */
const DECIDED: Record<Level, true> = {
  'pl-1': true, 'ru': true, 'pl-2': true, 'mav': true, 'rc': true, 'ss-rc': true, 'ra': true, 'tcc': true, 'pc': true, 'psi': true, 'rr': true,
  'pl-si': true, 'si': true, 'pl-3': true, 'ser': true, 'strict-si': true, 'strict-ser': true,
};

/** The levels of the ladder (LEVEL_NAMES, weakest first) that checkHistory decides today. */
export const IMPLEMENTED_LEVELS: readonly Level[] = LEVEL_NAMES.filter((l): l is Level => Object.hasOwn(DECIDED, l));

/** True when checkHistory decides `level` (a LevelName or any string from a user). */
export function isImplementedLevel(level: unknown): level is Level {
  return typeof level === 'string' && Object.hasOwn(DECIDED, level) && (LEVEL_NAMES as readonly string[]).includes(level);
}

/** Why a level of the ladder cannot be checked yet ('' when it can). */
export function notImplementedReason(level: LevelName): string {
  return isImplementedLevel(level) ? '' : `checking ${level} is not implemented yet (implemented: ${IMPLEMENTED_LEVELS.join(', ')})`;
}

/** Safety net on pruning rounds; each round is linear, and real histories need a handful. */
export const PRUNE_ROUNDS_MAX = 1000;

/**
 * Decides `opts.level` for `h`. Each level is a definition plugged into one pipeline: the
 * NP-complete ones (PC, PSI, RR, SI, SER and the strict variants) go through the polygraph,
 * differing only in the known edges they add (RT for the strict ones) and in the composition
 * whose acyclicity they require (graph/split.ts; PSI also checks RW edges one by one).
 * Every stage runs under one deadline (the earlier of `opts.deadlineMs` and now +
 * `opts.timeoutMs`): past it the verdict is 'unknown' with `unknownReason` naming the stage.
 */
export function checkHistory(h: History, opts: CheckOptions, parseMs = 0): CheckResult {
  // A level this pipeline does not decide must never fall through to another level's check.
  if (!isImplementedLevel(opts.level)) throw new RangeError(`level must be one of ${IMPLEMENTED_LEVELS.join(', ')}, got ${String(opts.level)}`);
  // Predicate reads, inserts and deletes: decided on key-value histories they are lowered to.
  if (h.predicates !== undefined) return checkPredicateHistory(h, opts, parseMs, checkHistory, checkWithWitness, checkWithChoices);
  const strong = STRONG_SESSION_FIRST[opts.level];
  if (strong !== undefined) return checkStrongSessionFirst(h, opts, strong, parseMs);
  return checkLevel(h, opts, parseMs);
}

/**
 * The polygraph levels without session order, and the strong-session level tried first for each:
 * RR (PL-2.99) and PL-3 forbid a subset of SER's cycles (their graph is SER's without session
 * order), PL-SI a subset of SI's, so a history that satisfies the strong-session level satisfies
 * them.
 */
const STRONG_SESSION_FIRST: Partial<Record<Level, 'ser' | 'si'>> = { 'rr': 'ser', 'pl-3': 'ser', 'pl-si': 'si' };

/**
 * The strong-session level is tried first because session order makes its pruning and solving
 * far stronger (measured on fig8: RR alone 7 s to over 60 s, SER under 4 s). Only when it fails
 * is the level's own graph checked, with the time left.
 */
function checkStrongSessionFirst(h: History, opts: CheckOptions, strong: 'ser' | 'si', parseMs: number): CheckResult {
  const t0 = Date.now();
  const first = checkLevel(h, { ...opts, level: strong, explain: false }, parseMs);
  if (first.verdict === 'valid') {
    const note = `decided by ${LEVEL_TITLES[strong]} (strong session), which implies ${LEVEL_TITLES[opts.level]}: the history satisfies it`;
    return { ...first, level: opts.level, notes: [...(first.notes ?? []), note] };
  }
  if (cyclesAbsent(first)) {
    // The strong-session level holds but for its non-cycle anomalies (which the level forbids too): its own, far slower,
    // graph has no cycle either. Validation again, for RR's explanations of those anomalies.
    return checkNonCycleOnly(h, opts, parseMs);
  }
  const left = opts.timeoutMs === undefined ? {} : { timeoutMs: Math.max(0, opts.timeoutMs - (Date.now() - t0)) };
  return checkLevel(h, { ...opts, ...left }, parseMs);
}

/**
 * Results whose level's cycle search ran to its end on the rest of the history (past the
 * non-cycle anomalies) and found no cycle: every weaker level's search would find none either
 * (the lattice), so `checkNonCycleOnly` may stand for it. Kept off the public result type.
 */
const CYCLES_ABSENT = new WeakSet<CheckResult>();

/** True when `r` is a violation by non-cycle anomalies alone, its level's cycle search having found no cycle on the rest. */
export function cyclesAbsent(r: CheckResult): boolean {
  return CYCLES_ABSENT.has(r);
}

/**
 * `opts.level` decided from validation alone, for a history on which a stronger level found no cycle past its non-cycle anomalies (`cyclesAbsent`): the same verdict as checkHistory,
 * without a cycle search that can only come back empty (a large history with an aborted read
 * would otherwise pay for one at every level of the ladder).
 */
export function checkNonCycleOnly(h: History, opts: CheckOptions, parseMs: number): CheckResult {
  // A predicate history is decided on its lowerings (check/predicates.ts), never here directly.
  if (h.predicates !== undefined) return checkHistory(h, opts, parseMs);
  // No note: the ladder would print one per level; docs/checking.md says why this is exact.
  return checkLevel(h, opts, parseMs, true);
}

/**
 * `opts.level` (a polygraph level) decided on its own graph, with, when valid, a witness: the
 * position of each transaction in a topological order of the chosen graph's `.d` nodes (for SER,
 * a serial order). Internal: the predicate check (check/predicates.ts) picks the versions its
 * undecided predicate reads observed from it.
 */
export function checkWithWitness(h: History, opts: CheckOptions): { result: CheckResult; position: Int32Array | null } {
  const witness: WitnessSink = { position: null };
  const result = checkLevel(h, opts, 0, false, witness);
  return { result, position: result.verdict === 'valid' ? witness.position : null };
}

/** Where polygraphStages leaves a valid verdict's witness order (checkWithWitness). */
interface WitnessSink { position: Int32Array | null }

/**
 * The caller's own variables, clauses and conditional edges over the polygraph of `h` (a
 * predicate history's choices: check/predicate-search.ts), solved with its constraints.
 * `encode` gets the polygraph after pruning, which txns take part (validation's `included`),
 * and `fixedSide(c)` for a constraint pruning decided (0 either, 1 or; -1 while active).
 */
export interface ChoiceSink {
  encode(pg: Polygraph, included: Uint8Array, fixedSide: (c: number) => number): ExtraEncoding;
  /** Set by the check: 'sat' with the extra variables' values, 'unsat', or null (decided before the search: a cycle, a limit). */
  outcome: { result: 'sat'; extraModel: Uint8Array } | { result: 'unsat' } | null;
}

/**
 * `opts.level` (a polygraph level but PSI) decided on `h` plus the caller's encoding (ChoiceSink).
 * Internal: check/predicates.ts's search over the predicate reads' choices. A violation decided
 * before the search (validation, a cycle among known edges) is `h`'s own; after it the result's
 * verdict is 'valid' ('sat') or 'violation' with no anomaly ('unsat': the caller gives its own
 * certified counterexample), `decidedBy` 'choice-search'.
 */
export function checkWithChoices(h: History, opts: CheckOptions, sink: ChoiceSink): CheckResult {
  return checkLevel(h, opts, 0, false, null, sink);
}

function checkLevel(h: History, opts: CheckOptions, parseMs: number, skipCycles = false, witness: WitnessSink | null = null, choices: ChoiceSink | null = null): CheckResult {
  if (opts.pruneRoundsMax !== undefined && !(Number.isInteger(opts.pruneRoundsMax) && opts.pruneRoundsMax >= 0)) {
    throw new RangeError(`pruneRoundsMax must be a non-negative integer, got ${opts.pruneRoundsMax}`);
  }
  const deadlineMs = Math.min(
    opts.deadlineMs ?? Number.POSITIVE_INFINITY,
    opts.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + opts.timeoutMs,
  );
  const times: StageTimesMs = { parse: parseMs, validate: 0, construct: 0, prune: 0, solve: 0 };
  const result = emptyResult(h, opts, times);
  const found: NonCycleFound = { shown: [], notShown: 0, complete: true };
  try {
    return withNonCycle(runStages(h, opts, deadlineMs, result, found, skipCycles, witness, choices), found);
  } catch (err) {
    if (err instanceof TimeLimitError || err instanceof MemoryLimitError) return withNonCycle(unknown(result, err.message), found);
    throw err;
  }
}

/** The non-cycle anomalies the level forbids, as validation found (and explained) them. */
interface NonCycleFound {
  shown: NonCycleAnomaly[];
  notShown: number;
  complete: boolean;
}

/**
 * A non-cycle anomaly does not stop the search (issue 23): the level's cycles are looked for
 * on the rest of the history (validation leaves the anomalous reads out of its read table), and
 * the result reports both. The verdict is a violation whatever the cycle search said; when that
 * search hit a limit, the verdict stands and a note says cycles may be missing.
 */
function withNonCycle(result: CheckResult, found: NonCycleFound): CheckResult {
  if (found.shown.length === 0) return result;
  const cycles = result.verdict === 'violation' ? result.anomalies : [];
  if (result.verdict === 'valid') CYCLES_ABSENT.add(result);
  if (result.verdict === 'unknown') {
    (result.notes ??= []).push(`the search for cycles stopped (${result.unknownReason ?? 'a limit was hit'}): ` +
      'the non-cycle anomalies stand, and cycles may be missing');
    delete result.unknownReason;
    result.anomalySearchComplete = false;
  } else if (result.verdict === 'valid') {
    result.anomalySearchComplete = true;
  }
  result.verdict = 'violation';
  result.decidedBy = 'validation';
  result.anomalies = [...found.shown, ...cycles];
  result.anomaliesNotShown += found.notShown;
  result.anomalySearchComplete &&= found.complete;
  result.truncated ||= found.notShown > 0;
  return result;
}

/**
 * At most `max` of the anomalies, but at least one of each class (name): a bound on the count
 * never hides a class (issue 23). Order kept within the picks: each class's first, then the rest.
 */
export function onePerClassFirst(anomalies: readonly NonCycleAnomaly[], max: number): NonCycleAnomaly[] {
  const classes = new Set<string>();
  const first: NonCycleAnomaly[] = [], rest: NonCycleAnomaly[] = [];
  for (const a of anomalies) {
    if (classes.has(a.name)) rest.push(a); else { classes.add(a.name); first.push(a); }
  }
  return [...first, ...rest.slice(0, Math.max(0, max - first.length))];
}

function emptyResult(h: History, opts: CheckOptions, times: StageTimesMs): CheckResult {
  return validResultOf(h, opts, 'pruning', 0, times);
}

/**
 * The validated history, held so that the polygraph stages can let it go: past construction it
 * is needed only to explain a violation, and at scale it is large (10^6 txns: 113 MB of read and
 * write tables, resident while pruning reaches its peak). `dropAfterConstruct` is set for
 * histories of at least VALIDATED_DROP_OPS operations; `get()` validates again when it was dropped
 * (deterministic: the same Validated), which only a violation's explanation asks for.
 */
export class HeldValidation {
  constructor(private v: Validated | null, private readonly input: History, readonly dropAfterConstruct: boolean) {}
  get(): Validated {
    return this.v ??= validate(this.input);
  }
  drop(): void {
    if (this.dropAfterConstruct) this.v = null;
  }
}

/** Histories with at least this many operations drop their Validated while pruning and solving. */
const VALIDATED_DROP_OPS = 1 << 20;

function runStages(
  h: History, opts: CheckOptions, deadlineMs: number, result: CheckResult, found: NonCycleFound, skipCycles: boolean, witness: WitnessSink | null,
  choices: ChoiceSink | null,
): CheckResult {
  const progress = opts.onProgress ?? (() => {});
  // Before each stage: the resident set plus what the stage will allocate must fit the budget.
  const budget = opts.maxMemoryMb === undefined ? null : new MemoryBudget(opts.maxMemoryMb);
  // Validation's own frame is gone when it returns: only `held` keeps the Validated alive.
  const held = validationStages(h, opts, deadlineMs, result, budget, progress, found, skipCycles && opts.level !== 'ru');
  return held === null ? result : polygraphStages(h, opts, deadlineMs, result, budget, progress, held, witness, choices);
}

/**
 * Validation (its non-cycle anomalies into `found`), and the levels decided by saturation; null
 * when `result` is final, else the validated history for the polygraph stages.
 */
function validationStages(
  h: History, opts: CheckOptions, deadlineMs: number, result: CheckResult, budget: MemoryBudget | null, progress: (p: ProgressEvent) => void,
  found: NonCycleFound, skipCycles: boolean,
): HeldValidation | null {
  const t0 = now();
  const times = result.timesMs;
  budget?.reserve('parse', 0);
  budget?.reserve('validate', STAGE_BYTES.validate(h.opCount, h.txnCount));
  progress({ stage: 'validate' });
  // Read uncommitted allows aborted and intermediate reads (Adya's PL-1 proscribes only G0), so
  // a txn of unknown outcome may as well have aborted even when read: the most permissive choice.
  const readUncommitted = opts.level === 'ru' || opts.level === 'pl-1';
  const input = readUncommitted ? unknownAsAborted(h) : h;
  const v = validate(input, undefined, deadlineMs);
  if (readUncommitted) v.anomalies = v.anomalies.filter((a) => !RU_ALLOWS.has(a.name));
  result.counts.checkedTransactions = v.includedCount;
  const vacuous = nothingCheckedNote(result.counts);
  if (vacuous !== null) (result.notes ??= []).push(vacuous);
  times.validate = now() - t0;
  if (v.anomalies.length > 0) {
    found.shown = v.anomalies;
    if (opts.explain === true) {
      const t = now();
      // Validation already bounds these (and they cost nothing to explain): only an explicit
      // maxAnomalies cuts the list further, keeping one of each class.
      found.shown = onePerClassFirst(v.anomalies, opts.maxAnomalies ?? v.anomalies.length)
        .map((a) => ({ ...a, explanation: explainNonCycle(v, a, opts.level) }));
      // Validation stops collecting at its own bound: past it, the count is only a lower bound.
      found.notShown = v.anomalies.length - found.shown.length;
      found.complete = v.anomalies.length < ANOMALIES_MAX_DEFAULT;
      times.explain = now() - t;
    }
    // The level's cycles are still looked for (below), on the reads validation could resolve.
  }
  if (skipCycles && found.shown.length > 0) return null;

  switch (opts.level) {
    case 'pl-1': case 'ru': case 'pl-2': case 'mav': case 'rc': case 'ss-rc': case 'ra': case 'tcc':
      checkSaturated(result, v, opts, opts.level);
      return null;
    case 'pc': case 'psi': case 'rr': case 'pl-si': case 'si': case 'pl-3': case 'ser': case 'strict-si': case 'strict-ser':
      return new HeldValidation(v, input, h.opCount >= VALIDATED_DROP_OPS);
  }
}

/** Construction, pruning and solving: the levels decided on the polygraph. */
function polygraphStages(
  h: History, opts: CheckOptions, deadlineMs: number, result: CheckResult, budget: MemoryBudget | null, progress: (p: ProgressEvent) => void,
  held: HeldValidation, witness: WitnessSink | null, choices: ChoiceSink | null = null,
): CheckResult {
  const times = result.timesMs;
  let t1 = now();
  progress({ stage: 'construct' });
  // Constraints are quadratic in the writers of one key: count them before building any.
  const count = countConstraints(held.get());
  result.constraints.before = count.pairs;
  const consMax = opts.constraintsMax ?? CONSTRAINTS_MAX;
  const edgesMax = opts.constraintEdgesMax ?? CONSTRAINT_EDGES_MAX;
  if (count.pairs > consMax || count.edges > edgesMax) {
    times.construct = now() - t1;
    const hot = count.hotKey < 0 ? '' : `; the hottest key, ${h.keyLabels[count.hotKey]}, has ${count.hotWriters} writers ` +
      `(${count.hotPairs} pairs)`;
    return unknown(result, count.pairs > consMax
      ? `the polygraph would have ${count.pairs} constraints, more than constraintsMax (${consMax})${hot}`
      : `the polygraph would have ${count.edges} constraint edges, more than constraintEdgesMax (${edgesMax})${hot}`);
  }
  budget?.reserve('construct', STAGE_BYTES.construct(count.pairs, count.edges, h.txnCount));
  const pg = buildPolygraph(held.get(), deadlineMs,
    opts.onProgress === undefined ? undefined : (keysDone, keysTotal) => progress({ stage: 'construct', keysDone, keysTotal }),
    usesRealTime(opts.level));
  held.drop();
  result.constraints.before = pg.consCount;
  result.constraints.after = pg.consCount;
  let t2 = now();
  times.construct = t2 - t1;

  let active: Uint8Array = new Uint8Array(pg.consCount).fill(1);
  let knownOrder: Int32Array | null = null;
  let reach: ReachTable | null = null;
  let knownGraph: SplitGraph | null = null;
  let provenance: PruneProvenance | null = null;
  if (opts.pruning) {
    progress({ stage: 'prune', round: 0, constraintsLeft: pg.consCount });
    let reachCellsMax = opts.reachCellsMax;
    if (budget !== null) {
      const base = STAGE_BYTES.prune(pg.known.length, pg.ceFrom.length, pg.consCount, h.txnCount);
      budget.reserve('prune', base + 2 * h.txnCount * STAGE_BYTES.reachCell);
      // The reachability table takes at most half of what is left: past that, pruning tracks
      // fewer chains (weaker, never unsound; reach.ts) rather than running out of memory.
      const cells = Math.floor((budget.leftBytes() - base) / 2 / STAGE_BYTES.reachCell);
      reachCellsMax = Math.max(1, Math.min(reachCellsMax ?? REACH_CELLS_MAX, cells));
    }
    const p = pruneConstraints(h, pg, {
      level: opts.level, roundsMax: opts.pruneRoundsMax ?? PRUNE_ROUNDS_MAX, deadlineMs, stopBelowFraction: PRUNE_STOP_BELOW_FRACTION,
      stopAtActive: pg.consCount >= PRUNE_STOP_AT_MIN_CONSTRAINTS ? PRUNE_STOP_AT_ACTIVE : 0, contractMinTxns: CONTRACT_MIN_TXNS,
      onRound: (round, left) => progress({ stage: 'prune', round, constraintsLeft: left }),
      ...(reachCellsMax === undefined ? {} : { reachCellsMax }),
    });
    if (p.note !== null) (result.notes ??= []).push(p.note);
    active = p.active;
    knownOrder = p.order;
    reach = p.reach;
    knownGraph = p.graph;
    provenance = p.provenance;
    result.constraints.after = p.activeCount;
    result.constraints.pruneRounds = p.rounds;
    t1 = now();
    times.prune = t1 - t2;
    if (p.cyclic) {
      result.verdict = 'violation';
      const { anomaly, cycle } = cycleFromKnown(pg, active, opts.level);
      result.anomalies = [anomaly];
      result.anomalySearchComplete = false;
      if (opts.explain === true) {
        explainInto(result, opts, deadlineMs, { pg, level: opts.level, provenance, active, validated: held.get() }, Array.from(cycle, (i) => knownDep(pg, i)));
      }
      return result;
    }
    if (p.timedOut) return unknown(result, 'the time limit was reached while pruning');
    // Pruning returns with nothing left only after a topological sort of the final known graph
    // succeeded: that graph is a witness that the history satisfies the level.
    if (p.activeCount === 0 && choices === null) {
      if (witness !== null) witness.position = witnessPosition(pg, active, null, opts.level);
      return result;
    }
    t2 = t1;
  }

  if (budget !== null) {
    let activeEdges = 0;
    for (let c = 0; c < pg.consCount; c++) if (active[c] === 1) activeEdges += pg.edgeStart[2 * c + 2]! - pg.edgeStart[2 * c]!;
    budget.reserve('solve', STAGE_BYTES.solve(pg.known.length, activeEdges, result.constraints.after, h.txnCount));
  }
  progress({ stage: 'solve', constraintsLeft: result.constraints.after });
  if (choices !== null) return solveWithChoices(pg, active, provenance, held, opts, deadlineMs, result, choices, t2);
  const s = solveConstraints(pg, active, { level: opts.level, deadlineMs, knownOrder, reach, knownGraph, ...(opts.conflictsMax === undefined ? {} : { conflictsMax: opts.conflictsMax }) });
  times.solve = now() - t2;
  result.solver = s.stats;
  if (s.result === 'unknown') return unknown(result, 'the solver reached its time or conflict limit');
  result.decidedBy = s.result === 'sat' ? 'solver-sat' : 'solver-unsat';
  if (s.result === 'sat' && witness !== null) witness.position = witnessPosition(pg, active, s.choice ?? null, opts.level);
  if (s.result === 'unsat') {
    result.verdict = 'violation';
    result.anomalies = [toCycleAnomaly(s.edges!, s.cycle!)];
    result.anomalySearchComplete = false;
    if (opts.explain === true) {
      explainInto(result, opts, deadlineMs, { pg, level: opts.level, provenance, active, validated: held.get() }, unsatCycle(pg, active, s, opts.level));
    }
  }
  return result;
}

/**
 * The solve stage with the caller's encoding (checkWithChoices): on the whole known graph (built
 * and sorted by the solve stage itself: no contraction, no shortcut), the constraints pruning
 * left and the caller's variables together.
 */
function solveWithChoices(
  pg: Polygraph, active: Uint8Array, provenance: PruneProvenance | null, held: HeldValidation, opts: CheckOptions, deadlineMs: number,
  result: CheckResult, choices: ChoiceSink, t0: number,
): CheckResult {
  // A constraint pruning decided: its side is the one without the edge that closed a cycle.
  const fixedSide = (c: number): number => {
    if (active[c] === 1) return -1;
    const b = provenance === null ? -1 : provenance.blockingCe[c]!;
    if (b < 0) throw new Error('internal error: a constraint decided without a reason');
    return b < pg.edgeStart[2 * c + 1]! ? 1 : 0;
  };
  const extra = choices.encode(pg, held.get().included, fixedSide);
  const s = solveConstraints(pg, active, { level: opts.level, deadlineMs, extra, contract: false, phaseShortcut: false, ...(opts.conflictsMax === undefined ? {} : { conflictsMax: opts.conflictsMax }) });
  result.timesMs.solve = now() - t0;
  result.solver = s.stats;
  if (s.result === 'unknown') return unknown(result, 'the solver reached its time or conflict limit in the search over the predicate reads\' choices');
  result.decidedBy = 'choice-search';
  if (s.result === 'sat') {
    choices.outcome = { result: 'sat', extraModel: s.extraModel! };
  } else {
    choices.outcome = { result: 'unsat' };
    result.verdict = 'violation';
    result.anomalySearchComplete = false;
  }
  return result;
}

/**
 * Each txn's position in a topological order of the split graph of the known edges plus the
 * sides `choice` picks (choice[c] = 0: either), read at its `.d` node (`.n` for PC), so that
 * every key's version order (WW) follows the positions; null if that graph is
 * cyclic (it never is for a model; a bug then only costs the caller its witness).
 */
function witnessPosition(pg: Polygraph, active: Uint8Array, choice: Uint8Array | null, level: Level): Int32Array | null {
  // The layer whose order follows WW at this level (split.ts: WW is d->d and n->d, or for PC d->n and n->n).
  const layer = level === 'pc' ? 1 : 0;
  const varOf = Int32Array.from({ length: pg.consCount }, (_, c) => c);
  const edges = chosenEdges(pg, choice === null ? new Uint8Array(pg.consCount) : active, varOf, (c) => choice === null || choice[c] === 0);
  const order = topoOrder(buildSplitGraph(pg.nodeCount, edges.from.length, edges.from, edges.to, edges.kind, level, false));
  if (order === null) return null;
  const position = new Int32Array(pg.nodeCount);
  for (let i = 0; i < order.length; i++) if ((order[i]! & 1) === layer) position[order[i]! >> 1] = i;
  return position;
}

function unknownAsAborted(h: History): History {
  const txnStatus = h.txnStatus.map((s) => (s === TXN_UNKNOWN ? TXN_ABORTED : s));
  return { ...h, txnStatus };
}

const RU_ALLOWS: ReadonlySet<NonCycleAnomaly['name']> = new Set(['G1a', 'G1b']);

/**
 * The levels decided in polynomial time (src/levels/): the saturated commit-order graph is built
 * and searched for a cycle in the 'construct' stage time; no constraints, no solver.
 */
function checkSaturated(result: CheckResult, v: ReturnType<typeof validate>, opts: CheckOptions, level: SaturationLevel): CheckResult {
  opts.onProgress?.({ stage: 'construct' });
  const t0 = now();
  const out = checkSaturationLevel(v, level);
  result.timesMs.construct = now() - t0;
  result.decidedBy = 'saturation';
  if (out.verdict === 'unknown') return unknown(result, out.unknownReason ?? 'a limit was hit');
  if (out.verdict === 'valid') return result;
  result.verdict = 'violation';
  // Saturation finds one violation; further distinct ones are not searched for.
  result.anomalySearchComplete = false;
  if (opts.explain === true) opts.onProgress?.({ stage: 'explain' });
  const t = now();
  // Built even when not asked for: its cycle is the anomaly's, and its certificate guards the verdict.
  const cx = explainSaturation(v, out);
  const cycle = cx.cycle!.edges.map((id) => cx.edges[id]!).map((e) => ({ from: e.from, to: e.to, kind: e.kind, key: e.key }));
  if (cx.certificate.status === 'failed') {
    // Never report a violation whose evidence did not survive the independent check.
    (result.notes ??= []).push(`internal error: a counterexample failed its independent check and is not reported (${cx.class}: ${cx.certificate.reason})`);
    return unknown(result, 'internal error: the counterexample failed its independent check (see notes)');
  }
  result.anomalies = [{ type: 'cycle', edges: cycle, ...(opts.explain === true ? { explanation: cx } : {}) }];
  if (opts.explain === true) result.timesMs.explain = now() - t;
  return result;
}

/**
 * The note for a history in which no transaction takes part: its verdict is 'valid', but
 * vacuously, which a user must not mistake for a clean run (an empty pipe once hid a bug this
 * way). Null when something was checked. The CLI also prints it on stderr as a warning.
 */
export function nothingCheckedNote(counts: CheckResult['counts']): string | null {
  if (counts.checkedTransactions > 0) return null;
  if (counts.transactions === 0) return 'the history has no transactions, so nothing was checked (an empty file or pipe?)';
  return `none of the ${counts.transactions} transactions takes part in the check (none committed, and no ` +
    'unknown-outcome one was read by a committed one), so nothing was checked';
}

/** Replaces the single cycle anomaly by the explained ones (the first starts from the same cycle). */
function explainInto(result: CheckResult, opts: CheckOptions, deadlineMs: number, inp: Parameters<typeof explainCycles>[0], cycle: Dep[]): void {
  opts.onProgress?.({ stage: 'explain' });
  const t = now();
  const maxAnomalies = Math.max(1, opts.maxAnomalies ?? MAX_ANOMALIES_DEFAULT);
  const found = explainCycles(inp, cycle, {
    maxAnomalies,
    // The overall deadline bounds explaining too; cut short, the violation stands (it is proved)
    // and the first counterexample is reported as found (see explainCycles).
    deadlineMs: Math.min(deadlineMs, Date.now() + (opts.explainTimeoutMs ?? EXPLAIN_TIMEOUT_MS_DEFAULT)),
    ...(opts.explainMoreMs === undefined ? {} : { moreDeadlineMs: Date.now() + opts.explainMoreMs }),
    neighbours: opts.neighbours === true,
  });
  result.timesMs.explain = now() - t;
  if (found.failures.length > 0) {
    (result.notes ??= []).push(...found.failures.map((f) => `internal error: a counterexample failed its independent check and is not reported (${f})`));
  }
  if (found.shown.length === 0 && found.failures.length > 0) {
    // Never report a violation whose evidence did not survive the independent check.
    result.anomalies = [];
    unknown(result, 'internal error: every counterexample failed its independent check (see notes)');
    return;
  }
  result.anomalies = found.shown.map((f): CycleAnomaly => ({
    type: 'cycle',
    edges: f.cycle.map((d) => ({ from: d.from, to: d.to, kind: KIND_NAMES[d.kind]!, key: d.key })),
    explanation: f.explanation,
  }));
  result.anomaliesNotShown = found.notShown;
  result.anomalySearchComplete = found.complete;
  // A search stopped by a bound before it ran out of violations may have missed some: say so,
  // whether the bound was the count, the time limit or the budget for more (explainMoreMs).
  result.truncated = found.notShown > 0 || !found.complete;
  if (Date.now() > deadlineMs) {
    (result.notes ??= []).push('the time limit was reached while explaining: the violation stands; counterexamples are as found so far');
  }
}

function unknown(result: CheckResult, reason: string): CheckResult {
  result.verdict = 'unknown';
  result.decidedBy = 'limit';
  result.anomalySearchComplete = false;
  result.unknownReason = reason;
  return result;
}

function cycleFromKnown(pg: Polygraph, active: Uint8Array, level: CheckOptions['level']): { anomaly: Anomaly; cycle: Int32Array } {
  // Only known edges: active constraints contribute nothing (choose() is never asked for them),
  // so the cycle's indices are indices into pg.known.
  const none = new Uint8Array(active.length);
  const edges = chosenEdges(pg, none, new Int32Array(active.length), () => true);
  const cycle = witnessCycle(pg.nodeCount, edges, level);
  if (cycle === null) throw new Error('internal error: pruning reported a cycle that is not there');
  return { anomaly: toCycleAnomaly(edges, cycle), cycle };
}

function toCycleAnomaly(edges: ChosenEdges, cycle: Int32Array): CycleAnomaly {
  return {
    type: 'cycle',
    edges: Array.from(cycle, (i) => ({ from: edges.from[i]!, to: edges.to[i]!, kind: KIND_NAMES[edges.kind[i]!]!, key: edges.key[i]! })),
  };
}
