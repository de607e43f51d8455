/**
 * Repeatable read (Adya's PL-2.99) on one choice of versions: the witness check of
 * check/predicates.ts.
 *
 * Takes: a lowered key-value history whose reads are all resolved (validate/predicate-lower.ts,
 * mode 'picked'), `predicate[op]` (1: the read is a predicate read's observation) and a
 * position per txn whose order the version order of every key follows. Gives: null when the
 * history's direct serialization graph under that version order has no G1 (no aborted or
 * intermediate read, no cycle of write-read and write-write edges) and no G2-item (no cycle
 * through an item anti-dependency); else why not, in a few words.
 * Why a graph of its own: PL-2.99 forbids the cycles with at least one *item* anti-dependency,
 * which is not the acyclicity of any relation the split graph composes (a cycle through one
 * item and one predicate anti-dependency is forbidden, one through the predicate one alone is
 * not). Here the version order is fixed, so it is a plain test: an item anti-dependency a -> b
 * is in a forbidden cycle iff a and b lie in one strongly connected component.
 * Linear in the reads and writes (an iterative Tarjan).
 */

import { OP_APPEND, OP_READ, OP_WRITE, type History } from '../history/model.ts';
import { INIT_TXN } from '../result/types.ts';
import { validate } from '../validate/validate.ts';

const KIND_DEP = 0, KIND_ITEM_RW = 1, KIND_PRED_RW = 2;

export function rrWitness(h: History, predicate: Uint8Array, position: Int32Array): string | null {
  const v = validate(h);
  if (v.anomalies.length > 0) return `${v.anomalies[0]!.name} in the versions picked`;
  const n = h.txnCount;
  // Writers of each key in version order (by position).
  const w = v.writes;
  const idx = Array.from({ length: w.count }, (_, i) => i).sort((a, b) => (w.key[a]! - w.key[b]!) || (position[w.txn[a]!]! - position[w.txn[b]!]!));
  const nextOf = new Map<number, number>(); // key * n + writer (writer + 1 for INIT) -> next writer
  const from: number[] = [], to: number[] = [], kind: number[] = [];
  for (let j = 0; j < idx.length; j++) {
    const i = idx[j]!, k = w.key[i]!, t = w.txn[i]!;
    const prev = j > 0 && w.key[idx[j - 1]!] === k ? w.txn[idx[j - 1]!]! : INIT_TXN;
    nextOf.set(k * (n + 1) + prev + 1, t);
    if (prev !== INIT_TXN) { from.push(prev); to.push(t); kind.push(KIND_DEP); }
  }
  // A txn that read one version of a key both by a predicate read and by an item read made one
  // external read of it (validation keeps the first): it is an item read if any of them is.
  const itemRead = new Set<string>();
  for (let t = 0; t < n; t++) {
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      if (h.opKind[op] === OP_READ && predicate[op] === 0) itemRead.add(`${t} ${h.opKey[op]} ${h.opValue[op]}`);
    }
  }
  const r = v.reads;
  for (let i = 0; i < r.count; i++) {
    const t = r.txn[i]!, k = r.key[i]!, wr = r.writer[i]!;
    if (wr !== INIT_TXN) { from.push(wr); to.push(t); kind.push(KIND_DEP); }
    const next = nextOf.get(k * (n + 1) + wr + 1);
    const item = predicate[r.op[i]!] === 0 || itemRead.has(`${t} ${k} ${h.opValue[r.op[i]!]}`);
    if (next !== undefined && next !== t) { from.push(t); to.push(next); kind.push(item ? KIND_ITEM_RW : KIND_PRED_RW); }
  }
  // G1c: write-read and write-write edges must follow the order (then they have no cycle).
  for (let e = 0; e < from.length; e++) {
    if (kind[e] === KIND_DEP && position[from[e]!]! >= position[to[e]!]!) return 'a write-read or write-write edge against the order picked';
  }
  const comp = components(n, from, to);
  for (let e = 0; e < from.length; e++) {
    if (kind[e] === KIND_ITEM_RW && comp[from[e]!] === comp[to[e]!]) return 'a cycle through an item anti-dependency (G2-item) under the versions picked';
  }
  return null;
}

/** Strongly connected components (iterative Tarjan): `comp[u]` names u's component. */
export function components(n: number, from: ArrayLike<number>, to: ArrayLike<number>): Int32Array {
  const start = new Int32Array(n + 1);
  for (let e = 0; e < from.length; e++) start[from[e]! + 1]!++;
  for (let u = 0; u < n; u++) start[u + 1]! += start[u]!;
  const fill = start.slice(0, n), adj = new Int32Array(from.length);
  for (let e = 0; e < from.length; e++) adj[fill[from[e]!]!++] = to[e]!;
  const index = new Int32Array(n).fill(-1), low = new Int32Array(n), comp = new Int32Array(n).fill(-1);
  const onStack = new Uint8Array(n), stack: number[] = [], call: number[] = [], edge: number[] = [];
  let next = 0, nComp = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    call.push(root); edge.push(start[root]!);
    index[root] = low[root] = next++; stack.push(root); onStack[root] = 1;
    while (call.length > 0) {
      const u = call[call.length - 1]!, e = edge[edge.length - 1]!;
      if (e < start[u + 1]!) {
        edge[edge.length - 1] = e + 1;
        const x = adj[e]!;
        if (index[x] === -1) {
          index[x] = low[x] = next++; stack.push(x); onStack[x] = 1;
          call.push(x); edge.push(start[x]!);
        } else if (onStack[x] === 1 && index[x]! < low[u]!) {
          low[u] = index[x]!;
        }
        continue;
      }
      call.pop(); edge.pop();
      if (call.length > 0) { const p = call[call.length - 1]!; if (low[u]! < low[p]!) low[p] = low[u]!; }
      if (low[u] === index[u]) {
        let x: number;
        do { x = stack.pop()!; onStack[x] = 0; comp[x] = nComp; } while (x !== u);
        nComp++;
      }
    }
  }
  return comp;
}

/** One edge of a cycle shown to the user (a DepEdge, a counterexample's CxEdge). */
interface ShownEdge { from: number; to: number; kind: string; key: number }

/**
 * Whether every alternative of a shown cycle is one that repeatable read forbids, with predicate
 * anti-dependencies told apart: `alternatives` are the edge sets to test (a counterexample's
 * certain edges with each choice of its write orders; a witness cycle alone), `predicate`
 * the `txn * keys + key` of the lowered history `h`'s predicate observations. Each must hold a
 * cycle of write-read and write-write edges (G1c) or an item anti-dependency on a cycle
 * (G2-item). An anti-dependency R -> W counts as an item one only when R did not read the key by
 * a predicate read and, if R writes the key itself, the alternative orders W's write before R's
 * (else it stands for R -WW-> W: the pipeline gives a reader an edge to every later writer).
 */
export function forbiddenAtRr(h: History, predicate: ReadonlySet<number>, alternatives: readonly (readonly ShownEdge[])[]): boolean {
  const nKeys = h.keyLabels.length;
  const writes = (t: number, key: number): boolean => {
    if (t < 0) return false;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) if (h.opKey[op] === key && (h.opKind[op] === OP_WRITE || h.opKind[op] === OP_APPEND)) return true;
    return false;
  };
  return alternatives.every((edges) => {
    const nodes = new Map<number, number>();
    const id = (t: number) => { let i = nodes.get(t); if (i === undefined) nodes.set(t, i = nodes.size); return i; };
    const from = edges.map((e) => id(e.from)), to = edges.map((e) => id(e.to));
    const dep = edges.map((e) => e.kind === 'WR' || e.kind === 'WW');
    const dFrom = from.filter((_, i) => dep[i]), dTo = to.filter((_, i) => dep[i]);
    const dComp = components(nodes.size, dFrom, dTo);
    if (dFrom.some((f, i) => dComp[f] === dComp[dTo[i]!])) return true; // G1c
    const comp = components(nodes.size, from, to);
    const ww = new Set(edges.filter((e) => e.kind === 'WW').map((e) => `${e.from} ${e.to} ${e.key}`));
    return edges.some((e, i) => e.kind === 'RW' && comp[from[i]!] === comp[to[i]!] && !predicate.has(e.from * nKeys + e.key) &&
      (!writes(e.from, e.key) || ww.has(`${e.to} ${e.from} ${e.key}`)));
  });
}
