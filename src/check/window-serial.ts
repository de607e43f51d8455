/**
 * A serial order read off the snapshot windows, for serializable databases whose completion
 * order is not a serial execution (issue 22; docs/levels.md, "Predicates", "How it is decided").
 *
 * Takes: a History with relations and recorded times whose snapshot windows exist
 * (check/snapshot-order.ts: every committed txn T reads the first p(T) txns of the completion
 * order CO). Gives: `windowSerialResult(h, opts, parseMs)`, a `valid` CheckResult for the levels
 * SER (strict SER when the order keeps real time) implies, or null.
 *
 * Why: the windows fix every version each read and each row of a predicate read observed (the
 * latest among the first p(T) of CO) and the version order (CO). That is one execution, and its
 * dependency graph is known edge by edge: write-read (the observed version's writer before T),
 * anti-dependency (T before the writer of the next version of that key), write-write (consecutive
 * writers of a key in CO) and session order. A serializable database (PostgreSQL's SSI) commits a
 * reader after a writer it is serialized before, so CO is not serial, but this graph is acyclic,
 * and any topological order of it is a serial order of the txns. The order found (Kahn's, least
 * place in CO first, which keeps real time where it can) is then run by serialOrderBreaks as a
 * serial execution of the whole history: only that run decides, so the result is sound whatever
 * the graph says, and the graph only proposes an order.
 *
 * Invariant: only ever says `valid` (serialOrderBreaks passed). Linear in the ops plus, per
 * select and count, the rows of its relation (one binary search each), and at most EDGES_MAX
 * edges (then it gives up: null).
 */

import { OP_COUNT, OP_READ, OP_SELECT, TXN_COMMITTED, type History } from '../history/model.ts';
import { implies } from '../result/lattice.ts';
import type { CheckOptions, CheckResult } from '../result/types.ts';
import { now } from '../util/clock.ts';
import { GrowableInt32 } from '../util/growable.ts';
import { serialOrderBreaks, validResult } from './serial-order.ts';
import { snapshotWindows, versionAt, type SnapshotWindows } from './snapshot-order.ts';

/** Most dependency edges built (two 32-bit ids each: 400 MB at most, with the copies); past it no order is proposed. */
export const EDGES_MAX = 25_000_000;

/** A valid result for `opts.level` when a topological order of the windows' execution is a serial execution of `h` (module comment); else null. */
export function windowSerialResult(h: History, opts: CheckOptions, parseMs: number): CheckResult | null {
  const t0 = now();
  const strict = opts.level === 'strict-ser' || opts.level === 'strict-si';
  if (!implies(strict ? 'strict-ser' : 'ser', opts.level)) return null;
  const w = snapshotWindows(h);
  if (typeof w === 'string' || w.why !== null) return null;
  const position = windowSerialOrder(h, w, strict);
  if (position === null || serialOrderBreaks(h, position, strict) !== null) return null;
  return validResult(h, opts, parseMs, now() - t0,
    'the committed transactions, run one at a time in a topological order of the dependencies their snapshot windows give (each ' +
    `reading a prefix of the completion order), return what the history says: a serial execution${strict ? ' that keeps real-time order' : ''}, ` +
    'which satisfies every level (docs/levels.md, "Predicates")');
}

/**
 * Positions of the txns in a topological order of the windows' dependency graph (committed txns
 * first, least CO place first among those ready), with real-time order when `realTime`, or null
 * when it is cyclic or too large.
 */
export function windowSerialOrder(h: History, w: SnapshotWindows, realTime = false): Int32Array | null {
  const n = w.order.length;
  const from = new GrowableInt32(1024), to = new GrowableInt32(1024);
  const edge = (a: number, b: number): void => { if (a !== b) { from.push(a); to.push(b); } };
  // Session order.
  for (let s = 0; s < h.sessionCount; s++) {
    let last = -1;
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      if (h.txnStatus[t] !== TXN_COMMITTED) continue;
      if (last >= 0) edge(w.idx[last]!, w.idx[t]!);
      last = t;
    }
  }
  if (realTime) realTimeEdges(h, w, edge);
  const v = w.versions;
  // Write-write: consecutive writers of each key.
  for (let k = 0; k + 1 < v.start.length; k++) for (let i = v.start[k]! + 1; i < v.start[k + 1]!; i++) edge(v.at[i - 1]!, v.at[i]!);
  // Write-read and anti-dependencies of each observation at the txn's window position.
  const observe = (t: number, k: number): void => {
    const i = versionAt(v, k, w.latest[t]!), me = w.idx[t]!;
    if (i >= v.start[k]!) edge(v.at[i]!, me);
    if (i + 1 < v.start[k + 1]!) edge(me, v.at[i + 1]!);
  };
  const pt = h.predicates;
  for (const t of w.order) {
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const kind = h.opKind[op]!;
      if (kind === OP_READ) observe(t, h.opKey[op]!);
      else if ((kind === OP_SELECT || kind === OP_COUNT) && pt !== undefined) {
        const r = h.opKey[op]!;
        for (let j = pt.relStart[r]!; j < pt.relStart[r + 1]!; j++) observe(t, pt.relKeys[j]!);
      }
    }
    if (from.length > EDGES_MAX) return null;
  }
  const topo = kahn(n, from.toArray(), to.toArray());
  if (topo === null) return null;
  // Committed txns in that order, then the others (which the serial run skips) by txn id.
  const position = new Int32Array(h.txnCount).fill(n);
  topo.forEach((i, place) => { position[w.order[i]!] = place; });
  let next = n;
  for (let t = 0; t < h.txnCount; t++) if (h.txnStatus[t] !== TXN_COMMITTED) position[t] = next++;
  return position;
}

/**
 * Real-time order among the committed txns (a completed before b was invoked), as edges between
 * CO places: only from the frontier of the txns completed before b's invocation (those completed
 * at or after the latest invocation among them; the rest precede a frontier member already), as
 * graph/realtime.ts does: at most n x the most txns running at one instant.
 */
function realTimeEdges(h: History, w: SnapshotWindows, edge: (a: number, b: number) => void): void {
  const start = h.txnStart!, end = h.txnEnd!, order = w.order;
  // maxStart[i]: the latest invocation among the first i + 1 txns of CO.
  const maxStart = new Float64Array(order.length);
  order.forEach((t, i) => { maxStart[i] = Math.max(i > 0 ? maxStart[i - 1]! : Number.NEGATIVE_INFINITY, start[t]!); });
  for (const b of order) {
    const p = w.lo[b]!;
    if (p === 0) continue;
    const m = maxStart[p - 1]!;
    let lo = 0, hi = p;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (end[order[mid]!]! < m) lo = mid + 1; else hi = mid; }
    for (let i = lo; i < p; i++) edge(i, w.idx[b]!);
  }
}

/** A topological order of nodes 0..n-1 (least node first among the ready ones: a binary heap), or null when cyclic. */
function kahn(n: number, from: Int32Array, to: Int32Array): number[] | null {
  const outStart = new Int32Array(n + 1), indeg = new Int32Array(n);
  for (const f of from) outStart[f + 1]!++;
  for (let i = 0; i < n; i++) outStart[i + 1]! += outStart[i]!;
  const fill = outStart.slice(0, n), adj = new Int32Array(from.length);
  for (let e = 0; e < from.length; e++) { adj[fill[from[e]!]!++] = to[e]!; indeg[to[e]!]!++; }
  const heap: number[] = [];
  const push = (x: number): void => {
    let i = heap.push(x) - 1;
    while (i > 0) { const up = (i - 1) >> 1; if (heap[up]! <= x) break; heap[i] = heap[up]!; i = up; }
    heap[i] = x;
  };
  const pop = (): number => {
    const top = heap[0]!, last = heap.pop()!;
    if (heap.length > 0) {
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= heap.length) break;
        if (c + 1 < heap.length && heap[c + 1]! < heap[c]!) c++;
        if (heap[c]! >= last) break;
        heap[i] = heap[c]!; i = c;
      }
      heap[i] = last;
    }
    return top;
  };
  for (let i = 0; i < n; i++) if (indeg[i] === 0) push(i);
  const out: number[] = [];
  while (heap.length > 0) {
    const u = pop();
    out.push(u);
    for (let e = outStart[u]!; e < outStart[u + 1]!; e++) if (--indeg[adj[e]!] === 0) push(adj[e]!);
  }
  return out.length === n ? out : null;
}
