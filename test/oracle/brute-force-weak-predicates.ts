/**
 * Brute-force oracle for histories with relations, inserts, deletes and predicate reads (issue
 * 22) at the weak levels of the ladder (pl-1, ru, pl-2, mav, rc, ss-rc, ra, tcc), on tiny
 * histories (at most WEAK_PRED_ORACLE_TXNS_MAX txns).
 *
 * Takes: a PredHistory (predicate-history.ts: keys and values as written). Gives: 'valid' |
 * 'violation' per level. Shares no code with src/ (not even the predicate language:
 * predicate-eval.ts), nor with the other oracles beyond the PredHistory type.
 *
 * Common ground (docs/levels.md, "Predicates"): a row of a relation starts absent; `insert` and
 * `w` install a present version, `delete` an absent one; an absent version matches no predicate.
 * Only committed txns take part, unknown-outcome ones either way (valid iff some choice is).
 * - **Observations.** A read `r(k, v)` observes a version of k with value v (`null`: the initial
 *   version or a delete). `select(P) -> rows` observes one version of every row of its relation
 *   (its version set): a returned row `(k, v)` the version with value v (which must match P, else
 *   the database broke its own answer: a violation at every level), a row not returned some
 *   version that does not match P. `count(P) -> n` observes one version of every row, n of them
 *   matching. A row the txn wrote before is observed as its own last write (INT: it must agree).
 *   The versions of one predicate read are observed together, by one statement: none of them is
 *   "earlier" than another (the levels' premises about earlier reads look at earlier ops only).
 * - **Version order** of a row: the commit order `co` restricted to its writers (Biswas & Enea),
 *   or for pl-2 any order per row. An insert must follow an absent version (the initial one, or
 *   a delete), else the database broke its key's uniqueness; no order at all: a violation.
 * - **pl-1, ru** (Adya PL-1; read uncommitted): reads constrain nothing (G0 is about writes); a
 *   read may even see an aborted or intermediate version (G1a, G1b allowed), but it must see a
 *   version somebody wrote, and a count of n needs n rows with some matching version written by
 *   anybody. `co` holds session order at ru.
 * - **pl-2** (Adya PL-2, literally): no G1a, G1b (every observed version is a final version of a
 *   txn taking part, or the initial one) and no G1c: some version order per row and some version
 *   per observation with WW ∪ WR acyclic, where WR has the item read-dependencies (a read or a
 *   returned row: the version's writer) and Adya's predicate read-dependencies: a predicate read
 *   whose version set holds x_k depends on every Tj installing an x_i at or before x_k that
 *   *changes the matches* (it matches P and the version before it does not, or the other way
 *   round), the reader itself included (a self-loop: the read would reflect a write its own
 *   transaction makes later; docs/levels.md, "Predicates"). So a count that saw a matching
 *   version after an earlier matching one depends on the earlier one's writer only.
 * - **mav, rc, ss-rc, ra, tcc** (Biswas & Enea, OOPSLA 2019, §3; Bailis et al., VLDB 2014 for
 *   MAV as docs/levels.md states it): every observation is an item read of its version, which must
 *   be committed (no G1a, G1b); `co` contains every observation (writer before reader) and, but
 *   for mav, session order; then the axiom: when t3 observes x from t1 and t2 ≠ t1 writes x and
 *   t3 saw t2 "before", t2 precedes t1 in co (t1 the initial version: violated). "Before": an
 *   earlier op of t3 observed t2 (rc, mav); or t2 precedes t3 in session order (ss-rc, with rc's
 *   premise; ra and tcc); or any observation of t3 (ra); or t2 is in t3's causal past through
 *   session order and observations (tcc). Every observation is a read event, one that returns
 *   the same version as an earlier one of the key included (the axioms quantify over every read;
 *   docs/levels.md, "Re-reads").
 * Enumerates outcomes × commit orders (or version orders) × versions per observation, cutting a
 * branch as soon as it breaks co: tiny histories only.
 */

import { rowMatches } from './predicate-eval.ts';
import type { PredHistory, Scalar } from './predicate-history.ts';

export type WeakPredLevel = 'pl-1' | 'ru' | 'pl-2' | 'mav' | 'rc' | 'ss-rc' | 'ra' | 'tcc';
export type Verdict = 'valid' | 'violation';
export const WEAK_PRED_ORACLE_TXNS_MAX = 6;

const SESSIONLESS: ReadonlySet<WeakPredLevel> = new Set(['pl-1', 'pl-2', 'mav']);
const UNCOMMITTED: ReadonlySet<WeakPredLevel> = new Set(['pl-1', 'ru']);

type Cell = Scalar | null;
const kt = (k: Scalar): string => String(k);

/** One observation of a row's version by an op of a txn. */
interface Obs {
  reader: number;
  /** Index of the op in its txn: observations of one predicate read share it. */
  pos: number;
  key: string;
  /** An item read (a read, a returned row): an item read-dependency at pl-2. */
  item: boolean;
  /** The predicate of the predicate read it belongs to (pl-2's predicate read-dependencies), else null. */
  pred: string | null;
  /** Versions it may have observed: a writer txn, or -1 for the initial version. */
  cands: number[];
}

/** A count: among observations `obs`, exactly `need` observed a version matching `pred`. */
interface CountGroup { obs: number[]; need: number; pred: string }

interface World {
  h: PredHistory;
  n: number;
  inWorld: boolean[];
  keyOf: Map<string, Scalar>;
  relKeys: Map<string, string[]>;
  /** Per txn: key -> its final write (null: a delete); empty for txns not taking part. */
  final: Map<string, Cell>[];
  /** Per txn: rows whose first write in the txn is an insert. */
  insertsFirst: Set<string>[];
  obs: Obs[];
  counts: CountGroup[];
}

export function weakPredLevel(h: PredHistory, level: WeakPredLevel): Verdict {
  if (h.txns.length > WEAK_PRED_ORACLE_TXNS_MAX) throw new Error(`weak predicate oracle: ${h.txns.length} txns (limit ${WEAK_PRED_ORACLE_TXNS_MAX})`);
  const unknown = h.txns.map((t, i) => (t.status === 'unknown' ? i : -1)).filter((i) => i >= 0);
  for (let mask = 0; mask < 1 << unknown.length; mask++) {
    const inWorld = h.txns.map((t) => t.status === 'committed');
    unknown.forEach((t, i) => { inWorld[t] = ((mask >> i) & 1) === 1; });
    const w = world(h, inWorld, UNCOMMITTED.has(level));
    if (w === null) continue;
    const ok = UNCOMMITTED.has(level) ? someInsertOrder(w, level) : level === 'pl-2' ? pl2(w) : axiomatic(w, level);
    if (ok) return 'valid';
  }
  return 'violation';
}

/** Every value written to a key by any txn but `reader`, at any point, whatever its outcome (what a dirty read may see). */
function anyWritten(h: PredHistory, k: string, reader: number): Cell[] {
  const out: Cell[] = [null];
  h.txns.forEach((t, i) => {
    if (i === reader) return;
    for (const o of t.ops) {
      if ((o.op === 'w' || o.op === 'insert') && kt(o.key) === k) out.push(o.value);
      if (o.op === 'delete' && kt(o.key) === k) out.push(null);
    }
  });
  return out;
}

/**
 * The observations of the txns taking part, or null when no version order can explain them: a
 * txn contradicting its own writes, a returned row not matching its predicate, a count no
 * versions add up to, a value nobody else wrote, or (unless `dirty`) one only an aborted txn or
 * an intermediate write holds. With `dirty` (pl-1, ru) a read of such a value is kept out.
 */
function world(h: PredHistory, inWorld: boolean[], dirty: boolean): World | null {
  const keyOf = new Map<string, Scalar>(), relKeys = new Map<string, string[]>();
  for (const [rel, keys] of Object.entries(h.relations)) {
    relKeys.set(rel, keys.map(kt));
    for (const k of keys) keyOf.set(kt(k), k);
  }
  const n = h.txns.length;
  const final = h.txns.map((t, i) => {
    const m = new Map<string, Cell>();
    if (!inWorld[i]) return m;
    for (const o of t.ops) {
      if (o.op === 'w' || o.op === 'insert') m.set(kt(o.key), o.value);
      else if (o.op === 'delete') m.set(kt(o.key), null);
    }
    return m;
  });
  const valueOf = (k: string, c: number): Cell => (c < 0 ? null : final[c]!.get(k)!);
  const versions = (k: string, reader: number): number[] => {
    const out = [-1];
    for (let t = 0; t < n; t++) if (t !== reader && inWorld[t] && final[t]!.has(k)) out.push(t);
    return out;
  };
  const insertsFirst = h.txns.map(() => new Set<string>());
  const obs: Obs[] = [], counts: CountGroup[] = [];
  // A read of value v: its candidates, or [] when only a dirty read explains it (with `dirty`), or null (garbage).
  const itemCands = (k: string, v: Cell, reader: number): number[] | null => {
    const c = versions(k, reader).filter((x) => valueOf(k, x) === v);
    if (c.length > 0) return c;
    return dirty && anyWritten(h, k, reader).some((x) => x === v) ? [] : null;
  };
  for (let t = 0; t < n; t++) {
    if (!inWorld[t]) continue;
    const local = new Map<string, Cell>();
    const ops = h.txns[t]!.ops;
    for (let pos = 0; pos < ops.length; pos++) {
      const o = ops[pos]!;
      if (o.op === 'w' || o.op === 'insert' || o.op === 'delete') {
        const k = kt(o.key);
        if (o.op === 'insert') {
          if (local.has(k)) { if (local.get(k) !== null) return null; } else insertsFirst[t]!.add(k);
        }
        local.set(k, o.op === 'delete' ? null : o.value);
        continue;
      }
      if (o.op === 'r') {
        const k = kt(o.key);
        if (local.has(k)) { if (local.get(k) !== o.value) return null; continue; }
        const cands = itemCands(k, o.value, t);
        if (cands === null) return null;
        if (cands.length > 0) obs.push({ reader: t, pos, key: k, item: true, pred: null, cands });
        continue;
      }
      const keys = relKeys.get(o.rel);
      if (keys === undefined) return null;
      const returned = new Map<string, Scalar>();
      if (o.op === 'select') {
        for (const [k, v] of o.rows) {
          if (!keys.includes(kt(k)) || returned.has(kt(k))) return null;
          if (!rowMatches(o.pred, k, v)) return null; // predicate-mismatch
          returned.set(kt(k), v);
        }
      }
      const group: number[] = [];
      let fixed = 0, dirtyMatches = 0;
      for (const k of keys) {
        const m = (c: Cell) => rowMatches(o.pred, keyOf.get(k)!, c);
        if (local.has(k)) {
          const v = local.get(k)!;
          if (o.op === 'select' && (m(v) ? returned.get(k) !== v : returned.has(k))) return null;
          if (m(v)) fixed++;
          continue;
        }
        const all = versions(k, t);
        if (o.op === 'count') {
          if (dirty) { if (anyWritten(h, k, t).some(m)) dirtyMatches++; continue; }
          group.push(obs.length);
          obs.push({ reader: t, pos, key: k, item: false, pred: o.pred, cands: all });
        } else if (returned.has(k)) {
          const cands = itemCands(k, returned.get(k)!, t);
          if (cands === null) return null;
          if (cands.length > 0) obs.push({ reader: t, pos, key: k, item: true, pred: o.pred, cands });
        } else {
          obs.push({ reader: t, pos, key: k, item: false, pred: o.pred, cands: all.filter((c) => !m(valueOf(k, c))) });
        }
      }
      if (o.op === 'count') {
        if (o.n < fixed || o.n > fixed + (dirty ? dirtyMatches : group.length)) return null;
        if (!dirty) counts.push({ obs: group, need: o.n - fixed, pred: o.pred });
      }
    }
  }
  return { h, n, inWorld, keyOf, relKeys, final, insertsFirst, obs, counts };
}

function* permutations(xs: readonly number[]): Generator<number[]> {
  if (xs.length <= 1) { yield xs.slice(); return; }
  for (let i = 0; i < xs.length; i++) {
    for (const rest of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) yield [xs[i]!, ...rest];
  }
}

const members = (w: World): number[] => w.h.txns.map((_, t) => t).filter((t) => w.inWorld[t]);

/** a precedes b in session order: same session, a committed and listed first. */
function soBefore(w: World, a: number, b: number): boolean {
  return a < b && w.h.txns[a]!.status === 'committed' && w.h.txns[a]!.session === w.h.txns[b]!.session;
}

/** Whether the order (co, or one row's version order) keeps every insert right after an absent version. */
function insertsOk(w: World, order: readonly number[], key?: string): boolean {
  const last = new Map<string, Cell>();
  for (const t of order) {
    for (const [k, v] of w.final[t]!) {
      if (key !== undefined && k !== key) continue;
      if (w.insertsFirst[t]!.has(k) && (last.get(k) ?? null) !== null) return false;
      last.set(k, v);
    }
  }
  return true;
}

/** pl-1, ru: some co (with session order at ru) whose version orders keep the inserts' precondition. */
function someInsertOrder(w: World, level: WeakPredLevel): boolean {
  const txns = members(w);
  for (const co of permutations(txns)) {
    const pos = new Map(co.map((t, i) => [t, i]));
    if (level === 'ru' && txns.some((a) => txns.some((b) => soBefore(w, a, b) && pos.get(a)! > pos.get(b)!))) continue;
    if (insertsOk(w, co)) return true;
  }
  return false;
}

// ------------------------------------------------------------------ pl-2: Adya's G1c, literally

function acyclic(n: number, edges: boolean[][]): boolean {
  const state = new Array<number>(n).fill(0);
  const visit = (u: number): boolean => {
    state[u] = 1;
    for (let v = 0; v < n; v++) {
      if (!edges[u]![v]) continue;
      if (state[v] === 1 || (state[v] === 0 && !visit(v))) return false;
    }
    state[u] = 2;
    return true;
  };
  for (let u = 0; u < n; u++) if (state[u] === 0 && !visit(u)) return false;
  return true;
}

/** Some version order per row and version per observation with WW ∪ WR (item and predicate) acyclic and the counts right. */
function pl2(w: World): boolean {
  const keys = [...new Set(w.final.flatMap((m) => [...m.keys()]))];
  const orders = keys.map((k) => [...permutations(members(w).filter((t) => w.final[t]!.has(k)))].filter((o) => insertsOk(w, o, k)));
  if (orders.some((os) => os.length === 0)) return false;
  const pick = new Array<number>(keys.length).fill(0);
  for (;;) {
    const order = new Map(keys.map((k, i) => [k, [-1, ...orders[i]![pick[i]!]!]]));
    if (pl2Choices(w, order)) return true;
    let i = 0;
    while (i < keys.length && ++pick[i]! === orders[i]!.length) { pick[i] = 0; i++; }
    if (i === keys.length) return false;
  }
}

function pl2Choices(w: World, order: Map<string, number[]>): boolean {
  const n = w.n;
  const ww = Array.from({ length: n }, () => new Array<boolean>(n).fill(false));
  for (const seq of order.values()) for (let i = 2; i < seq.length; i++) ww[seq[i - 1]!]![seq[i]!] = true;
  const value = (k: string, c: number): Cell => (c < 0 ? null : w.final[c]!.get(k)!);
  const chosen = new Array<number>(w.obs.length).fill(-1);
  const lastOfCount = countEnds(w);
  const search = (i: number, edges: boolean[][]): boolean => {
    if (i === w.obs.length) return true;
    const o = w.obs[i]!;
    const seq = order.get(o.key) ?? [-1];
    for (const c of o.cands) {
      const e = edges.map((row) => row.slice());
      if (o.item && c >= 0) e[c]![o.reader] = true;
      if (o.pred !== null) {
        const m = (x: number) => rowMatches(o.pred!, w.keyOf.get(o.key)!, value(o.key, x));
        const at = seq.indexOf(c);
        // The reader's own version counts (a self-loop: the read reflects a write its transaction
        // makes later), as in brute-force-predicates.ts (docs/levels.md, "Predicates").
        for (let j = 1; j <= at; j++) if (m(seq[j]!) !== m(seq[j - 1]!)) e[seq[j]!]![o.reader] = true;
      }
      chosen[i] = c;
      if (!countOk(w, lastOfCount.get(i), chosen)) continue;
      if (acyclic(n, e) && search(i + 1, e)) return true;
    }
    return false;
  };
  return acyclic(n, ww) && search(0, ww);
}

/** Each count's last observation -> the count (its constraint is checked once all its versions are chosen). */
function countEnds(w: World): Map<number, CountGroup> {
  const out = new Map<number, CountGroup>();
  for (const g of w.counts) if (g.obs.length > 0) out.set(g.obs[g.obs.length - 1]!, g);
  return out;
}

function countOk(w: World, g: CountGroup | undefined, chosen: readonly number[]): boolean {
  if (g === undefined) return true;
  const matched = g.obs.filter((j) => {
    const o = w.obs[j]!, c = chosen[j]!;
    return rowMatches(g.pred, w.keyOf.get(o.key)!, c < 0 ? null : w.final[c]!.get(o.key)!);
  }).length;
  return matched === g.need;
}

// ------------------------------------------------------------------ mav, rc, ss-rc, ra, tcc

/** Some co and version per observation satisfying the level's axioms (see the header). */
function axiomatic(w: World, level: WeakPredLevel): boolean {
  if (w.counts.some((g) => g.obs.length === 0 && g.need !== 0)) return false;
  const txns = members(w);
  const lastOfCount = countEnds(w);
  for (const co of permutations(txns)) {
    const pos = new Map(co.map((t, i) => [t, i]));
    const before = (a: number, b: number) => a < 0 || pos.get(a)! < pos.get(b)!;
    if (!SESSIONLESS.has(level) && txns.some((a) => txns.some((b) => soBefore(w, a, b) && !before(a, b)))) continue;
    if (!insertsOk(w, co)) continue;
    // Only versions installed before the reader in co: an observation puts its writer first.
    const cands = w.obs.map((o) => o.cands.filter((c) => before(c, o.reader)));
    if (cands.some((c) => c.length === 0)) continue;
    const chosen = new Array<number>(w.obs.length).fill(-1);
    const search = (i: number): boolean => {
      if (i === w.obs.length) return axiomsHold(w, level, chosen, before);
      for (const c of cands[i]!) {
        chosen[i] = c;
        if (countOk(w, lastOfCount.get(i), chosen) && search(i + 1)) return true;
      }
      return false;
    };
    if (search(0)) return true;
  }
  return false;
}

/** The level's axiom over the observations with their chosen versions, under co (`before`). */
function axiomsHold(w: World, level: WeakPredLevel, chosen: readonly number[], before: (a: number, b: number) => boolean): boolean {
  // The reads: observations that are not a re-read of the version the txn observed last for the key.
  const reads = w.obs.map((o, i) => ({ o, t1: chosen[i]! }));
  const writes = (t: number, k: string) => w.final[t]!.has(k);
  const past = level === 'tcc' ? causalPast(w, reads) : null;
  const txns = members(w);
  for (const r of reads) {
    const t3 = r.o.reader;
    for (const t2 of txns) {
      if (t2 === r.t1 || t2 === t3 || !writes(t2, r.o.key)) continue;
      const earlier = reads.some((x) => x.o.reader === t3 && x.o.pos < r.o.pos && x.t1 === t2);
      let premise: boolean;
      switch (level) {
        case 'mav': case 'rc': premise = earlier; break;
        case 'ss-rc': premise = earlier || soBefore(w, t2, t3); break;
        case 'ra': premise = soBefore(w, t2, t3) || reads.some((x) => x.o.reader === t3 && x.t1 === t2); break;
        case 'tcc': premise = soBefore(w, t2, t3) || past!.get(t3)!.has(t2); break;
        default: premise = false;
      }
      if (premise && (r.t1 < 0 || !before(t2, r.t1))) return false;
    }
  }
  return true;
}

/** Per txn, its causal past: the txns with a path of session order and observations to it. */
function causalPast(w: World, reads: readonly { o: Obs; t1: number }[]): Map<number, Set<number>> {
  const txns = members(w);
  const direct = new Map<number, Set<number>>(txns.map((t) => [t, new Set<number>()]));
  for (const a of txns) for (const b of txns) if (soBefore(w, a, b)) direct.get(b)!.add(a);
  for (const r of reads) if (r.t1 >= 0) direct.get(r.o.reader)!.add(r.t1);
  const past = new Map<number, Set<number>>();
  for (const t of txns) {
    const seen = new Set<number>();
    const stack = [...direct.get(t)!];
    while (stack.length > 0) { const u = stack.pop()!; if (!seen.has(u)) { seen.add(u); stack.push(...direct.get(u)!); } }
    past.set(t, seen);
  }
  return past;
}

