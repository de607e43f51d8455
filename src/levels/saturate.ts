/**
 * Saturation (Biswas & Enea, OOPSLA 2019, §4; AWDIT): the commit order a weak level needs, as a
 * graph, and the search for a cycle in it.
 *
 * Takes: a `LevelBase` and the WW edges a level's axiom derives. Gives: `SatGraph`, the union of
 * SO, WR (every observation), the known WW edges and the derived ones, with for each derived
 * edge the read that forces it; and `findCycle`, a short cycle of that graph or null.
 *
 * Why this decides the level: for read committed, read atomic and causal consistency the axiom's
 * premise mentions only SO and WR, never the commit order itself, so one pass derives every edge
 * the commit order must contain; the history satisfies the level iff that union is acyclic (then
 * any topological order is a commit order satisfying the axiom).
 * Every derived edge t2 -> t1 on key x reads: "t3 read x from t1, and before that t3 had observed
 * t2, a writer of x; so t2's version of x precedes t1's". If t1 is the initial transaction no
 * commit order exists at all: `initViolation` records that directly.
 */

import { GrowableInt32 } from '../util/growable.ts';
import { INIT_TXN } from '../result/types.ts';
import type { LevelBase } from './base.ts';

export const E_SO = 0;
export const E_WR = 1;
export const E_WW = 2;
/** A derived WW edge (kind WW for readers; `why` says which read forces it). */
export const E_DERIVED = 3;

/**
 * How t3 observed t2, for a derived edge: `VIA_SO` (t2 precedes t3 in its session), a read index
 * r >= 0 (t3's read r observed t2), or `VIA_HB` (a causal path, found again when explaining).
 */
export const VIA_SO = -1;
export const VIA_HB = -2;

/** A derived edge into the initial transaction: the history has no commit order at all. */
export interface InitViolation {
  /** The writer t3 observed. */
  t2: number;
  /** t3's read of the initial value (index into v.reads). */
  read: number;
  via: number;
}

export class SatGraph {
  readonly from = new GrowableInt32();
  readonly to = new GrowableInt32();
  readonly kind = new GrowableInt32();
  readonly key = new GrowableInt32();
  /** For E_DERIVED: the read (v.reads index) that forces it; for E_WR: the observing read; else -1. */
  readonly why = new GrowableInt32();
  /** For E_DERIVED: how the reader observed `from` (VIA_SO, VIA_HB or a read index); else -1. */
  readonly via = new GrowableInt32();
  derivedCount = 0;
  initViolation: InitViolation | null = null;

  /**
   * `withWr`: false for read uncommitted (only write orders and session order count).
   * `withSo`: false for the levels whose graphs have no session order (Adya's PL-1 and PL-2,
   * monotonic atomic view).
   */
  constructor(readonly base: LevelBase, withWr = true, withSo = true) {
    const b = base, v = b.v;
    if (withSo) for (let t = 0; t < b.n; t++) if (b.soPrev[t]! >= 0) this.push(b.soPrev[t]!, t, E_SO, -1, -1, -1);
    if (withWr) {
      for (let r = 0; r < v.reads.count; r++) {
        for (let i = b.obsStart[r]!; i < b.obsStart[r + 1]!; i++) this.push(b.obs[i]!, v.reads.txn[r]!, E_WR, v.reads.key[r]!, r, -1);
      }
    }
    for (let i = 0; i < b.wwFrom.length; i++) this.push(b.wwFrom[i]!, b.wwTo[i]!, E_WW, b.wwKey[i]!, -1, -1);
  }

  get length(): number {
    return this.from.length;
  }

  private push(from: number, to: number, kind: number, key: number, why: number, via: number): void {
    this.from.push(from); this.to.push(to); this.kind.push(kind); this.key.push(key); this.why.push(why); this.via.push(via);
  }

  /**
   * The axiom's consequence for t3's read `read` (of key x from t1) and an observed writer t2 of
   * x: t2 -> t1 in the commit order. Returns false when that is impossible (t1 is the initial
   * state): the caller may stop, `initViolation` says why.
   */
  derive(t2: number, read: number, via: number): boolean {
    const v = this.base.v;
    const t1 = v.reads.writer[read]!;
    if (t2 === t1) return true;
    if (t1 === INIT_TXN) {
      this.initViolation ??= { t2, read, via };
      return false;
    }
    this.push(t2, t1, E_DERIVED, v.reads.key[read]!, read, via);
    this.derivedCount++;
    return true;
  }
}

/** Out-edge CSR of the graph's edges (edge indices grouped by `from`). */
function outCsr(n: number, g: SatGraph): { start: Int32Array; edges: Int32Array } {
  const m = g.length;
  const from = g.from.view();
  const start = new Int32Array(n + 1);
  for (let e = 0; e < m; e++) start[from[e]! + 1]!++;
  for (let t = 0; t < n; t++) start[t + 1]! += start[t]!;
  const fill = start.slice(0, n);
  const edges = new Int32Array(m);
  for (let e = 0; e < m; e++) edges[fill[from[e]!]!++] = e;
  return { start, edges };
}

/**
 * A short cycle of `g` as edge indices in order, or null if `g` is acyclic. Kahn's algorithm
 * finds the nodes on or behind a cycle; a backward walk inside them finds one cycle, and a
 * breadth-first search from each of its nodes (at most `SHORTEN_TRIES_MAX`) the shortest cycle
 * through that node. Iterative throughout (histories are large, JavaScript's stack is not).
 */
export function findCycle(n: number, g: SatGraph): number[] | null {
  const { start, edges } = outCsr(n, g);
  const to = g.to.view(), from = g.from.view();
  const indeg = new Int32Array(n);
  for (let e = 0; e < g.length; e++) indeg[to[e]!]!++;
  const queue = new Int32Array(n);
  let tail = 0;
  for (let t = 0; t < n; t++) if (indeg[t] === 0) queue[tail++] = t;
  for (let head = 0; head < tail; head++) {
    const u = queue[head]!;
    for (let i = start[u]!; i < start[u + 1]!; i++) if (--indeg[to[edges[i]!]!]! === 0) queue[tail++] = to[edges[i]!]!;
  }
  if (tail === n) return null;
  // Nodes left have in-degree > 0 from other nodes left: walking backwards must repeat a node.
  const left = new Uint8Array(n);
  for (let t = 0; t < n; t++) left[t] = indeg[t]! > 0 ? 1 : 0;
  const inEdge = new Int32Array(n).fill(-1);
  for (let e = 0; e < g.length; e++) if (left[from[e]!] === 1 && left[to[e]!] === 1 && inEdge[to[e]!] === -1) inEdge[to[e]!] = e;
  let u = 0;
  while (left[u] !== 1) u++;
  const seen = new Int32Array(n).fill(-1);
  for (let step = 0; seen[u] === -1; step++) { seen[u] = step; u = from[inEdge[u]!]!; }
  const onCycle: number[] = [];
  let w = u;
  do { onCycle.push(w); w = from[inEdge[w]!]!; } while (w !== u);
  let best: number[] | null = null;
  for (const s of onCycle.slice(0, SHORTEN_TRIES_MAX)) {
    const c = shortestCycleThrough(s, start, edges, to, from, left);
    if (c !== null && (best === null || c.length < best.length)) best = c;
  }
  if (best === null) throw new Error('internal error: a cycle was found but no shortest cycle through its nodes');
  return best;
}

const SHORTEN_TRIES_MAX = 16;

function shortestCycleThrough(
  s: number, start: Int32Array, edges: Int32Array, to: Int32Array, from: Int32Array, left: Uint8Array,
): number[] | null {
  const parent = new Map<number, number>(); // node -> edge it was reached by
  const queue = [s];
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head]!;
    for (let i = start[u]!; i < start[u + 1]!; i++) {
      const e = edges[i]!, x = to[e]!;
      if (left[x] !== 1) continue;
      if (x === s) {
        const path = [e];
        for (let y = u; y !== s; y = from[parent.get(y)!]!) path.push(parent.get(y)!);
        return path.reverse();
      }
      if (!parent.has(x)) { parent.set(x, e); queue.push(x); }
    }
  }
  return null;
}
