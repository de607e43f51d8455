/**
 * The predicate reads' choices as SAT constraints (issue 22; docs/levels.md, "Predicates", "How it
 * is decided", step 3).
 *
 * Takes: a predicate History, its 'necessary' lowering (validate/predicate-lower.ts: the choices
 * left out) and the rows' versions. Gives: `choiceEncoding`, the variables, clauses and
 * conditional dependency edges that the solve stage searches together with the polygraph of the
 * necessary lowering (check/index.ts, checkWithChoices), and `ownMatches`.
 *
 * Encoding (over the txns validation includes; a choice c of reader R on row k):
 * - a selector per candidate version of c (the initial one, other txns' deletes, their final
 *   writes of a value of c's class: validate/predicate-lower.ts), at least one true. Exactly one
 *   is not needed for soundness: a model with two selectors true has the edges of both, so the
 *   graph with either one's alone is acyclic too (its edges are a subset). Counts' rows, whose
 *   selected version is *counted*, get exactly one (pairwise: a row has few candidates);
 * - selector(A) implies the edge A -WR-> R (none for the initial version) and, for every other
 *   included writer w of k (not R itself: R's own later write of k follows its read), the
 *   anti-dependency R -RW-> w when A is before w in k's version order: the literal of the pair
 *   constraint {A, w} (or its side when pruning decided it; the initial version is before every
 *   writer). An auxiliary literal x per (selector, w) with the clause (not sel or not before or
 *   x) guards the edge: it can only add edges, and it must when both hold. These are the reads
 *   and anti-dependencies the KV pipeline gives an item read of A by R, so a model is a choice of
 *   versions plus a version order under which the lowered history satisfies the level. When R
 *   writes k itself later, a candidate A after R's version has A -WR-> R and R -WW->* A, a
 *   cycle at every level; one earlier than the version just before R's has R -RW-> w -WW->* R,
 *   which every searched level but PC (a lost update) forbids, as Adya's edges do. What is left
 *   is what Adya's reading asks (docs/levels.md, "Predicates", "A predicate read and its
 *   transaction's later write"), so the search is exact there too (no `unknown` for it since
 *   branch pred-own);
 * - a count n > 0 of rows matching P: per row, m (the selected version matches P) equals the OR
 *   of its matching selectors; exactly n minus the rows the txn itself wrote earlier in a
 *   matching version (ownMatches) of the m are true: a sequential counter (Sinz 2005), both
 *   directions;
 * - an insert whose precondition needs a version order (constrainedInserts) is, at the levels
 *   listed in IMPLICIT_READS (check/predicates.ts), already an observation of an absent version
 *   in the lowering: a choice like the others.
 * Invariant: the encoding is exact only over candidates of included txns. A candidate version of
 * a txn validation leaves out (an unknown-outcome txn nobody read) is dropped: 'sat' stays a proof
 * (fewer candidates, a smaller space), 'unsat' does not, which `incomplete` tells the caller.
 */

import type { History } from '../history/model.ts';
import { INITIAL_VALUE, OP_COUNT, OP_DELETE, OP_INSERT, OP_SELECT, OP_WRITE } from '../history/model.ts';
import { matches, type Predicate, type Scalar } from '../history/predicate.ts';
import { rowKey, rowValue } from '../history/predicate-table.ts';
import { txnOfOp } from '../validate/validate.ts';
import type { Choice, RowVersions } from '../validate/predicate-lower.ts';
import type { Polygraph } from '../graph/polygraph.ts';
import { K_RW, K_WR } from '../graph/edges.ts';
import type { ExtraBuilt, ExtraEncoding } from '../solve/solve.ts';
import { mkLit, negate, type Lit } from '../sat/types.ts';
import { INIT_TXN } from '../result/types.ts';

/** A candidate version of a choice: its writer (INIT_TXN for the initial version) and its lowered value id. */
export interface Candidate { txn: number; value: number }

/** What the encoding made, for the caller to read a model or to build counterexamples. */
export interface ChoiceEncodingInfo {
  /** Per choice (the lowering's numbering), its candidates; empty for a choice whose reader takes no part. */
  candidates: Candidate[][];
  /** Per choice, its selectors' variables (parallel to `candidates`). */
  selectors: number[][];
  /** Choices searched (their reader takes part). */
  searched: number;
  /** A candidate was dropped (its txn takes no part): an 'unsat' answer is then not a proof. */
  incomplete: boolean;
  /** The count ops whose counted rows could not add up whatever the choice (an empty clause): they alone make it unsat. */
  impossibleCounts: number[];
  /** Per choice of a count's row, whether each candidate matches the count's predicate; null for other choices. */
  matching: (boolean[] | null)[];
  /** Per count op with n > 0: how many of its searched rows must match (n less the txn's own matching rows). */
  countWant: Map<number, number>;
  /** Per conditional edge of the encoding (ExtraBuilt's numbering), the choice it comes from (check/rr-search.ts tells item from predicate anti-dependencies by it). */
  edgeChoice: number[];
}

/**
 * Thrown when the polygraph has no constraint for two writers of a row (then the encoding would
 * miss edges), or when the encoding outgrows CHOICE_VARIABLES_MAX.
 */
export class EncodingGap extends Error {}

/**
 * Most variables the encoding may make. Past it the search is not run (`unknown`, saying so): a
 * 4,000-txn `--workload predicate --shapes mixed` history made 1.06 M at SI (1.8 GB) and more at
 * PL-SI (6.9 GB, then out of memory in `--levels`), and searched none of them to an answer.
 */
export const CHOICE_VARIABLES_MAX = 500_000;

/**
 * The encoding of `choices` over the polygraph `pg` of the necessary lowering; `info` is filled
 * when the solve stage calls `build`.
 */
export function choiceEncoding(
  h: History, choices: readonly Choice[], rows: RowVersions, pg: Polygraph, included: Uint8Array, fixedSide: (c: number) => number,
  info: ChoiceEncodingInfo, inserts: Map<number, number[]> | null = null,
): ExtraEncoding {
  return { build: (consLit, firstVar, rank) => buildEncoding(h, choices, rows, pg, included, fixedSide, consLit, firstVar, info, inserts, rank) };
}

export function emptyInfo(): ChoiceEncodingInfo {
  return { candidates: [], selectors: [], searched: 0, incomplete: false, impossibleCounts: [], matching: [], countWant: new Map(), edgeChoice: [] };
}

function buildEncoding(
  h: History, choices: readonly Choice[], rows: RowVersions, pg: Polygraph, included: Uint8Array, fixedSide: (c: number) => number,
  consLit: (c: number) => Lit | null, firstVar: number, info: ChoiceEncodingInfo, inserts: Map<number, number[]> | null, rank: Int32Array,
): ExtraBuilt {
  const pt = h.predicates!;
  const n = h.txnCount;
  // The constraint of each writer pair {a, b} (coalesced over keys: one per pair).
  const pairOf = new Map<number, number>();
  for (let c = 0; c < pg.consCount; c++) {
    const a = pg.consA[c]!, b = pg.consB[c]!;
    pairOf.set(a < b ? a * n + b : b * n + a, c);
  }
  let vars = 0;
  const newVar = (): number => {
    if (vars === CHOICE_VARIABLES_MAX) throw new EncodingGap(`it would need more than ${CHOICE_VARIABLES_MAX.toLocaleString('en')} variables`);
    return firstVar + vars++;
  };
  const clauses: Lit[][] = [];
  // Phases: each choice's selector of the candidate the known graph's order puts last before the
  // reader (as the witness of step 2 would pick), the rest false.
  const phaseTrue: number[] = [];
  const from: number[] = [], to: number[] = [], kind: number[] = [], key: number[] = [], lit: number[] = [];
  let current = -1; // the choice whose edges are being made (info.edgeChoice)
  const edge = (a: number, b: number, k: number, kk: number, l: Lit) => { from.push(a); to.push(b); kind.push(k); key.push(kk); lit.push(l); info.edgeChoice.push(current); };
  // True: a before w in every version order left; false: never; else the literal that says so.
  const before = (a: number, w: number): Lit | boolean => {
    if (a === INIT_TXN) return true;
    const c = pairOf.get(a < w ? a * n + w : w * n + a);
    if (c === undefined) throw new EncodingGap(`no version-order constraint for writers ${a} and ${w}`);
    const l = consLit(c);
    const eitherFirst = pg.consA[c] === a; // the either side puts consA first
    if (l !== null) return eitherFirst ? l : negate(l);
    const side = fixedSide(c);
    return (side === 0) === eitherFirst;
  };
  const keyOf = (k: number): Scalar => rowKey(h, k);
  const valueOf = (v: number): Scalar | null => (v === INITIAL_VALUE || v >= h.valueCount ? null : rowValue(h, v));
  const predOf = (op: number): Predicate | null => (h.opKind[op] === OP_SELECT || h.opKind[op] === OP_COUNT ? pt.parsed[h.opValue[op]!]! : null);
  // Per count op with n > 0: its rows' "selected version matches" variables.
  const counted = new Map<number, { p: number; m: number[] }>();

  info.candidates = []; info.selectors = []; info.searched = 0; info.incomplete = false; info.impossibleCounts = []; info.matching = []; info.countWant = new Map(); info.edgeChoice = [];
  for (let i = 0; i < choices.length; i++) {
    const c = choices[i]!, r = c.txn, k = c.key;
    current = i;
    if (included[r] !== 1) { info.candidates.push([]); info.selectors.push([]); info.matching.push(null); continue; }
    info.searched++;
    const p = predOf(c.op);
    const cands: Candidate[] = [{ txn: INIT_TXN, value: INITIAL_VALUE }];
    const others: number[] = [];
    for (let j = rows.start[k]!; j < rows.start[k + 1]!; j++) {
      const w = rows.txn[j]!, v = rows.value[j]!;
      if (w === r) continue;
      if (included[w] !== 1) { if (fits(c, p, keyOf(k), valueOf(v))) info.incomplete = true; continue; }
      others.push(w);
      if (fits(c, p, keyOf(k), valueOf(v))) cands.push({ txn: w, value: v });
    }
    const sels = cands.map(() => newVar());
    let best = 0;
    for (let j = 1; j < cands.length; j++) {
      const at = rank[2 * cands[j]!.txn]!;
      if (at < rank[2 * r]! && (best === 0 || at > rank[2 * cands[best]!.txn]!)) best = j;
    }
    phaseTrue.push(sels[best]!);
    info.candidates.push(cands);
    info.selectors.push(sels);
    info.matching.push(c.count >= 0 ? cands.map((x) => matches(p!, keyOf(k), valueOf(x.value))) : null);
    clauses.push(sels.map((s) => mkLit(s)));
    if (c.count >= 0) {
      for (let a = 0; a < sels.length; a++) for (let b = a + 1; b < sels.length; b++) clauses.push([mkLit(sels[a]!, true), mkLit(sels[b]!, true)]);
    }
    for (let j = 0; j < cands.length; j++) {
      const a = cands[j]!.txn, s = mkLit(sels[j]!);
      if (a !== INIT_TXN) edge(a, r, K_WR, k, s);
      for (const w of others) {
        if (w === a) continue;
        const b = before(a, w);
        if (b === false) continue;
        if (b === true) { edge(r, w, K_RW, k, s); continue; }
        const x = mkLit(newVar());
        clauses.push([negate(s), negate(b), x]);
        edge(r, w, K_RW, k, x);
      }
    }
    if (c.count >= 0) {
      // m <-> OR(selectors of matching candidates).
      const m = mkLit(newVar());
      const matching: Lit[] = [];
      for (let j = 0; j < cands.length; j++) if (matches(p!, keyOf(k), valueOf(cands[j]!.value))) matching.push(mkLit(sels[j]!));
      clauses.push([negate(m), ...matching]);
      for (const s of matching) clauses.push([negate(s), m]);
      let entry = counted.get(c.op);
      if (entry === undefined) counted.set(c.op, entry = { p: c.count, m: [] });
      entry.m.push(m);
    }
  }
  for (const [op, { p, m }] of counted) {
    const want = pt.count[p]! - ownMatches(h, op);
    info.countWant.set(op, want);
    if (want < 0 || want > m.length) { clauses.push([]); info.impossibleCounts.push(op); continue; }
    exactly(m, want, newVar, clauses);
  }
  if (inserts !== null) insertPreconditions(h, rows, included, inserts, before, newVar, clauses);
  return {
    variables: vars, clauses, phaseTrue,
    from: Int32Array.from(from), to: Int32Array.from(to), kind: Int32Array.from(kind), key: Int32Array.from(key), lit: Int32Array.from(lit),
  };
}

/**
 * The precondition of each of `inserts` (constrainedInserts: row -> inserting txns), where no
 * implicit read of the absent version holds it (PC, which allows a lost update): the version just
 * before the insert in its row's order is absent, i.e. every present version P before it has a
 * delete d between: before(P, I) implies some a(P, d), and a(P, d) implies before(P, d) and
 * before(d, I).
 */
function insertPreconditions(
  h: History, rows: RowVersions, included: Uint8Array, inserts: Map<number, number[]>, before: (a: number, b: number) => Lit | boolean,
  newVar: () => number, clauses: Lit[][],
): void {
  const asLit = (b: Lit | boolean, T: Lit): Lit => (b === true ? T : b === false ? negate(T) : b);
  let T: Lit | null = null;
  for (const [k, ins] of inserts) {
    const present: number[] = [], dead: number[] = [];
    for (let j = rows.start[k]!; j < rows.start[k + 1]!; j++) {
      const w = rows.txn[j]!;
      if (included[w] !== 1) continue;
      (rows.value[j]! >= h.valueCount ? dead : present).push(w);
    }
    for (const I of ins) {
      if (included[I] !== 1) continue;
      for (const P of present) {
        if (P === I) continue;
        const pi = before(P, I);
        if (pi === false) continue;
        const clause: Lit[] = pi === true ? [] : [negate(pi)];
        for (const d of dead) {
          if (d === I || d === P) continue;
          const pd = before(P, d), di = before(d, I);
          if (pd === false || di === false) continue;
          T ??= trueLit(newVar, clauses);
          const a = mkLit(newVar());
          clauses.push([negate(a), asLit(pd, T)], [negate(a), asLit(di, T)]);
          clause.push(a);
        }
        clauses.push(clause);
      }
    }
  }
}

/** A literal fixed true (a variable with a unit clause). */
function trueLit(newVar: () => number, clauses: Lit[][]): Lit {
  const t = mkLit(newVar());
  clauses.push([t]);
  return t;
}

/** Whether a version of value `v` (null: absent) is of the class choice c observed. */
export function fits(c: Choice, p: Predicate | null, k: Scalar, v: Scalar | null): boolean {
  if (c.want === 'any') return true;
  if (v === null) return true;
  return c.want === 'nomatch' && !matches(p!, k, v);
}

/**
 * Exactly `k` of the literals `xs` true: a sequential counter with both directions, r[i][j] <->
 * "at least j of xs[0..i] are true" for j = 1 .. k+1 (Sinz 2005, made an equivalence so that it
 * bounds from below too). O(|xs| k) variables and clauses.
 */
export function exactly(xs: readonly Lit[], k: number, newVar: () => number, clauses: Lit[][]): void {
  const m = xs.length;
  if (k > m) { clauses.push([]); return; }
  const top = Math.min(k + 1, m);
  // prev[j]: the literal "at least j of the first i" (j = 1 .. top), or null for false; j = 0 is true.
  let prev: (Lit | null)[] = new Array(top + 1).fill(null);
  for (let i = 0; i < m; i++) {
    const x = xs[i]!;
    const cur: (Lit | null)[] = new Array(top + 1).fill(null);
    for (let j = 1; j <= Math.min(top, i + 1); j++) {
      const r = mkLit(newVar());
      cur[j] = r;
      const keep = prev[j] ?? null, below = j === 1 ? true : prev[j - 1] ?? null;
      // r <- keep; r <- below & x; r -> keep | below; r -> keep | x.
      if (keep !== null) clauses.push([negate(keep), r]);
      if (below === true) clauses.push([negate(x), r]);
      else if (below !== null) clauses.push([negate(below), negate(x), r]);
      const keepOrBelow: Lit[] = [negate(r)];
      if (keep !== null) keepOrBelow.push(keep);
      if (below === true) keepOrBelow.length = 0; else if (below !== null) keepOrBelow.push(below);
      if (keepOrBelow.length > 0) clauses.push(keepOrBelow);
      clauses.push(keep === null ? [negate(r), x] : [negate(r), keep, x]);
    }
    prev = cur;
  }
  if (k >= 1) clauses.push([prev[k]!]);
  if (k + 1 <= m) clauses.push([negate(prev[k + 1]!)]);
}

/** The rows of count op's relation that its own txn wrote before it, in a version matching its predicate. */
export function ownMatches(h: History, op: number): number {
  const pt = h.predicates!, p = pt.parsed[h.opValue[op]!]!;
  const t0 = h.txnOpStart[txnOfOp(h, op)]!;
  const own = new Map<number, number | null>();
  for (let o = t0; o < op; o++) {
    const kind = h.opKind[o]!, k = h.opKey[o]!;
    if (pt.keyRelation[k] !== h.opKey[op]) continue;
    if (kind === OP_DELETE) own.set(k, null); else if (kind === OP_WRITE || kind === OP_INSERT) own.set(k, h.opValue[o]!);
  }
  let n = 0;
  for (const [k, v] of own) if (v !== null && matches(p, rowKey(h, k), rowValue(h, v))) n++;
  return n;
}
