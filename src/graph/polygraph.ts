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
  const byKey = groupByKey(v.history.keyLabels.length, v);
  const out = v.lists.chains.size === 0 ? countRegisterPairs(byKey, v.history.keyLabels.length) : countPairs(v, byKey);
  countMemo.set(v, out);
  return { ...out };
}

/**
 * countPairs for a history without list keys, from the bucket sizes alone: every writer of a key
 * is free, and every read of a key not from the initial state is from one of its writers (a read
 * resolves to an included txn's final write of that key, and those are the key's writers), so a
 * key with W writers, R reads and I of them from the initial state has W(W-1)/2 pairs and
 * (W-1)(W + R - I) edges. The sum over the keys of (W-1) I, for W >= 2, is ByKey.initW1.
 */
function countRegisterPairs(byKey: ByKey, nKeys: number): ConstraintCount {
  const { readStart, writeStart } = byKey;
  const out: ConstraintCount = { pairs: 0, edges: 0, hotKey: -1, hotWriters: 0, hotPairs: 0 };
  for (let key = 0; key < nKeys; key++) {
    const w = writeStart[key + 1]! - writeStart[key]!;
    if (w < 2) continue;
    const pairs = (w * (w - 1)) / 2;
    out.pairs += pairs;
    out.edges += (w - 1) * (w + readStart[key + 1]! - readStart[key]!);
    if (w > out.hotWriters) { out.hotKey = key; out.hotWriters = w; out.hotPairs = pairs; }
  }
  out.edges -= byKey.initW1;
  return out;
}

/** countConstraints' loop over the keys, alone in its function (see addKeys). */
function countPairs(v: Validated, byKey: ByKey): ConstraintCount {
  const h = v.history;
  const n = h.txnCount;
  const nKeys = h.keyLabels.length;
  const { readStart, readWriter, writeStart, writeTxn } = byKey;
  const readers = new Int32Array(n), readersStamp = new Int32Array(n).fill(-1);
  const inChain = new Int32Array(n).fill(-1);
  const out: ConstraintCount = { pairs: 0, edges: 0, hotKey: -1, hotWriters: 0, hotPairs: 0 };
  const chains = v.lists.chains;
  for (let key = 0; key < nKeys; key++) {
    const w0 = writeStart[key]!, w1 = writeStart[key + 1]!;
    if (w1 - w0 < 2) continue; // no pair (readers are counted only for keys with two writers)
    const chain = chains.size === 0 ? undefined : chains.get(key);
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
  return out;
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
  // Upper bounds on the records and edges written below (exact but for readers that are the other writer).
  const count = countConstraints(v);
  const known = new EdgeList(knownCapacity(n, v.reads.count, count.edges, byKey.initRw));
  addSessionOrder(v, known);
  if (realTime) addRealTimeOrder(v, known);
  addWriteRead(v, known);

  const out = new ConstraintWriter(n, count.pairs, count.edges);
  addKeys(v, byKey, known, out, deadlineMs, onKeys);
  onKeys?.(nKeys, nKeys);
  byKeyMemo.delete(v);
  return { nodeCount: n, known, ...out.finish() };
}

/**
 * Per key: the edges its list chain forces, then a record per pair of its free writers (`out`).
 * The loop alone in its function, which ends with it: V8 compiles the whole function holding a
 * hot loop (on-stack replacement), and code after the loop that never ran has no type feedback,
 * so reaching it would throw the compiled code away.
 */
function addKeys(v: Validated, byKey: ByKey, known: EdgeList, out: ConstraintWriter, deadlineMs: number, onKeys: ((done: number, total: number) => void) | undefined): void {
  const n = v.history.txnCount, nKeys = v.history.keyLabels.length;
  const { readStart, readWriter, readTxn, writeStart, writeTxn } = byKey;
  // readers of (key, writer) as linked lists over by-key read positions: head[writer] valid
  // while headStamp[writer] === key; a list runs from the latest read to the earliest.
  const head = new Int32Array(n).fill(-1), headStamp = new Int32Array(n).fill(-1);
  const next = new Int32Array(readTxn.length);
  const inChain = new Int32Array(n).fill(-1);
  const free = new Int32Array(byKey.widest);
  const chains = v.lists.chains;

  checkDeadline(deadlineMs, 'construct');
  for (let key = 0; key < nKeys; key++) {
    if (onKeys !== undefined && key % KEYS_PER_REPORT === 0) onKeys(key, nKeys);
    if ((key & DEADLINE_CHECK_MASK) === 0) checkDeadline(deadlineMs, 'construct');
    const chain = chains.size === 0 ? undefined : chains.get(key);
    const w0 = writeStart[key]!, w1 = writeStart[key + 1]!;
    // A register key nobody writes has no pair and no edge (a lone writer still gets RW edges from the initial state's readers).
    if (chain === undefined && w1 === w0) continue;
    // The per-key work in helpers of one loop each: this loop runs once per check, and small
    // functions called per key are optimised long before a large one holding the loop would be.
    const initHead = linkReaders(key, readStart[key]!, readStart[key + 1]!, readWriter, head, headStamp, next);
    const last = chain === undefined ? INIT_TXN : addChain(key, chain, initHead, head, headStamp, next, readTxn, inChain, known);
    const lastHead = last === INIT_TXN ? initHead : headStamp[last] === key ? head[last]! : -1;
    const nFree = freeWriters(key, w0, w1, writeTxn, inChain, free, last, lastHead, next, readTxn, known);
    if (nFree > 1) out.pairs(key, free, nFree, head, headStamp, next, readTxn, deadlineMs);
  }
}

/**
 * Links the reads of `key` (by-key positions j0 .. j1-1) into per-writer lists: `head[w]` (valid
 * while `headStamp[w] === key`) then `next`, latest read first. Returns the list of the reads of
 * the initial state (-1 if none).
 */
function linkReaders(key: number, j0: number, j1: number, readWriter: Int32Array, head: Int32Array, headStamp: Int32Array, next: Int32Array): number {
  let initHead = -1;
  for (let j = j0; j < j1; j++) {
    const w = readWriter[j]!;
    if (w === INIT_TXN) { next[j] = initHead; initHead = j; continue; }
    if (headStamp[w] !== key) { headStamp[w] = key; head[w] = -1; }
    next[j] = head[w]!; head[w] = j;
  }
  return initHead;
}

/**
 * A list key's chain (the writers whose order list reads revealed, in that order): WW edges
 * along it and RW edges from each link's readers (the first's: the initial state's) to the next;
 * marks the chain's writers in `inChain`. Returns the chain's last writer.
 */
function addChain(
  key: number, chain: Int32Array, initHead: number, head: Int32Array, headStamp: Int32Array, next: Int32Array,
  readTxn: Int32Array, inChain: Int32Array, known: EdgeList,
): number {
  let last = INIT_TXN;
  for (let c = 0; c < chain.length; c++) {
    const w = chain[c]!;
    inChain[w] = key;
    if (last !== INIT_TXN) known.push(last, w, K_WW, key);
    const r0 = last === INIT_TXN ? initHead : headStamp[last] === key ? head[last]! : -1;
    for (let r = r0; r !== -1; r = next[r]!) if (readTxn[r] !== w) known.push(readTxn[r]!, w, K_RW, key);
    last = w;
  }
  return last;
}

/**
 * The free writers of `key` (by-key positions w0 .. w1-1 not in its chain) into `free`; returns
 * how many. Each follows the chain's last writer `last` (WW, none from the initial state) and
 * that writer's readers (list `lastHead`: RW).
 */
function freeWriters(
  key: number, w0: number, w1: number, writeTxn: Int32Array, inChain: Int32Array, free: Int32Array, last: number, lastHead: number,
  next: Int32Array, readTxn: Int32Array, known: EdgeList,
): number {
  let nFree = 0;
  for (let j = w0; j < w1; j++) {
    const w = writeTxn[j]!;
    if (inChain[w] === key) continue;
    free[nFree++] = w;
    if (last !== INIT_TXN) known.push(last, w, K_WW, key);
    for (let r = lastHead; r !== -1; r = next[r]!) if (readTxn[r] !== w) known.push(readTxn[r]!, w, K_RW, key);
  }
  return nFree;
}

// One loop per helper (here and in groupByKey): construction runs once per check, mostly before
// V8 optimises it, and an on-stack replacement compiles the whole function holding the loop.

/** WR: an edge from each resolved read's writer to its reader (none from the initial state). */
function addWriteRead(v: Validated, known: EdgeList): void {
  const { count, writer, txn, key } = v.reads;
  // Written into the columns directly (no call per edge), then taken in.
  const c = known.spare(count), from = c.from, to = c.to, kind = c.kind, keyOf = c.key;
  let e = known.length;
  const e0 = e;
  for (let i = 0; i < count; i++) {
    const w = writer[i]!;
    if (w !== INIT_TXN) { from[e] = w; to[e] = txn[i]!; kind[e] = K_WR; keyOf[e] = key[i]!; e++; }
  }
  known.added(e - e0);
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
function knownCapacity(n: number, reads: number, constraintEdges: number, initRw: number): number {
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
  const h = v.history, included = v.included, txnStatus = h.txnStatus, sessionTxnStart = h.sessionTxnStart;
  // At most one edge per txn, written into the columns directly (no call per edge).
  const c = known.spare(h.txnCount), from = c.from, to = c.to, kind = c.kind, key = c.key;
  let e = known.length;
  const e0 = e;
  for (let s = 0; s < h.sessionCount; s++) {
    let lastCommitted = -1;
    for (let t = sessionTxnStart[s]!; t < sessionTxnStart[s + 1]!; t++) {
      if (included[t] !== 1) continue;
      if (lastCommitted !== -1) { from[e] = lastCommitted; to[e] = t; kind[e] = K_SO; key[e] = -1; e++; }
      if (txnStatus[t] === TXN_COMMITTED) lastCommitted = t;
    }
  }
  known.added(e - e0);
}

/**
 * Reads and writes bucketed by key (counting sort; stable), memoised per Validated. The reads'
 * writer and reader txns are copied in key order, so the per-key loops read them sequentially.
 */
interface ByKey {
  readStart: Int32Array; readWriter: Int32Array; readTxn: Int32Array; writeStart: Int32Array; writeTxn: Int32Array;
  /** The most writers of one key. */
  widest: number;
  /** Reads of the initial state times the writers of their key: the RW edges from the initial state's readers. */
  initRw: number;
  /** Reads of the initial state times (the writers of their key - 1), over keys of two writers or more. */
  initW1: number;
}

function groupByKey(nKeys: number, v: Validated): ByKey {
  const memo = byKeyMemo.get(v);
  if (memo !== undefined) return memo;
  // Writes first: the reads' scatter counts the initial state's readers against them, and the
  // writes' prefix sums find the widest key, so no pass of their own does (knownCapacity, addKeys).
  const writeStart = new Int32Array(nKeys + 1);
  countInto(v.writes.key, v.writes.count, writeStart);
  const widest = prefixSumsWidest(writeStart, nKeys);
  const writeTxn = new Int32Array(v.writes.count);
  scatter(writeStart.slice(0, nKeys), v.writes.key, v.writes.txn, v.writes.count, writeTxn);
  const rKey = v.reads.key, reads = v.reads.count;
  const readStart = bucketStarts(rKey, reads, nKeys);
  const readWriter = new Int32Array(reads), readTxn = new Int32Array(reads);
  const init = scatterReads(readStart.slice(0, nKeys), rKey, v.reads.writer, v.reads.txn, reads, readWriter, readTxn, writeStart);
  const out = { readStart, readWriter, readTxn, writeStart, writeTxn, widest, initRw: init.rw, initW1: init.w1 };
  byKeyMemo.set(v, out);
  return out;
}

/** `counts[keyOf[i] + 1]++` for i < count. */
function countInto(keyOf: Int32Array, count: number, counts: Int32Array): void {
  for (let i = 0; i < count; i++) counts[keyOf[i]! + 1]!++;
}

/** prefixSums, returning the largest count (bucket) seen. */
function prefixSumsWidest(a: Int32Array, n: number): number {
  let widest = 0;
  for (let k = 0; k < n; k++) {
    widest = Math.max(widest, a[k + 1]!);
    a[k + 1]! += a[k]!;
  }
  return widest;
}

/** CSR starts of `count` items bucketed by `keyOf[i]` in [0, n) (prefix sums done). */
function bucketStarts(keyOf: Int32Array, count: number, n: number): Int32Array {
  const start = new Int32Array(n + 1);
  // The counting loop alone in its function: the call after it, in the same function, had no
  // type feedback when the loop was compiled, and reaching it threw the compiled code away.
  countKeys(keyOf, count, start);
  prefixSums(start, n);
  return start;
}

/** `start[keyOf[i] + 1]++` for i < count. */
function countKeys(keyOf: Int32Array, count: number, start: Int32Array): void {
  for (let i = 0; i < count; i++) start[keyOf[i]! + 1]!++;
}

function prefixSums(a: Int32Array, n: number): void {
  for (let k = 0; k < n; k++) a[k + 1]! += a[k]!;
}

/**
 * Stable scatter of the reads' writer and reader txns into their key buckets (`fill`: bucket
 * starts, advanced). Returns the sums, over the reads of the initial state, of their key's
 * writers (rw) and of those writers less one where there are two or more (w1).
 */
function scatterReads(
  fill: Int32Array, key: Int32Array, writer: Int32Array, txn: Int32Array, count: number, outWriter: Int32Array, outTxn: Int32Array, writeStart: Int32Array,
): { rw: number; w1: number } {
  let rw = 0, w1 = 0;
  for (let i = 0; i < count; i++) {
    const k = key[i]!, w = writer[i]!;
    const at = fill[k]!++;
    outWriter[at] = w;
    outTxn[at] = txn[i]!;
    const writers = w === INIT_TXN ? writeStart[k + 1]! - writeStart[k]! : 0;
    rw += writers;
    w1 += writers >= 2 ? writers - 1 : 0;
  }
  return { rw, w1 };
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
    const from = this.from, to = this.to, kind = this.kind;
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
        from[e] = a; to[e] = b; kind[e] = K_WW; e++;
        for (let j = ha; j !== -1; j = next[j]!) {
          const t = readTxn[j]!;
          if (t !== b) { from[e] = t; to[e] = b; kind[e] = K_RW; e++; }
        }
        recEdge[2 * r + 1] = e;
        from[e] = b; to[e] = a; kind[e] = K_WW; e++;
        for (let j = hb; j !== -1; j = next[j]!) {
          const t = readTxn[j]!;
          if (t !== a) { from[e] = t; to[e] = a; kind[e] = K_RW; e++; }
        }
        r++;
      }
    }
    // Every edge of this call is of `key`: one fill instead of a store per edge.
    this.key.fill(key, this.edges, e);
    this.records = r;
    this.edges = e;
  }

  /**
   * The records that repeat an earlier record's pair of writers, as `leader * records + repeat`
   * sorted ascending (so by leader, then in arrival order), where a pair's leader is its first
   * record; null if every pair is distinct. fig8 30 % has 157,281 records of which 208 repeat.
   */
  private repeats(): Float64Array | null {
    const r = this.records, n = this.n, recA = this.recA, recB = this.recB;
    // One stable counting sort of the records by first writer (one loop per helper).
    const start = bucketStarts(recA, r, n);
    const byA = new Int32Array(r);
    scatterIndex(start.slice(0, n), recA, r, byA);
    const reps = new Int32Array(r + 1), leaders = new Int32Array(r + 1);
    const count = findRepeats(start, byA, recB, n, reps, leaders);
    if (count === 0) return null;
    const pairs = new Float64Array(count);
    for (let k = 0; k < count; k++) pairs[k] = leaders[k]! * r + reps[k]!;
    return pairs.sort();
  }

  finish() {
    // Stage-boundary assertion: typed arrays drop writes past their end, so check the bound held.
    if (this.records > this.recA.length || this.edges > this.from.length) {
      throw new Error(`internal error: ${this.records} constraint records / ${this.edges} edges exceed the counted ${this.recA.length} / ${this.from.length}`);
    }
    const r = this.records, m = this.edges, recEdge = this.recEdge;
    recEdge[2 * r] = m;
    const pairs = this.repeats();
    if (pairs === null) {
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
    const consCount = r - pairs.length;
    const runs = coalescingRuns(r, recEdge, this.recA, this.recB, pairs);
    const recA = this.recA, recB = this.recB;
    recEdge[2 * consCount] = runs.at;
    if (runs.count !== consCount || runs.at !== m) throw new Error('internal error: coalescing lost constraints or edges');
    const src = runs.src.view(), dst = runs.dst.view(), len = runs.len.view(), isRep = runs.rep.view();
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

/**
 * Walks the records grouped by first writer a (`byA`, CSR `start`, arrival order within a group):
 * within a group the first record with a given b is the pair's leader, every later one a repeat.
 * Writes the repeats and their leaders to `reps` / `leaders` (r + 1 long), returns how many.
 * Without a branch that only repeats take: the loop is compiled (on-stack replacement) before
 * most repeats are met, and code never run has no type feedback, so meeting it would throw the
 * compiled loop away (fig8 30 %: its first repeat deoptimised the loop, left to run in the
 * baseline tier).
 */
function findRepeats(start: Int32Array, byA: Int32Array, recB: Int32Array, n: number, reps: Int32Array, leaders: Int32Array): number {
  const stamp = new Int32Array(n).fill(-1), firstOf = new Int32Array(n);
  let count = 0;
  for (let a = 0; a < n; a++) {
    const j1 = start[a + 1]!;
    for (let j = start[a]!; j < j1; j++) {
      const i = byA[j]!, b = recB[i]!;
      const seen = stamp[b] === a;
      // Stored every time, kept (count advanced) only for a repeat.
      reps[count] = i; leaders[count] = firstOf[b]!;
      count += seen ? 1 : 0;
      firstOf[b] = seen ? firstOf[b]! : i;
      stamp[b] = a;
    }
  }
  return count;
}

/**
 * finish()'s plan for coalescing, given the repeats (`pairs`: leader * r + repeat, ascending):
 * leaders are compacted in place (recA, recB, and recEdge turned into the constraints'
 * edgeStart), and their edges, and their repeats', listed as runs of the edge buffers (source,
 * destination, length, 1 for a repeat's), adjacent runs of one kind merged. Only the few
 * special records (repeats, and leaders with repeats) are visited one by one: the plain leaders
 * between two of them are one block, whose edges are one run, whose pairs move with copyWithin
 * and whose edge starts shift by one amount (shiftStarts). A pass over every record cost fig8
 * 30 % ~20 ms in a fresh process.
 */
function coalescingRuns(
  r: number, recEdge: Int32Array, recA: Int32Array, recB: Int32Array, pairs: Float64Array,
): { src: GrowableInt32; dst: GrowableInt32; len: GrowableInt32; rep: GrowableInt32; at: number; count: number } {
  const runs = { src: new GrowableInt32(), dst: new GrowableInt32(), len: new GrowableInt32(), rep: new GrowableInt32(), at: 0, count: 0 };
  const nPairs = pairs.length;
  // Special records in index order, 2i + 1 for a repeat, 2i for a leader (once per repeat: skipped when equal to the one before).
  const specials = new Int32Array(2 * nPairs);
  for (let k = 0; k < nPairs; k++) {
    const leader = Math.floor(pairs[k]! / r);
    specials[2 * k] = 2 * leader; specials[2 * k + 1] = 2 * (pairs[k]! - leader * r) + 1;
  }
  specials.sort();
  let c = 0, at = 0, i = 0, p = 0;
  for (let k = 0; k <= specials.length; k++) {
    if (k > 0 && k < specials.length && specials[k] === specials[k - 1]) continue;
    const s = k < specials.length ? specials[k]! >> 1 : r;
    // Reading recEdge at 2i .. 2s + 2 before writing 2c ..: c <= i, and writes stay below 2c + 2 <= 2s + 2.
    if (s > i) {
      const e0 = recEdge[2 * i]!, e1 = recEdge[2 * s]!;
      if (c !== i || at !== e0) {
        shiftStarts(recEdge, i, s, c, at - e0);
        recA.copyWithin(c, i, s); recB.copyWithin(c, i, s);
      }
      addRun(runs, e0, at, e1 - e0, 0);
      at += e1 - e0;
      c += s - i;
    }
    if (s === r) break;
    i = s + 1;
    if ((specials[k]! & 1) === 1) continue; // a repeat: its edges go with its leader's
    // A leader with repeats: its pairs are next in `pairs` (leaders come in ascending order).
    let q = p;
    while (q < nPairs && Math.floor(pairs[q]! / r) === s) q++;
    recA[c] = recA[s]!; recB[c] = recB[s]!;
    const e0 = recEdge[2 * s]!, e1 = recEdge[2 * s + 1]!, e2 = recEdge[2 * s + 2]!;
    for (let side = 0; side < 2; side++) {
      recEdge[2 * c + side] = at;
      const from = side === 0 ? e0 : e1, to = side === 0 ? e1 : e2;
      addRun(runs, from, at, to - from, 0);
      at += to - from;
      for (let u = p; u < q; u++) {
        const d = pairs[u]! - s * r; // a repeat after s: its recEdge not yet written over
        const dFrom = recEdge[2 * d + side]!, dTo = recEdge[2 * d + side + 1]!;
        addRun(runs, dFrom, at, dTo - dFrom, 1);
        at += dTo - dFrom;
      }
    }
    p = q;
    c++;
  }
  runs.at = at;
  runs.count = c;
  return runs;
}

/** `recEdge[2c], [2c+1] = recEdge[2i], [2i+1] + delta` for records i0 .. i1-1 moving to c0 ..; c0 <= i0. */
function shiftStarts(recEdge: Int32Array, i0: number, i1: number, c0: number, delta: number): void {
  for (let i = i0, c = c0; i < i1; i++, c++) {
    recEdge[2 * c] = recEdge[2 * i]! + delta;
    recEdge[2 * c + 1] = recEdge[2 * i + 1]! + delta;
  }
}

/** Appends a run (nothing if empty), merged into the last one when of its kind and adjacent in both places. */
function addRun(runs: { src: GrowableInt32; dst: GrowableInt32; len: GrowableInt32; rep: GrowableInt32 }, src: number, dst: number, len: number, rep: number): void {
  if (len === 0) return;
  const last = runs.src.length - 1;
  if (last >= 0 && runs.rep.get(last) === rep && runs.src.get(last) + runs.len.get(last) === src && runs.dst.get(last) + runs.len.get(last) === dst) {
    runs.len.set(last, runs.len.get(last) + len);
    return;
  }
  runs.src.push(src); runs.dst.push(dst); runs.len.push(len); runs.rep.push(rep);
}

/** The first `len` elements of `a`: a view when little is left over, else a copy (the buffer is freed). */
function fit<T extends Int32Array | Uint8Array>(a: T, len: number): T {
  return len === a.length ? a : len >= a.length - (a.length >> 3) ? a.subarray(0, len) as T : a.slice(0, len) as T;
}
