// The Polygraph builder of commit 0813a55, kept as the reference for test/graph/polygraph-differential.test.ts.
/**
 * The generalized polygraph (PolySI §4.2, Definition 1): known edges plus either/or constraints.
 *
 * Takes: a `Validated` history. Gives: `Polygraph`:
 * - known edges: SO into each included txn from the last committed txn before it in its
 *   session (none out of a txn of unknown outcome), RT (real-time order, strict levels only),
 *   WR from every resolved
 *   read, and the WW/RW edges forced by the initial state and by list-append chains;
 * - one constraint per unordered pair of "free" writers {A, B} of a common key, coalesced over
 *   all keys both write: either = {A -WW-> B} ∪ {R -RW-> B : R read the key from A},
 *   or = {B -WW-> A} ∪ {R -RW-> A : R read the key from B}.
 * Coalescing is sound because two writers can never be ordered differently on two keys without
 * a WW cycle. A writer is "free" on a key unless a list read fixed its place in the order.
 *
 * Invariant: constraint c's either edges are `ce*[edgeStart[2c] .. edgeStart[2c+1]-1]` and its
 * or edges `ce*[edgeStart[2c+1] .. edgeStart[2c+2]-1]`; the either side orders consA[c] before
 * consB[c]. Edges from the initial transaction are not in the graph (nothing reaches it).
 */

import { GrowableInt32 } from '../../src/util/growable.ts';
import { checkDeadline, DEADLINE_CHECK_MASK } from '../../src/util/deadline.ts';
import { INIT_TXN } from '../../src/result/types.ts';
import { TXN_COMMITTED } from '../../src/history/model.ts';
import type { Validated } from '../../src/validate/validate.ts';
import { EdgeList, K_RW, K_SO, K_WR, K_WW } from '../../src/graph/edges.ts';
import { addRealTimeOrder } from '../../src/graph/realtime.ts';

export interface Polygraph {
  nodeCount: number;
  known: EdgeList;
  consCount: number;
  consA: Int32Array;
  consB: Int32Array;
  edgeStart: Int32Array;
  ceFrom: Int32Array;
  ceTo: Int32Array;
  ceKind: Int32Array;
  ceKey: Int32Array;
}

/**
 * Most writer pairs (constraints before coalescing) built; one key with w free writers alone
 * makes w(w-1)/2 of them, each with at least two edges. Measured with blind writers of one key
 * (nothing prunes, the solver gets every pair): 3.1 M pairs 1.2 GB, 12.5 M pairs 4.3 GB; real
 * histories of 10^6 txns make about 8 M. Past it the check answers `unknown` naming the
 * hottest key instead of exhausting memory.
 */
export const CONSTRAINTS_MAX = 20_000_000;
/** Most constraint edges built (WW plus the RW edges of each pair; about 60 bytes each). */
export const CONSTRAINT_EDGES_MAX = 60_000_000;

/** What buildPolygraph would build, counted in linear time without building it. */
export interface ConstraintCount {
  /** Writer pairs over all keys (an upper bound on the constraints after coalescing). */
  pairs: number;
  /** Edges of those pairs (WW and RW), before coalescing. */
  edges: number;
  /** The key with the most free writers (-1 if none), its writer count and its pairs. */
  hotKey: number;
  hotWriters: number;
  hotPairs: number;
}

/**
 * Counts the writer pairs and their edges per key exactly as buildPolygraph will generate
 * them (free writers: those a list read did not place), in O(reads + writes), so that the
 * caller can refuse a quadratic blow-up before allocating it.
 */
export function countConstraints(v: Validated): ConstraintCount {
  const memo = countMemo.get(v);
  if (memo !== undefined) return { ...memo };
  const h = v.history;
  const n = h.txnCount;
  const nKeys = h.keyLabels.length;
  const byKey = groupByKey(nKeys, v);
  const readers = new Int32Array(n), readersStamp = new Int32Array(n).fill(-1);
  const inChain = new Int32Array(n).fill(-1);
  const out: ConstraintCount = { pairs: 0, edges: 0, hotKey: -1, hotWriters: 0, hotPairs: 0 };
  for (let key = 0; key < nKeys; key++) {
    const chain = v.lists.chains.get(key);
    if (chain !== undefined) for (let c = 0; c < chain.length; c++) inChain[chain[c]!] = key;
    for (let j = byKey.readStart[key]!; j < byKey.readStart[key + 1]!; j++) {
      const w = v.reads.writer[byKey.readIdx[j]!]!;
      if (w === INIT_TXN) continue;
      if (readersStamp[w] !== key) { readersStamp[w] = key; readers[w] = 0; }
      readers[w]!++;
    }
    let free = 0, sides = 0;
    for (let j = byKey.writeStart[key]!; j < byKey.writeStart[key + 1]!; j++) {
      const w = byKey.writeTxn[j]!;
      if (inChain[w] === key) continue;
      free++;
      sides += 1 + (readersStamp[w] === key ? readers[w]! : 0);
    }
    if (free < 2) continue;
    const pairs = (free * (free - 1)) / 2;
    out.pairs += pairs;
    // Each free writer is in free-1 pairs, bringing its WW edge and its readers' RW edges to each.
    out.edges += (free - 1) * sides;
    if (free > out.hotWriters) { out.hotKey = key; out.hotWriters = free; out.hotPairs = pairs; }
  }
  countMemo.set(v, out);
  return { ...out };
}

/**
 * countConstraints and buildPolygraph both need the reads and writes by key, and
 * buildPolygraph sizes its buffers by the count: both are kept per Validated (which is never
 * mutated) so that the checker, which calls one and then the other, computes them once.
 */
const countMemo = new WeakMap<Validated, ConstraintCount>();
const byKeyMemo = new WeakMap<Validated, ByKey>();

/**
 * `deadlineMs` (epoch ms) is checked while pairing writers (TimeLimitError('construct'));
 * `onKeys(done, total)` is called every KEYS_PER_REPORT keys and at the end, for progress on long builds.
 * `realTime`: add the real-time order (RT edges, realtime.ts) for the strict levels.
 */
export function buildPolygraph(
  v: Validated, deadlineMs = Number.POSITIVE_INFINITY, onKeys?: (done: number, total: number) => void, realTime = false,
): Polygraph {
  const h = v.history;
  const n = h.txnCount;
  const known = new EdgeList();
  addSessionOrder(v, known);
  if (realTime) addRealTimeOrder(v, known);
  for (let i = 0; i < v.reads.count; i++) {
    const w = v.reads.writer[i]!;
    if (w !== INIT_TXN) known.push(w, v.reads.txn[i]!, K_WR, v.reads.key[i]!);
  }

  const nKeys = h.keyLabels.length;
  const byKey = groupByKey(nKeys, v);
  // An upper bound on the records and edges pushed below (exact but for readers that are the other writer).
  const count = countConstraints(v);
  // readers of (key, writer) as linked lists: head[writer] valid while headStamp[writer] === key.
  const head = new Int32Array(n).fill(-1), headStamp = new Int32Array(n).fill(-1);
  const next = new Int32Array(v.reads.count);
  const inChain = new Int32Array(n).fill(-1);
  const free = new GrowableInt32();
  const pending = new PendingConstraints(n, count.pairs, count.edges);

  for (let key = 0; key < nKeys; key++) {
    if (onKeys !== undefined && key % KEYS_PER_REPORT === 0) onKeys(key, nKeys);
    if ((key & DEADLINE_CHECK_MASK) === 0) checkDeadline(deadlineMs, 'construct');
    let initHead = -1;
    for (let j = byKey.readStart[key]!; j < byKey.readStart[key + 1]!; j++) {
      const i = byKey.readIdx[j]!;
      const w = v.reads.writer[i]!;
      if (w === INIT_TXN) { next[i] = initHead; initHead = i; continue; }
      if (headStamp[w] !== key) { headStamp[w] = key; head[w] = -1; }
      next[i] = head[w]!; head[w] = i;
    }
    const readersOf = (w: number): number => (w === INIT_TXN ? initHead : headStamp[w] === key ? head[w]! : -1);
    const chain = v.lists.chains.get(key);
    let last = INIT_TXN;
    if (chain !== undefined) {
      for (let c = 0; c < chain.length; c++) {
        const w = chain[c]!;
        inChain[w] = key;
        if (last !== INIT_TXN) known.push(last, w, K_WW, key);
        for (let r = readersOf(last); r !== -1; r = next[r]!) if (v.reads.txn[r] !== w) known.push(v.reads.txn[r]!, w, K_RW, key);
        last = w;
      }
    }
    free.length = 0;
    for (let j = byKey.writeStart[key]!; j < byKey.writeStart[key + 1]!; j++) {
      const w = byKey.writeTxn[j]!;
      if (inChain[w] === key) continue;
      free.push(w);
      if (last !== INIT_TXN) known.push(last, w, K_WW, key);
      for (let r = readersOf(last); r !== -1; r = next[r]!) if (v.reads.txn[r] !== w) known.push(v.reads.txn[r]!, w, K_RW, key);
    }
    for (let x = 0; x < free.length; x++) {
      if ((x & 255) === 0) checkDeadline(deadlineMs, 'construct');
      for (let y = x + 1; y < free.length; y++) {
        const a = Math.min(free.get(x), free.get(y)), b = Math.max(free.get(x), free.get(y));
        const c = pending.constraintFor(a, b);
        pending.add(c, 0, a, b, K_WW, key);
        for (let r = readersOf(a); r !== -1; r = next[r]!) if (v.reads.txn[r] !== b) pending.add(c, 0, v.reads.txn[r]!, b, K_RW, key);
        pending.add(c, 1, b, a, K_WW, key);
        for (let r = readersOf(b); r !== -1; r = next[r]!) if (v.reads.txn[r] !== a) pending.add(c, 1, v.reads.txn[r]!, a, K_RW, key);
      }
    }
  }
  onKeys?.(nKeys, nKeys);
  return { nodeCount: n, known, ...pending.finish() };
}

/** How often buildPolygraph reports progress, in keys (a report costs one call). */
const KEYS_PER_REPORT = 1024;

/**
 * Session order, as far as the client knows it (docs/checking.md, "Session order"): a txn
 * follows every earlier *committed* txn of its session, but nothing follows a txn of unknown
 * outcome, which may commit at any later time. One edge into each included txn, from the last
 * committed txn before it, has exactly that transitive closure (committed txns chain, and each
 * unknown one hangs off the committed txn before it with no edge out).
 */
function addSessionOrder(v: Validated, known: EdgeList): void {
  const h = v.history;
  for (let s = 0; s < h.sessionCount; s++) {
    let lastCommitted = -1;
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      if (v.included[t] !== 1) continue;
      if (lastCommitted !== -1) known.push(lastCommitted, t, K_SO, -1);
      if (h.txnStatus[t] === TXN_COMMITTED) lastCommitted = t;
    }
  }
}

interface ByKey { readStart: Int32Array; readIdx: Int32Array; writeStart: Int32Array; writeTxn: Int32Array }

/** Reads and writes bucketed by key (counting sort; stable); memoised per Validated. */
function groupByKey(nKeys: number, v: Validated): ByKey {
  const memo = byKeyMemo.get(v);
  if (memo !== undefined) return memo;
  const readStart = new Int32Array(nKeys + 1);
  for (let i = 0; i < v.reads.count; i++) readStart[v.reads.key[i]! + 1]!++;
  for (let k = 0; k < nKeys; k++) readStart[k + 1]! += readStart[k]!;
  const readIdx = new Int32Array(v.reads.count);
  const rf = readStart.slice(0, nKeys);
  for (let i = 0; i < v.reads.count; i++) readIdx[rf[v.reads.key[i]!]!++] = i;

  const writeStart = new Int32Array(nKeys + 1);
  for (let i = 0; i < v.writes.count; i++) writeStart[v.writes.key[i]! + 1]!++;
  for (let k = 0; k < nKeys; k++) writeStart[k + 1]! += writeStart[k]!;
  const writeTxn = new Int32Array(v.writes.count);
  const wf = writeStart.slice(0, nKeys);
  for (let i = 0; i < v.writes.count; i++) writeTxn[wf[v.writes.key[i]!]!++] = v.writes.txn[i]!;
  const out = { readStart, readIdx, writeStart, writeTxn };
  byKeyMemo.set(v, out);
  return out;
}

/**
 * Accumulates constraint edges in arrival order, then sorts them into the CSR layout.
 * Coalescing without a hash map: every (pair of writers, key) occurrence is a record; records
 * are radix-sorted by pair (two stable counting sorts, linear), each pair becomes one
 * constraint, and constraints are numbered by their first record so that the numbering is the
 * order of first appearance.
 */
class PendingConstraints {
  // Records (one per pair of writers and key) and their edges, in arrival order, in buffers
  // sized up front by countConstraints (an upper bound): no growth, no per-push calls.
  private readonly recA: Int32Array;
  private readonly recB: Int32Array;
  private records = 0;
  private readonly slot: Int32Array; // 2*record + side
  private readonly from: Int32Array;
  private readonly to: Int32Array;
  private readonly kind: Int32Array;
  private readonly key: Int32Array;
  private edges = 0;

  constructor(private readonly n: number, recordsMax: number, edgesMax: number) {
    this.recA = new Int32Array(recordsMax);
    this.recB = new Int32Array(recordsMax);
    this.slot = new Int32Array(edgesMax);
    this.from = new Int32Array(edgesMax);
    this.to = new Int32Array(edgesMax);
    this.kind = new Int32Array(edgesMax);
    this.key = new Int32Array(edgesMax);
  }

  /** A new record for writers a < b (on one key); its constraint is decided in finish(). */
  constraintFor(a: number, b: number): number {
    const r = this.records++;
    this.recA[r] = a;
    this.recB[r] = b;
    return r;
  }

  add(rec: number, side: number, from: number, to: number, kind: number, key: number): void {
    const i = this.edges++;
    this.slot[i] = 2 * rec + side;
    this.from[i] = from;
    this.to[i] = to;
    this.kind[i] = kind;
    this.key[i] = key;
  }

  /** consOfRec[r]: the constraint of record r; constraints numbered by first appearance. */
  private coalesce(): { consCount: number; consOfRec: Int32Array; consA: Int32Array; consB: Int32Array } {
    const r = this.records, n = this.n;
    const recA = this.recA, recB = this.recB;
    const byB = stableCountingSort(r, n, recB, null);
    const sorted = stableCountingSort(r, n, recA, byB);
    // Groups of equal (a, b) are now contiguous; within a group, records keep arrival order.
    const groupOfRec = new Int32Array(r);
    let groups = 0;
    for (let j = 0; j < r; j++) {
      const i = sorted[j]!;
      const prev = j > 0 ? sorted[j - 1]! : -1;
      if (prev < 0 || recA[prev] !== recA[i] || recB[prev] !== recB[i]) groups++;
      groupOfRec[i] = groups - 1;
    }
    // Number groups by their first record: scanning records in order meets each group first at it.
    const consOfGroup = new Int32Array(groups).fill(-1);
    const consA = new Int32Array(groups), consB = new Int32Array(groups);
    const consOfRec = new Int32Array(r);
    let next = 0;
    for (let i = 0; i < r; i++) {
      const g = groupOfRec[i]!;
      if (consOfGroup[g] === -1) { consOfGroup[g] = next; consA[next] = recA[i]!; consB[next] = recB[i]!; next++; }
      consOfRec[i] = consOfGroup[g]!;
    }
    return { consCount: groups, consOfRec, consA, consB };
  }

  finish() {
    // Stage-boundary assertion: typed arrays drop writes past their end, so check the bound held.
    if (this.records > this.recA.length || this.edges > this.from.length) {
      throw new Error(`internal error: ${this.records} constraint records / ${this.edges} edges exceed the counted ${this.recA.length} / ${this.from.length}`);
    }
    const { consCount, consOfRec, consA, consB } = this.coalesce();
    const m = this.edges;
    const slotOf = this.slot;
    const cslot = new Int32Array(m);
    for (let i = 0; i < m; i++) cslot[i] = 2 * consOfRec[slotOf[i]! >> 1]! + (slotOf[i]! & 1);
    const edgeStart = new Int32Array(2 * consCount + 1);
    for (let i = 0; i < m; i++) edgeStart[cslot[i]! + 1]!++;
    for (let s = 0; s < 2 * consCount; s++) edgeStart[s + 1]! += edgeStart[s]!;
    const fill = edgeStart.slice(0, 2 * consCount);
    const { from, to, kind, key } = this;
    const ceFrom = new Int32Array(m), ceTo = new Int32Array(m), ceKind = new Int32Array(m), ceKey = new Int32Array(m);
    for (let i = 0; i < m; i++) {
      const at = fill[cslot[i]!]!++;
      ceFrom[at] = from[i]!;
      ceTo[at] = to[i]!;
      ceKind[at] = kind[i]!;
      ceKey[at] = key[i]!;
    }
    return { consCount, consA, consB, edgeStart, ceFrom, ceTo, ceKind, ceKey };
  }
}

/**
 * Stable counting sort of the indices `order` (or 0 .. count-1 when null) by `keys[i]` in
 * [0, range). Linear in count + range.
 */
function stableCountingSort(count: number, range: number, keys: Int32Array, order: Int32Array | null): Int32Array {
  const start = new Int32Array(range + 1);
  for (let i = 0; i < count; i++) start[keys[i]! + 1]!++;
  for (let k = 0; k < range; k++) start[k + 1]! += start[k]!;
  const out = new Int32Array(count);
  for (let j = 0; j < count; j++) {
    const i = order === null ? j : order[j]!;
    out[start[keys[i]!]!++] = i;
  }
  return out;
}
