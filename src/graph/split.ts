/**
 * The split graph: a level's forbidden cycles as plain cycles, in linear size (DESIGN-NOTES.md,
 * docs/levels.md).
 *
 * Takes: dependency edges (from, to, kind) over n transactions and a level.
 * Gives: a CSR graph over 2n nodes, `2t` = t.d and `2t+1` = t.n, where each split edge
 * remembers its dependency edge. Which split edges an edge of each kind becomes is the level's
 * composition (`ENCODING` below, one row per level); "Dep" = d->d and n->d:
 *   SER, strict-SER:  every kind is Dep: the cycles are all dependency cycles.
 *   SI, strict-SI:    Dep for SO/WR/WW/RT, RW a->b = a.d->b.n: the cycles are those of
 *                     (SO ∪ WR ∪ WW ∪ RT) ; RW? (Cerone & Gotsman), i.e. without two adjacent RWs.
 *   PC:               Dep for SO/WR/RT, WW a->b = a.d->b.n and a.n->b.n, RW a->b = a.d->b.n:
 *                     the cycles of ((SO ∪ WR) ; RW?) ∪ WW (Bernardi & Gotsman 2016): every RW
 *                     right after an SO or WR edge.
 *   RR (PL-2.99), PL-3: Dep for WR/WW/RW, nothing for SO: Adya's DSG has no session order.
 *   PL-SI:            SI's row without SO (Adya's PL-SI, Elle's :snapshot-isolation).
 *   PSI:              Dep for SO/WR/WW, nothing for RW: the split graph is the Dep graph, and
 *                     PSI's other half, "no RW edge a->b with b Dep+ a" ((Dep+ ; RW?) is
 *                     irreflexive), is checked edge by edge (`closingRw`, psi.ts): no single
 *                     graph's acyclicity says "at most one RW edge" (a cycle walked twice has two).
 * Invariant (every level): a split edge into t.n comes from a .d node or from a .n node whose
 * .d twin has the same edge, and the edges out of t.n are a subset of those out of t.d, so
 * whatever t.n reaches t.d reaches too (reach.ts relies on it); the cycles of the split graph
 * are exactly the cycles the level forbids (for PSI: those with no RW edge).
 */

import type { Level } from '../result/types.ts';
import type { PolygraphLevel } from '../result/levels.ts';
import { K_RW } from './edges.ts';

/** Split edges of one dependency edge a->b: [layer of a, layer of b], layer 0 = .d, 1 = .n. */
type Pairs = readonly (readonly [number, number])[];
const DEP: Pairs = [[0, 0], [1, 0]];
const INTO_N: Pairs = [[0, 1]];
const WW_PC: Pairs = [[0, 1], [1, 1]];
const NONE: Pairs = [];

/** Per level, the pairs of each kind, indexed by kind code: SO, WR, WW, RW, RT (edges.ts). */
const ENCODING: Record<PolygraphLevel, readonly Pairs[]> = {
  'ser': [DEP, DEP, DEP, DEP, DEP],
  'strict-ser': [DEP, DEP, DEP, DEP, DEP],
  'si': [DEP, DEP, DEP, INTO_N, DEP],
  'strict-si': [DEP, DEP, DEP, INTO_N, DEP],
  'pc': [DEP, DEP, WW_PC, INTO_N, DEP],
  'psi': [DEP, DEP, DEP, NONE, DEP],
  'rr': [NONE, DEP, DEP, DEP, NONE],
  'pl-3': [NONE, DEP, DEP, DEP, NONE],
  'pl-si': [NONE, DEP, DEP, INTO_N, NONE],
};

/** A polygraph level's row; the saturation levels (src/levels/) never reach the split graph. */
function rowOf<T>(table: Partial<Record<Level, T>>, level: Level): T {
  const row = table[level];
  if (row === undefined) throw new Error(`internal error: ${level} is not decided by the polygraph`);
  return row;
}

/**
 * The same table flattened for the hot loops: per kind, the count and up to two (x, y) pairs,
 * and how many of its split edges leave the source's .d node (`fromD`) and its .n node (`fromN`).
 */
interface Flat { count: Int8Array; x: Int8Array; y: Int8Array; fromD: Int8Array; fromN: Int8Array }
const FLAT: Record<PolygraphLevel, Flat> = Object.fromEntries(
  Object.entries(ENCODING).map(([level, kinds]) => [level, {
    count: Int8Array.from(kinds, (p) => p.length),
    x: Int8Array.from({ length: 2 * kinds.length }, (_, i) => kinds[i >> 1]![i & 1]?.[0] ?? 0),
    y: Int8Array.from({ length: 2 * kinds.length }, (_, i) => kinds[i >> 1]![i & 1]?.[1] ?? 0),
    fromD: Int8Array.from(kinds, (p) => p.filter(([x]) => x === 0).length),
    fromN: Int8Array.from(kinds, (p) => p.filter(([x]) => x === 1).length),
  }]),
) as Record<PolygraphLevel, Flat>;
// fillOut writes at most two pairs per kind.
if (Object.values(ENCODING).some((kinds) => kinds.some((p) => p.length > 2))) throw new Error('internal error: a kind with more than two split edges');

/**
 * The encoding as flat per-kind arrays for hot loops: an edge of kind k becomes `count[k]`
 * split edges, pair p from layer `x[2k+p]` of its source to layer `y[2k+p]` of its target;
 * `intoN[k]` = 1 when one of them goes from a .d node into a .n node.
 */
export interface SplitTable { count: Int8Array; x: Int8Array; y: Int8Array; intoN: Uint8Array }

export function splitTable(level: Level): SplitTable {
  const { count, x, y } = rowOf(FLAT, level);
  const t = { count, x, y };
  const intoN = Uint8Array.from(t.count, (c, k) => {
    for (let p = 0; p < c; p++) if (t.x[2 * k + p] === 0 && t.y[2 * k + p] === 1) return 1;
    return 0;
  });
  return { ...t, intoN };
}

/**
 * Whether every split edge into a .n node comes from a .d node, at most one per dependency edge
 * (SI and strict SI: RW a->b is a.d->b.n alone; SER, RR, PSI: none; not PC, whose WW has
 * a.n->b.n): then t.n's in-degree counts exactly the edges into t of the kinds `intoN` marks.
 */
export function entersNFromDOnly(tbl: SplitTable): boolean {
  for (let k = 0; k < tbl.count.length; k++) {
    let intoN = 0;
    for (let p = 0; p < tbl.count[k]!; p++) if (tbl.y[2 * k + p] === 1) { if (tbl.x[2 * k + p] !== 0) return false; intoN++; }
    if (intoN > 1) return false;
  }
  return true;
}

/** The split-edge pairs of an edge of `kind` at `level`. */
export function splitPairs(kind: number, level: Level): Pairs {
  return rowOf<readonly Pairs[]>(ENCODING, level)[kind]!;
}

/** True for PSI: RW edges are not in the split graph and are checked one by one (psi.ts). */
export function checksRwApart(level: Level): boolean {
  return level === 'psi';
}

/** True for the levels whose known graph holds real-time (RT) edges. */
export function usesRealTime(level: Level): boolean {
  return level === 'strict-si' || level === 'strict-ser';
}

export interface SplitGraph {
  nodeCount: number;
  /** CSR of out-edges: node u's edges are `outStart[u] .. outStart[u+1]-1`. */
  outStart: Int32Array;
  outTo: Int32Array;
  /** The dependency edge (caller's index) each split edge came from (empty when built without). */
  outEdge: Int32Array;
}

/** How many split edges one dependency edge becomes. */
export function splitEdgeCount(kind: number, level: Level): number {
  return splitPairs(kind, level).length;
}

/**
 * Calls `emit(splitFrom, splitTo)` for each split edge of dependency edge a->b of `kind`.
 * Kept as the single definition of the encoding, shared by pruning, solving and reporting.
 */
export function forEachSplitEdge(a: number, b: number, kind: number, level: Level, emit: (u: number, v: number) => void): void {
  const pairs = splitPairs(kind, level);
  for (let p = 0; p < pairs.length; p++) emit(2 * a + pairs[p]![0]!, 2 * b + pairs[p]![1]!);
}

/**
 * When does edge a->b of `kind` close a forbidden cycle with a graph? When split node `start`
 * reaches one of the `targets` (the edge's split sources). For PSI's RW edges, which are not in
 * the split graph: when b.d reaches a.d (then the RW edge ends a cycle with one RW edge).
 * Every kind's pairs share one target layer, so one start suffices.
 */
export function closingQuery(a: number, b: number, kind: number, level: Level): { start: number; targets: number[] } {
  const pairs = splitPairs(kind, level);
  if (pairs.length === 0) return { start: 2 * b, targets: kind === K_RW && checksRwApart(level) ? [2 * a] : [] };
  return { start: 2 * b + pairs[0]![1]!, targets: pairs.map(([x]) => 2 * a + x) };
}

/**
 * The split graph of `count` dependency edges given as columns (the fast path).
 * `withEdges` false leaves `outEdge` empty: pruning's reachability never reads it, and not
 * writing it saves a third of the scatter. Each pass is its own function so that V8 optimises
 * each with its own feedback (one function with three loops is compiled on the first loop and
 * thrown away on the next: on a cold process that cost more than the work).
 */
export function buildSplitGraph(
  n: number, count: number, from: Int32Array, to: Int32Array, kind: Int32Array, level: Level, withEdges = true,
): SplitGraph {
  const nodeCount = 2 * n;
  const t = rowOf(FLAT, level);
  const outStart = countOut(nodeCount, 0, count, from, kind, t.fromD, t.fromN);
  prefixSum(outStart, nodeCount);
  const m = outStart[nodeCount]!;
  const outTo = new Int32Array(m), outEdge = new Int32Array(withEdges ? m : 0);
  const fill = outStart.slice(0, nodeCount);
  if (withEdges) fillOutWithEdges(0, count, from, to, kind, t.count, t.x, t.y, fill, outTo, outEdge);
  else fillOut(0, count, from, to, kind, t.count, t.x, t.y, fill, outTo);
  return { nodeCount, outStart, outTo, outEdge };
}

/**
 * Per node u, at [u + 1], how many split edges the edges since .. count-1 put out of u: an edge
 * a->b of kind k puts `fromD[k]` out of a.d and `fromN[k]` out of a.n (no loop over its pairs:
 * in a fresh process this runs in the interpreter, where each bytecode counts).
 */
function countOut(nodeCount: number, since: number, count: number, from: Int32Array, kind: Int32Array, fromD: Int8Array, fromN: Int8Array): Int32Array {
  const outStart = new Int32Array(nodeCount + 1);
  for (let i = since; i < count; i++) {
    const at = 2 * from[i]! + 1, k = kind[i]!;
    outStart[at]! += fromD[k]!;
    outStart[at + 1]! += fromN[k]!;
  }
  return outStart;
}

function prefixSum(a: Int32Array, n: number): void {
  for (let u = 0; u < n; u++) a[u + 1]! += a[u]!;
}

/**
 * Writes the split edges of edges since .. count-1 at `fill` (each node's next free slot), in
 * pair order. The pairs are written out (a kind has at most two, checked below) instead of
 * looped over: fewer bytecodes per edge for the interpreter of a fresh process.
 */
function fillOut(
  since: number, count: number, from: Int32Array, to: Int32Array, kind: Int32Array, cnt: Int8Array, X: Int8Array, Y: Int8Array, fill: Int32Array,
  outTo: Int32Array,
): void {
  for (let i = since; i < count; i++) {
    const k = kind[i]!, c = cnt[k]!;
    if (c === 0) continue;
    const a = 2 * from[i]!, b = 2 * to[i]!, k2 = 2 * k;
    outTo[fill[a + X[k2]!]!++] = b + Y[k2]!;
    if (c === 2) outTo[fill[a + X[k2 + 1]!]!++] = b + Y[k2 + 1]!;
  }
}

/** `fillOut` that also records each split edge's dependency edge in `outEdge`. */
function fillOutWithEdges(
  since: number, count: number, from: Int32Array, to: Int32Array, kind: Int32Array, cnt: Int8Array, X: Int8Array, Y: Int8Array, fill: Int32Array,
  outTo: Int32Array, outEdge: Int32Array,
): void {
  for (let i = since; i < count; i++) {
    const k = kind[i]!, c = cnt[k]!;
    if (c === 0) continue;
    const a = 2 * from[i]!, b = 2 * to[i]!, k2 = 2 * k;
    let at = fill[a + X[k2]!]!++;
    outTo[at] = b + Y[k2]!; outEdge[at] = i;
    if (c === 2) { at = fill[a + X[k2 + 1]!]!++; outTo[at] = b + Y[k2 + 1]!; outEdge[at] = i; }
  }
}

/**
 * The split graph of edges 0 .. count-1 from `g`, the split graph of edges 0 .. since-1 built by
 * `buildSplitGraph` (or by this function) over the same columns, level and `withEdges`.
 * Why it equals `buildSplitGraph(n, count, ...)` exactly: that fills each node's out-list in
 * edge order, and every edge in `g` comes before every edge from `since` on, so a node's list
 * is its list in `g` followed by its new edges in edge order; both are what this writes.
 * Why: pruning's later rounds add few edges to a graph of tens of millions; copying the old
 * lists in node order is sequential, where a rebuild scatters every edge again (10^6 txns:
 * about 2 s per rebuild).
 * `capacity` > 0 lets the result's arrays be views of buffers of that many cells (when more
 * than needed), and lets `g` be extended in place when its buffers have room: then `g` is
 * consumed (its lists are moved; the caller must hold no other reference to it). Why: without
 * it the old and the new graph are both alive while the lists are copied (10^6 txns: 128 MB
 * more at pruning's peak).
 */
export function extendSplitGraph(
  g: SplitGraph, since: number, count: number, from: Int32Array, to: Int32Array, kind: Int32Array, level: Level, withEdges = true, capacity = 0,
): SplitGraph {
  const nodeCount = g.nodeCount;
  if (withEdges !== (g.outEdge.length === g.outTo.length) && g.outTo.length > 0) throw new Error('extendSplitGraph: withEdges differs from the graph extended');
  if (since > count) throw new Error(`extendSplitGraph: since ${since} > count ${count}`);
  const t = rowOf(FLAT, level);
  const added = countOut(nodeCount, since, count, from, kind, t.fromD, t.fromN);
  // outStart[u] = old start + the new edges of the nodes before u.
  const outStart = new Int32Array(nodeCount + 1);
  let extra = 0;
  for (let u = 0; u < nodeCount; u++) { outStart[u] = g.outStart[u]! + extra; extra += added[u + 1]!; }
  outStart[nodeCount] = g.outStart[nodeCount]! + extra;
  const m = outStart[nodeCount]!;
  let outTo: Int32Array, outEdge: Int32Array, fill: Int32Array;
  if (capacity > 0 && roomFor(g.outTo, m) && (!withEdges || roomFor(g.outEdge, m))) {
    outTo = new Int32Array(g.outTo.buffer, 0, m);
    outEdge = withEdges ? new Int32Array(g.outEdge.buffer, 0, m) : g.outEdge;
    fill = moveOldLists(g.outStart, outStart, nodeCount, outTo, withEdges ? outEdge : null);
  } else {
    const cells = Math.max(m, capacity);
    outTo = new Int32Array(new ArrayBuffer(4 * cells), 0, m);
    outEdge = withEdges ? new Int32Array(new ArrayBuffer(4 * cells), 0, m) : new Int32Array(0);
    // The old lists copied in one block, then moved into place within the new buffers by runs,
    // as in place: a copy per run (memmove) rather than a loop per edge (the 360-txn histories:
    // ~400 runs for 3,700 split edges, in a fresh process's interpreter).
    outTo.set(g.outTo);
    if (withEdges) outEdge.set(g.outEdge);
    fill = moveOldLists(g.outStart, outStart, nodeCount, outTo, withEdges ? outEdge : null);
  }
  if (withEdges) fillOutWithEdges(since, count, from, to, kind, t.count, t.x, t.y, fill, outTo, outEdge);
  else fillOut(since, count, from, to, kind, t.count, t.x, t.y, fill, outTo);
  return { nodeCount, outStart, outTo, outEdge };
}

/** Whether `a` is a view from the start of a buffer that holds at least `m` Int32 cells. */
function roomFor(a: Int32Array, m: number): boolean {
  return a.byteOffset === 0 && a.buffer.byteLength >= 4 * m;
}

/**
 * Moves each node's old list, within the same buffers, to the start of its new range,
 * which is never before its old one. A node's shift (new start - old start) is the count of new
 * edges of the nodes before it, so it is the same along a run of nodes up to the next one that
 * gained an edge: each run moves in one copyWithin (memmove), from the last run down, and a run
 * never lands on one not yet moved (its end plus its shift is at most the next run's new
 * start). Nodes before the first one that gained an edge do not move. Returns where new edges go.
 * Why runs: a loop per node over lists of a few edges ran mostly unoptimised in a fresh process
 * (fig8 30 %, round 2's graph: 8-11 ms to move 419k split edges).
 */
function moveOldLists(oldStart: Int32Array, outStart: Int32Array, nodeCount: number, outTo: Int32Array, outEdge: Int32Array | null): Int32Array {
  for (let hi = nodeCount - 1; hi >= 0;) {
    const shift = outStart[hi]! - oldStart[hi]!;
    if (shift === 0) break;
    const lo = runStart(oldStart, outStart, hi, shift);
    const s = oldStart[lo]!, e = oldStart[hi + 1]!;
    if (e > s) {
      outTo.copyWithin(s + shift, s, e);
      if (outEdge !== null) outEdge.copyWithin(s + shift, s, e);
    }
    hi = lo - 1;
  }
  return afterOldLists(oldStart, outStart, nodeCount);
}

/** The first node of the run of nodes ending at `hi` that share its shift. */
function runStart(oldStart: Int32Array, outStart: Int32Array, hi: number, shift: number): number {
  let lo = hi;
  while (lo > 0 && outStart[lo - 1]! - oldStart[lo - 1]! === shift) lo--;
  return lo;
}

/** Where each node's new edges go: right after its old list at its new start. */
function afterOldLists(oldStart: Int32Array, outStart: Int32Array, nodeCount: number): Int32Array {
  const fill = new Int32Array(nodeCount);
  for (let u = 0; u < nodeCount; u++) fill[u] = outStart[u]! + oldStart[u + 1]! - oldStart[u]!;
  return fill;
}

/** The same from accessor functions, for small graphs built from objects (explanations). */
export function buildSplitGraphOf(
  n: number, count: number, from: (i: number) => number, to: (i: number) => number, kind: (i: number) => number, level: Level,
): SplitGraph {
  const f = new Int32Array(count), t = new Int32Array(count), k = new Int32Array(count);
  for (let i = 0; i < count; i++) { f[i] = from(i); t[i] = to(i); k[i] = kind(i); }
  return buildSplitGraph(n, count, f, t, k, level);
}

/**
 * Kahn's algorithm. Returns the nodes in topological order if the graph is acyclic, or null.
 * Iterative, O(nodes + edges).
 */
export function topoOrder(g: SplitGraph): Int32Array | null {
  const indeg = inDegrees(g);
  const order = new Int32Array(g.nodeCount);
  let tail = 0;
  for (let u = 0; u < g.nodeCount; u++) if (indeg[u] === 0) order[tail++] = u;
  tail = kahn(g, indeg, order, tail);
  return tail === g.nodeCount ? order : null;
}

function inDegrees(g: SplitGraph): Int32Array {
  const indeg = new Int32Array(g.nodeCount);
  const outTo = g.outTo, m = outTo.length;
  for (let i = 0; i < m; i++) indeg[outTo[i]!]!++;
  return indeg;
}

/** Kahn's queue (`order[0 .. tail-1]` holds the sources); returns the number of nodes sorted. */
function kahn(g: SplitGraph, indeg: Int32Array, order: Int32Array, tail: number): number {
  const { outStart, outTo } = g;
  for (let head = 0; head < tail; head++) {
    const u = order[head]!;
    for (let e = outStart[u]!; e < outStart[u + 1]!; e++) {
      const v = outTo[e]!;
      if (--indeg[v]! === 0) order[tail++] = v;
    }
  }
  return tail;
}

/**
 * A topological order of the split graph `g` (or null when it is cyclic) in which each t.n comes
 * right after its twin t.d, or later when an edge into t.n demands it; for pruning, whose later
 * rounds add edges a.d -> b.n and repair the order instead of sorting again (repairTopoOrder).
 * Why: plain Kahn puts every t.n with no edge in (most of them, before RW edges are known)
 * among the first nodes, so nearly every RW edge forced later goes backward in the order, and by
 * far (fig8 shape at 125k: 446,272 of 2,590,024 new split edges, by 75,768 places on average);
 * next to t.d, such an edge goes backward only when b.d precedes a.d, which is rare and near.
 * Why it cannot wait forever on an acyclic graph: t.n waits only for t.d, and t.d never waits
 * on t.n, since a path t.n ->+ t.d would make a cycle through t.d (t.n's edges out are among
 * t.d's, split.ts's invariant). A cycle leaves nodes unsorted, as in plain Kahn; so that a
 * broken invariant can never report a false cycle, plain Kahn confirms before null is returned.
 * `inDegreesOut`, if given (nodeCount cells), receives every node's in-degree in `g`.
 */
export function topoOrderSplit(g: SplitGraph, inDegreesOut: Int32Array | null = null): Int32Array | null {
  const N = g.nodeCount;
  const { outStart, outTo } = g;
  const indeg = inDegrees(g);
  // The in-degrees, for a caller that wants them too (pruning's chain cover), before Kahn
  // counts them down.
  if (inDegreesOut !== null) inDegreesOut.set(indeg);
  const state = new Uint8Array(N);
  const order = new Int32Array(N);
  // kahnTwins over every node (all of them MEMBER, 0 here), written for that case: the
  // in-degrees in one flat pass over the edges, no per-edge state test (a node is a member
  // until its in-degree reaches 0, and then no edge into it is left) and no copy at the end.
  // Same order, same verdict (test/graph/topo-repair.test.ts).
  let tail = 0;
  for (let u = 0; u < N; u++) {
    if (indeg[u] !== 0) continue;
    if ((u & 1) === 1 && state[u - 1] === MEMBER_0) { state[u] = PARKED; continue; }
    order[tail++] = u; state[u] = PLACED;
    if ((u & 1) === 0 && state[u + 1] === PARKED) { order[tail++] = u + 1; state[u + 1] = PLACED; }
  }
  for (let head = 0; head < tail; head++) {
    const u = order[head]!;
    for (let e = outStart[u]!, end = outStart[u + 1]!; e < end; e++) {
      const v = outTo[e]!;
      if (--indeg[v]! !== 0) continue;
      if ((v & 1) === 1 && state[v - 1] === MEMBER_0) { state[v] = PARKED; continue; }
      order[tail++] = v; state[v] = PLACED;
      if ((v & 1) === 0 && state[v + 1] === PARKED) { order[tail++] = v + 1; state[v + 1] = PLACED; }
    }
  }
  return tail === N ? order : topoOrder(g);
}

/** topoOrderSplit's state of a node not yet placed nor parked. */
const MEMBER_0 = 0;

/** Node states in kahnTwins: not being sorted, waiting, placed, parked (a t.n waiting for t.d). */
const OUTSIDE = 0, MEMBER = 1, PLACED = 2, PARKED = 3;

/**
 * Kahn over the nodes `nodes[lo .. hi-1]` (their `state` MEMBER, every other node's OUTSIDE),
 * edges to nodes outside ignored, sources taken in the order given; a t.n whose twin t.d is
 * still to be placed is parked until then (topoOrderSplit says why). Writes the order over
 * `nodes[lo .. hi-1]` and returns `nodes`, or null when some node could not be placed (a cycle
 * among them). Leaves the states PLACED (or as they were stuck). `indeg` and `queue` are
 * scratch of at least hi - lo cells (indeg indexed by node: N cells).
 */
function kahnTwins(g: SplitGraph, nodes: Int32Array, lo: number, hi: number, state: Uint8Array, indeg: Int32Array, queue: Int32Array): Int32Array | null {
  const { outStart, outTo } = g;
  for (let i = lo; i < hi; i++) indeg[nodes[i]!] = 0;
  for (let i = lo; i < hi; i++) {
    const u = nodes[i]!;
    for (let e = outStart[u]!; e < outStart[u + 1]!; e++) {
      const v = outTo[e]!;
      if (state[v] === MEMBER) indeg[v]!++;
    }
  }
  let tail = 0;
  for (let i = lo; i < hi; i++) {
    const u = nodes[i]!;
    if (indeg[u] !== 0 || state[u] !== MEMBER) continue;
    // Placing a ready node (here and below): a t.n whose t.d is still to be placed is parked; a
    // t.d is placed with its parked t.n right after it. Written out twice, not a function: in
    // a fresh process these loops start in the interpreter, where a call per node costs about
    // as much as placing it (fig8 30 %, first sort min of 11: 12.3 -> 11.7 ms; the 360-txn
    // history 0.49 -> 0.43 ms).
    if ((u & 1) === 1 && state[u - 1] === MEMBER) { state[u] = PARKED; continue; }
    queue[tail++] = u; state[u] = PLACED;
    if ((u & 1) === 0 && state[u + 1] === PARKED) { queue[tail++] = u + 1; state[u + 1] = PLACED; }
  }
  for (let head = 0; head < tail; head++) {
    const u = queue[head]!;
    for (let e = outStart[u]!; e < outStart[u + 1]!; e++) {
      const v = outTo[e]!;
      if (state[v] !== MEMBER || --indeg[v]! !== 0) continue;
      if ((v & 1) === 1 && state[v - 1] === MEMBER) { state[v] = PARKED; continue; }
      queue[tail++] = v; state[v] = PLACED;
      if ((v & 1) === 0 && state[v + 1] === PARKED) { queue[tail++] = v + 1; state[v + 1] = PLACED; }
    }
  }
  if (tail !== hi - lo) return null;
  nodes.set(queue.subarray(0, tail), lo);
  return nodes;
}

/**
 * The split edges of edges `since .. count-1` (columns as buildSplitGraph's) that go backward in
 * `order`, as repairTopoOrder's spans: +1 at the target's position, -1 after the source's; null
 * when every one goes forward (then `order` still sorts the graph with them: no cycle formed).
 */
export function backwardSpans(
  order: Int32Array, since: number, count: number, from: Int32Array, to: Int32Array, kind: Int32Array, tbl: SplitTable,
): Int32Array | null {
  const spans = new Int32Array(order.length + 1);
  return markBackward(ranks(order), spans, since, count, from, to, kind, tbl.count, tbl.x, tbl.y) ? spans : null;
}

/**
 * backwardSpans, or 'resort' as soon as the spans of the edges `since .. hi-1` for some hi
 * (a multiple of `chunk` edges on) already cover more than half the positions: repairTopoOrder
 * would then sort the whole graph again anyway (the positions all the spans cover are at least
 * those), so the rest need not be scanned. Otherwise exactly backwardSpans's result.
 * Why: after pruning's round 1 on fig8 30 %, 724 backward split edges among 340k new ones span
 * 16,436 of 20,000 positions, and finding them all took ~5 ms in a fresh process.
 */
export function backwardSpansOrResort(
  order: Int32Array, since: number, count: number, from: Int32Array, to: Int32Array, kind: Int32Array, tbl: SplitTable,
  chunk = Math.max(4 * order.length, 1 << 16),
): Int32Array | null | 'resort' {
  const rank = ranks(order);
  const spans = new Int32Array(order.length + 1);
  let any = false;
  for (let lo = since; lo < count; lo += chunk) {
    const hi = Math.min(count, lo + chunk);
    if (!markBackward(rank, spans, lo, hi, from, to, kind, tbl.count, tbl.x, tbl.y)) continue;
    any = true;
    if (hi < count && spannedPositions(spans, order.length) * 2 > order.length) return 'resort';
  }
  return any ? spans : null;
}

/** How many of the positions 0 .. n-1 the spans cover (spans left as they are). */
function spannedPositions(spans: Int32Array, n: number): number {
  let covered = 0;
  for (let i = 0, depth = 0; i < n; i++) { depth += spans[i]!; if (depth > 0) covered++; }
  return covered;
}

/**
 * rank[u] = u's position in `order`. Its own function, apart from markBackward's loop, so that V8
 * optimises each hot loop with its own feedback (fig8 30 %, fresh process: 7.0 -> 5.1 ms).
 */
export function ranks(order: Int32Array): Int32Array {
  const rank = new Int32Array(order.length);
  for (let i = 0; i < order.length; i++) rank[order[i]!] = i;
  return rank;
}

/** backwardSpans's scan: adds each backward split edge's span to `spans`; whether there was one. Pairs written out as in fillOut. */
function markBackward(
  rank: Int32Array, spans: Int32Array, since: number, count: number, from: Int32Array, to: Int32Array, kind: Int32Array, cnt: Int8Array, X: Int8Array, Y: Int8Array,
): boolean {
  let any = false;
  for (let i = since; i < count; i++) {
    const k = kind[i]!, c = cnt[k]!;
    if (c === 0) continue;
    const a = 2 * from[i]!, b = 2 * to[i]!, k2 = 2 * k;
    let ru = rank[a + X[k2]!]!, rv = rank[b + Y[k2]!]!;
    if (ru >= rv) { spans[rv]!++; spans[ru + 1]!--; any = true; }
    if (c === 2) {
      ru = rank[a + X[k2 + 1]!]!; rv = rank[b + Y[k2 + 1]!]!;
      if (ru >= rv) { spans[rv]!++; spans[ru + 1]!--; any = true; }
    }
  }
  return any;
}

/**
 * Repairs `order`, a topological order of a subgraph of `g` on the same nodes, into one of `g`
 * (in place; null when `g` is cyclic). `spans` (nodeCount + 1 cells, consumed) marks each edge
 * of g that goes backward in `order`, u -> v with rank(u) > rank(v), as +1 at rank(v) and -1 at
 * rank(u) + 1 (backwardSpans).
 * Only the runs of positions that some backward edge spans are sorted again, each on its own
 * (Kahn with twins, as topoOrderSplit, sources in their old order): the prefix before a run is
 * untouched by it (every edge into the prefix comes from the prefix: a backward one would span
 * into it), likewise what follows it, and a cycle of g lies within one run (between its
 * lowest and highest position every rank is spanned by one of its backward edges), where
 * Kahn finds it. Cost: the nodes and out-edges of the runs, instead of the whole graph's.
 * When the runs cover most of the graph, the whole graph is sorted again (topoOrderSplit).
 */
export function repairTopoOrder(g: SplitGraph, order: Int32Array, spans: Int32Array): Int32Array | null {
  const N = g.nodeCount;
  let covered = 0;
  for (let i = 0, depth = 0; i < N; i++) { depth += spans[i]!; spans[i] = depth; if (depth > 0) covered++; }
  if (covered * 2 > N) return topoOrderSplit(g);
  const state = new Uint8Array(N);
  const indeg = new Int32Array(N), queue = new Int32Array(N);
  for (let lo = 0; lo < N;) {
    if (spans[lo] === 0) { lo++; continue; }
    // A run: lo .. hi-1 (the edge u -> v spans rank(v) .. rank(u), both ends included).
    let hi = lo;
    while (hi < N && spans[hi]! > 0) hi++;
    for (let i = lo; i < hi; i++) state[order[i]!] = MEMBER;
    if (kahnTwins(g, order, lo, hi, state, indeg, queue) === null) return topoOrder(g);
    for (let i = lo; i < hi; i++) state[order[i]!] = OUTSIDE;
    lo = hi;
  }
  return order;
}
