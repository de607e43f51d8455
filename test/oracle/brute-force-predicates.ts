/**
 * Brute-force oracles for histories with relations, inserts, deletes and predicate reads (issue
 * 22) at the ladder's polygraph levels, on tiny histories (at most PRED_ORACLE_TXNS_MAX txns).
 *
 * Takes: a PredHistory (predicate-history.ts: keys and values as written; no src/ parsing).
 * Gives: 'valid' | 'violation' per level, by two methods that share no code with src/ (not even
 * the predicate language: predicate-eval.ts) nor with each other beyond loading the txns.
 *
 * Common ground (docs/levels.md, "Predicates"; /work/notes/contract.md):
 * - A row of a relation starts absent; `insert` and `w` install a present version, `delete` the
 *   absent one. An absent row matches no predicate. A read of `null` saw the initial state (for a
 *   relation key: no row).
 * - An insert must overwrite an absent row: the version just before it in its key's version order
 *   (or the txn's own earlier write of the key) is absent. A history with no such order breaks
 *   the database's own uniqueness: a violation at every level.
 * - `select(P) -> rows` observes one version of every row of the relation: the rows returned are
 *   exactly the observed versions that are present and match P (each returned row's version is
 *   the one with that value; a returned row that does not match P has no explanation:
 *   `predicate-mismatch`, a violation at every level). `count(P) -> n`: n of the observed
 *   versions match P. A row the txn wrote before is observed as its own last write (INT).
 * - Only committed txns take part; unknown-outcome txns go either way (valid iff some choice is).
 *
 * 1. `axiomaticPredLevel` (Cerone, Bernardi, Gotsman 2015) for SER, SI, PC and their session-free
 *    forms PL-3, PL-SI: some commit order CO and, per txn, a visible prefix of CO (SER, PL-3: all
 *    of CO before it; SI, PL-SI: with NOCONFLICT; PC without) under which every op of the txn
 *    returns what the visible state gives: a read its key's value, a select exactly the present
 *    matching rows of the visible state (the latest visible version of every row, i.e. the
 *    snapshot), a count their number. SESSION (earlier committed txns of the session are visible)
 *    for ser, si and pc. An insert's key must be absent in the state of all of CO before it (the
 *    version order), whatever the txn sees.
 * 2. `graphPredLevel` (Adya's thesis, ch. 3-4, literally): enumerate every version order per key
 *    (the initial version first) and every choice of version per observation (per read, and per
 *    row of each predicate read: its Vset), and build Adya's direct dependencies between distinct
 *    txns: WW (consecutive versions); item WR (a read or a returned row saw T's version); item
 *    RW (a read or returned row saw x_k, T installed the next version of x); predicate WR (a
 *    predicate read's Vset holds x_k, T installed x_i with x_i = x_k or x_i << x_k, and x_i
 *    *changes the matches*: the version before it matches P and x_i does not, or vice versa;
 *    T may be the reader itself, whose later write then precedes what its read saw: a self-loop,
 *    forbidden at every level, see docs/levels.md, "Predicates", for why this is Adya's reading);
 *    predicate RW (T ≠ reader installed x_j changing the matches with x_k << x_j). A count
 *    observes a Vset but returns no rows, so it makes predicate edges only. The level's condition:
 *    - ser: SO ∪ WR ∪ WW ∪ RW acyclic; pl-3 (Adya's PL-3): WR ∪ WW ∪ RW acyclic (no G1c, no G2);
 *    - rr (Adya's PL-2.99): no G1c (WR ∪ WW acyclic) and no G2-item: no cycle of WR ∪ WW ∪ RW
 *      with an *item* RW edge; cycles whose anti-dependencies are all predicate ones are allowed;
 *    - si: (Dep ; RW?) acyclic with Dep = SO ∪ WR ∪ WW (Cerone & Gotsman 2016); pl-si without SO;
 *    - pc: ((SO ∪ WR) ; RW?) ∪ WW acyclic; psi: Dep acyclic and no RW a->b with b Dep+ a
 *      (Bernardi & Gotsman 2016), RW being item and predicate anti-dependencies alike.
 *    Every condition is monotone in the edges, so the search cuts a branch as soon as its edges
 *    are forbidden.
 * The two methods answer the same question for ser, pl-3, si, pl-si and pc on these histories;
 * oracle-predicates.test.ts checks that they agree on generated ones (0 disagreements in 1500).
 *
 * These are the definitions of docs/levels.md, "Predicates" (checked against it at pred-core
 * 286dfeb): a returned row is an item read, a row not returned an observation of a non-matching
 * version, a count a version set without item reads, rr forbids G1 and G2-item (a cycle with an
 * item anti-dependency, whatever else it has), duplicate inserts and predicate mismatches violate
 * every level, only txns that take part count. One difference of method, not of meaning: the
 * checker reads an observed version as an item read (anti-dependencies to every later writer,
 * a read-dependency on the version's own writer) where this oracle builds Adya's edges from the
 * versions that change the matches; with the version left free the two never disagreed here
 * (docs/levels.md argues they coincide). Until branch pred-own this oracle dropped the reader's
 * own version from the predicate WR edges, and so called valid a read that reflected its own
 * later write (differential case 81), which the axiomatic method calls a violation
 * (oracle-predicates.test.ts covers the shape on purpose). The weak levels (rc, ra, ...) are
 * not covered here (brute-force-weak-predicates.ts).
 */

import { rowMatches } from './predicate-eval.ts';
import type { PredHistory, PredOp, Scalar } from './predicate-history.ts';

export type PredLevel = 'pc' | 'psi' | 'rr' | 'pl-si' | 'si' | 'pl-3' | 'ser';
export type AxiomaticPredLevel = Exclude<PredLevel, 'rr' | 'psi'>;
export type Verdict = 'valid' | 'violation';
export const PRED_ORACLE_TXNS_MAX = 6;

const SESSIONLESS: ReadonlySet<PredLevel> = new Set(['rr', 'pl-si', 'pl-3']);

/** A value of the state: null is the initial state (absent for a relation key). */
type Cell = Scalar | null;

interface Loaded {
  h: PredHistory;
  n: number;
  /** Key text -> the key as written (the `key` of a predicate). */
  keyOf: Map<string, Scalar>;
  /** Relation name -> its keys' texts. */
  relKeys: Map<string, string[]>;
  /** Per txn: the keys it writes (any of w, insert, delete). */
  writes: Set<string>[];
}

const kt = (k: Scalar): string => String(k);

function load(h: PredHistory): Loaded {
  if (h.txns.length > PRED_ORACLE_TXNS_MAX) throw new Error(`predicate oracle: ${h.txns.length} txns (limit ${PRED_ORACLE_TXNS_MAX})`);
  const keyOf = new Map<string, Scalar>(), relKeys = new Map<string, string[]>(), relOfKey = new Map<string, string>();
  for (const [rel, keys] of Object.entries(h.relations)) {
    relKeys.set(rel, keys.map(kt));
    for (const k of keys) {
      if (relOfKey.has(kt(k))) throw new Error(`predicate oracle: key ${k} in two relations`);
      relOfKey.set(kt(k), rel);
      keyOf.set(kt(k), k);
    }
  }
  const written = new Set<string>();
  const writes = h.txns.map((t) => {
    const ks = new Set<string>();
    for (const o of t.ops) {
      if (o.op === 'w' || o.op === 'insert' || o.op === 'delete') {
        ks.add(kt(o.key));
        if (!keyOf.has(kt(o.key))) keyOf.set(kt(o.key), o.key);
        if ((o.op === 'insert' || o.op === 'delete') && !relOfKey.has(kt(o.key))) throw new Error(`predicate oracle: ${o.op} of ${o.key}, in no relation`);
      }
      if (o.op === 'w' || o.op === 'insert') {
        const id = `${kt(o.key)}\u0000${typeof o.value}:${o.value}`;
        if (written.has(id)) throw new Error(`predicate oracle: value ${o.value} written twice to ${o.key}`);
        written.add(id);
      }
      if ((o.op === 'select' || o.op === 'count') && !relKeys.has(o.rel)) throw new Error(`predicate oracle: relation ${o.rel} not declared`);
    }
    return ks;
  });
  return { h, n: h.txns.length, keyOf, relKeys, writes };
}

/** Each choice of outcome for the unknown txns, as the set of txns taking part; true iff ok holds for one. */
function someWorld(w: Loaded, ok: (inWorld: boolean[]) => boolean): Verdict {
  const unknown: number[] = [];
  w.h.txns.forEach((t, i) => { if (t.status === 'unknown') unknown.push(i); });
  for (let mask = 0; mask < 1 << unknown.length; mask++) {
    const inWorld = w.h.txns.map((t) => t.status === 'committed');
    unknown.forEach((t, i) => { inWorld[t] = ((mask >> i) & 1) === 1; });
    if (ok(inWorld)) return 'valid';
  }
  return 'violation';
}

/** Session order among the txns taking part: a before b when a committed, same session, a first. */
function sessionPairs(w: Loaded, inWorld: boolean[], level: PredLevel): [number, number][] {
  if (SESSIONLESS.has(level)) return [];
  const out: [number, number][] = [];
  for (let a = 0; a < w.n; a++) {
    for (let b = a + 1; b < w.n; b++) {
      if (inWorld[a] && inWorld[b] && w.h.txns[a]!.status === 'committed' && w.h.txns[a]!.session === w.h.txns[b]!.session) out.push([a, b]);
    }
  }
  return out;
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [items.slice()];
  const out: T[][] = [];
  items.forEach((x, i) => {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) out.push([x, ...rest]);
  });
  return out;
}

/** The state after running the writes of `txns` in order: key text -> its last write (null: deleted). */
function stateAfter(w: Loaded, txns: readonly number[]): Map<string, Cell> {
  const s = new Map<string, Cell>();
  for (const t of txns) {
    for (const o of w.h.txns[t]!.ops) {
      if (o.op === 'w' || o.op === 'insert') s.set(kt(o.key), o.value);
      else if (o.op === 'delete') s.set(kt(o.key), null);
    }
  }
  return s;
}

// ------------------------------------------------------------------ 1. axiomatic (commit orders)

/**
 * Runs txn t's program with `visible` as the state it reads and `before` as the state of all of
 * CO before it (for inserts); true iff every op returns what it returned.
 */
function runs(w: Loaded, t: number, visible: Map<string, Cell>, before: Map<string, Cell>): boolean {
  const local = new Map<string, Cell>();
  const cur = (k: string): Cell => (local.has(k) ? local.get(k)! : visible.get(k) ?? null);
  for (const o of w.h.txns[t]!.ops) {
    switch (o.op) {
      case 'r': if (cur(kt(o.key)) !== o.value) return false; break;
      case 'w': local.set(kt(o.key), o.value); break;
      case 'insert': {
        const k = kt(o.key);
        if ((local.has(k) ? local.get(k)! : before.get(k) ?? null) !== null) return false;
        local.set(k, o.value);
        break;
      }
      case 'delete': local.set(kt(o.key), null); break;
      case 'select': {
        const expected = new Set<string>();
        for (const k of w.relKeys.get(o.rel)!) {
          const v = cur(k);
          if (rowMatches(o.pred, w.keyOf.get(k)!, v)) expected.add(`${k}\u0000${typeof v}:${v}`);
        }
        if (expected.size !== o.rows.length) return false;
        if (o.rows.some(([k, v]) => !expected.has(`${kt(k)}\u0000${typeof v}:${v}`))) return false;
        break;
      }
      case 'count': {
        const n = w.relKeys.get(o.rel)!.filter((k) => rowMatches(o.pred, w.keyOf.get(k)!, cur(k))).length;
        if (n !== o.n) return false;
        break;
      }
    }
  }
  return true;
}

export function axiomaticPredLevel(h: PredHistory, level: AxiomaticPredLevel): Verdict {
  const w = load(h);
  const full = level === 'ser' || level === 'pl-3';
  return someWorld(w, (inWorld) => {
    const members = w.h.txns.map((_, t) => t).filter((t) => inWorld[t]);
    const must = sessionPairs(w, inWorld, level);
    for (const co of permutations(members)) {
      const pos = new Map(co.map((t, i) => [t, i]));
      if (must.some(([a, b]) => pos.get(a)! > pos.get(b)!)) continue;
      let ok = true;
      for (let i = 0; i < co.length && ok; i++) {
        const t = co[i]!;
        const before = stateAfter(w, co.slice(0, i));
        let found = false;
        // VIS^-1(t) = co[0 .. p-1]: SESSION and (but for PC) NOCONFLICT bound p from below.
        for (let p = full ? i : 0; p <= i && !found; p++) {
          if (must.some(([a, b]) => b === t && pos.get(a)! >= p)) continue;
          if (level !== 'pc' && co.slice(p, i).some((a) => [...w.writes[a]!].some((k) => w.writes[t]!.has(k)))) continue;
          found = runs(w, t, stateAfter(w, co.slice(0, p)), before);
        }
        ok = found;
      }
      if (ok) return true;
    }
    return false;
  });
}

// ------------------------------------------------------------------ 2. Adya's graphs

/** One external observation of a key: a read, or one row of a predicate read's Vset. */
interface Obs {
  reader: number;
  key: string;
  /** An item read (a read, or a returned row) makes item edges; a predicate read predicate edges. */
  item: boolean;
  /** The predicate text when it is (part of) a predicate read. */
  pred: string | null;
  /** Versions it may have observed: a writer txn, or -1 for the initial version. */
  cands: number[];
}

/** A count's constraint: among its observations `obs`, exactly `need` observed a matching version. */
interface CountGroup {
  obs: number[];
  need: number;
  pred: string;
}

interface Facts {
  obs: Obs[];
  counts: CountGroup[];
  /** Per txn: key -> the txn's final write (null: delete). */
  final: Map<string, Cell>[];
  /** Per txn: keys whose first write in the txn is an insert (its version must follow an absent one). */
  insertsFirst: Set<string>[];
}

/**
 * The observations of the txns taking part, or null when a txn contradicts itself or a read has
 * no version to explain it (a value never written by a txn taking part, an intermediate write, a
 * returned row not matching its predicate).
 */
function facts(w: Loaded, inWorld: boolean[]): Facts | null {
  const final = w.h.txns.map((_, t) => (inWorld[t] ? stateAfter(w, [t]) : new Map<string, Cell>()));
  const insertsFirst = w.h.txns.map(() => new Set<string>());
  const obs: Obs[] = [], counts: CountGroup[] = [];
  const versionsOf = (k: string, reader: number): number[] => {
    const out = [-1];
    for (let t = 0; t < w.n; t++) if (t !== reader && inWorld[t] && final[t]!.has(k)) out.push(t);
    return out;
  };
  const valueOf = (k: string, c: number): Cell => (c < 0 ? null : final[c]!.get(k)!);
  for (let t = 0; t < w.n; t++) {
    if (!inWorld[t]) continue;
    const local = new Map<string, Cell>();
    for (const o of w.h.txns[t]!.ops as PredOp[]) {
      if (o.op === 'w' || o.op === 'insert' || o.op === 'delete') {
        const k = kt(o.key);
        if (o.op === 'insert') {
          if (local.has(k)) { if (local.get(k) !== null) return null; } else insertsFirst[t]!.add(k);
        }
        local.set(k, o.op === 'delete' ? null : o.value);
      } else if (o.op === 'r') {
        const k = kt(o.key);
        if (local.has(k)) { if (local.get(k) !== o.value) return null; continue; }
        const cands = versionsOf(k, t).filter((c) => valueOf(k, c) === o.value);
        if (cands.length === 0) return null;
        obs.push({ reader: t, key: k, item: true, pred: null, cands });
      } else {
        const group: number[] = [];
        let fixedMatches = 0;
        const returned = new Map<string, Scalar>();
        if (o.op === 'select') for (const [k, v] of o.rows) returned.set(kt(k), v);
        for (const k of w.relKeys.get(o.rel)!) {
          const key = w.keyOf.get(k)!;
          const m = (c: Cell) => rowMatches(o.pred, key, c);
          if (local.has(k)) {
            // Its own write: no choice, and the result must agree with it.
            const v = local.get(k)!;
            if (o.op === 'select' && (m(v) ? returned.get(k) !== v : returned.has(k))) return null;
            if (m(v)) fixedMatches++;
            continue;
          }
          const all = versionsOf(k, t);
          if (o.op === 'count') {
            group.push(obs.length);
            obs.push({ reader: t, key: k, item: false, pred: o.pred, cands: all });
          } else if (returned.has(k)) {
            const v = returned.get(k)!;
            const cands = all.filter((c) => valueOf(k, c) === v && m(valueOf(k, c)));
            if (cands.length === 0) return null;
            obs.push({ reader: t, key: k, item: true, pred: o.pred, cands });
          } else {
            obs.push({ reader: t, key: k, item: false, pred: o.pred, cands: all.filter((c) => !m(valueOf(k, c))) });
          }
        }
        if (o.op === 'select' && [...returned.keys()].some((k) => !w.relKeys.get(o.rel)!.includes(k))) return null;
        if (o.op === 'count') {
          if (o.n < fixedMatches || o.n > fixedMatches + group.length) return null;
          counts.push({ obs: group, need: o.n - fixedMatches, pred: o.pred });
        }
      }
    }
  }
  return { obs, counts, final, insertsFirst };
}

/** The value of key k's version installed by c (-1: the initial version, absent). */
const versionValue = (f: Facts, k: string, c: number): Cell => (c < 0 ? null : f.final[c]!.get(k)!);

type Rel = boolean[][];

interface Edges { so: Rel; wr: Rel; ww: Rel; rwItem: Rel; rwPred: Rel }

const emptyRel = (n: number): Rel => Array.from({ length: n }, () => new Array<boolean>(n).fill(false));
const copyRel = (r: Rel): Rel => r.map((row) => row.slice());

function forbidden(level: PredLevel, n: number, e: Edges): boolean {
  const union = (...rs: Rel[]): Rel => rs[0]!.map((row, a) => row.map((_, b) => rs.some((r) => r[a]![b])));
  const seq = (r: Rel, s: Rel): Rel => r.map((row) => row.map((_, c) => row.some((x, b) => x && s[b]![c])));
  const plus = (r: Rel): Rel => {
    const c = copyRel(r);
    for (let k = 0; k < n; k++) for (let a = 0; a < n; a++) if (c[a]![k]) for (let b = 0; b < n; b++) if (c[k]![b]) c[a]![b] = true;
    return c;
  };
  const cyclic = (r: Rel): boolean => plus(r).some((row, a) => row[a]);
  const rw = union(e.rwItem, e.rwPred);
  const dep = union(e.so, e.wr, e.ww);
  switch (level) {
    case 'ser': case 'pl-3': return cyclic(union(dep, rw)); // SO is empty at pl-3
    case 'si': case 'pl-si': return cyclic(union(dep, seq(dep, rw)));
    case 'pc': { const c = union(e.so, e.wr); return cyclic(union(c, seq(c, rw), e.ww)); }
    case 'psi': { const p = plus(dep); return p.some((row, a) => row[a]) || rw.some((row, a) => row.some((x, b) => x && p[b]![a])); }
    case 'rr': {
      if (cyclic(union(e.wr, e.ww))) return true; // G1c
      const p = plus(union(e.wr, e.ww, rw));
      return e.rwItem.some((row, a) => row.some((x, b) => x && p[b]![a])); // G2-item
    }
  }
}

/** Adds to `e` the edges of observation o having observed the version of `choice`, given the version orders. */
function addObsEdges(e: Edges, o: Obs, choice: number, order: Map<string, number[]>, f: Facts, w: Loaded): void {
  const seq = [-1, ...(order.get(o.key) ?? [])];
  const idx = seq.indexOf(choice);
  const r = o.reader;
  if (o.item) {
    if (choice >= 0) e.wr[choice]![r] = true;
    const next = seq[idx + 1];
    if (next !== undefined && next !== r) e.rwItem[r]![next] = true;
  }
  if (o.pred !== null) {
    const key = w.keyOf.get(o.key)!;
    const m = (c: number) => rowMatches(o.pred!, key, versionValue(f, o.key, c));
    for (let j = 1; j < seq.length; j++) {
      const tj = seq[j]!;
      if (m(tj) === m(seq[j - 1]!)) continue; // only versions that change the matches
      // The reader's own version counts too (i = j in Adya's definition): a Vset holding a
      // version at or after the reader's own later one that changes the matches makes the read
      // depend on its own transaction, a self-loop every level forbids (docs/levels.md,
      // "Predicates", "A predicate read and the reader's own later write"). Its own version
      // after the Vset's is only its write following its read: no edge.
      if (j <= idx) e.wr[tj]![r] = true;
      else if (tj !== r) e.rwPred[r]![tj] = true;
    }
  }
}

export function graphPredLevel(h: PredHistory, level: PredLevel): Verdict {
  const w = load(h);
  const n = w.n;
  return someWorld(w, (inWorld) => {
    const f = facts(w, inWorld);
    if (f === null) return false;
    const keys = [...new Set(f.final.flatMap((m) => [...m.keys()]))];
    const ordersPerKey = keys.map((k) => permutations(w.h.txns.map((_, t) => t).filter((t) => inWorld[t] && f.final[t]!.has(k)))
      // An insert follows an absent version: the initial one (first place) or a delete.
      .filter((ord) => ord.every((t, i) => !f.insertsFirst[t]!.has(k) || i === 0 || f.final[ord[i - 1]!]!.get(k) === null)));
    if (ordersPerKey.some((os) => os.length === 0)) return false;
    const base: Edges = { so: emptyRel(n), wr: emptyRel(n), ww: emptyRel(n), rwItem: emptyRel(n), rwPred: emptyRel(n) };
    for (const [a, b] of sessionPairs(w, inWorld, level)) base.so[a]![b] = true;
    const choice = new Array<number>(keys.length).fill(0);
    // Observations of a count come together, so its constraint is checked as soon as they are chosen.
    const lastOfCount = new Map<number, CountGroup>();
    for (const g of f.counts) if (g.obs.length > 0) lastOfCount.set(g.obs[g.obs.length - 1]!, g);
    // Chooses a version for observations i.. (backtracking; a branch ends as soon as its edges are forbidden).
    const search = (order: Map<string, number[]>, i: number, e: Edges, chosen: number[]): boolean => {
      if (i === f.obs.length) return true;
      const o = f.obs[i]!;
      for (const c of o.cands) {
        const next: Edges = { so: e.so, ww: e.ww, wr: copyRel(e.wr), rwItem: copyRel(e.rwItem), rwPred: copyRel(e.rwPred) };
        addObsEdges(next, o, c, order, f, w);
        chosen[i] = c;
        const g = lastOfCount.get(i);
        if (g !== undefined) {
          const matched = g.obs.filter((j) => rowMatches(g.pred, w.keyOf.get(f.obs[j]!.key)!, versionValue(f, f.obs[j]!.key, chosen[j]!))).length;
          if (matched !== g.need) continue;
        }
        if (!forbidden(level, n, next) && search(order, i + 1, next, chosen)) return true;
      }
      return false;
    };
    for (;;) {
      const order = new Map<string, number[]>();
      const e: Edges = { ...base, ww: emptyRel(n) };
      keys.forEach((k, i) => {
        const ord = ordersPerKey[i]![choice[i]!]!;
        order.set(k, ord);
        for (let x = 0; x + 1 < ord.length; x++) e.ww[ord[x]!]![ord[x + 1]!] = true;
      });
      if (f.counts.every((g) => g.obs.length > 0 || g.need === 0) && !forbidden(level, n, e) && search(order, 0, e, [])) return true;
      let i = 0;
      while (i < keys.length && ++choice[i]! === ordersPerKey[i]!.length) { choice[i] = 0; i++; }
      if (i === keys.length) return false;
    }
  });
}
