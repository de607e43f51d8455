/**
 * Naming anomalies: the one place where a counterexample gets its class and its description
 * (docs/explain.md, "Names", has the rules and their sources).
 *
 * Takes: the cycles an argument considers (every alternative it refutes or ends with, each a list
 * of edges in order), what the history says about the reads on them (`NamingFacts`) and the
 * level. Gives: the counterexample's **class** in the vocabulary of Adya, Elle and Hermitage (G0,
 * G1c, G-single, G-nonadjacent, G2-item, with Elle's `-process` / `-realtime` suffixes; the
 * specific shapes `lost update` (P4) and `OTV`; for non-cycle anomalies G1a, G1b, INT, ...), its
 * **description** (the reading of the level at hand: read skew, fractured read, long fork,
 * causality violation, session guarantee violation, ...; null when there is none), and which
 * cycle they describe.
 * Invariant: the class is one every alternative of the argument has or implies: the history
 * shows, under every choice of its write orders, a cycle at least as forbidden as the class (a
 * write order derived by the argument is no dirty write: its other side closed another cycle,
 * and the class comes from the loosest of them).
 */

import type { AnomalyClass, AnomalyDescription, BaseCycleClass, CycleClass } from '../result/counterexample.ts';
import type { DepEdge, EdgeKind, Level, NonCycleAnomalyName } from '../result/types.ts';

/** An edge as naming sees it: kinds by name, `key` -1 for SO and RT. */
export interface NameEdge {
  from: number;
  to: number;
  kind: EdgeKind;
  key: number;
}

/** What naming needs to know about the history beyond the edges. */
export interface NamingFacts {
  /** Every transaction of the counterexample belongs to one session. */
  oneSession: boolean;
  /** The writer whose version of `key` txn t read (INIT_TXN = -1 for the initial value), or null if t did not read it. */
  readSource(t: number, key: number): number | null;
  /** Position of t's read of `key` in its transaction (an op index), or null if t did not read it. */
  readAt(t: number, key: number): number | null;
}

/** Adya's class of one cycle by its RW edges (Adya 1999 §4; all our anti-dependencies are item ones). */
function baseClass(cycle: readonly NameEdge[]): BaseCycleClass {
  const n = cycle.length;
  let rw = 0, adjacent = false, wr = false;
  for (let i = 0; i < n; i++) {
    const k = cycle[i]!.kind;
    if (k === 'WR') wr = true;
    if (k !== 'RW') continue;
    rw++;
    if (n > 1 && cycle[(i + 1) % n]!.kind === 'RW') adjacent = true;
  }
  if (rw === 0) return wr ? 'G1c' : 'G0';
  if (rw === 1) return 'G-single';
  return adjacent ? 'G2-item' : 'G-nonadjacent';
}

/**
 * The class of one cycle: Adya's by its RW edges, with Elle's suffix when the cycle needs more
 * than the dependency graph: `-realtime` through a real-time edge, else `-process` through
 * session order (Elle's process order). A cycle of SO and WW edges is G0-process, not G0.
 */
export function cycleClass(cycle: readonly NameEdge[]): CycleClass {
  const base = baseClass(cycle);
  if (cycle.some((e) => e.kind === 'RT')) return `${base}-realtime`;
  if (cycle.some((e) => e.kind === 'SO')) return `${base}-process`;
  return base;
}

/** The class of a witness cycle that was not explained (no argument behind it): its shape only. */
export function witnessCycleClass(edges: readonly DepEdge[]): CycleClass {
  return cycleClass(edges);
}

const BASE_LOOSENESS: readonly BaseCycleClass[] = ['G0', 'G1c', 'G-single', 'G-nonadjacent', 'G2-item'];

/**
 * How permissive a cycle class is: higher = forbidden by fewer levels. A real-time cycle only by
 * the strict levels; then by RW edges: G2-item (SER, RR), G-nonadjacent (from PC and PSI up),
 * G-single (from causal consistency up), G1c (from read committed up), G0 (every level); among
 * cycles of one class, one through session order before one without (only the session variants
 * of a level forbid it). Session order comes after the RW edges because every level of the
 * ladder orders a session's transactions: a G0-process (two writes of a session installed in
 * the opposite order) is forbidden wherever a G-single is.
 */
export function looseness(c: CycleClass): number {
  const base = c.replace(/-(realtime|process)$/, '') as BaseCycleClass;
  return (c.endsWith('-realtime') ? 100 : 0) + 2 * BASE_LOOSENESS.indexOf(base) + (c.endsWith('-process') ? 1 : 0);
}

const causal = (e: NameEdge) => e.kind === 'SO' || e.kind === 'WR';

/** A 2-cycle on one key of two read-modify-writes of the same version (Berenson et al. P4). */
function isLostUpdate(c: readonly NameEdge[], f: NamingFacts): boolean {
  if (c.length !== 2 || c[0]!.key < 0 || c[0]!.key !== c[1]!.key) return false;
  const kinds = c.map((e) => e.kind).sort().join(',');
  if (kinds !== 'RW,WW' && kinds !== 'RW,RW') return false;
  const k = c[0]!.key;
  const a = f.readSource(c[0]!.from, k), b = f.readSource(c[0]!.to, k);
  return a !== null && a === b;
}

/**
 * `w -WR(x)-> r -RW(y)-> w`: r saw w's write of x and missed its write of y. With the newer
 * version (w's x) read first and the overwritten one (y) after, w vanished from r's view:
 * Hermitage's OTV. With the old version read first it is a read skew (Hermitage's G-single).
 */
function twoEdgeRead(c: readonly NameEdge[], f: NamingFacts): 'OTV' | 'read skew' | null {
  if (c.length !== 2) return null;
  const wr = c.find((e) => e.kind === 'WR'), rw = c.find((e) => e.kind === 'RW');
  if (wr === undefined || rw === undefined || wr.key === rw.key) return null;
  const seen = f.readAt(rw.from, wr.key), missed = f.readAt(rw.from, rw.key);
  return seen !== null && missed !== null && seen < missed ? 'OTV' : 'read skew';
}

/** The class and description of one cycle, read at `level`. */
export function nameCycle(c: readonly NameEdge[], f: NamingFacts, level: Level): { class: AnomalyClass; description: AnomalyDescription | null } {
  const cls = cycleClass(c);
  if (cls.endsWith('-realtime')) return { class: cls, description: 'real-time violation' };
  if (isLostUpdate(c, f)) return { class: 'lost update', description: null };
  const rws = c.filter((e) => e.kind === 'RW');
  const others = c.filter((e) => e.kind !== 'RW');
  const read = twoEdgeRead(c, f);
  if (read === 'OTV') return { class: 'OTV', description: level === 'rc' || level === 'ss-rc' || level === 'mav' ? 'non-monotonic read' : level === 'ra' ? 'fractured read' : null };
  if (read === 'read skew') return { class: cls, description: level === 'ra' ? 'fractured read' : 'read skew' };
  if (rws.length === 1 && others.every(causal)) {
    return { class: cls, description: f.oneSession && others.every((e) => e.kind === 'SO') ? 'session guarantee violation' : 'causality violation' };
  }
  if (rws.length === 2 && cls.startsWith('G-nonadjacent') && others.every(causal)) return { class: cls, description: 'long fork' };
  if (cls === 'G2-item' && c.length === 2 && rws[0]!.key !== rws[1]!.key) return { class: cls, description: 'write skew' };
  return { class: cls, description: null };
}

/** Most specific first: which of several equally loose cycles gives the name. */
const SPECIFICITY: readonly (AnomalyClass | AnomalyDescription | null)[] = [
  'lost update', 'OTV', 'long fork', 'read skew', 'fractured read', 'non-monotonic read', 'session guarantee violation',
  'causality violation', 'write skew', 'real-time violation', null,
];
const specificity = (n: { class: AnomalyClass; description: AnomalyDescription | null }) =>
  Math.min(...[n.class, n.description].map((x) => SPECIFICITY.indexOf(x)).filter((i) => i >= 0));

export interface CounterexampleName {
  class: AnomalyClass;
  description: AnomalyDescription | null;
  /** Index into the cycles given: the one class and description describe. */
  cycle: number;
  /** The class of every cycle given, in order. */
  classes: CycleClass[];
}

/**
 * The name of a counterexample whose argument considers several cycles: each refuted side of a
 * forced step closes one, the final contradiction or dilemma ends with one or two, and in every
 * choice of the write orders one of them is in the graph. The argument proves only what all of
 * them prove together, so the class comes from the loosest cycle (`looseness`): a dilemma
 * between a G-single and a write skew is a G2-item, and a cycle whose WW edges were derived,
 * each from a refuted side that closed a G-single, is a G-single (no dirty write happened).
 * A specific class (lost update, OTV) is kept only when every loosest cycle has it; otherwise
 * the class is their cycle class (a dilemma between an OTV and a read skew is a G-single). Among
 * the cycles that have the class, the most specific description wins.
 */
export function nameCycles(cycles: readonly (readonly NameEdge[])[], f: NamingFacts, level: Level): CounterexampleName {
  if (cycles.length === 0) throw new Error('internal error: naming a counterexample without a cycle');
  const classes = cycles.map(cycleClass);
  const loosest = Math.max(...classes.map(looseness));
  const candidates = cycles.map((c, i) => ({ i, ...nameCycle(c, f, level) })).filter(({ i }) => looseness(classes[i]!) === loosest);
  const shared = new Set(candidates.map((n) => n.class)).size === 1;
  const cls: AnomalyClass = shared ? candidates[0]!.class : classes[candidates[0]!.i]!;
  // The first of the most specific cycles that have the class; without one, the first loosest cycle.
  let best: { i: number; class: AnomalyClass; description: AnomalyDescription | null } | null = null;
  for (const n of candidates) if (n.class === cls && (best === null || specificity(n) < specificity(best))) best = n;
  best ??= { i: candidates[0]!.i, class: cls, description: null };
  return { class: best.class, description: best.description, cycle: best.i, classes };
}

/** The description of each non-cycle anomaly, whose class is validation's name (Adya's G1a, G1b; Elle's others). */
export const NON_CYCLE_DESCRIPTIONS: Record<NonCycleAnomalyName, AnomalyDescription> = {
  'G1a': 'aborted read',
  'G1b': 'intermediate read',
  'INT': 'internal inconsistency',
  'garbage-read': 'garbage read',
  'future-read': 'future read',
  'duplicate-elements': 'duplicate elements',
  'incompatible-order': 'incompatible order',
  'predicate-mismatch': 'predicate mismatch',
  'duplicate-insert': 'duplicate insert',
};
