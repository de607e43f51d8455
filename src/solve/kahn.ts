/**
 * Kahn's algorithm over the union of two graphs on the same nodes: the solver's model check
 * (solve.ts: the known split graph plus the chosen sides' split edges).
 *
 * Takes: a node count N, a graph as CSR (`start` of N + 1 entries, `to` the heads) and one as an
 * edge list (`from[i]` -> `to[i]`: the chosen edges, listed in one pass without a CSR's two).
 * Gives: how many nodes Kahn's algorithm sorts: N exactly when the union is acyclic.
 * Invariant: neither input changes; a malformed graph (a node outside 0 .. N-1, starts that
 * decrease or do not end at the edge count) is an internal error, never a read past an array.
 */

/** One CSR graph: node u's heads are `to[start[u] .. start[u+1]-1]`. */
export interface Csr { start: Int32Array; to: Int32Array }

/** One graph as an edge list: `from[i]` -> `to[i]`. */
export interface EdgeList { from: Int32Array; to: Int32Array }

/** How many nodes Kahn's algorithm sorts in the union of `a` and `b` (N: acyclic). */
export function kahnCount(N: number, a: Csr, b: EdgeList): number {
  assertCsr(N, a);
  const m = b.from.length;
  if (b.to.length !== m) malformed();
  // b as CSR, by counting sort over its tails.
  const bStart = new Int32Array(N + 1);
  for (let i = 0; i < m; i++) {
    const u = b.from[i]!;
    if (u >>> 0 >= N || b.to[i]! >>> 0 >= N) malformed();
    bStart[u + 1]++;
  }
  for (let u = 0; u < N; u++) bStart[u + 1] += bStart[u]!;
  const bTo = new Int32Array(m);
  const fill = bStart.slice(0, N);
  for (let i = 0; i < m; i++) bTo[fill[b.from[i]!]!++] = b.to[i]!;
  const indeg = new Int32Array(N);
  for (let i = 0; i < a.to.length; i++) indeg[a.to[i]!]++;
  for (let i = 0; i < m; i++) indeg[bTo[i]!]++;
  const queue = new Int32Array(N);
  let tail = 0;
  for (let u = 0; u < N; u++) if (indeg[u] === 0) queue[tail++] = u;
  for (let head = 0; head < tail; head++) {
    const u = queue[head]!;
    for (let e = a.start[u]!; e < a.start[u + 1]!; e++) if (--indeg[a.to[e]!]! === 0) queue[tail++] = a.to[e]!;
    for (let e = bStart[u]!; e < bStart[u + 1]!; e++) if (--indeg[bTo[e]!]! === 0) queue[tail++] = bTo[e]!;
  }
  return tail;
}

/** Stage-boundary check of a: its ends, starts that never decrease, heads inside 0 .. N-1. */
function assertCsr(N: number, g: Csr): void {
  if (g.start.length !== N + 1 || g.start[0] !== 0 || g.start[N] !== g.to.length) malformed();
  for (let u = 0; u < N; u++) if (g.start[u]! > g.start[u + 1]!) malformed();
  for (let e = 0; e < g.to.length; e++) if (g.to[e]! >>> 0 >= N) malformed();
}

function malformed(): never {
  throw new Error('internal error: the model check got a malformed CSR graph');
}
