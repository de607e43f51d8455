/**
 * Brute-force isolation oracles for tiny histories: the reference the checker is tested against.
 *
 * Takes: a `History` of read/write-register transactions (at most `ORACLE_TXNS_MAX` txns; a
 * handful of keys). Gives: 'valid' or 'violation' for strong session SI or serializability.
 *
 * Two structurally different oracles live here, and neither shares code with the pipeline under
 * `src/` (only the History model types and constants):
 * - `bruteForceCheck` is operational. SER: search for a serial order of the transactions,
 *   respecting session order, in which every read returns the current value. SI: search for a
 *   sequence of start/commit events in which every transaction reads the snapshot committed
 *   before its start and no two writers of a common key overlap (first-committer-wins).
 * - `bruteForceGraph` (and `bruteForceSiGraph`) is axiomatic: enumerate every per-key version
 *   order and check the Cerone–Gotsman characterization on explicitly composed relations.
 *
 * Transaction outcomes: committed txns take part, aborted ones never do (their writes are
 * invisible and their reads are not checked), and a txn of unknown outcome may go either way:
 * the history is valid iff some choice of in/out for the unknown txns makes it valid.
 *
 * Session order (docs/checking.md, "Session order"): a client invokes a txn only after the
 * previous one returned, so a txn T of a session begins after every earlier txn of the session
 * whose *commit* the client saw. A txn of unknown outcome returned no such news: it may commit
 * at any later time, so it orders nothing after it. Each oracle takes this straight from the
 * definition, as the set of pairs (A, T) with A committed and earlier than T in the session,
 * not from the pipeline's edges.
 *
 * Preconditions (checked, they throw): no list operations; every written value is unique per
 * key and is never the initial value. Without unique values a read would not name its writer,
 * and both oracles would silently check something else.
 */

import {
  INITIAL_VALUE,
  OP_READ,
  OP_WRITE,
  TXN_ABORTED,
  TXN_COMMITTED,
  type History,
} from '../../src/history/model.ts';

export type OracleLevel = 'si' | 'ser';
export type OracleVerdict = 'valid' | 'violation';

/** Larger histories make the enumerations explode; the oracles refuse them instead of hanging. */
export const ORACLE_TXNS_MAX = 8;

/** What the oracles need to know about one transaction, computed once from its operations. */
interface TxnFacts {
  readonly session: number;
  readonly status: number;
  /** False if the txn contradicts itself (INT): a read after its own write does not return its own last write. */
  readonly intOk: boolean;
  /**
   * External reads: key -> the distinct values returned by the reads of the key before the txn's
   * own write, in program order. Two values are a fuzzy (non-repeatable) read: no serial order
   * and no snapshot explains both, so both oracles find no schedule, by their own definitions.
   */
  readonly extReads: ReadonlyMap<number, readonly number[]>;
  /** Final writes: key -> the last value the txn writes to the key. */
  readonly finalWrites: ReadonlyMap<number, number>;
}

/** Who wrote a (key, value): the writer txn and whether the value is its final write of the key. */
interface WriteOrigin {
  readonly txn: number;
  readonly final: boolean;
}

interface Facts {
  readonly txns: readonly TxnFacts[];
  readonly keyCount: number;
  /** `origin[key].get(value)`: the write that produced the value. */
  readonly origin: readonly ReadonlyMap<number, WriteOrigin>[];
  /** The txns of each session in session order. */
  readonly sessions: readonly (readonly number[])[];
}

function collectFacts(h: History): Facts {
  if (h.txnCount > ORACLE_TXNS_MAX) {
    throw new Error(`brute-force oracle: ${h.txnCount} transactions (limit ${ORACLE_TXNS_MAX})`);
  }
  const keyCount = h.keyLabels.length;
  const origin: Map<number, WriteOrigin>[] = [];
  for (let k = 0; k < keyCount; k++) origin.push(new Map());
  const txns: TxnFacts[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    const extReads = new Map<number, number[]>();
    const own = new Map<number, number>();
    let intOk = true;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const kind = h.opKind[op]!, k = h.opKey[op]!, v = h.opValue[op]!;
      if (kind === OP_WRITE) {
        if (v === INITIAL_VALUE) throw new Error(`brute-force oracle: txn ${t} writes the initial value`);
        const prev = origin[k]!.get(v);
        if (prev !== undefined) throw new Error(`brute-force oracle: value ${v} of key ${k} written twice`);
        const earlier = own.get(k);
        if (earlier !== undefined) origin[k]!.set(earlier, { txn: t, final: false });
        origin[k]!.set(v, { txn: t, final: true });
        own.set(k, v);
      } else if (kind === OP_READ) {
        const mine = own.get(k);
        if (mine !== undefined) {
          if (v !== mine) intOk = false;
        } else {
          const seen = extReads.get(k);
          if (seen === undefined) extReads.set(k, [v]);
          else if (!seen.includes(v)) seen.push(v);
        }
      } else {
        throw new Error(`brute-force oracle: list operations are not supported (txn ${t})`);
      }
    }
    txns.push({ session: h.txnSession[t]!, status: h.txnStatus[t]!, intOk, extReads, finalWrites: own });
  }
  const sessions: number[][] = [];
  for (let s = 0; s < h.sessionCount; s++) {
    const list: number[] = [];
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) list.push(t);
    sessions.push(list);
  }
  return { txns, keyCount, origin, sessions };
}

/**
 * Calls `check` on every choice of in/out for the unknown txns (committed: in; aborted: out)
 * and returns 'valid' as soon as one choice is valid.
 */
function someChoice(facts: Facts, check: (included: readonly boolean[]) => boolean): OracleVerdict {
  const unknown: number[] = [];
  facts.txns.forEach((f, t) => {
    if (f.status !== TXN_COMMITTED && f.status !== TXN_ABORTED) unknown.push(t);
  });
  for (let mask = 0; mask < 1 << unknown.length; mask++) {
    const included = facts.txns.map((f) => f.status === TXN_COMMITTED);
    unknown.forEach((t, i) => {
      included[t] = (mask & (1 << i)) !== 0;
    });
    if (check(included)) return 'valid';
  }
  return 'violation';
}

/**
 * What the client knows of session order: `mustFollow[t]` lists every committed txn earlier than
 * t in t's session (t must begin after each of them committed). Txns of unknown outcome never
 * appear in it, and aborted ones never commit.
 */
function knownPredecessors(facts: Facts): number[][] {
  const mustFollow: number[][] = facts.txns.map(() => []);
  for (const list of facts.sessions) {
    for (let j = 0; j < list.length; j++) {
      for (let i = 0; i < j; i++) if (facts.txns[list[i]!]!.status === TXN_COMMITTED) mustFollow[list[j]!]!.push(list[i]!);
    }
  }
  return mustFollow;
}

/** The included txns, in history order. */
function members(facts: Facts, included: readonly boolean[]): number[] {
  return facts.txns.map((_, t) => t).filter((t) => included[t]);
}

/** True if every included txn is internally consistent (a cheap filter both oracles share). */
function allIntOk(facts: Facts, included: readonly boolean[]): boolean {
  return facts.txns.every((f, t) => !included[t] || f.intOk);
}

/** True if the external reads of `f` all return the current value in `db` (value id per key). */
function readsMatch(f: TxnFacts, db: readonly number[]): boolean {
  for (const [k, vs] of f.extReads) if (vs.some((v) => db[k] !== v)) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Operational oracles
// ---------------------------------------------------------------------------------------------

/**
 * SER: a depth-first search over serial orders. A txn may run once every committed txn before
 * it in its session has run. The state after a prefix is the set of txns run so far and the
 * database; a state that failed once fails again, so visited states are remembered.
 */
function serialOrderExists(facts: Facts, included: readonly boolean[]): boolean {
  if (!allIntOk(facts, included)) return false;
  const txns = members(facts, included);
  const mustFollow = knownPredecessors(facts);
  const done: boolean[] = facts.txns.map(() => false);
  const db: number[] = new Array<number>(facts.keyCount).fill(INITIAL_VALUE);
  const seen = new Set<string>();
  const dfs = (count: number): boolean => {
    if (count === txns.length) return true;
    const key = `${done.map(Number).join('')}|${db.join(',')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    for (const t of txns) {
      if (done[t] || !mustFollow[t]!.every((a) => done[a])) continue;
      const f = facts.txns[t]!;
      if (!readsMatch(f, db)) continue;
      const saved = db.slice();
      for (const [k, v] of f.finalWrites) db[k] = v;
      done[t] = true;
      if (dfs(count + 1)) return true;
      done[t] = false;
      for (let k = 0; k < db.length; k++) db[k] = saved[k]!;
    }
    return false;
  };
  return dfs(0);
}

const NOT_STARTED = 0;
const ACTIVE = 1;
const COMMITTED = 2;

/**
 * SI: a depth-first search over sequences of start(T) / commit(T) events.
 * - start(T) needs every committed txn before T in its session to have committed (strong
 *   session SI; a txn of unknown outcome orders nothing after it), T's external reads to equal the committed state now (its snapshot), and no active txn
 *   to write a key T writes: two intervals [start, commit] overlap iff one starts while the
 *   other is active, so first-committer-wins is checked entirely at start time.
 * - commit(T) installs T's final writes.
 * The state is the phase of every txn plus the committed database; what is visible at a start
 * depends only on that, so failed states are remembered.
 */
function siScheduleExists(facts: Facts, included: readonly boolean[]): boolean {
  if (!allIntOk(facts, included)) return false;
  const txns = members(facts, included);
  const mustFollow = knownPredecessors(facts);
  const phase: number[] = facts.txns.map(() => NOT_STARTED);
  const db: number[] = new Array<number>(facts.keyCount).fill(INITIAL_VALUE);
  const conflicts = (a: number, b: number): boolean => {
    for (const k of facts.txns[a]!.finalWrites.keys()) if (facts.txns[b]!.finalWrites.has(k)) return true;
    return false;
  };
  const seen = new Set<string>();
  const dfs = (committed: number): boolean => {
    if (committed === txns.length) return true;
    const key = `${phase.join('')}|${db.join(',')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    for (const t of txns) {
      if (phase[t] === ACTIVE) {
        const f = facts.txns[t]!;
        const saved = db.slice();
        for (const [k, v] of f.finalWrites) db[k] = v;
        phase[t] = COMMITTED;
        if (dfs(committed + 1)) return true;
        phase[t] = ACTIVE;
        for (let k = 0; k < db.length; k++) db[k] = saved[k]!;
      } else if (phase[t] === NOT_STARTED) {
        if (!mustFollow[t]!.every((a) => phase[a] === COMMITTED)) continue;
        if (!readsMatch(facts.txns[t]!, db)) continue;
        if (txns.some((u) => phase[u] === ACTIVE && conflicts(t, u))) continue;
        phase[t] = ACTIVE;
        if (dfs(committed)) return true;
        phase[t] = NOT_STARTED;
      }
    }
    return false;
  };
  return dfs(0);
}

/**
 * The operational oracle. SER: some serial order respecting session order explains every read.
 * SI (strong session SI): some start/commit schedule explains every read by the snapshot at
 * the txn's start, with first-committer-wins.
 */
export function bruteForceCheck(h: History, level: OracleLevel): OracleVerdict {
  const facts = collectFacts(h);
  return someChoice(facts, (included) =>
    level === 'ser' ? serialOrderExists(facts, included) : siScheduleExists(facts, included),
  );
}

// ---------------------------------------------------------------------------------------------
// Axiomatic (dependency graph) oracle
// ---------------------------------------------------------------------------------------------

/**
 * Relations over nodes 0..n where node 0 is the initial txn and node t+1 is txn t; a relation
 * is an array of bitmasks, `r[a] & (1 << b)` meaning (a, b) is in it. Tiny histories only.
 */
type Rel = number[];

function emptyRel(n: number): Rel {
  return new Array<number>(n).fill(0);
}

/** Composition `a ; b` = {(x, z) | (x, y) in a, (y, z) in b}. */
function compose(a: Rel, b: Rel): Rel {
  const out = emptyRel(a.length);
  for (let x = 0; x < a.length; x++) {
    for (let y = 0; y < a.length; y++) if (a[x]! & (1 << y)) out[x]! |= b[y]!;
  }
  return out;
}

function union(...rels: Rel[]): Rel {
  const out = emptyRel(rels[0]!.length);
  for (const r of rels) for (let x = 0; x < r.length; x++) out[x]! |= r[x]!;
  return out;
}

/** Acyclic iff no node reaches itself in the transitive closure (Floyd–Warshall on bitmasks). */
function acyclic(r: Rel): boolean {
  const reach = r.slice();
  for (let k = 0; k < reach.length; k++) {
    for (let x = 0; x < reach.length; x++) if (reach[x]! & (1 << k)) reach[x]! |= reach[k]!;
  }
  return reach.every((m, x) => (m & (1 << x)) === 0);
}

/** The relation that must be acyclic: `(SO ∪ WR ∪ WW) ; RW?` for SI, `SO ∪ WR ∪ WW ∪ RW` for SER. */
function mustBeAcyclic(level: OracleLevel, so: Rel, wr: Rel, ww: Rel, rw: Rel): Rel {
  const dep = union(so, wr, ww);
  return level === 'si' ? union(dep, compose(dep, rw)) : union(dep, rw);
}

/**
 * For one choice of included txns: derive SO and WR (fixed by the history), then enumerate the
 * version order of each key (the initial txn first, then a permutation of the key's included
 * writers). Orders are built one writer at a time; since relations only grow as writers are
 * appended, a cycle in a partial choice is a cycle in every completion and that branch is cut.
 */
function graphChoiceValid(facts: Facts, included: readonly boolean[], level: OracleLevel): boolean {
  if (!allIntOk(facts, included)) return false;
  const n = facts.txns.length + 1;
  const node = (t: number): number => t + 1;
  // SO: (A, T) for every included T and every committed A before it in its session.
  const so = emptyRel(n);
  knownPredecessors(facts).forEach((before, t) => {
    if (included[t]) for (const a of before) so[node(a)]! |= 1 << node(t);
  });
  // WR, and per key the readers of each writer node (for RW).
  const wr = emptyRel(n);
  const readersOf: Map<number, number[]>[] = [];
  for (let k = 0; k < facts.keyCount; k++) readersOf.push(new Map());
  for (let t = 0; t < facts.txns.length; t++) {
    if (!included[t]) continue;
    for (const [k, v] of [...facts.txns[t]!.extReads].flatMap(([key, vs]) => vs.map((x) => [key, x] as const))) {
      let w: number;
      if (v === INITIAL_VALUE) {
        w = 0;
      } else {
        const o = facts.origin[k]!.get(v);
        // Thin air, an excluded (aborted) writer, an intermediate write, or the txn's own
        // write that comes later in program order: no version order can explain the read.
        if (o === undefined || !included[o.txn] || !o.final || o.txn === t) return false;
        w = node(o.txn);
      }
      wr[w]! |= 1 << node(t);
      const list = readersOf[k]!.get(w) ?? [];
      list.push(node(t));
      readersOf[k]!.set(w, list);
    }
  }
  const writers: number[][] = [];
  for (let k = 0; k < facts.keyCount; k++) {
    const list: number[] = [];
    facts.txns.forEach((f, t) => {
      if (included[t] && f.finalWrites.has(k)) list.push(node(t));
    });
    writers.push(list);
  }
  if (!acyclic(mustBeAcyclic(level, so, wr, emptyRel(n), emptyRel(n)))) return false;

  // Depth-first over keys, and within a key over the next writer to append to its order.
  const extend = (k: number, order: number[], ww: Rel, rw: Rel): boolean => {
    if (k === facts.keyCount) return true;
    const remaining = writers[k]!.filter((w) => !order.includes(w));
    if (remaining.length === 0) return extend(k + 1, [0], ww, rw);
    for (const w of remaining) {
      const ww2 = ww.slice(), rw2 = rw.slice();
      for (const before of order) {
        ww2[before]! |= 1 << w;
        // Every reader of an earlier version of k anti-depends on the new, later version.
        for (const r of readersOf[k]!.get(before) ?? []) if (r !== w) rw2[r]! |= 1 << w;
      }
      if (!acyclic(mustBeAcyclic(level, so, wr, ww2, rw2))) continue;
      if (extend(k, [...order, w], ww2, rw2)) return true;
    }
    return false;
  };
  return extend(0, [0], emptyRel(n), emptyRel(n));
}

/**
 * The axiomatic oracle: SI iff INT and some per-key version order makes
 * `(SO ∪ WR ∪ WW) ; RW?` acyclic; SER iff INT and some makes `SO ∪ WR ∪ WW ∪ RW` acyclic.
 */
export function bruteForceGraph(h: History, level: OracleLevel): OracleVerdict {
  const facts = collectFacts(h);
  return someChoice(facts, (included) => graphChoiceValid(facts, included, level));
}

/** The axiomatic SI oracle (Cerone–Gotsman characterization of strong session SI). */
export function bruteForceSiGraph(h: History): OracleVerdict {
  return bruteForceGraph(h, 'si');
}
