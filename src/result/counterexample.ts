/**
 * The explanation of one violation, as data: what `explain/` computes and `render/` draws.
 *
 * A counterexample is a sub-polygraph of the history's polygraph (PolySI Appendix E): certain
 * dependency edges, plus constraints (two writers of a common key: "either a's write comes first,
 * or b's") of which only some edges are kept. It is a violation (every choice of every constraint
 * leaves a cycle that the level forbids) and it is minimal: without any one of its edges it is
 * not a violation any more. The `steps` are an argument a person can check, in the manner of
 * PolySI's Resolve step and Elle's explanations: certain edges first, then sides forced because
 * the other side would close a cycle, until a cycle is unavoidable.
 *
 * Transactions are History indices (`INIT_TXN` = -1 is the implicit initial transaction), keys are
 * key ids; every id comes with the user's own label so that JSON readers need nothing else.
 */

import type { EdgeKind, Level, NonCycleAnomalyName } from './types.ts';

/** Adya's classes of a dependency cycle by its anti-dependency (RW) edges (docs/explain.md, "Names"). */
export type BaseCycleClass = 'G0' | 'G1c' | 'G-single' | 'G-nonadjacent' | 'G2-item';

/**
 * The class of one cycle: Adya's, with Elle's suffix when the cycle goes through real-time order
 * (`-realtime`) or, without one, through session order (`-process`, Elle's process order).
 */
export type CycleClass = BaseCycleClass | `${BaseCycleClass}-process` | `${BaseCycleClass}-realtime`;

/**
 * A counterexample's class, one name per class, in the vocabulary of Adya, Elle and Hermitage: a
 * cycle class; the specific cycle shapes `lost update` (Berenson et al.'s P4, Hermitage's "lost
 * update") and `OTV` (Hermitage's "observed transaction vanishes"); or, for non-cycle anomalies,
 * validation's name (G1a, G1b, INT, garbage-read, ...).
 */
export type AnomalyClass = CycleClass | 'lost update' | 'OTV' | NonCycleAnomalyName | PredicateCycleClass;

/**
 * Cycles through predicate anti-dependencies only (explain/phantom.ts): Adya's G2 that is not
 * G2-item, and Hermitage's PMP (predicate-many-preceders).
 */
export type PredicateCycleClass = 'G2' | 'G2-process' | 'G2-realtime' | 'PMP';

/**
 * What a counterexample means at the level it was found for (the reading of that level's
 * literature); the class says what the cycle is. Non-cycle anomalies have their spelled-out name.
 */
export type AnomalyDescription =
  | 'real-time violation'
  | 'long fork'
  | 'read skew'
  | 'fractured read'
  | 'non-monotonic read'
  | 'session guarantee violation'
  | 'causality violation'
  | 'write skew'
  | 'aborted read'
  | 'intermediate read'
  | 'internal inconsistency'
  | 'garbage read'
  | 'future read'
  | 'duplicate elements'
  | 'incompatible order'
  | 'predicate mismatch'
  | 'duplicate insert'
  | 'phantom'
  | 'predicate write skew';

/**
 * certain: follows from the history alone (SO, WR, and WW/RW fixed by the initial state or by
 * list reads). derived: follows from a side of a constraint that the argument forces.
 * hypothetical: an edge the argument only supposes (the refuted side of a forced constraint, or
 * either side of the final dilemma or of a case split): it cannot hold together with the rest.
 */
export type EdgeStatus = 'certain' | 'derived' | 'hypothetical';

export type Side = 'either' | 'or';

export interface CxTxn {
  txn: number;
  label: string;
  session: string;
  /** 0-based position in its session (-1 for the initial transaction). */
  index: number;
  /** Where it comes from: the source (a path, or `<memory>`) and the location in it (`line 12`, `byte 80`, or ''). */
  source: string;
  loc: string;
  ops: string[];
  /** Indices into `ops` of the operations on the keys of this transaction's edges (what a drawing shows). */
  focus: number[];
  /**
   * core: an endpoint of a counterexample edge. context: a writer whose version an RW edge's reader
   * read, brought back to explain that edge (PolySI Appendix C, Restore). neighbour: a session
   * neighbour of a core transaction, only when asked for, for drawing.
   */
  role: 'core' | 'context' | 'neighbour';
}

export interface CxEdge {
  /** Index of this edge in `Counterexample.edges`. */
  id: number;
  from: number;
  to: number;
  kind: EdgeKind;
  /** Key id, -1 for SO. */
  key: number;
  keyLabel: string | null;
  status: EdgeStatus;
  /** For WW/RW edges of a constraint: the index into `Counterexample.constraints`, else -1. */
  constraint: number;
  side: Side | null;
  /** For derived edges: the number of the step that forces them (1-based, as printed), else -1. */
  step: number;
  /** WR: the writer (= from). RW: the transaction whose version `from` read (INIT_TXN = initial value). */
  readFrom: number | null;
  /** The value read (WR: by `to`; RW: by `from`), as the user wrote it. */
  readValue: string | null;
  /** The value written (WR, WW: by `from`; RW: by `to`); for WW also `toValue`. */
  writtenValue: string | null;
  /** WW only: the value `to` wrote. */
  toValue: string | null;
}

/** Two writers of common keys: either = a's writes come first, or = b's writes come first. */
export interface CxConstraint {
  id: number;
  a: number;
  b: number;
  keys: number[];
  keyLabels: string[];
  /** Edge ids of each side present in the counterexample. */
  either: number[];
  or: number[];
}

/** A cycle: edge ids in order (edges[i].to === edges[i+1].from), and its class. */
export interface CxCycle {
  edges: number[];
  class: CycleClass;
}

export type CxStep =
  /** Step `n`: the other side's edge `refuted` would close `cycle`, so `side` holds and gives `derived`. */
  | { kind: 'forced'; n: number; constraint: number; side: Side; refuted: number; cycle: CxCycle; derived: number[] }
  /** The edges established so far already form a forbidden cycle. */
  | { kind: 'contradiction'; n: number; cycle: CxCycle }
  /** Both sides of a constraint close a cycle. */
  | { kind: 'dilemma'; n: number; constraint: number; either: CxCycle; or: CxCycle }
  /** No single side is forced: each side, assumed in turn, leads to a contradiction. */
  | { kind: 'cases'; n: number; constraint: number; either: CxStep[]; or: CxStep[] };

/** An extra edge drawn to help reading (Restore's WR/WW edges behind an RW edge); not part of the counterexample. */
export interface CxContextEdge {
  from: number;
  to: number;
  kind: EdgeKind;
  key: number;
  keyLabel: string | null;
}

/**
 * The independent check of a counterexample (certify.ts): every edge re-derived from the
 * operations, and every choice of its write orders enumerated by brute force.
 * certified: the check passed. uncertified: not attempted (`reason` says why: too many write
 * orders to enumerate, or a budget left the counterexample incomplete). failed: the check found
 * the counterexample wrong (an internal error; such a counterexample is never reported).
 * not applicable: a non-cycle anomaly, whose operations are the evidence.
 */
export interface Certificate {
  status: 'certified' | 'uncertified' | 'failed' | 'not applicable';
  /** Choices of the write orders enumerated (2^constraints) when the brute force ran, else 0. */
  choices: number;
  /** Why it is not certified ('' when it is). */
  reason: string;
}

export interface Counterexample {
  type: 'cycle' | 'non-cycle';
  /** The anomaly's class (src/explain/name.ts): one every alternative of the argument has or implies. */
  class: AnomalyClass;
  /** The level's reading of it (read skew, long fork, causality violation, ...), or null. */
  description: AnomalyDescription | null;
  /**
   * The classes of every cycle the argument considers (each forced step's refuted side, the final
   * contradiction or both sides of a dilemma), in the order of the steps; `class` comes from the
   * loosest of them. Empty for non-cycle anomalies.
   */
  classes: CycleClass[];
  level: Level;
  /** One sentence for people. */
  summary: string;
  txns: CxTxn[];
  edges: CxEdge[];
  constraints: CxConstraint[];
  steps: CxStep[];
  /**
   * The cycle the class and description describe (one of those the argument considers: when it
   * is a refuted side or one side of a dilemma, it holds a supposed edge). Without an argument (a
   * budget stopped Restore) it is the checker's witness cycle.
   */
  cycle: CxCycle | null;
  context: CxContextEdge[];
  /**
   * The whole counterexample: transactions with role 'core', and dependency edges (= edges.length).
   * The named cycle's own size is `cycle.edges.length` (what the summaries print).
   */
  size: { txns: number; edges: number };
  /** False only when a time budget cut minimization short (the counterexample is still a violation). */
  minimal: boolean;
  /**
   * True when the counterexample is a violation on its own (always, unless a budget stopped
   * Restore: then it is only the checker's witness cycle, with its chosen edges supposed).
   */
  selfContained: boolean;
  /** The independent check of this counterexample, done before it is reported (certify.ts). */
  certificate: Certificate;
}
