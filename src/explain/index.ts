/**
 * The explain stage: from a violation to counterexamples people can check (PolySI §5.3 and
 * Appendices C and E; Elle §6).
 *
 * Takes: the checker's state at the violation (`ExplainInput`) and the witness cycle it found, or
 * the non-cycle anomalies of validation. Gives: one `Counterexample` per distinct violation, at
 * most `maxAnomalies` of them:
 *   Restore  (restore.ts)  the witness cycle grows into a scenario that violates on its own,
 *                          bringing back what pruning decided and why;
 *   minimize (minimize.ts) no dependency can be removed without losing the violation;
 *   Resolve  (argue.ts)    the argument: certain edges, forced sides, the final contradiction;
 *   name     (name.ts)     the anomaly's class and description from the cycles it considers.
 * Only runs on a violation and only when asked: the valid path never reaches this module.
 * Further violations: the dependencies of the counterexamples found so far are taken out of the
 * polygraph and the rest is checked again (recheck.ts), so each one is distinct from the others.
 */

import { TXN_COMMITTED, type History } from '../history/model.ts';
import { INIT_TXN, type EdgeKind, type NonCycleAnomaly } from '../result/types.ts';
import { KIND_NAMES, K_RW, K_WR, K_WW } from '../graph/edges.ts';
import type { Validated } from '../validate/validate.ts';
import type { Polygraph } from '../graph/polygraph.ts';
import { argue, type ArgStep } from './argue.ts';
import { certify } from './certify.ts';
import { FactIndex, namingFacts, txnFacts } from './facts.ts';
import { findLostUpdatePairs, lostUpdateScenario } from './lost-update.ts';
import { minimizeScenario } from './minimize.ts';
import { cycleClass, nameCycles, NON_CYCLE_DESCRIPTIONS, type NameEdge } from './name.ts';
import { ceDep, Restorer, type CheckState } from './restore.ts';
import { recheck, type Recheck } from './recheck.ts';
import { solveScenario, type Dep } from './scenario.ts';
import { summarize } from './summary.ts';
import type { Counterexample, CxConstraint, CxContextEdge, CxCycle, CxEdge, CxStep, CxTxn, Side } from '../result/counterexample.ts';

export * from '../result/counterexample.ts';
export type { Dep } from './scenario.ts';
export { certify, CERTIFY_CONSTRAINTS_MAX, CERTIFY_TXNS_MAX } from './certify.ts';
export { knownDep, ceDep, unsatCycle, type CheckState } from './restore.ts';

export const MAX_ANOMALIES_DEFAULT = 10;
/** Wall-clock budget of the whole explanation; past it, counterexamples are reported as found so far. */
export const EXPLAIN_TIMEOUT_MS_DEFAULT = 30_000;

export interface ExplainOptions {
  maxAnomalies: number;
  /** Absolute deadline (Date.now() scale). */
  deadlineMs: number;
  /**
   * Absolute deadline (Date.now() scale) for looking beyond the first counterexample, which is
   * always explained in full: past it the search for more stops (and is not `complete`).
   */
  moreDeadlineMs?: number;
  /** Add the session neighbours of the counterexample's transactions (for drawing). */
  neighbours?: boolean;
}

export interface ExplainInput extends CheckState {
  validated: Validated;
}

export interface ExplainedCycle {
  /** The witness cycle this explanation started from (for `CycleAnomaly.edges`). */
  cycle: Dep[];
  explanation: Counterexample;
}

export interface ExplainedCycles {
  /** At most `maxAnomalies` explained violations, each certified (or uncertified, never failed). */
  shown: ExplainedCycle[];
  /** Further distinct violations found but not shown (a lower bound unless `complete`). */
  notShown: number;
  /** The search ran until no violation was left (not stopped by a count, try or time bound). */
  complete: boolean;
  /** Counterexamples that failed their certificate (internal errors; never reported as violations). */
  failures: string[];
}

/**
 * Explains `first`, then looks for further violations, each distinct from all before it: the
 * dependencies of every counterexample found so far are removed from the polygraph and the rest
 * is checked again (pruning, then the solver). Whatever violation the smaller polygraph still has
 * is a violation of the history too (fewer edges only remove cycles).
 * At most `maxAnomalies` are kept; the search goes on, counting only, until
 * `max(maxAnomalies + 1, MAX_ANOMALIES_DEFAULT)` are found, so that a cut list says how many more
 * there are (or at least that there are more). Every counterexample is certified (certify.ts)
 * before it counts; one that fails is an internal error, reported in `failures` and dropped.
 */
export function explainCycles(inp: ExplainInput, first: readonly Dep[], opts: ExplainOptions): ExplainedCycles {
  const facts = new FactIndex(inp.validated);
  const out: ExplainedCycle[] = [];
  const failures: string[] = [];
  const countMax = Math.max(opts.maxAnomalies + 1, MAX_ANOMALIES_DEFAULT);
  let found = 0, complete = false;
  const seen = new Set<string>();
  const removedKnown = new Set<number>(), removedCe = new Set<number>();
  let current: Recheck = { state: inp, cycle: [...first], knownMap: null, ceMap: null };
  if (inp.provenance === null) {
    // The check ran without pruning: prune now, so that forced edges come with their reasons.
    const pruned = recheck(inp, removedKnown, removedCe, opts.deadlineMs);
    if (pruned !== null && pruned !== 'stopped') current = pruned;
  }
  for (let tries = 0; ; tries++) {
    const { cx, deps } = explainOne(current.state, facts, current.cycle, opts);
    cx.certificate = certify(inp.validated.history, cx);
    // The same write orders (or, without any, the same transactions) make the same story twice:
    // e.g. two readers that both miss one write of their session. Report it once.
    const sig = cx.constraints.length > 0
      ? `c:${cx.constraints.map((c) => `${c.a}-${c.b}`).sort().join(',')}`
      : `t:${cx.txns.filter((t) => t.role === 'core').map((t) => t.txn).join(',')}`;
    if (cx.certificate.status === 'failed') failures.push(`${cx.class}: ${cx.certificate.reason}`);
    else if (!seen.has(sig)) {
      seen.add(sig);
      found++;
      if (out.length < opts.maxAnomalies) out.push({ cycle: current.cycle, explanation: cx });
    }
    const now = Date.now();
    if (found >= countMax || tries >= 3 * countMax || now > opts.deadlineMs || now >= (opts.moreDeadlineMs ?? Infinity)) break;
    for (const d of deps) {
      if (d.cons < 0) removedKnown.add(current.knownMap === null ? d.ref : current.knownMap[d.ref]!);
      else removedCe.add(current.ceMap === null ? d.ref : current.ceMap[d.ref]!);
    }
    // Rechecking is the cost of each further anomaly: it too stops at the budget for more.
    const nextDeadline = Math.min(opts.deadlineMs, opts.moreDeadlineMs ?? Infinity);
    const next = recheck(inp, removedKnown, removedCe, nextDeadline);
    if (next === null) { complete = true; break; }
    if (next === 'stopped') break;
    current = next;
  }
  // One lost update, when the history has one and none was found: it comes first, beyond
  // maxAnomalies if need be (a bound on the count never hides a class, as for non-cycle anomalies).
  if (!out.some((c) => c.explanation.class === 'lost update')) {
    const lu = explainLostUpdate(inp, facts, opts, failures);
    if (lu !== null) { out.unshift(lu); found++; }
  }
  return { shown: out, notShown: Math.max(0, found - out.length), complete, failures };
}

/** Pairs tried before giving up on naming a lost update (each is a few small solves). */
export const LOST_UPDATE_TRIES_MAX = 16;

/**
 * A counterexample named lost update, from the first candidate pair (lost-update.ts) whose
 * scenario violates the level on its own; null if none does (e.g. PC, which allows lost
 * updates) or the deadline passed. Certified like every other; a failure is an internal error.
 */
function explainLostUpdate(inp: ExplainInput, facts: FactIndex, opts: ExplainOptions, failures: string[]): ExplainedCycle | null {
  for (const p of findLostUpdatePairs(inp.validated, LOST_UPDATE_TRIES_MAX)) {
    if (Date.now() > opts.deadlineMs) return null;
    const scenario = lostUpdateScenario(inp, p);
    if (!solveScenario(scenario, inp.level).violation) continue;
    const { deps, minimal } = minimizeScenario(scenario, inp.level, opts.deadlineMs);
    const cx = buildCounterexample(inp, facts, deps, argue(deps, inp.level), minimal, true, opts);
    if (cx.class !== 'lost update') continue;
    cx.certificate = certify(inp.validated.history, cx);
    if (cx.certificate.status === 'failed') { failures.push(`${cx.class}: ${cx.certificate.reason}`); continue; }
    return { cycle: cx.cycle!.edges.map((id) => depOfEdge(cx.edges[id]!, deps)), explanation: cx };
  }
  return null;
}

/** The dependency a counterexample's edge stands for (same ends, kind and key). */
function depOfEdge(e: CxEdge, deps: readonly Dep[]): Dep {
  const d = deps.find((x) => x.from === e.from && x.to === e.to && x.key === e.key && KIND_NAMES[x.kind] === e.kind);
  if (d === undefined) throw new Error('internal error: a counterexample edge without its dependency');
  return d;
}

function explainOne(st: ExplainInput, facts: FactIndex, cycle: readonly Dep[], opts: ExplainOptions): { cx: Counterexample; deps: Dep[] } {
  const scenario = new Restorer(st).restore(cycle, opts.deadlineMs);
  if (scenario === null) {
    // A budget stopped Restore: show the witness cycle as found, with what pruning forced or the
    // solver chose marked as supposed. Evidence, but not a self-contained argument.
    const base = st.provenance?.knownBase ?? st.pg.known.length;
    const deps = cycle.map((d) => (d.cons < 0 && d.ref >= base ? ceDep(st.pg, st.provenance!.forcedCe.get(d.ref - base)) : d));
    return { cx: buildCounterexample(st, facts, deps, null, false, false, opts), deps };
  }
  const { deps, minimal } = minimizeScenario(scenario, st.level, opts.deadlineMs);
  return { cx: buildCounterexample(st, facts, deps, argue(deps, st.level), minimal, true, opts), deps };
}

const KIND_ORDER = [1, 0, 2, 3]; // SO after WR: a read shows more than session order

/**
 * Numbers the edges (certain ones first, then in order of first mention by the argument), the
 * constraints and the steps, and fills in the history's facts.
 */
function buildCounterexample(
  inp: ExplainInput, facts: FactIndex, deps: Dep[], steps: ArgStep[] | null, minimal: boolean, selfContained: boolean, opts: ExplainOptions,
): Counterexample {
  const h = inp.validated.history;
  const order: number[] = [];
  const placed = new Set<number>();
  const place = (i: number) => { if (!placed.has(i)) { placed.add(i); order.push(i); } };
  deps.map((_, i) => i).filter((i) => deps[i]!.cons < 0)
    .sort((x, y) => KIND_ORDER[deps[x]!.kind]! - KIND_ORDER[deps[y]!.kind]! || deps[x]!.from - deps[y]!.from || deps[x]!.to - deps[y]!.to)
    .forEach(place);
  const consOrder: number[] = [];
  const visit = (ss: readonly ArgStep[]) => {
    for (const s of ss) {
      if (s.kind !== 'contradiction' && !consOrder.includes(s.cons)) consOrder.push(s.cons);
      if (s.kind === 'forced') { s.cycle.forEach(place); s.derived.forEach(place); }
      else if (s.kind === 'contradiction') s.cycle.forEach(place);
      else if (s.kind === 'dilemma') { s.either.forEach(place); s.or.forEach(place); }
      else { visit(s.either); visit(s.or); }
    }
  };
  if (steps !== null) visit(steps);
  deps.forEach((d, i) => { if (d.cons >= 0 && !consOrder.includes(d.cons)) consOrder.push(d.cons); place(i); });
  const edgeId = new Map<number, number>();
  order.forEach((i, id) => edgeId.set(i, id));

  // Steps, numbered depth-first; top-level forced sides are derived, everything else supposed.
  const forcedAt = new Map<string, number>();
  let n = 0;
  const toCycle = (ids: readonly number[]): CxCycle => ({
    edges: ids.map((i) => edgeId.get(i)!),
    class: cycleClass(ids.map((i) => nameEdge(deps[i]!))),
  });
  // Every cycle the argument considers, in order: in each choice of the write orders one of them
  // is in the graph, so the name comes from all of them (name.ts).
  const alternatives: number[][] = [];
  const convert = (ss: readonly ArgStep[], top: boolean): CxStep[] => ss.map((s): CxStep => {
    const num = ++n;
    switch (s.kind) {
      case 'forced':
        if (top) forcedAt.set(`${s.cons}/${s.side}`, num);
        alternatives.push(s.cycle);
        return { kind: 'forced', n: num, constraint: consOrder.indexOf(s.cons), side: sideName(s.side), refuted: edgeId.get(s.refuted)!, cycle: toCycle(s.cycle), derived: s.derived.map((i) => edgeId.get(i)!) };
      case 'contradiction':
        alternatives.push(s.cycle);
        return { kind: 'contradiction', n: num, cycle: toCycle(s.cycle) };
      case 'dilemma':
        alternatives.push(s.either, s.or);
        return { kind: 'dilemma', n: num, constraint: consOrder.indexOf(s.cons), either: toCycle(s.either), or: toCycle(s.or) };
      default:
        return { kind: 'cases', n: num, constraint: consOrder.indexOf(s.cons), either: convert(s.either, false), or: convert(s.or, false) };
    }
  });
  const cxSteps = steps === null ? [] : convert(steps, true);

  const edges: CxEdge[] = order.map((i, id) => edgeFacts(h, inp.pg, facts, deps[i]!, id, consOrder, forcedAt));
  const constraints: CxConstraint[] = consOrder.map((c, id) => {
    const mine = edges.filter((e) => e.constraint === id);
    const keys = [...new Set(mine.filter((e) => e.key >= 0).map((e) => e.key))].sort((x, y) => x - y);
    return {
      id, a: inp.pg.consA[c]!, b: inp.pg.consB[c]!, keys, keyLabels: keys.map((k) => h.keyLabels[k]!),
      either: mine.filter((e) => e.side === 'either').map((e) => e.id),
      or: mine.filter((e) => e.side === 'or').map((e) => e.id),
    };
  });

  const { txns, context } = collectTxns(inp, edges, opts.neighbours === true);
  const sessions = new Set(txns.filter((t) => t.role === 'core').map((t) => t.session));
  if (alternatives.length === 0) alternatives.push(deps.map((_, i) => i)); // no argument: name the whole scenario's shape
  const altEdges = alternatives.map((l) => l.map((i) => nameEdge(deps[i]!)));
  const named = nameCycles(altEdges, namingFacts(facts, sessions.size === 1), inp.level);
  return {
    type: 'cycle',
    class: named.class,
    description: named.description,
    classes: named.classes,
    level: inp.level,
    summary: summarize(h, facts, inp.level, named, altEdges[named.cycle]!),
    txns,
    edges,
    constraints,
    steps: cxSteps,
    cycle: toCycle(alternatives[named.cycle]!),
    context,
    size: { txns: txns.filter((t) => t.role === 'core').length, edges: edges.length },
    minimal,
    selfContained,
    certificate: { status: 'uncertified', choices: 0, reason: 'not checked yet' },
  };
}

function sideName(side: number): Side {
  return side === 0 ? 'either' : 'or';
}

function edgeFacts(h: History, pg: Polygraph, facts: FactIndex, d: Dep, id: number, consOrder: readonly number[], forcedAt: ReadonlyMap<string, number>): CxEdge {
  const kind = KIND_NAMES[d.kind]! as EdgeKind;
  const step = d.cons < 0 ? -1 : forcedAt.get(`${d.cons}/${d.side}`) ?? -1;
  const e: CxEdge = {
    id, from: d.from, to: d.to, kind, key: d.key, keyLabel: d.key < 0 ? null : h.keyLabels[d.key]!,
    status: d.cons < 0 ? 'certain' : step > 0 ? 'derived' : 'hypothetical',
    constraint: d.cons < 0 ? -1 : consOrder.indexOf(d.cons),
    side: d.cons < 0 ? null : sideName(d.side),
    step,
    readFrom: null, readValue: null, writtenValue: null, toValue: null,
  };
  if (d.kind === K_WR) {
    e.readFrom = d.from;
    e.readValue = facts.readValue(d.to, d.key, d.from);
    e.writtenValue = facts.writtenValue(d.from, d.key);
  } else if (d.kind === K_WW) {
    e.writtenValue = facts.writtenValue(d.from, d.key);
    e.toValue = facts.writtenValue(d.to, d.key);
  } else if (d.kind === K_RW) {
    // Either side orders consA before consB: its RW edges come from readers of consA (or: of consB).
    const preferred = d.cons < 0 ? undefined : d.side === 0 ? pg.consA[d.cons]! : pg.consB[d.cons]!;
    e.readFrom = facts.rwSource(d.from, d.key, d.to, preferred);
    e.readValue = facts.readValue(d.from, d.key, e.readFrom);
    e.writtenValue = facts.writtenValue(d.to, d.key);
  }
  return e;
}

/** Core transactions (sorted by session, then position), then context and neighbours. */
function collectTxns(inp: ExplainInput, edges: readonly CxEdge[], neighbours: boolean): { txns: CxTxn[]; context: CxContextEdge[] } {
  const h = inp.validated.history;
  const core = new Set<number>();
  const keysOf = new Map<number, Set<number>>();
  const touch = (t: number, k: number) => {
    let s = keysOf.get(t);
    if (s === undefined) { s = new Set(); keysOf.set(t, s); }
    if (k >= 0) s.add(k);
  };
  for (const e of edges) { core.add(e.from); core.add(e.to); touch(e.from, e.key); touch(e.to, e.key); }
  for (const e of edges) if (e.kind === 'RW' && e.readFrom !== null) touch(e.readFrom, e.key);
  const facts = (t: number, role: CxTxn['role']) => txnFacts(h, t, role, keysOf.get(t));
  const bySessionPos = (x: number, y: number) => (x === INIT_TXN ? -1 : y === INIT_TXN ? 1 : h.txnSession[x]! - h.txnSession[y]! || x - y);
  const txns: CxTxn[] = [...core].sort(bySessionPos).map((t) => facts(t, 'core'));
  const present = new Set(core);
  const context: CxContextEdge[] = [];
  const has = (from: number, to: number, kind: string, key: number) =>
    edges.some((e) => e.from === from && e.to === to && e.kind === kind && e.key === key) ||
    context.some((e) => e.from === from && e.to === to && e.kind === kind && e.key === key);
  const keyLabel = (k: number) => (k < 0 ? null : h.keyLabels[k]!);
  for (const e of edges) {
    if (e.kind !== 'RW' || e.readFrom === null || e.readFrom === INIT_TXN) continue;
    const a = e.readFrom;
    if (!present.has(a)) { present.add(a); txns.push(facts(a, 'context')); }
    if (!has(a, e.from, 'WR', e.key)) context.push({ from: a, to: e.from, kind: 'WR', key: e.key, keyLabel: keyLabel(e.key) });
    if (a !== e.to && !has(a, e.to, 'WW', e.key)) context.push({ from: a, to: e.to, kind: 'WW', key: e.key, keyLabel: keyLabel(e.key) });
  }
  if (neighbours) {
    for (const t of core) {
      if (t === INIT_TXN) continue;
      const s = h.txnSession[t]!;
      for (const dir of [-1, 1]) {
        let u = t + dir;
        while (u >= h.sessionTxnStart[s]! && u < h.sessionTxnStart[s + 1]! && inp.validated.included[u] !== 1) u += dir;
        if (u < h.sessionTxnStart[s]! || u >= h.sessionTxnStart[s + 1]!) continue;
        if (!present.has(u)) { present.add(u); txns.push(facts(u, 'neighbour')); }
        const [a, b] = dir < 0 ? [u, t] : [t, u];
        // A txn of unknown outcome orders nothing after it (checking.md): no SO edge to draw.
        if (h.txnStatus[a] !== TXN_COMMITTED) continue;
        if (!has(a, b, 'SO', -1)) context.push({ from: a, to: b, kind: 'SO', key: -1, keyLabel: null });
      }
    }
  }
  return { txns, context };
}

function nameEdge(d: Dep): NameEdge {
  return { from: d.from, to: d.to, kind: KIND_NAMES[d.kind]! as EdgeKind, key: d.key };
}

/** A non-cycle anomaly as a (small) counterexample: the reader, the writer if any, and the message. */
export function explainNonCycle(v: Validated, a: NonCycleAnomaly, level: CheckState['level']): Counterexample {
  const h: History = v.history;
  const keys = new Set(a.key >= 0 ? [a.key] : []);
  const txns: CxTxn[] = [txnFacts(h, a.txn, 'core', keys)];
  const context: CxContextEdge[] = [];
  if (a.writer >= 0 && a.writer !== a.txn) {
    txns.push(txnFacts(h, a.writer, 'core', keys));
    context.push({ from: a.writer, to: a.txn, kind: 'WR', key: a.key, keyLabel: a.key < 0 ? null : h.keyLabels[a.key]! });
  }
  return {
    type: 'non-cycle', class: a.name, description: NON_CYCLE_DESCRIPTIONS[a.name], classes: [], level, summary: a.message,
    txns, edges: [], constraints: [], steps: [], cycle: null, context,
    size: { txns: txns.length, edges: 0 }, minimal: true, selfContained: true,
    certificate: { status: 'not applicable', choices: 0, reason: 'a non-cycle anomaly: the operations shown are the evidence' },
  };
}
