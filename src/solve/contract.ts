/**
 * Contraction of the known split graph to the nodes the undecided constraints touch.
 *
 * Takes: the Polygraph after pruning, the active constraints, a level, a topological order of
 * the known split graph, and pruning's reachability table of that same graph (reach.ts).
 * Gives: `Contraction`: a graph H on a small node set E' (every endpoint of an active
 * constraint's split edges, plus a few helpers) whose reachability between E' nodes equals the
 * known graph G's, numbered so that 0, 1, 2, ... is a topological order of H; or null when the
 * table cannot answer exactly (then the caller solves on G itself).
 * Why: on fig8 30 % the solver's theory got G's 20,000 nodes and ~450,000 split edges to keep
 * a topological order of, though the 6,771 undecided constraints touch far fewer nodes; every
 * Pearce-Kelly search walked G's dense edges. H keeps only what the constraints can see.
 *
 * Construction (chains as in chains.ts: consecutive txns of a chain are joined by a Dep edge,
 * so what a node reaches within a chain is a suffix, from `minPos[u, s]` on):
 *   E  = the split nodes that are endpoints of an active constraint's split edges.
 *   For each t.n in E and each chain s holding a txn c with a known edge c.d -> t.n, the last
 *   such c on s (largest position) is "c_s(t)"; E' = E plus every c_s(t).d.
 *   D  = the txns x with x.d in E'. For u in E' and chain s, `first(u, s)` = the txn of D on s
 *   at the smallest position >= minPos[u, s] (none if minPos is INF or no such txn), except
 *   that for u = x.d on its own chain (minPos = pos(x)) it is the next txn of D after x.
 *   H's edges: (a) u -> first(u, s).d for every u and s, when that is not u itself, except
 *   those (b) implied by another such target w of u (w.d reaches it: minPos[w.d, s] <= its
 *   position); (c) c_s(t).d -> t.n for every t.n in E.
 * Soundness (every H edge is a G path): (a) u reaches position minPos[u, s] of chain s (the
 * table never over-approximates), hence every later position, in particular first(u, s).
 * (c) is an edge of G.
 * Completeness (u reaches v in G, u != v, both in E' => v is reachable from u in H), by
 * induction on u's position in reverse topological order:
 *   v = x.d on chain s: minPos[u, s] <= pos(x) (the table is exact when it tracks every chain),
 *   so w = first(u, s) exists with pos(w) <= pos(x) (if u is y.d on chain s, pos(y) < pos(x):
 *   G is acyclic, and first skips y itself). If u keeps the edge u -> w.d, then w.d
 *   reaches x.d in G (same chain, suffix) and, w.d being later than u in topological order,
 *   by induction w.d reaches x.d in H (or w = x). If the edge was dropped by (b), some kept
 *   target w' of u reaches w.d in G, hence x.d; w' is later than u, so by induction w' reaches
 *   x.d in H. (Dropping is never circular: two distinct targets cannot reach each other both
 *   ways in an acyclic G, and each node keeps the targets no other target reaches.)
 *   v = t.n: the last edge of a G path into t.n is some c.d -> t.n (at the levels this is used
 *   for, every split edge into a .n node leaves a .d node), so u reaches c.d, i.e. minPos[u, s]
 *   <= pos(c) <= pos(c_s(t)) for c's chain s: u reaches c_s(t).d (or is it), which is in E',
 *   so by the case above H has a path u ~> c_s(t).d, and (c) ends it at t.n.
 * Equivalence used by the solver: for any set C of constraint split edges (endpoints in E),
 * G ∪ C has a cycle iff H ∪ C has one. (=>) G is acyclic, so a cycle of G ∪ C uses edges of C;
 * between two consecutive ones it follows a G path from one endpoint in E to another, which
 * H connects (completeness): a closed walk of H ∪ C with at least one edge, so a cycle.
 * (<=) replace each H edge by its G path (soundness): a closed walk of G ∪ C, so a cycle.
 * Hence a 'sat' on H is a 'sat' on G and vice versa; the solver re-checks models on G anyway.
 * When the table is not exact (fewer chains tracked than there are, a stale table, or a level
 * with edges into .n nodes from .n nodes: PC's WW), `contract` returns null.
 * Throws TimeLimitError('solve') past `deadlineMs` (the check turns it into 'unknown').
 */

import type { Level } from '../result/types.ts';
import type { Polygraph } from '../graph/polygraph.ts';
import { splitPairs } from '../graph/split.ts';
import { KIND_NAMES } from '../graph/edges.ts';
import type { ReachTable } from '../prune/reach.ts';
import { GrowableInt32 } from '../util/growable.ts';
import { checkDeadline, DEADLINE_CHECK_MASK } from '../util/deadline.ts';
import type { KernelChoice } from '../util/wasm.ts';
import { edgeKernel, type EdgeKernel } from './contract-wasm.ts';

export interface Contraction {
  /** Nodes of H; node i is split node `splitOf[i]`, and 0 .. nodeCount-1 is a topological order of H. */
  nodeCount: number;
  splitOf: Int32Array;
  /** `nodeOf[u]`: H node of split node u, or -1 if u is not in E'. */
  nodeOf: Int32Array;
  /** H's edges, from < to for each. */
  from: Int32Array;
  to: Int32Array;
}

/** True at the levels where every split edge into a .n node leaves a .d node (all but PC). */
export function contractible(level: Level): boolean {
  for (let k = 0; k < KIND_NAMES.length; k++) if (splitPairs(k, level).some(([x, y]) => x === 1 && y === 1)) return false;
  return true;
}

/**
 * H for the active constraints of `pg` (see the header), or null when `table` cannot answer
 * exactly. `order` is a topological order of the known split graph the table was computed on;
 * `act` lists the indices of the active constraints (the solver has it: no pass over all of them).
 * The edge pass runs as WebAssembly (contract-wasm.ts) where util/wasm.ts's policy says; `kernel`
 * 'always' or 'never' decides it whatever the size (tests compare the two).
 */
export function contract(
  pg: Polygraph, active: Uint8Array, level: Level, order: Int32Array, table: ReachTable, deadlineMs = Number.POSITIVE_INFINITY,
  act: Int32Array = activeIndices(active), kernel: KernelChoice = 'auto',
): Contraction | null {
  if (!contractible(level) || table.tracked < table.chains) return null;
  const { sess } = table;
  const n = pg.nodeCount, N = 2 * n;
  const pairs = flatPairs(level);
  const inE = endpoints(pg, act, pairs);
  // Every txn whose .d may be in E' needs a chain (an endpoint without one: not exact, give up).
  if (!allChained(inE, sess)) return null;
  const into = lastIntoN(pg, pairs, inE, table);
  if (into === null) return null;
  markPredecessors(inE, into, n);
  const next = nextOnChain(inE, table);
  // Number E' in topological order: then every H edge goes from a smaller to a larger number.
  const nodeOf = numbering(inE, order, N);
  const splitOf = inverse(nodeOf);
  checkDeadline(deadlineMs, 'solve');
  const inputs = { splitOf, nodeOf, S: table.S, pos: table.pos, minPos: table.minPos, at: next.at, base: next.base, len: next.len, into };
  const k = edgeKernel(inputs, kernel);
  const { from, to } = k !== null ? kernelEdges(k, splitOf.length, deadlineMs) : contractedEdges(splitOf, nodeOf, table, next, into, deadlineMs);
  assertForwards(from, to);
  return { nodeCount: splitOf.length, splitOf, nodeOf, from, to };
}

/** True when every node of `inE` is the .d or .n of a txn on a chain. */
function allChained(inE: Uint8Array, sess: Int32Array): boolean {
  for (let u = 0; u < inE.length; u++) if (inE[u] === 1 && sess[u >> 1]! < 0) return false;
  return true;
}

/** Adds to E the .d of every c_s(t) (see the header). */
function markPredecessors(inE: Uint8Array, into: { start: Int32Array; end: Int32Array; pred: Int32Array }, n: number): void {
  const { start, end, pred } = into;
  for (let t = 0; t < n; t++) for (let j = start[t]!; j < end[t]!; j++) inE[2 * pred[j]!] = 1;
}

/** `nodeOf[u]`: u's rank among the nodes of E' in `order`, -1 for nodes not in E'. */
function numbering(inE: Uint8Array, order: Int32Array, N: number): Int32Array {
  const nodeOf = new Int32Array(N).fill(-1);
  let count = 0;
  for (let i = 0; i < N; i++) if (inE[order[i]!] === 1) nodeOf[order[i]!] = count++;
  return nodeOf;
}

/** `splitOf[i]`: the node numbered i by `nodeOf`. */
function inverse(nodeOf: Int32Array): Int32Array {
  let count = 0;
  for (let u = 0; u < nodeOf.length; u++) if (nodeOf[u]! >= 0) count++;
  const splitOf = new Int32Array(count);
  for (let u = 0; u < nodeOf.length; u++) if (nodeOf[u]! >= 0) splitOf[nodeOf[u]!] = u;
  return splitOf;
}

/** Stage-boundary assertion: every H edge goes forwards in its numbering. */
function assertForwards(from: Int32Array, to: Int32Array): void {
  for (let e = 0; e < from.length; e++) {
    if (from[e]! >= to[e]!) throw new Error('internal error: a contracted edge goes backwards in the known graph\'s topological order');
  }
}

/** Split pairs per kind, flat: `count[k]`, then (x, y) at 2k and 2k+1 (at most two per kind). */
function flatPairs(level: Level): { count: Int8Array; x: Int8Array; y: Int8Array } {
  const K = KIND_NAMES.length;
  const count = new Int8Array(K), x = new Int8Array(2 * K), y = new Int8Array(2 * K);
  for (let k = 0; k < K; k++) {
    const p = splitPairs(k, level);
    count[k] = p.length;
    for (let i = 0; i < p.length; i++) { x[2 * k + i] = p[i]![0]!; y[2 * k + i] = p[i]![1]!; }
  }
  return { count, x, y };
}
type FlatPairs = ReturnType<typeof flatPairs>;

/** The indices of the active constraints (`contract`'s default when the caller has no list). */
function activeIndices(active: Uint8Array): Int32Array {
  const list = new GrowableInt32();
  for (let c = 0; c < active.length; c++) if (active[c] === 1) list.push(c);
  return list.toArray();
}

/** E: the split nodes that are endpoints of an active constraint's (`act`) split edges. */
function endpoints(pg: Polygraph, act: Int32Array, pairs: FlatPairs): Uint8Array {
  const { count: cnt, x: X, y: Y } = pairs;
  const inE = new Uint8Array(2 * pg.nodeCount);
  for (let i = 0; i < act.length; i++) {
    const c = act[i]!;
    for (let e = pg.edgeStart[2 * c]!; e < pg.edgeStart[2 * c + 2]!; e++) {
      const a = pg.ceFrom[e]!, b = pg.ceTo[e]!, k = pg.ceKind[e]!;
      for (let p = 0; p < cnt[k]!; p++) { inE[2 * a + X[2 * k + p]!] = 1; inE[2 * b + Y[2 * k + p]!] = 1; }
    }
  }
  return inE;
}

/**
 * (c): for each t with t.n in E, per chain the last txn c with a known edge c.d -> t.n, as a
 * CSR (`pred[start[t] .. end[t]-1]`); null if such a c has no chain (not exact).
 */
function lastIntoN(pg: Polygraph, pairs: FlatPairs, inE: Uint8Array, table: ReachTable): { start: Int32Array; end: Int32Array; pred: Int32Array } | null {
  const { S, sess, pos } = table;
  const n = pg.nodeCount;
  const { count: cnt, x: X, y: Y } = pairs;
  const intoN = new Uint8Array(cnt.length);
  for (let k = 0; k < cnt.length; k++) for (let p = 0; p < cnt[k]!; p++) if (X[2 * k + p] === 0 && Y[2 * k + p] === 1) intoN[k] = 1;
  const { from, to, kind } = pg.known.views();
  const start = new Int32Array(n + 1);
  // One pass over every known edge picks the few that count (fig8 30 %: 49,945 of 246,892);
  // the CSR is filled from that list.
  const picked = intoEdges(from.length, to, kind, intoN, inE, start);
  for (let t = 0; t < n; t++) start[t + 1]! += start[t]!;
  const pred = new Int32Array(start[n]!);
  const fill = start.slice(0, n);
  for (let j = 0; j < picked.length; j++) {
    const i = picked[j]!, t = to[i]!;
    if (sess[from[i]!]! < 0) return null;
    pred[fill[t]!++] = from[i]!;
  }
  // Keep only the last predecessor of each chain, in place, shortening t's range.
  const slotOf = new Int32Array(S).fill(-1);
  const end = new Int32Array(n);
  for (let t = 0; t < n; t++) {
    const first = start[t]!;
    let m = first;
    for (let j = first; j < start[t + 1]!; j++) {
      const c = pred[j]!, s = sess[c]!;
      const at = slotOf[s]!;
      if (at >= first && at < m && sess[pred[at]!] === s) {
        if (pos[c]! > pos[pred[at]!]!) pred[at] = c;
      } else {
        slotOf[s] = m; pred[m++] = c;
      }
    }
    end[t] = m;
  }
  return { start, end, pred };
}

/** The known edges of an into-.n kind whose head's .n is in E, by index; counts them by head in `count[t + 1]`. */
function intoEdges(m: number, to: Int32Array, kind: Int32Array, intoN: Uint8Array, inE: Uint8Array, count: Int32Array): Int32Array {
  const picked = new Int32Array(m);
  let k = 0;
  for (let i = 0; i < m; i++) {
    const t = to[i]!;
    if (inE[2 * t + 1] !== 1 || intoN[kind[i]!] !== 1) continue;
    count[t + 1]!++;
    picked[k++] = i;
  }
  return picked.subarray(0, k);
}

/** Per chain s: `at[base[s] + p]` = the txn x with x.d in E' on s at the smallest position >= p, or -1. */
function nextOnChain(inE: Uint8Array, table: ReachTable): { at: Int32Array; base: Int32Array; len: Int32Array } {
  const { S, sess, pos } = table;
  const n = sess.length;
  const len = new Int32Array(S);
  for (let t = 0; t < n; t++) if (sess[t]! >= 0 && pos[t]! + 1 > len[sess[t]!]!) len[sess[t]!] = pos[t]! + 1;
  const base = new Int32Array(S + 1);
  for (let s = 0; s < S; s++) base[s + 1] = base[s]! + len[s]!;
  const at = new Int32Array(base[S]! + 1).fill(-1);
  for (let t = 0; t < n; t++) if (inE[2 * t] === 1) at[base[sess[t]!]! + pos[t]!] = t;
  for (let s = 0; s < S; s++) {
    for (let p = base[s + 1]! - 2; p >= base[s]!; p--) if (at[p] === -1) at[p] = at[p + 1]!;
  }
  return { at, base, len };
}

/** The kernel's edge pass in blocks of nodes, the deadline checked between them. */
function kernelEdges(k: EdgeKernel, count: number, deadlineMs: number): { from: Int32Array; to: Int32Array } {
  for (let lo = 0; lo < count; lo += DEADLINE_CHECK_MASK + 1) {
    checkDeadline(deadlineMs, 'solve');
    k.edges(lo, Math.min(count, lo + DEADLINE_CHECK_MASK + 1));
  }
  return k.result();
}

/** H's edges (a), less those implied (b), plus (c); see the header. */
function contractedEdges(
  splitOf: Int32Array, nodeOf: Int32Array, table: ReachTable, next: ReturnType<typeof nextOnChain>, into: NonNullable<ReturnType<typeof lastIntoN>>,
  deadlineMs: number,
): { from: Int32Array; to: Int32Array } {
  const { S, pos, minPos } = table;
  const { at, base, len } = next;
  const from = new GrowableInt32(4 * splitOf.length), to = new GrowableInt32(4 * splitOf.length);
  // The kept targets of the current node: H number, chain, position and reach row.
  const keptKey = new Int32Array(S), keptCol = new Int32Array(S), keptPos = new Int32Array(S), keptRow = new Int32Array(S);
  for (let i = 0; i < splitOf.length; i++) {
    // O(S) per node, with thousands of chains seconds in all: the deadline is honoured here.
    if ((i & DEADLINE_CHECK_MASK) === 0) checkDeadline(deadlineMs, 'solve');
    const u = splitOf[i]!, row = u * S;
    // (a) and (b) in one pass over the chains: the first txn w of D reachable on each chain is a
    // target; it is kept unless another target reaches it. Taken in chain order, a target that
    // a kept one reaches is dropped, and one that reaches kept ones replaces them. The result is
    // the same set as taking them in topological order and dropping those an earlier kept one
    // reaches: a target reached by another is reached by one no target reaches (G is acyclic
    // and reachability transitive), and that one is kept.
    let kc = 0;
    for (let s = 0; s < S; s++) {
      const p = minPos[row + s]!;
      if (p >= len[s]!) continue; // INF included
      let w = at[base[s]! + p]!;
      // u = x.d on its own chain: x itself is at minPos; the chain's Dep edges lead on to the next.
      if (w >= 0 && 2 * w === u) w = p + 1 < len[s]! ? at[base[s]! + p + 1]! : -1;
      if (w < 0) continue;
      const pw = pos[w]!;
      let implied = false;
      for (let q = 0; q < kc; q++) if (minPos[keptRow[q]! + s]! <= pw) { implied = true; break; }
      if (implied) continue;
      const wRow = 2 * w * S;
      let q2 = 0;
      for (let q = 0; q < kc; q++) {
        if (minPos[wRow + keptCol[q]!]! <= keptPos[q]!) continue; // w reaches it: dropped
        keptKey[q2] = keptKey[q]!; keptCol[q2] = keptCol[q]!; keptPos[q2] = keptPos[q]!; keptRow[q2] = keptRow[q]!;
        q2++;
      }
      kc = q2;
      keptKey[kc] = nodeOf[2 * w]!; keptCol[kc] = s; keptPos[kc] = pw; keptRow[kc] = wRow;
      kc++;
    }
    // Emitted by H number (as before: the edge order does not matter for H, but stays the same).
    for (let j = 1; j < kc; j++) {
      const key = keptKey[j]!;
      let q = j;
      while (q > 0 && keptKey[q - 1]! > key) { keptKey[q] = keptKey[q - 1]!; q--; }
      keptKey[q] = key;
    }
    for (let j = 0; j < kc; j++) { from.push(i); to.push(keptKey[j]!); }
    // (c)
    if ((u & 1) === 1) {
      const t = u >> 1;
      for (let j = into.start[t]!; j < into.end[t]!; j++) { from.push(nodeOf[2 * into.pred[j]!]!); to.push(i); }
    }
  }
  return { from: from.toArray(), to: to.toArray() };
}
