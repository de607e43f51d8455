/**
 * Exact reachability for pruning, in O(nodes x chains) memory (no n x n matrix).
 *
 * Takes: an acyclic split graph with its topological order, and the History.
 * Gives: `Reach`, answering "does split node u reach t.d?" in O(1) and "does u reach t.n?" in
 * O(chains holding an RW predecessor of t).
 * Why it is exact: the txns are covered by chains along Dep edges of the graph itself (chains.ts;
 * the committed txns of a session are the first choice), so the .d nodes a node reaches within
 * one chain form a suffix of it.
 * `minPos[u*S + c]` = the smallest position p such that u reaches (or is) the .d node of the
 * txn at position p of chain c; INF if none. Entering t.n only happens through an RW edge
 * c.d -> t.n, so u reaches t.n iff u reaches c.d for some RW predecessor c of t, i.e. iff
 * minPos[u*S + chain(c)] <= pos(c) for the last such c of some chain.
 * Memory bound: with more than `cellsMax / (2 x txns)` chains, only that many of the longest
 * chains get a column; a txn of an untracked chain is then reported unreachable. That
 * under-approximates, which costs pruning power but never soundness.
 * The passes run in the WebAssembly kernel of reach-wasm.ts (the table then lives in its memory)
 * when util/wasm.ts's policy says so (large tables, unless POLYSI_NO_WASM=1); the JS passes below
 * compute the same rows, cell for cell (test/prune/reach-wasm.test.ts).
 * Invariant: never over-approximates (pruning soundness depends on it).
 */

import { checkDeadline, DEADLINE_CHECK_MASK } from '../util/deadline.ts';
import type { History } from '../history/model.ts';
import type { SplitGraph } from '../graph/split.ts';
import { chainCover, type AlsoTouched } from './chains.ts';
import { kernelWanted, WasmReach, type ConstraintColumns, type ScanSize } from './reach-wasm.ts';
import type { KernelChoice } from '../util/wasm.ts';

const INF = 0x7fffffff;
/** `update` recomputes every row when more than 1/FULL_PASS_FRACTION of the nodes grew. */
const FULL_PASS_FRACTION = 8;

/**
 * The fewest grown nodes for which `update` recomputes every row of a graph of `nodeCount`
 * nodes (then it never reads which nodes grew: a caller may stop marking them there).
 */
export function fullPassGrown(nodeCount: number): number {
  return Math.floor(nodeCount / FULL_PASS_FRACTION) + 1;
}

/** ReachTable.columns: the table and the RW predecessor lists (CSR by txn), read in place. */
export interface ReachColumns {
  S: number; sess: Int32Array; pos: Int32Array; minPos: Int32Array; rwStart: Int32Array; rwSess: Int32Array; rwPos: Int32Array;
}

export interface Reach {
  /** Does split node u reach t.d (u = t.d counts)? */
  reachesD(u: number, t: number): boolean;
  /** Does split node u reach t.n? (SI only; always false when there are no RW edges.) */
  reachesN(u: number, t: number): boolean;
}

/** Memory bound: minPos has (2 x txns x tracked sessions) Int32 cells; 600 MB by default. */
export const REACH_CELLS_MAX = 150_000_000;

/**
 * Which chains get a column: all of them if the table fits in `cellsMax`, else the longest ones
 * that fit (at least one). `column[c]` is -1 for an untracked chain.
 */
export function trackedChains(chainLength: Int32Array, txnCount: number, cellsMax: number): { column: Int32Array; tracked: number } {
  const C = chainLength.length;
  const fit = Math.max(1, Math.floor(cellsMax / Math.max(1, 2 * txnCount)));
  const column = new Int32Array(C);
  if (C <= fit) {
    // Every chain fits: its own column (no array of indices, no closures, in a fresh process).
    for (let c = 0; c < C; c++) column[c] = c;
    return { column, tracked: C };
  }
  column.fill(-1);
  const byLength = Array.from({ length: C }, (_, c) => c);
  byLength.sort((a, b) => chainLength[b]! - chainLength[a]! || a - b);
  for (let i = 0; i < fit; i++) column[byLength[i]!] = i;
  return { column, tracked: fit };
}

/**
 * The reachability table of a graph that only grows (pruning rounds add forced edges).
 * `build` fixes a chain cover of the first graph and fills the table; `update` brings it up to
 * date with a grown graph by recomputing only the rows that can change.
 * Why the first cover stays valid: consecutive txns of a chain are joined by a Dep edge of the
 * first graph, and edges are never removed. Txns the first graph does not touch but a later
 * one may (`alsoTouched`, the constraint endpoints) get a chain of their own up front, so no
 * txn is ever left out of the cover by growth.
 * Why `update` is exact: the true row of u is own(u) min the rows of u's successors. Rows only
 * decrease as edges are added. A node whose out-edges did not change and none of whose
 * successors' rows changed keeps its true row (same equation, same inputs). Every other node
 * is visited in reverse topological order of the new graph, so its successors are final when
 * it is visited, and its new row is min(old row, successors' new rows): the old row is made of
 * positions it really reaches (true in a subgraph), and the minimum over all successors
 * includes every new path. A node whose row changed is marked, and a node whose out-edges did
 * not grow merges only its marked successors (found by scanning its out-edges). Cost: O(nodes + edges) for the scan, plus O(S) per edge merged, instead of O(S) per
 * edge of the whole graph.
 */
export class ReachTable {
  private constructor(
    readonly S: number,
    /** Column of t's chain, or -1 (untracked or no chain). */
    readonly sess: Int32Array,
    readonly pos: Int32Array,
    /** The table when the JS passes keep it; null while the WebAssembly kernel does. */
    private jsTable: Int32Array | null,
    /** The WebAssembly kernel holding the table (reach-wasm.ts), or null (POLYSI_NO_WASM=1, or no memory for it). */
    private kernel: WasmReach | null,
    readonly chains: number,
    readonly tracked: number,
  ) {}

  /** `minPos[u*S + c]` (see the header). A view of the kernel's memory: read it again after `update`. */
  get minPos(): Int32Array {
    return this.kernel !== null ? this.kernel.table : this.jsTable!;
  }

  /** Whether the WebAssembly kernel computes the rows (else the JS passes). */
  get usesWasm(): boolean {
    return this.kernel !== null;
  }

  /**
   * `room` gives what the WebAssembly kernel must reserve memory for (the split edges of any
   * later graph, and the scan's sizes; reach-wasm.ts); it is asked only when the kernel is
   * wanted (it costs a pass over the constraints: not worth it for a table the JS passes keep).
   * `inDegrees`: g's in-degrees, if the caller has them (chainCover). `kernel`: whether the
   * kernel keeps the table (util/wasm.ts's policy; tests ask for 'always' or 'never').
   */
  static build(
    h: History, g: SplitGraph, order: Int32Array, cellsMax: number, alsoTouched: AlsoTouched | null,
    deadlineMs: number, room: (() => { splitEdgesMax: number; scan: ScanSize | null }) | null = null, inDegrees: Int32Array | null = null,
    kernelChoice: KernelChoice = 'auto',
  ): ReachTable {
    const cover = chainCover(h, g, order, alsoTouched, inDegrees);
    const { column, tracked } = trackedChains(cover.chainLength, h.txnCount, cellsMax);
    const S = Math.max(1, tracked);
    const n = h.txnCount;
    const pos = cover.posOf, chainOf = cover.chainOf;
    // Every chain tracked: chain c is column c (trackedChains), so the columns are the chains.
    let sess = chainOf;
    if (tracked < cover.count) {
      sess = new Int32Array(n);
      for (let t = 0; t < n; t++) sess[t] = chainOf[t]! < 0 ? -1 : column[chainOf[t]!]!;
    }
    const cells = g.nodeCount * S;
    let kernel: WasmReach | null = null;
    if (kernelWanted(cells, kernelChoice)) {
      const { splitEdgesMax, scan } = room?.() ?? { splitEdgesMax: 0, scan: null };
      kernel = WasmReach.create(S, sess, pos, g, splitEdgesMax, scan);
    }
    if (kernel !== null) {
      kernel.full(g, order, deadlineMs);
      return new ReachTable(S, sess, pos, null, kernel, cover.count, tracked);
    }
    const minPos = new Int32Array(cells);
    minReachablePositions(g, order, S, sess, pos, minPos, deadlineMs);
    return new ReachTable(S, sess, pos, minPos, null, cover.count, tracked);
  }

  /** From here on the JS passes keep the table (the kernel's memory could not grow). */
  private toJs(): void {
    this.jsTable = this.kernel!.table.slice();
    this.kernel = null;
  }

  /**
   * Bring the table up to date with `g`, a supergraph of the last graph, whose new edges leave
   * the `grownCount` split nodes marked in `grown`. Returns the rows that changed (1 = changed),
   * or null when it recomputed every row (then any row may have changed).
   * When many nodes grew, nearly every row changes (measured on fig8 30 %: 18,821 of 20,000
   * nodes grew after the first round and 19,669 rows changed), and the full pass, which merges
   * each Dep edge once per txn instead of twice, is cheaper.
   */
  update(g: SplitGraph, order: Int32Array, grown: Uint8Array, grownCount: number, deadlineMs: number): Uint8Array | null {
    const full = grownCount >= fullPassGrown(g.nodeCount);
    if (this.kernel !== null) {
      try {
        if (!full) return this.kernel.update(g, order, grown, deadlineMs);
        this.kernel.full(g, order, deadlineMs);
        return null;
      } catch (err) {
        // The memory could not grow for this pass (before the pass wrote anything: the table
        // is intact): the JS passes take over.
        if (!(err instanceof RangeError)) throw err;
        this.toJs();
      }
    }
    if (full) {
      minReachablePositions(g, order, this.S, this.sess, this.pos, this.jsTable!, deadlineMs);
      return null;
    }
    return updateRows(g, order, this.S, this.jsTable!, grown, deadlineMs);
  }

  /**
   * The kernel, prepared for this round's scan of the constraints (prune.ts), given the known
   * RW edges; null when the JS scan must run (JS passes, or no room for the scan).
   */
  kernelScan(pg: ConstraintColumns, tbl: { count: Int8Array; x: Int8Array; y: Int8Array }, active: Uint8Array, recheck: Uint8Array | null,
    rwCount: number, rwFrom: Int32Array, rwTo: Int32Array, rwOnly: RwFilter | null = null): WasmReach | null {
    if (this.kernel === null) return null;
    const rw = rwPredecessors(this.sess.length, rwCount, rwFrom, rwTo, rwOnly, this.sess, this.pos);
    return this.kernel.beginScan(pg, tbl, active, recheck, rw) ? this.kernel : null;
  }

  /**
   * The arrays `reach` answers from, for a scan that reads them in place (prune.ts's
   * decideRound: in a fresh process a closure call per query cost more than the query).
   * reachesD(u, t) = sess[t] >= 0 && minPos[u*S + sess[t]] <= pos[t]; reachesN(u, t) = some j in
   * rwStart[t] .. rwStart[t+1]-1 with minPos[u*S + rwSess[j]] <= rwPos[j].
   * `listLengths`: per split node, the in-degree in a split graph whose edges into each t.n are
   * exactly the edges 0 .. rwCount-1 into t that `rwOnly` keeps, one each (pruning's first
   * graph at a level whose .n nodes are entered only from .d nodes); read at t.n for t's list.
   */
  columns(rwCount: number, rwFrom: Int32Array, rwTo: Int32Array, rwOnly: RwFilter | null = null, listLengths: Int32Array | null = null): ReachColumns {
    const { S, sess, pos, minPos } = this;
    const rw = rwOnly !== null && (rwOnly.wanted ?? null) === null && sess.length < RW_UNREDUCED_MAX_TXNS
      ? rwPredecessorsUnreduced(sess.length, rwCount, rwFrom, rwTo, rwOnly, sess, pos, listLengths)
      : rwPredecessors(sess.length, rwCount, rwFrom, rwTo, rwOnly, sess, pos);
    return { S, sess, pos, minPos, rwStart: rw.start, rwSess: rw.sess, rwPos: rw.pos };
  }

  /**
   * Queries over the current table, given the known RW edges (SI; empty for SER): edges
   * 0 .. rwCount-1 of the columns, or with `rwOnly` those of them whose kind it marks.
   */
  reach(rwCount: number, rwFrom: Int32Array, rwTo: Int32Array, rwOnly: RwFilter | null = null): Reach {
    const { S, sess, pos, minPos } = this;
    const rw = rwPredecessors(sess.length, rwCount, rwFrom, rwTo, rwOnly, sess, pos);
    return {
      reachesD: (u, t) => sess[t]! >= 0 && minPos[u * S + sess[t]!]! <= pos[t]!,
      reachesN: (u, t) => {
        const row = u * S;
        for (let j = rw.start[t]!; j < rw.start[t + 1]!; j++) if (minPos[row + rw.sess[j]!]! <= rw.pos[j]!) return true;
        return false;
      },
    };
  }
}

/**
 * The JS incremental pass of `ReachTable.update` (the kernel's `update` does the same): the
 * nodes marked in `grown` merge every successor, the others only the successors whose row
 * changed, found by scanning their out-edges (cheaper than building the reverse adjacency to
 * mark predecessors, and no 4-bytes-per-edge array). Returns the changed rows (1 = changed).
 */
export function updateRows(g: SplitGraph, order: Int32Array, S: number, minPos: Int32Array, grown: Uint8Array, deadlineMs: number): Uint8Array {
  const { outStart, outTo, nodeCount } = g;
  const changed = new Uint8Array(nodeCount);
  for (let i = nodeCount - 1; i >= 0; i--) {
    if ((i & DEADLINE_CHECK_MASK) === 0) checkDeadline(deadlineMs, 'prune');
    const u = order[i]!;
    const all = grown[u] === 1;
    const row = u * S;
    let any = false;
    for (let e = outStart[u]!; e < outStart[u + 1]!; e++) {
      const v = outTo[e]!;
      if (!all && changed[v] === 0) continue;
      const vRow = v * S;
      for (let s = 0; s < S; s++) {
        const x = minPos[vRow + s]!;
        if (x < minPos[row + s]!) { minPos[row + s] = x; any = true; }
      }
    }
    if (any) changed[u] = 1;
  }
  return changed;
}

/**
 * `minPos[u*S + s]` for every split node u, in one reverse topological pass.
 * Every split edge out of t.n is a Dep edge to some x.d, and t.d has exactly the same Dep
 * edges plus its RW edges (which enter .n nodes). So row(t.d) = row(t.n), plus t's own
 * position, plus the rows of t.d's RW successors: each Dep edge is merged once, not twice.
 */
export function minReachablePositions(
  g: SplitGraph, order: Int32Array, S: number, sess: Int32Array, pos: Int32Array, minPos: Int32Array, deadlineMs: number,
): Int32Array {
  minPos.fill(INF);
  const done = new Uint8Array(g.nodeCount);
  const scratch = { earliest: new Int32Array(S), stamp: new Int32Array(S).fill(-1) };
  // A pass costs O(edges x chains): with thousands of chains, one pass can take seconds. The
  // deadline is checked between blocks.
  for (let hi = g.nodeCount; hi > 0; hi -= BLOCK) {
    checkDeadline(deadlineMs, 'prune');
    rowsOfBlock(g, order, Math.max(0, hi - BLOCK), hi, S, sess, pos, minPos, done, scratch.earliest, scratch.stamp);
  }
  return minPos;
}

/** How many nodes (in topological order) one call of the row passes handles between deadline checks. */
const BLOCK = DEADLINE_CHECK_MASK + 1;

/**
 * The rows of the nodes `order[lo .. hi-1]`, in reverse; every later node's row is final.
 * Of t.n's successors x.d in one tracked chain only the earliest is merged: it reaches every
 * later one along the chain (chains.ts: consecutive txns of a chain are joined by a Dep edge of
 * the graph), so its row is already at most theirs in every column and merging them changes
 * nothing. `earliest[c]` holds that position while `stamp[c]` is the node at hand (scratch,
 * S cells each). Successors that are .n nodes (PC) or in untracked chains are all merged.
 * A successor v.d (or, for t.d, an RW successor x.n) is skipped when the row built so far from
 * merged successors already reaches v.d (x.d): some merged successor w reaches an element of
 * v's chain at or before v, hence v.d itself, so w's final row is already at most v.d's in
 * every column, and v.d's at most x.n's (x.n's edges are among x.d's). Skipping it changes no
 * cell (the 360-txn histories: about a third of the merges).
 */
function rowsOfBlock(
  g: SplitGraph, order: Int32Array, lo: number, hi: number, S: number, sess: Int32Array, pos: Int32Array, minPos: Int32Array, done: Uint8Array,
  earliest: Int32Array, stamp: Int32Array,
): void {
  const { outStart, outTo } = g;
  for (let i = hi - 1; i >= lo; i--) {
    const u = order[i]!;
    if (done[u] === 1) continue;
    const nNode = u | 1;
    if ((u & 1) === 0 && outStart[u + 2] === outStart[u]) {
      // t.d, and neither it nor t.n has an edge out (a txn without edges, or a sink: a third of
      // the 360-txn histories' txns): t.n's row stays empty and t.d's is t's own position. No
      // merge, no row copy (a call each, in a fresh process). (Only at t.d, as below: t.d's row
      // is final when t.d is met, whatever the order.)
      const t = u >> 1, c = sess[t]!;
      if (c >= 0) minPos[u * S + c] = pos[t]!;
      done[u] = 1; done[nNode] = 1;
      continue;
    }
    const nRow = nNode * S;
    if (done[nNode] === 0) {
      // t.n: its successors come after t.d as well as after t.n in topological order, so they
      // are all done whichever of the two we meet first.
      const first = outStart[nNode]!, last = outStart[nNode + 1]!;
      for (let e = first; e < last; e++) {
        const v = outTo[e]!;
        if ((v & 1) === 1) continue;
        const c = sess[v >> 1]!;
        if (c >= 0 && (stamp[c] !== nNode || pos[v >> 1]! < earliest[c]!)) { stamp[c] = nNode; earliest[c] = pos[v >> 1]!; }
      }
      for (let e = first; e < last; e++) {
        const v = outTo[e]!;
        if ((v & 1) === 0) {
          const c = sess[v >> 1]!;
          if (c >= 0) {
            // Not the earliest of its chain, or the earliest already merged (parallel edges).
            if (stamp[c] !== nNode || pos[v >> 1]! !== earliest[c]!) continue;
            stamp[c] = -2;
            // Already reached through a successor merged before (see the header): nothing to add.
            if (minPos[nRow + c]! <= pos[v >> 1]!) continue;
          }
        }
        const vRow = v * S;
        for (let s = 0; s < S; s++) {
          const x = minPos[vRow + s]!;
          if (x < minPos[nRow + s]!) minPos[nRow + s] = x;
        }
      }
      done[nNode] = 1;
    }
    if (u === nNode) continue;
    const row = u * S;
    minPos.copyWithin(row, nRow, nRow + S);
    for (let e = outStart[u]!, end = outStart[u + 1]!; e < end; e++) {
      const v = outTo[e]!;
      if ((v & 1) === 0) continue;
      // x.n when the row already reaches x.d: nothing to add (see the header).
      const c = sess[v >> 1]!;
      if (c >= 0 && minPos[row + c]! <= pos[v >> 1]!) continue;
      const vRow = v * S;
      for (let s = 0; s < S; s++) {
        const x = minPos[vRow + s]!;
        if (x < minPos[row + s]!) minPos[row + s] = x;
      }
    }
    // t's own position last, so that the skips above rest on merged rows alone.
    const t = u >> 1;
    if (sess[t]! >= 0 && pos[t]! < minPos[row + sess[t]!]!) minPos[row + sess[t]!] = pos[t]!;
    done[u] = 1;
  }
}

/**
 * Which of a set of edges are RW edges (edges into a .n node): those with intoN[kind[i]] = 1
 * (split.ts's SplitTable), so that pruning passes its known edges as they are; with `wanted`,
 * only those into a txn t with wanted[t] = 1 (the lists of the others are then left empty: a
 * later round's scan asks reachesN(., t) only for the sources t of active constraints' edges).
 */
export interface RwFilter { kind: Int32Array; intoN: Uint8Array; wanted?: Uint8Array | null }

/**
 * For each txn t, the sessions that hold an RW predecessor of t, each with the largest such
 * position (CSR; usually a handful per txn, so reachesN costs far less than a scan of all
 * sessions). Predecessors in untracked sessions are dropped: that only under-approximates.
 */
function rwPredecessors(n: number, count: number, rwFrom: Int32Array, rwTo: Int32Array, only: RwFilter | null, sess: Int32Array, pos: Int32Array) {
  const byTo = new Int32Array(n + 1);
  countRw(byTo, count, rwTo, only);
  prefixSums(byTo, n);
  const preds = new Int32Array(byTo[n]!);
  const fill = byTo.slice(0, n);
  for (let i = 0; i < count; i++) if (isRw(i, rwTo, only)) preds[fill[rwTo[i]!]!++] = rwFrom[i]!;
  return lastPerSession(n, byTo, preds, sess, pos);
}

/** Whether edge i passes the filter `only` (null: every edge). */
function isRw(i: number, rwTo: Int32Array, only: RwFilter | null): boolean {
  return only === null || (only.intoN[only.kind[i]!] === 1 && (only.wanted == null || only.wanted[rwTo[i]!] === 1));
}

/** `byTo[t + 1]`: how many edges that pass `only` enter t. */
function countRw(byTo: Int32Array, count: number, rwTo: Int32Array, only: RwFilter | null): void {
  for (let i = 0; i < count; i++) if (isRw(i, rwTo, only)) byTo[rwTo[i]! + 1]!++;
}

/**
 * Below this many txns, `columns` lists every RW predecessor (its column and position) rather
 * than the last one per chain: the lists are barely longer (the 360-txn histories: ~1,000
 * entries against 928) and the reduction, cold code in a fresh process, cost more than the
 * scan's few extra entries. Above it the reduction keeps the lists short where they are long.
 */
const RW_UNREDUCED_MAX_TXNS = 1 << 16;

/**
 * rwPredecessors for a kind filter, unreduced: every RW predecessor c of t, as (its column, its
 * position); one in an untracked chain as (column 0, position -1), which no row reaches
 * (minPos >= 0), so it is never taken (as the reduced lists drop it). `listLengths`, if given,
 * holds each t's count at [2t + 1] (the caller's split graph's in-degree of t.n, when that
 * counts exactly the filtered edges into t: ReachTable.columns), sparing a pass over the edges.
 */
function rwPredecessorsUnreduced(
  n: number, count: number, rwFrom: Int32Array, rwTo: Int32Array, only: RwFilter, sess: Int32Array, pos: Int32Array, listLengths: Int32Array | null,
) {
  const start = new Int32Array(n + 1);
  if (listLengths !== null) for (let t = 0; t < n; t++) start[t + 1] = listLengths[2 * t + 1]!;
  else countRw(start, count, rwTo, only);
  prefixSums(start, n);
  const m = start[n]!;
  const outSess = new Int32Array(m), outPos = new Int32Array(m);
  fillKindPairs(outSess, outPos, start.slice(0, n), count, rwFrom, rwTo, only.kind, only.intoN, sess, pos);
  return { start, sess: outSess, pos: outPos };
}

function fillKindPairs(
  outSess: Int32Array, outPos: Int32Array, fill: Int32Array, count: number, rwFrom: Int32Array, rwTo: Int32Array, kind: Int32Array, intoN: Uint8Array,
  sess: Int32Array, pos: Int32Array,
): void {
  for (let i = 0; i < count; i++) {
    if (intoN[kind[i]!] !== 1) continue;
    const c = rwFrom[i]!, s = sess[c]!, at = fill[rwTo[i]!]!++;
    if (s >= 0) { outSess[at] = s; outPos[at] = pos[c]!; } else outPos[at] = -1;
  }
}

function prefixSums(a: Int32Array, n: number): void {
  for (let t = 0; t < n; t++) a[t + 1]! += a[t]!;
}

/** The predecessors `preds` (CSR by `byTo`) reduced to one entry per session, its last position. */
function lastPerSession(n: number, byTo: Int32Array, preds: Int32Array, sess: Int32Array, pos: Int32Array) {
  const rwCount = byTo[n]!;
  const start = new Int32Array(n + 1);
  // The sessions are written over `preds` as it is read: entry m is written after preds[j] is
  // read, and m <= j (each predecessor adds at most one entry), so nothing unread is lost.
  const outSess = preds, outPos = new Int32Array(rwCount);
  const slotOf = new Int32Array(Math.max(1, sess.length === 0 ? 1 : maxOf(sess) + 1)).fill(-1);
  let m = 0;
  for (let t = 0; t < n; t++) {
    start[t] = m;
    const first = m;
    for (let j = byTo[t]!; j < byTo[t + 1]!; j++) {
      const c = preds[j]!, s = sess[c]!;
      if (s < 0) continue;
      const slot = slotOf[s]!;
      if (slot >= first && slot < m && outSess[slot] === s) {
        if (pos[c]! > outPos[slot]!) outPos[slot] = pos[c]!;
      } else {
        slotOf[s] = m; outSess[m] = s; outPos[m] = pos[c]!; m++;
      }
    }
  }
  start[n] = m;
  return { start, sess: outSess, pos: outPos };
}

function maxOf(a: Int32Array): number {
  let x = -1;
  for (let i = 0; i < a.length; i++) if (a[i]! > x) x = a[i]!;
  return x;
}
