/**
 * Checking a history with predicate reads, inserts and deletes (issue 22; docs/levels.md,
 * "Predicates").
 *
 * Takes: a History with relations and CheckOptions. Gives: a CheckResult about that history
 * (its op ids), decided by the key-value pipeline on lowered histories
 * (validate/predicate-lower.ts), after a linear try of the recorded times as a serial or
 * snapshot execution (check/serial-order.ts, check/snapshot-order.ts, check/window-serial.ts:
 * valid only), in three steps:
 * 1. **necessary**: the history with every undecided observation (a row a predicate read did not
 *    return, whose non-matching version it saw is not determined) left out. Leaving reads out
 *    only removes dependencies, so a violation found here is one of the history itself. For
 *    repeatable read (PL-2.99), which allows cycles through predicate anti-dependencies,
 *    every observation is left out (mode 'item-only').
 * 2. **witness**: when step 1 is valid and some observation was left out, each is given the
 *    version a serial order (SER's witness of step 1, else an order of session order and
 *    write-read) puts last before its reader, among those it may have seen, and the resulting
 *    history is checked whole (for RR, by `rrWitness`: no cycle through an item
 *    anti-dependency, none of write-read and write-write edges alone). A valid answer there
 *    proves the history valid (a predicate read saw *some* version of every row: these are
 *    some).
 * 3. **search**: a complete search over the choices: with the version order in the SAT solver
 *    at the polygraph levels (check/choice-search.ts), by refinement at RR (check/rr-search.ts),
 *    over the versions alone with saturation checking each pick at the weak levels
 *    (check/weak-search.ts). Past its bounds the verdict is `unknown`, never a guess.
 * Invariant: 'violation' only from step 1, the lowering's own anomalies or an unsat search (with
 * certified cycles), 'valid' only from a recorded order, a witness or a search's model; the
 * anomalies' `op` are the input's ops.
 */

import type { History } from '../history/model.ts';
import { INITIAL_VALUE, OP_COUNT, OP_SELECT, TXN_COMMITTED, txnLabel } from '../history/model.ts';
import { matches } from '../history/predicate.ts';
import { constrainedInserts, insertOverPresent, lowerPredicates, rowVersions, VersionsByOrder, type Choice, type Lowered, type RowVersions } from '../validate/predicate-lower.ts';
import { rowKey, rowValue } from '../history/predicate-table.ts';
import type { Scalar } from '../history/predicate.ts';
import { validate } from '../validate/validate.ts';
import { INIT_TXN, type CheckOptions, type CheckResult, type Level, type NonCycleAnomaly } from '../result/types.ts';
import { explainNonCycle } from '../explain/index.ts';
import { isSaturationLevel } from '../levels/index.ts';
import { rrWitness } from './rr-predicates.ts';
import { serialOrderBreaks, serialOrderResult } from './serial-order.ts';
import { snapshotOrderResult, snapshotWindows } from './snapshot-order.ts';
import { windowSerialResult } from './window-serial.ts';
import { implies } from '../result/lattice.ts';
import { namePhantom, predicateReads } from '../explain/phantom.ts';
import { ownMatches } from './predicate-search.ts';
import { searchChoices, searchesLevel } from './choice-search.ts';
import { searchRr } from './rr-search.ts';
import type { ChoiceSink } from './index.ts';
import { searchWeak } from './weak-search.ts';

/** The levels at which an insert's implicit read of the absent row is exactly its precondition (lowerPredicates). */
const IMPLICIT_READS: ReadonlySet<Level> = new Set<Level>(['ser', 'strict-ser', 'si', 'strict-si', 'psi', 'rr', 'pl-3', 'pl-si']);

type CheckFn = (h: History, opts: CheckOptions, parseMs?: number) => CheckResult;
type WitnessFn = (h: History, opts: CheckOptions) => { result: CheckResult; position: Int32Array | null };
type WithChoicesFn = (h: History, opts: CheckOptions, sink: ChoiceSink) => CheckResult;

/**
 * `check` is checkHistory, `withWitness` checkWithWitness and `withChoices` checkWithChoices
 * (passed in: check/index.ts imports this module).
 */
export function checkPredicateHistory(
  h: History, opts: CheckOptions, parseMs: number, check: CheckFn, withWitness: WitnessFn, withChoices: WithChoicesFn,
): CheckResult {
  // The recorded completion order, when it is a serial execution, proves every level in linear
  // time (check/serial-order.ts), snapshot windows at the recorded times strict SI and below
  // (check/snapshot-order.ts), and an order of the windows' dependencies that is a serial
  // execution SER and below (check/window-serial.ts); otherwise the steps below decide.
  const serial = serialOrderResult(h, opts, parseMs) ?? snapshotOrderResult(h, opts, parseMs) ??
    (implies('strict-si', opts.level) ? null : windowSerialResult(h, opts, parseMs));
  if (serial !== null) return serial;
  const rr = opts.level === 'rr';
  // Inserts whose precondition some version order breaks: read-modify-writes at the levels where
  // that is exact (IMPLICIT_READS), and a witness must show an order that keeps it.
  const inserts = constrainedInserts(h);
  const implicit = inserts.size > 0 && IMPLICIT_READS.has(opts.level) ? inserts : null;
  const nec = lowerPredicates(h, rr ? 'item-only' : 'necessary', undefined, implicit);
  // Counts only aborted or intermediate versions explain: read uncommitted allows them (G1a, G1b).
  if (opts.level !== 'ru' && opts.level !== 'pl-1') nec.anomalies.push(...nec.dirtyCounts);
  const first = check(nec.history, opts, parseMs);
  const result = inInput(h, nec, first, opts);
  if (result.verdict !== 'valid' || (nec.leftOut === 0 && inserts.size === 0)) return result;
  // Step 1's notes ("decided by SI, which implies PL-SI: the history satisfies it") speak of the
  // lowered history without the undecided rows; the verdict from here on is about the input, and
  // carries its own note (the witness's, or the reason it is unknown).
  delete result.notes;
  const rows = rowVersions(h, h.predicates!, nec.tombstoneOf);

  const serLevel: Level = opts.level === 'strict-si' || opts.level === 'strict-ser' ? 'strict-ser' : 'ser';
  // Orders to pick versions from, as (writer position, reader position): a candidate c is before
  // reader t when writer[c] < reader[t]. Recorded times first (a version committed before the
  // reader began: what a snapshot holds), then SER's witness of step 1, the level's own, then
  // causal order.
  const same = (p: Int32Array | null): Order | null => (p === null ? null : { writer: p, reader: p });
  const sources: (() => Order | null)[] = [
    ...(h.txnStart !== undefined && h.txnEnd !== undefined ? [() => timeOrder(h)] : []),
    () => same(withWitness(nec.history, { ...opts, level: serLevel, explain: false }).position),
    // The level's own witness where it is decided on the polygraph and is not SER (RR, PL-3 and
    // PL-SI may order a session's txns against session order, SI may not be serializable).
    ...(isSaturationLevel(opts.level) || opts.level === serLevel ? [] : [() => same(withWitness(nec.history, { ...opts, explain: false }).position)]),
    () => same(causalPosition(nec.history)),
  ];
  // The level whose witness shows a version order keeping the inserts' precondition: the level
  // itself where the implicit reads hold it; else SER, which implies the level.
  const orderLevel: Level | null = inserts.size === 0 ? null : IMPLICIT_READS.has(opts.level) ? opts.level : serLevel;
  const tried: string[] = [];
  for (const source of sources) {
    const order = source();
    if (order === null) { tried.push('no order'); continue; }
    const position = order.writer;
    // A total order (SER's witness of step 1, the causal one) may be a serial execution of the
    // whole history: linear to check, and it proves every level (check/serial-order.ts).
    if (order.writer === order.reader && serialOrderBreaks(h, position, serLevel === 'strict-ser') === null) {
      return withNote(result, `the witness order of step 1 is a serial execution of the history, which satisfies every level (docs/levels.md, "Predicates")`);
    }
    const picked = pickVersions(h, nec, order, inserts.size > 0 ? inserts : null);
    if (picked === null) { tried.push('a count the picked versions contradict'); continue; }
    if (rr) {
      const why = rrWitness(picked.history, picked.predicate, position) ?? insertWhy(h, rows, inserts, position);
      if (why === null) return withNote(result, witnessNote(nec.leftOut));
      tried.push(why);
      continue;
    }
    if (orderLevel === null) {
      const full = check(picked.history, { ...opts, explain: false });
      if (full.verdict === 'valid') return withNote({ ...result, timesMs: sumTimes(result, full) }, witnessNote(nec.leftOut));
      tried.push(full.verdict === 'violation' ? 'the versions picked close a cycle' : full.unknownReason ?? 'a limit');
      continue;
    }
    const w = withWitness(picked.history, { ...opts, level: orderLevel, explain: false });
    const why = w.position === null
      ? (w.result.verdict === 'violation' ? `the versions picked close a cycle at ${orderLevel}` : w.result.unknownReason ?? 'a limit')
      : insertWhy(h, rows, inserts, w.position);
    if (why === null) return withNote({ ...result, timesMs: sumTimes(result, w.result) }, witnessNote(nec.leftOut));
    tried.push(why);
  }
  if (isSaturationLevel(opts.level)) return searchWeak(h, opts, opts.level, nec, rows, inserts, result, { check, inInput });
  // Step 3: a complete search over the choices, where the level is decided by one acyclicity.
  if (rr) return searchRr(h, opts, nec, rows, implicit, result, { check, withChoices, inInput });
  if (searchesLevel(opts.level)) {
    const direct = implicit === null && inserts.size > 0 ? inserts : null;
    // A valid check of a lowering speaks of that lowering, not the input (as step 1's notes above):
    // the search's results built on one (an encoding it cannot make) do not carry its notes.
    const checkLowered: CheckFn = (lh, lo, pm) => { const r = check(lh, lo, pm); if (r.verdict === 'valid') delete r.notes; return r; };
    const searched = searchChoices(h, opts, nec, rows, implicit, direct, { check: checkLowered, withChoices, inInput });
    searched.timesMs = sumTimes(result, searched);
    return searched;
  }
  result.verdict = 'unknown';
  result.decidedBy = 'limit';
  result.anomalySearchComplete = false;
  result.unknownReason = (nec.leftOut === 0 ? 'inserts whose rows other transactions also write must each follow an absent version; ' : rr
    ? `${nec.leftOut} rows that predicate reads did not return were left out (repeatable read allows cycles through predicate anti-dependencies); `
    : `${nec.leftOut} rows that predicate reads did not return may have been seen in more than one version; `) +
    `no violation rests on the rest, and no choice of those versions tried proves the history satisfies ${opts.level} ` +
    `(${tried.join('; ')}), and no search over those choices is defined for this level (docs/levels.md, "Predicates")`;
  return result;
}

/** Why the version order `position` gives breaks an insert's precondition, or null if it keeps them all. */
function insertWhy(h: History, rows: RowVersions, inserts: Map<number, number[]>, position: Int32Array): string | null {
  const bad = insertOverPresent(h, rows, inserts, position);
  return bad === null ? null : `the order found puts ${txnLabel(h, bad.txn)}'s insert of row ${h.keyLabels[bad.key]} after a present version`;
}

function witnessNote(n: number): string {
  return `${n} rows that predicate reads did not return were each given a version they may have seen, and the history with them satisfies the level (docs/levels.md, "Predicates")`;
}

function withNote(r: CheckResult, note: string): CheckResult {
  (r.notes ??= []).push(note);
  return r;
}

function sumTimes(a: CheckResult, b: CheckResult): CheckResult['timesMs'] {
  const t = { ...a.timesMs };
  t.validate += b.timesMs.validate; t.construct += b.timesMs.construct; t.prune += b.timesMs.prune; t.solve += b.timesMs.solve;
  return t;
}

/**
 * The lowered history's result as one about the input: counts of the input, anomalies' ops
 * mapped back, and the lowering's own anomalies (predicate-mismatch, duplicate-insert, INT
 * against the txn's own write) first, which make the verdict a violation whatever the rest said.
 */
function inInput(h: History, low: Lowered, r: CheckResult, opts: CheckOptions): CheckResult {
  r.counts = { ...r.counts, operations: h.opCount };
  for (const a of r.anomalies) if (a.type === 'non-cycle' && a.op >= 0) a.op = low.origin[a.op]!;
  if (low.anomalies.length > 0) withOwnAnomalies(low, r, opts);
  if (r.anomalies.some((a) => a.explanation !== undefined)) {
    const pred = predicateReads(low);
    for (const a of r.anomalies) if (a.explanation !== undefined) a.explanation = namePhantom(a.explanation, h, low, pred);
  }
  return r;
}

/**
 * The lowering's own anomalies first; they make the verdict a violation. Only those of txns that
 * take part in the check count (committed ones, and unknown-outcome ones a committed one read
 * from: validation's `included`); an aborted txn's, or an unread unknown one's, say nothing.
 */
function withOwnAnomalies(low: Lowered, r: CheckResult, opts: CheckOptions): void {
  const h = low.history;
  const included = low.anomalies.every((a) => h.txnStatus[a.txn] === TXN_COMMITTED) ? null : validate(h).included;
  const counted = included === null ? low.anomalies : low.anomalies.filter((a) => included[a.txn] === 1);
  if (counted.length === 0) return;
  const own: NonCycleAnomaly[] = counted.map((a) => opts.explain === true
    ? { ...a, explanation: explainNonCycle({ history: low.history } as Parameters<typeof explainNonCycle>[0], { ...a, op: -1 }, opts.level) }
    : a);
  if (r.verdict === 'unknown') {
    (r.notes ??= []).push(`the search for cycles stopped (${r.unknownReason ?? 'a limit was hit'}): the non-cycle anomalies stand, and cycles may be missing`);
    delete r.unknownReason;
    r.anomalySearchComplete = false;
  }
  r.anomalies = [...own, ...(r.verdict === 'violation' ? r.anomalies : [])];
  r.verdict = 'violation';
  r.decidedBy = 'validation';
}

/**
 * The lowered history with every choice read from the version `position` puts last before its
 * reader among those of its class (the initial version counts as first); null when a count's
 * rows so picked do not add up to it.
 */
function pickVersions(h: History, nec: Lowered, order: Order, inserts: Map<number, number[]> | null): Lowered | null {
  const position = order.writer;
  const pt = h.predicates!;
  const rows = rowVersions(h, pt, nec.tombstoneOf);
  const byOrder = new VersionsByOrder(rows, position);
  const keyOf = (k: number): Scalar => rowKey(h, k);
  const valueOf = (v: number): Scalar | null => (v >= h.valueCount ? null : rowValue(h, v));
  // Per count op with n > 0: rows picked matching so far.
  const counted = new Map<number, number>();
  const pick = (_: number, c: Choice): number => {
    const p = h.opKind[c.op] === OP_SELECT || h.opKind[c.op] === OP_COUNT ? pt.parsed[h.opValue[c.op]!]! : null;
    const i = byOrder.lastBefore(c.key, order.reader[c.txn]!, (i) => {
      if (rows.txn[i] === c.txn) return false;
      const s = valueOf(rows.value[i]!);
      return c.want === 'any' || s === null || (c.want === 'nomatch' && !matches(p!, keyOf(c.key), s));
    });
    const best = i < 0 ? INITIAL_VALUE : rows.value[i]!;
    if (c.count >= 0 && p !== null && matches(p, keyOf(c.key), valueOf(best))) counted.set(c.op, (counted.get(c.op) ?? 0) + 1);
    return best;
  };
  const picked = lowerPredicates(h, 'picked', pick, inserts);
  for (const c of picked.choices) {
    if (c.count < 0 || counted.get(c.op) === -1) continue;
    const own = ownMatches(h, c.op);
    if ((counted.get(c.op) ?? 0) + own !== pt.count[c.count]) return null;
    counted.set(c.op, -1); // checked
  }
  return picked;
}

/** Where versions and readers stand in an order (see checkPredicateHistory's sources). */
interface Order { writer: Int32Array; reader: Int32Array }

/**
 * The recorded times as an order: writer[t] = t's rank by completion (txns without times last;
 * ties keep txn order), reader[t] = the rank just past the last txn of t's snapshot, so that
 * writer[c] < reader[t] iff c is in it. A committed txn's snapshot is the prefix of the
 * completion order the window search found (check/snapshot-order.ts: taken between its
 * invocation and its commit, the least position its reads allow; where it found none, the last
 * position it tried); any other txn's, or every txn's when the search cannot run, is the txns
 * that completed before it was invoked.
 */
function timeOrder(h: History): Order | null {
  const n = h.txnCount, start = h.txnStart!, end = h.txnEnd!;
  const endOf = (t: number) => (Number.isNaN(end[t]!) ? Number.POSITIVE_INFINITY : end[t]!);
  const byEnd = Array.from({ length: n }, (_, t) => t).sort((a, b) => endOf(a) - endOf(b) || a - b);
  const writer = new Int32Array(n), reader = new Int32Array(n);
  byEnd.forEach((t, i) => { writer[t] = i; });
  const ends = byEnd.map(endOf);
  for (let t = 0; t < n; t++) {
    const s = Number.isNaN(start[t]!) ? Number.POSITIVE_INFINITY : start[t]!;
    let lo = 0, hi = n;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (ends[mid]! < s) lo = mid + 1; else hi = mid; }
    reader[t] = lo;
  }
  const w = snapshotWindows(h);
  if (typeof w !== 'string') {
    for (const t of w.order) { const p = w.snap[t]!; reader[t] = p === 0 ? 0 : writer[w.order[p - 1]!]! + 1; }
  }
  return { writer, reader };
}

/**
 * Positions in a topological order of session order and write-read (Kahn), for a history that is
 * not serializable: the versions a reader saw are then picked among those causally before it.
 * Null when that graph is cyclic.
 */
function causalPosition(h: History): Int32Array | null {
  const v = validate(h);
  const n = h.txnCount;
  const outStart = new Int32Array(n + 1), indeg = new Int32Array(n);
  const from: number[] = [], to: number[] = [];
  for (let s = 0; s < h.sessionCount; s++) {
    for (let t = h.sessionTxnStart[s]! + 1; t < h.sessionTxnStart[s + 1]!; t++) { from.push(t - 1); to.push(t); }
  }
  for (let i = 0; i < v.reads.count; i++) {
    const w = v.reads.writer[i]!;
    if (w !== INIT_TXN && w !== v.reads.txn[i]) { from.push(w); to.push(v.reads.txn[i]!); }
  }
  for (const f of from) outStart[f + 1]!++;
  for (let t = 0; t < n; t++) outStart[t + 1]! += outStart[t]!;
  const fill = outStart.slice(0, n), adj = new Int32Array(from.length);
  for (let i = 0; i < from.length; i++) { adj[fill[from[i]!]!++] = to[i]!; indeg[to[i]!]!++; }
  const order: number[] = [];
  for (let t = 0; t < n; t++) if (indeg[t] === 0) order.push(t);
  for (let i = 0; i < order.length; i++) {
    const u = order[i]!;
    for (let e = outStart[u]!; e < outStart[u + 1]!; e++) if (--indeg[adj[e]!]! === 0) order.push(adj[e]!);
  }
  if (order.length !== n) return null;
  const position = new Int32Array(n);
  order.forEach((t, i) => { position[t] = i; });
  return position;
}
