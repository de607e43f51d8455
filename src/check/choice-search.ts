/**
 * Step 3 of the predicate check (docs/levels.md, "Predicates", "How it is decided"): a complete
 * search over the predicate reads' choices, and a counterexample when there is no good choice.
 *
 * Takes: a predicate History, its necessary lowering (choices left out; valid at the level, or
 * step 1 would have decided), the rows' versions, and the check functions. Gives: a CheckResult
 * about the input. The levels searched here are those decided on the polygraph (`searchesLevel`);
 * RR has its own search by refinement (check/rr-search.ts), the levels decided by saturation
 * theirs over the versions alone (check/weak-search.ts).
 * - 'sat': valid; a note says how many choices the search decided.
 * - 'unsat': violation, `decidedBy` 'choice-search'. The counterexample is certified by the usual
 *   pipeline on lowerings with one choice fixed: for the first choice (fewest candidates first)
 *   whose every candidate, alone added to the necessary lowering, closes a cycle, one certified
 *   cycle per candidate (together they prove the violation: the read saw one of them). When no
 *   single choice does, the cycle of one concrete choice of every version is reported, and a note
 *   says plainly that it alone is not the proof (the SAT search is).
 * Invariant: never 'valid' without a model the solve stage checked, never a violation without
 * at least one certified cycle; an 'unsat' over an incomplete encoding (a candidate of a txn
 * that takes no part was dropped) is 'unknown'.
 */

import type { History } from '../history/model.ts';
import { OP_COUNT, OP_INSERT, OP_SELECT, txnLabel } from '../history/model.ts';
import type { Choice } from '../validate/predicate-lower.ts';
import { lowerPredicates, type Lowered, type RowVersions } from '../validate/predicate-lower.ts';
import type { CheckOptions, CheckResult, Level } from '../result/types.ts';
import type { ChoiceSink } from './index.ts';
import { choiceEncoding, emptyInfo, EncodingGap, type ChoiceEncodingInfo } from './predicate-search.ts';

/** The levels whose choices are searched here: those decided on the polygraph (not RR: PL-2.99 allows some cycles, by the kind of their anti-dependencies; check/rr-search.ts searches it by refinement). */
const SEARCHED: ReadonlySet<Level> = new Set<Level>(['pc', 'psi', 'pl-si', 'si', 'pl-3', 'ser', 'strict-si', 'strict-ser']);

/** Choices tried alone for a counterexample at most (each costs one check per candidate). */
const COUNTEREXAMPLE_CHOICES_MAX = 64;

type CheckFn = (h: History, opts: CheckOptions, parseMs?: number) => CheckResult;
type InInput = (h: History, low: Lowered, r: CheckResult, opts: CheckOptions) => CheckResult;
/** check/index.ts's checkWithChoices (passed in: check/index.ts imports the predicate check). */
type WithChoicesFn = (h: History, opts: CheckOptions, sink: ChoiceSink) => CheckResult;

/** The check functions step 3 runs: the whole check, the check with the choices' encoding, and the mapping of a lowered result back to the input. */
export interface SearchFns { check: CheckFn; withChoices: WithChoicesFn; inInput: InInput }

/**
 * Conflicts the search may take when the caller set no time limit. Measured on bench/predicates.ts
 * without times (TIMES=0) at SER: 100 txns x 100 rows decided in 1.1 k conflicts, 200 in 4.8 k,
 * 300 in 17.6 k (54 s on the shared machine); a 4,000-txn `--workload predicate --shapes mixed` run
 * on memory:snapshot at SI spends about 2.5 ms a conflict (1 M variables).
 */
export const CHOICE_CONFLICTS_DEFAULT = 5_000;

/** Whether step 3 searches `level`. */
export function searchesLevel(level: Level): boolean {
  return SEARCHED.has(level);
}

/**
 * `implicit`: the inserts given an implicit read of the absent version in `nec` (lowerPredicates),
 * passed again to every lowering here; `direct`: constrained inserts without one (PC), whose
 * precondition the encoding states itself.
 */
export function searchChoices(
  h: History, opts: CheckOptions, nec: Lowered, rows: RowVersions, implicit: Map<number, number[]> | null, direct: Map<number, number[]> | null,
  fns: SearchFns,
): CheckResult {
  const { check, inInput } = fns;
  const info = emptyInfo();
  const solved = solveChoices(h, opts, nec, fns, (pg, included, fixedSide) => choiceEncoding(h, nec.choices, rows, pg, included, fixedSide, info, direct));
  if (!('sink' in solved)) return solved;
  const { r, sink, deadlineMs, unbounded } = solved;
  if (sink.outcome === null) {
    // Decided before the search: a limit (step 1 found no violation).
    if (unbounded && r.verdict === 'unknown') {
      r.unknownReason = `${r.unknownReason ?? 'a limit'} (${CHOICE_CONFLICTS_DEFAULT.toLocaleString('en')} conflicts, the default without a time limit: give one, e.g. --timeout 600, to search longer)`;
    }
    return inInput(h, nec, r, opts);
  }
  if (sink.outcome.result === 'sat') {
    (r.notes ??= []).push(`a search over ${info.searched} choices (rows that predicate reads did not return, each possibly seen in several versions) ` +
      `found a version of each and a version order under which the history satisfies ${opts.level} (docs/levels.md, "Predicates")`);
    return r;
  }
  if (info.incomplete) {
    return unknownResult(r, 'every choice of versions the search considered closes a cycle, but some versions of unknown-outcome transactions ' +
      'that no committed one read were not among the candidates');
  }
  return counterexample(h, opts, deadlineMs, nec, implicit, direct, info, r, check, inInput);
}

/**
 * What a choice is, for a note: a select's row it did not return (one of n non-matching
 * versions), a count's row, a read of an absent row, or an insert's precondition (the row absent
 * just before it: the initial version or a delete).
 */
export function choiceSaw(h: History, c: Choice, n: number): string {
  const t = txnLabel(h, c.txn), k = h.keyLabels[c.key];
  switch (h.opKind[c.op]) {
    case OP_SELECT: return `${t}'s predicate read did not return row ${k}, so it saw one of ${n} versions of it that do not match`;
    case OP_COUNT: return `${t}'s count saw one of ${n} versions of row ${k}`;
    case OP_INSERT: return `${t}'s insert of row ${k} needs the row absent just before it: after one of ${n} versions in which it is absent (the initial one or a delete)`;
    default: return `${t} read row ${k} absent, so it saw one of ${n} versions in which it is absent`;
  }
}

/**
 * One solve of `nec` with a choice encoding (`encode`), bounded as step 3's searches are: by the
 * caller's deadline, else by CHOICE_CONFLICTS_DEFAULT conflicts (then `unknown`, saying so: the
 * search's size grows with readers x candidates x writers per row, and a check that was asked for
 * no deadline should still answer in minutes, not hours). Gives the result (level and counts of
 * the input) with the sink the solve stage filled, or an `unknown` result when the encoding
 * cannot be made (EncodingGap).
 */
export function solveChoices(
  h: History, opts: CheckOptions, nec: Lowered, fns: SearchFns, encode: ChoiceSink['encode'],
): { r: CheckResult; sink: ChoiceSink; deadlineMs: number; unbounded: boolean } | CheckResult {
  const deadlineMs = Math.min(opts.deadlineMs ?? Number.POSITIVE_INFINITY, opts.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + opts.timeoutMs);
  const unbounded = deadlineMs === Number.POSITIVE_INFINITY && opts.conflictsMax === undefined;
  const o: CheckOptions = { ...opts, explain: false, deadlineMs, ...(unbounded ? { conflictsMax: CHOICE_CONFLICTS_DEFAULT } : {}) };
  delete o.timeoutMs;
  const sink: ChoiceSink = { encode, outcome: null };
  let r: CheckResult;
  try {
    r = fns.withChoices(nec.history, o, sink);
  } catch (err) {
    if (!(err instanceof EncodingGap)) throw err;
    return unknownResult(fns.inInput(h, nec, fns.check(nec.history, o), opts), `the search over the predicate reads' choices could not be encoded (${err.message})`);
  }
  r.level = opts.level;
  r.counts = { ...r.counts, operations: h.opCount };
  return { r, sink, deadlineMs, unbounded };
}

/** The violation found by the search, with its certified counterexample (see the module header). */
function counterexample(
  h: History, opts: CheckOptions, deadlineMs: number, nec: Lowered, implicit: Map<number, number[]> | null, direct: Map<number, number[]> | null,
  info: ChoiceEncodingInfo, r: CheckResult, check: CheckFn, inInput: InInput,
): CheckResult {
  const o: CheckOptions = { ...opts, explain: opts.explain === true, deadlineMs };
  delete o.timeoutMs;
  const order = info.candidates.map((_, i) => i).filter((i) => info.candidates[i]!.length > 0).sort((a, b) => info.candidates[a]!.length - info.candidates[b]!.length);
  for (const i of order.slice(0, COUNTEREXAMPLE_CHOICES_MAX)) {
    if (Date.now() >= deadlineMs) break;
    const found: CheckResult[] = [];
    for (const cand of info.candidates[i]!) {
      const low = lowerPredicates(h, 'picked', (j) => (j === i ? cand.value : -1), implicit);
      const one = check(low.history, o);
      if (one.verdict !== 'violation' || one.anomalies.length === 0) break;
      found.push(inInput(h, low, one, opts));
    }
    if (found.length !== info.candidates[i]!.length) continue;
    const c = nec.choices[i]!;
    r.verdict = 'violation';
    r.anomalies = found.map((f) => f.anomalies[0]!);
    r.anomalySearchComplete = false;
    (r.notes ??= []).push(`${choiceSaw(h, c, found.length)}; each closes a cycle (one certified counterexample per version, in order: ` +
      `${info.candidates[i]!.map((x) => (x.txn < 0 ? 'the initial version' : `${txnLabel(h, x.txn)}'s`)).join(', ')}). ` +
      `The search over ${info.searched} choices found no version of each that satisfies ${opts.level}`);
    return r;
  }
  // No single choice carries the proof: one concrete choice's cycle, marked as such (a count's
  // rows get matching versions until the count is reached, so that the choice is a consistent one).
  const low = lowerPredicates(h, 'picked', concretePick(nec, info), implicit);
  const one = check(low.history, o);
  if (one.verdict === 'violation' && one.anomalies.length > 0) {
    const mapped = inInput(h, low, one, opts);
    r.verdict = 'violation';
    r.anomalies = mapped.anomalies;
    r.anomalySearchComplete = false;
    (r.notes ??= []).push(`the search over ${info.searched} choices (rows that predicate reads did not return, each possibly seen in several versions) ` +
      `found that every choice of versions closes a cycle, but no one read's choice alone does: the counterexample shown is certified for ONE ` +
      `choice (each such read given its first candidate version); that every other choice fails too is the SAT search's proof, not certified independently`);
    return r;
  }
  const why = one.verdict === 'unknown' ? one.unknownReason ?? 'a limit'
    : direct !== null ? 'the violation may rest on an insert\'s precondition (the row absent just before it), which the search encodes at this level but a cycle of the lowered history cannot show'
    : 'the concrete choice tried closes no cycle';
  return unknownResult(r, `the search over the predicate reads' choices found no good choice, but no certified counterexample was found (${why})`);
}

/**
 * One choice of every searched observation: its first candidate (the initial version), except
 * for a count's rows, which take a matching candidate while the count (less the txn's own
 * matching rows) is not reached, and a non-matching one after.
 */
export function concretePick(nec: Lowered, info: ChoiceEncodingInfo): (j: number) => number {
  const need = new Map<number, number>();
  for (const [op, want] of info.countWant) need.set(op, want);
  return (j: number): number => {
    const cands = info.candidates[j] ?? [];
    if (cands.length === 0) return -1;
    const m = info.matching[j];
    if (m === null || m === undefined) return cands[0]!.value;
    const op = nec.choices[j]!.op, left = need.get(op) ?? 0;
    const at = m.indexOf(left > 0);
    const pick = at >= 0 ? at : 0;
    if (m[pick] === true) need.set(op, left - 1);
    return cands[pick]!.value;
  };
}

export function unknownResult(r: CheckResult, reason: string): CheckResult {
  r.verdict = 'unknown';
  r.decidedBy = 'limit';
  r.anomalies = [];
  r.anomalySearchComplete = false;
  r.unknownReason = reason;
  return r;
}
