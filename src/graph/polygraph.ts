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

import { GrowableInt32 } from '../util/growable.ts';
import { checkDeadline, DEADLINE_CHECK_MASK } from '../util/deadline.ts';
import { INIT_TXN } from '../result/types.ts';
import { TXN_COMMITTED } from '../history/model.ts';
import type { Validated } from '../validate/validate.ts';
import { EdgeList, K_RW, K_SO, K_WR, K_WW } from './edges.ts';
import { addRealTimeOrder } from './realtime.ts';

export interface Polygraph {
  nodeCount: number;
  known: EdgeList;
  consCount: number;
  consA: Int32Array;
  consB: Int32Array;
  edgeStart: Int32Array;
  ceFrom: Int32Array;
  ceTo: Int32Array;
  /** Edge kinds (edges.ts) fit a byte: a quarter of an Int32 column (78 MB less at 10^6 txns). */
  ceKind: Uint8Array;
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
  const { readStart, readWriter, writeStart, writeTxn } = byKey;
  const readers = new Int32Array(n), readersStamp = new Int32Array(n).fill(-1);
  const inChain = new Int32Array(n).fill(-1);
  const out: ConstraintCount = { pairs: 0, edges: 0, hotKey: -1, hotWriters: 0, hotPairs: 0 };
  for (let key = 0; key < nKeys; key++) {
    const w0 = writeStart[key]!, w1 = writeStart[key + 1]!;
    if (w1 - w0 < 2) continue; // no pair (readers are counted only for keys with two writers)
    const chain = v.lists.chains.get(key);
    if (chain !== undefined) for (let c = 0; c < chain.length; c++) inChain[chain[c]!] = key;
    for (let j = readStart[key]!; j < readStart[key + 1]!; j++) {
      const w = readWriter[j]!;
      if (w === INIT_TXN) continue;
      if (readersStamp[w] !== key) { readersStamp[w] = key; readers[w] = 0; }
      readers[w]!++;
    }
    let free = 0, sides = 0;
    for (let j = w0; j < w1; j++) {
      const w = writeTxn[j]!;
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
 * buildPolygraph drops the reads and writes by key when it is done: they are as large as the
 * read table, and nothing after construction needs them.
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
  const nKeys = h.keyLabels.length;
  const byKey = groupByKey(nKeys, v);
  const { readStart, readWriter, readTxn, writeStart, writeTxn } = byKey;
  // Upper bounds on the records and edges written below (exact but for readers that are the other writer).
  const count = countConstraints(v);
  const known = new EdgeList(knownCapacity(n, v.reads.count, count.edges, readStart, readWriter, writeStart));
  addSessionOrder(v, known);
  if (realTime) addRealTimeOrder(v, known);
  addWriteRead(v, known);

  // readers of (key, writer) as linked lists over by-key read positions: head[writer] valid
  // while headStamp[writer] === key; a list runs from the latest read to the earliest.
  const head = new Int32Array(n).fill(-1), headStamp = new Int32Array(n).fill(-1);
  const next = new Int32Array(readTxn.length);
  const inChain = new Int32Array(n).fill(-1);
  const free = new Int32Array(widestBucket(writeStart, nKeys));
  const out = new ConstraintWriter(n, count.pairs, count.edges);

  for (let key = 0; key < nKeys; key++) {
    if (onKeys !== undefined && key % KEYS_PER_REPORT === 0) onKeys(key, nKeys);
    if ((key & DEADLINE_CHECK_MASK) === 0) checkDeadline(deadlineMs, 'construct');
    const chain = v.lists.chains.get(key);
    const w0 = writeStart[key]!, w1 = writeStart[key + 1]!;
    // A register key nobody writes has no pair and no edge (a lone writer still gets RW edges from the initial state's readers).
    if (chain === undefined && w1 === w0) continue;
    let initHead = -1;
    for (let j = readStart[key]!; j < readStart[key + 1]!; j++) {
      const w = readWriter[j]!;
      if (w === INIT_TXN) { next[j] = initHead; initHead = j; continue; }
      if (headStamp[w] !== key) { headStamp[w] = key; head[w] = -1; }
      next[j] = head[w]!; head[w] = j;
    }
    let last = INIT_TXN;
    if (chain !== undefined) {
      for (let c = 0; c < chain.length; c++) {
        const w = chain[c]!;
        inChain[w] = key;
        if (last !== INIT_TXN) known.push(last, w, K_WW, key);
        const r0 = last === INIT_TXN ? initHead : headStamp[last] === key ? head[last]! : -1;
        for (let r = r0; r !== -1; r = next[r]!) if (readTxn[r] !== w) known.push(readTxn[r]!, w, K_RW, key);
        last = w;
      }
    }
    let nFree = 0;
    const lastHead = last === INIT_TXN ? initHead : headStamp[last] === key ? head[last]! : -1;
    for (let j = w0; j < w1; j++) {
      const w = writeTxn[j]!;
      if (inChain[w] === key) continue;
      free[nFree++] = w;
      if (last !== INIT_TXN) known.push(last, w, K_WW, key);
      for (let r = lastHead; r !== -1; r = next[r]!) if (readTxn[r] !== w) known.push(readTxn[r]!, w, K_RW, key);
    }
    if (nFree > 1) out.pairs(key, free, nFree, head, headStamp, next, readTxn, deadlineMs);
  }
  onKeys?.(nKeys, nKeys);
  byKeyMemo.delete(v);
  return { nodeCount: n, known, ...out.finish() };
}

// One loop per helper (here and in groupByKey): construction runs once per check, mostly before
// V8 optimises it, and an on-stack replacement compiles the whole function holding the loop.

/** WR: an edge from each resolved read's writer to its reader (none from the initial state). */
function addWriteRead(v: Validated, known: EdgeList): void {
  const { count, writer, txn, key } = v.reads;
  for (let i = 0; i < count; i++) {
    const w = writer[i]!;
    if (w !== INIT_TXN) known.push(w, txn[i]!, K_WR, key[i]!);
  }
}

/** The most entries of one bucket of a CSR with `n` buckets. */
function widestBucket(start: Int32Array, n: number): number {
  let widest = 0;
  for (let k = 0; k < n; k++) widest = Math.max(widest, start[k + 1]! - start[k]!);
  return widest;
}

/**
 * The capacity of the known edges: session order, WR, the RW edges from readers of the initial
 * state to every writer of their key, and half the constraint edges, for what pruning forces
 * (about one side per constraint; fig8-shaped histories at 125k: 874,462 known edges before
 * pruning, 2,482,965 after). Untouched capacity costs address space, not resident memory (large
 * zero-filled buffers are mapped lazily), whereas growing the columns copies them, and at 10^6
 * transactions a doubling from 10 M to 20 M edges briefly holds 480 MB. RT and list-chain edges,
 * and anything beyond, still grow them.
 */
function knownCapacity(n: number, reads: number, constraintEdges: number, readStart: Int32Array, readWriter: Int32Array, writeStart: Int32Array): number {
  let initRw = 0;
  for (let key = 0; key + 1 < readStart.length; key++) {
    const writers = writeStart[key + 1]! - writeStart[key]!;
    if (writers === 0) continue;
    let initReaders = 0;
    for (let j = readStart[key]!; j < readStart[key + 1]!; j++) if (readWriter[j] === INIT_TXN) initReaders++;
    initRw += initReaders * writers;
  }
  return n + reads + initRw + Math.ceil(constraintEdges / 2) + 1024;
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

/**
 * Reads and writes bucketed by key (counting sort; stable), memoised per Validated. The reads'
 * writer and reader txns are copied in key order, so the per-key loops read them sequentially.
 */
interface ByKey { readStart: Int32Array; readWriter: Int32Array; readTxn: Int32Array; writeStart: Int32Array; writeTxn: Int32Array }

function groupByKey(nKeys: number, v: Validated): ByKey {
  const memo = byKeyMemo.get(v);
  if (memo !== undefined) return memo;
  const rKey = v.reads.key, reads = v.reads.count;
  const readStart = bucketStarts(rKey, reads, nKeys);
  const readWriter = new Int32Array(reads), readTxn = new Int32Array(reads);
  scatterReads(readStart.slice(0, nKeys), rKey, v.reads.writer, v.reads.txn, reads, readWriter, readTxn);
  const writeStart = bucketStarts(v.writes.key, v.writes.count, nKeys);
  const writeTxn = new Int32Array(v.writes.count);
  scatter(writeStart.slice(0, nKeys), v.writes.key, v.writes.txn, v.writes.count, writeTxn);
  const out = { readStart, readWriter, readTxn, writeStart, writeTxn };
  byKeyMemo.set(v, out);
  return out;
}

/** CSR starts of `count` items bucketed by `keyOf[i]` in [0, n) (prefix sums done). */
function bucketStarts(keyOf: Int32Array, count: number, n: number): Int32Array {
  const start = new Int32Array(n + 1);
  for (let i = 0; i < count; i++) start[keyOf[i]! + 1]!++;
  prefixSums(start, n);
  return start;
}

function prefixSums(a: Int32Array, n: number): void {
  for (let k = 0; k < n; k++) a[k + 1]! += a[k]!;
}

/** Stable scatter of the reads' writer and reader txns into their key buckets (`fill`: bucket starts, advanced). */
function scatterReads(fill: Int32Array, key: Int32Array, writer: Int32Array, txn: Int32Array, count: number, outWriter: Int32Array, outTxn: Int32Array): void {
  for (let i = 0; i < count; i++) {
    const at = fill[key[i]!]!++;
    outWriter[at] = writer[i]!;
    outTxn[at] = txn[i]!;
  }
}

/** Stable scatter of the indices 0 .. count-1 into bucket `key[i]` (`fill`: bucket starts, advanced). */
function scatterIndex(fill: Int32Array, key: Int32Array, count: number, out: Int32Array): void {
  for (let i = 0; i < count; i++) out[fill[key[i]!]!++] = i;
}

/** Stable scatter of `value[i]` into bucket `key[i]` (`fill`: bucket starts, advanced). */
function scatter(fill: Int32Array, key: Int32Array, value: Int32Array, count: number, out: Int32Array): void {
  for (let i = 0; i < count; i++) out[fill[key[i]!]!++] = value[i]!;
}

/**
 * Writes constraint edges straight into the Polygraph's columns, one record per pair of writers
 * and key, each record's either edges then its or edges: with no pair of writers sharing two
 * keys that already is the CSR layout, constraint = record, and nothing is copied or sorted.
 * Coalescing: records are grouped by their first writer a (one stable counting sort) and a
 * repeated (a, b) is found with a stamp per b. Constraint c (numbered by its first record, i.e.
 * by order of first appearance) then holds, per side, its first record's edges followed by its
 * repeats' in arrival order (exactly the layout of sorting all edges stably by constraint and
 * side), made by copying runs of the buffers column by column: repeats are rare at scale (36 of
 * 3,987,228 records on the 500k generated history), so the runs are few and long.
 */
class ConstraintWriter {
  // Buffers sized up front by countConstraints (an upper bound): no growth, no per-push calls.
  private readonly recA: Int32Array;
  private readonly recB: Int32Array;
  /** `recEdge[2r]` / `[2r+1]`: where record r's either / or edges start; `[2r+2]` where they end. */
  private readonly recEdge: Int32Array;
  private records = 0;
  private from: Int32Array;
  private to: Int32Array;
  private kind: Uint8Array;
  private key: Int32Array;
  private edges = 0;

  constructor(private readonly n: number, recordsMax: number, edgesMax: number) {
    this.recA = new Int32Array(recordsMax);
    this.recB = new Int32Array(recordsMax);
    this.recEdge = new Int32Array(2 * recordsMax + 1);
    this.from = new Int32Array(edgesMax);
    this.to = new Int32Array(edgesMax);
    this.kind = new Uint8Array(edgesMax);
    this.key = new Int32Array(edgesMax);
  }

  /**
   * One record per pair of the `nFree` free writers of `key` (`free[0 .. nFree-1]`), writers
   * a < b: its either side (WW a->b, then RW r->b from each reader r of a other than b), then its
   * or side (the same with a and b swapped). A reader list of writer w starts at `head[w]` when
   * `headStamp[w] === key` and follows `next`. One loop writing the columns directly: a call
   * per edge (fig8 30 %: 409,020 edges) stays slow for long in a fresh process.
   */
  pairs(key: number, free: Int32Array, nFree: number, head: Int32Array, headStamp: Int32Array, next: Int32Array, readTxn: Int32Array, deadlineMs: number): void {
    const recA = this.recA, recB = this.recB, recEdge = this.recEdge;
    const from = this.from, to = this.to, kind = this.kind, keyOf = this.key;
    let r = this.records, e = this.edges;
    for (let x = 0; x < nFree; x++) {
      if ((x & 255) === 0) checkDeadline(deadlineMs, 'construct');
      const fx = free[x]!;
      const hx = headStamp[fx] === key ? head[fx]! : -1;
      for (let y = x + 1; y < nFree; y++) {
        const fy = free[y]!;
        const hy = headStamp[fy] === key ? head[fy]! : -1;
        const lo = fx < fy, a = lo ? fx : fy, b = lo ? fy : fx, ha = lo ? hx : hy, hb = lo ? hy : hx;
        recA[r] = a; recB[r] = b; recEdge[2 * r] = e;
        from[e] = a; to[e] = b; kind[e] = K_WW; keyOf[e] = key; e++;
        for (let j = ha; j !== -1; j = next[j]!) {
          const t = readTxn[j]!;
          if (t !== b) { from[e] = t; to[e] = b; kind[e] = K_RW; keyOf[e] = key; e++; }
        }
        recEdge[2 * r + 1] = e;
        from[e] = b; to[e] = a; kind[e] = K_WW; keyOf[e] = key; e++;
        for (let j = hb; j !== -1; j = next[j]!) {
          const t = readTxn[j]!;
          if (t !== a) { from[e] = t; to[e] = a; kind[e] = K_RW; keyOf[e] = key; e++; }
        }
        r++;
      }
    }
    this.records = r;
    this.edges = e;
  }

  /**
   * The records that repeat an earlier record's pair of writers: `isRepeat[r]` = 1 for them, and
   * each first record (the pair's leader) heads a list of its repeats in arrival order
   * (`firstRepeat[leader]`, then `nextRepeat[r]`, -1 ending it); null if every pair is distinct.
   * Typed arrays, not a Map of arrays: finish() walks every record, and fig8 30 % has 157,281
   * records of which 208 repeat (a Map lookup and an empty array per record cost it ~50 ms in a
   * fresh process).
   */
  private repeats(): { isRepeat: Uint8Array; count: number; firstRepeat: Int32Array; nextRepeat: Int32Array } | null {
    const r = this.records, n = this.n, recA = this.recA, recB = this.recB;
    // One stable counting sort of the records by first writer (one loop per helper).
    const start = bucketStarts(recA, r, n);
    const byA = new Int32Array(r);
    scatterIndex(start.slice(0, n), recA, r, byA);
    // Within a's group records keep arrival order: the first with a given b is its leader.
    const stamp = new Int32Array(n).fill(-1), firstOf = new Int32Array(n);
    let isRepeat: Uint8Array | null = null, firstRepeat: Int32Array | null = null, nextRepeat: Int32Array | null = null, lastRepeat: Int32Array | null = null;
    let count = 0;
    for (let a = 0; a < n; a++) {
      for (let j = start[a]!; j < start[a + 1]!; j++) {
        const i = byA[j]!, b = recB[i]!;
        if (stamp[b] !== a) { stamp[b] = a; firstOf[b] = i; continue; }
        if (isRepeat === null) {
          isRepeat = new Uint8Array(r);
          firstRepeat = new Int32Array(r).fill(-1); nextRepeat = new Int32Array(r).fill(-1); lastRepeat = new Int32Array(r);
        }
        isRepeat[i] = 1;
        count++;
        // Records of one group come in arrival order, so appending keeps each list in that order.
        const leader = firstOf[b]!;
        if (firstRepeat![leader] === -1) firstRepeat![leader] = i; else nextRepeat![lastRepeat![leader]!] = i;
        lastRepeat![leader] = i;
      }
    }
    return isRepeat === null ? null : { isRepeat, count, firstRepeat: firstRepeat!, nextRepeat: nextRepeat! };
  }

  finish() {
    // Stage-boundary assertion: typed arrays drop writes past their end, so check the bound held.
    if (this.records > this.recA.length || this.edges > this.from.length) {
      throw new Error(`internal error: ${this.records} constraint records / ${this.edges} edges exceed the counted ${this.recA.length} / ${this.from.length}`);
    }
    const r = this.records, m = this.edges, recEdge = this.recEdge;
    recEdge[2 * r] = m;
    const rep = this.repeats();
    if (rep === null) {
      return {
        consCount: r, consA: fit(this.recA, r), consB: fit(this.recB, r), edgeStart: fit(recEdge, 2 * r + 1),
        ceFrom: fit(this.from, m), ceTo: fit(this.to, m), ceKind: fit(this.kind, m), ceKey: fit(this.key, m),
      };
    }
    // Constraints are the leaders in arrival order; each side's edges are the leader's, then its
    // repeats' in arrival order. Done in place, in the buffers: no second set of columns (10^6
    // txns: 322 MB of edge columns and 128 MB of record columns were copied, the old ones left
    // as garbage into pruning). As runs of the edge buffers, merged when adjacent in both places
    // and of the same kind (a leader's or a repeat's): with few repeats, a handful of long runs.
    // Every leader run moves right or stays (a record's edges are preceded, in the result, by
    // all the edges that preceded them, less the repeats' that came before, plus at least as
    // many repeats' edges, whose leaders came before too): the repeats' edges (few) are set
    // aside, the leader runs copied from the last to the first (copyWithin, which handles the
    // overlap; each lands past the sources of those not yet copied), then the repeats' put back.
    const { isRepeat, firstRepeat, nextRepeat } = rep;
    const consCount = r - rep.count;
    const runSrc = new GrowableInt32(), runDst = new GrowableInt32(), runLen = new GrowableInt32(), runRep = new GrowableInt32();
    const recA = this.recA, recB = this.recB;
    let c = 0, at = 0;
    for (let i = 0; i < r; i++) {
      if (isRepeat[i] === 1) continue;
      recA[c] = recA[i]!; recB[c] = recB[i]!;
      // Read before writing: edgeStart is written over recEdge (2c + 1 <= 2i + 1; repeats d > i).
      const e0 = recEdge[2 * i]!, e1 = recEdge[2 * i + 1]!, e2 = recEdge[2 * i + 2]!;
      for (let side = 0; side < 2; side++) {
        recEdge[2 * c + side] = at;
        for (let d = i; d !== -1; d = d === i ? firstRepeat[i]! : nextRepeat[d]!) {
          const from = d === i ? (side === 0 ? e0 : e1) : recEdge[2 * d + side]!;
          const to = d === i ? (side === 0 ? e1 : e2) : recEdge[2 * d + side + 1]!;
          if (to === from) continue;
          const kind = d === i ? 0 : 1, last = runSrc.length - 1;
          if (last >= 0 && runRep.get(last) === kind && runSrc.get(last) + runLen.get(last) === from) runLen.set(last, runLen.get(last) + to - from);
          else { runSrc.push(from); runDst.push(at); runLen.push(to - from); runRep.push(kind); }
          at += to - from;
        }
      }
      c++;
    }
    recEdge[2 * consCount] = at;
    if (c !== consCount || at !== m) throw new Error('internal error: coalescing lost constraints or edges');
    const src = runSrc.view(), dst = runDst.view(), len = runLen.view(), isRep = runRep.view();
    let saved = 0;
    for (let j = 0; j < src.length; j++) if (isRep[j] === 1) saved += len[j]!;
    const from = this.from, to = this.to, kind = this.kind, key = this.key;
    const sFrom = new Int32Array(saved), sTo = new Int32Array(saved), sKind = new Uint8Array(saved), sKey = new Int32Array(saved);
    for (let j = 0, o = 0; j < src.length; j++) {
      if (isRep[j] !== 1) continue;
      const a = src[j]!, b = a + len[j]!;
      sFrom.set(from.subarray(a, b), o); sTo.set(to.subarray(a, b), o); sKind.set(kind.subarray(a, b), o); sKey.set(key.subarray(a, b), o);
      o += len[j]!;
    }
    for (let j = src.length - 1; j >= 0; j--) {
      if (isRep[j] === 1) continue;
      const a = src[j]!, b = a + len[j]!, t = dst[j]!;
      if (t < a) throw new Error('internal error: coalescing would move a leader\'s edges left');
      if (t === a) continue;
      from.copyWithin(t, a, b); to.copyWithin(t, a, b); kind.copyWithin(t, a, b); key.copyWithin(t, a, b);
    }
    for (let j = 0, o = 0; j < src.length; j++) {
      if (isRep[j] !== 1) continue;
      const t = dst[j]!, l = len[j]!;
      from.set(sFrom.subarray(o, o + l), t); to.set(sTo.subarray(o, o + l), t); kind.set(sKind.subarray(o, o + l), t); key.set(sKey.subarray(o, o + l), t);
      o += l;
    }
    return {
      consCount, consA: fit(recA, consCount), consB: fit(recB, consCount), edgeStart: fit(recEdge, 2 * consCount + 1),
      ceFrom: fit(from, m), ceTo: fit(to, m), ceKind: fit(kind, m), ceKey: fit(key, m),
    };
  }
}

/** The first `len` elements of `a`: a view when little is left over, else a copy (the buffer is freed). */
function fit<T extends Int32Array | Uint8Array>(a: T, len: number): T {
  return len === a.length ? a : len >= a.length - (a.length >> 3) ? a.subarray(0, len) as T : a.slice(0, len) as T;
}
