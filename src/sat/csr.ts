/**
 * A graph's out- and in-adjacency (CSR, by counting sort), for the solver's set-up: the theory's
 * fixed edges (acyclicity.ts).
 *
 * Takes: N nodes and m edges `from[i]` -> `to[i]` with ids `id[i]` (or none).
 * Gives: `outStart` (N + 1), `outTo` and `outId` (edges by tail, in edge order within a tail;
 * `outId` holds the heads again when no ids are given), `inStart` (N + 1) and `inFrom` (edges by
 * head, in edge order within a head).
 * Invariant: an end outside 0 .. N-1 is a RangeError, never a stray write.
 */

export interface Adjacency {
  outStart: Int32Array<ArrayBuffer>;
  outTo: Int32Array<ArrayBuffer>;
  outId: Int32Array<ArrayBuffer>;
  inStart: Int32Array<ArrayBuffer>;
  inFrom: Int32Array<ArrayBuffer>;
}

/** The adjacency of N nodes and the edges `from`/`to`/`ids` (see the header). */
export function adjacency(N: number, from: Int32Array, to: Int32Array, ids: Int32Array | null): Adjacency {
  const m = from.length;
  // Without ids, `outId` is the heads again (the caller ignores it).
  const id = ids ?? to;
  if (to.length !== m || id.length !== m) throw new RangeError('edge columns differ in length');
  const outStart = new Int32Array(N + 1);
  const inStart = new Int32Array(N + 1);
  for (let e = 0; e < m; e++) {
    const u = from[e]!, v = to[e]!;
    if (u >>> 0 >= N || v >>> 0 >= N) throw new RangeError(`an edge outside 0..${N - 1}`);
    outStart[u + 1]++;
    inStart[v + 1]++;
  }
  for (let u = 0; u < N; u++) {
    outStart[u + 1] += outStart[u]!;
    inStart[u + 1] += inStart[u]!;
  }
  const outTo = new Int32Array(m);
  const outId = new Int32Array(m);
  const inFrom = new Int32Array(m);
  const outFill = outStart.slice(0, N);
  const inFill = inStart.slice(0, N);
  for (let e = 0; e < m; e++) {
    const u = from[e]!, v = to[e]!;
    const f = outFill[u]++;
    outTo[f] = v;
    outId[f] = id[e]!;
    inFrom[inFill[v]++] = u;
  }
  return { outStart, outTo, outId, inStart, inFrom };
}
