/**
 * The certificate of a counterexample: an independent check, in production, that what is about to
 * be reported as a violation is one.
 *
 * Takes: the History and a cycle `Counterexample` (the data that will be printed). Gives: a
 * `Certificate`: `certified` after the check passed, `uncertified` (with the reason) when it was
 * not attempted (too many write orders to enumerate, or a counterexample that a budget left
 * incomplete), or `failed` (with the reason): the counterexample is wrong, an internal error that
 * the caller must never report as a violation.
 *
 * Independent of the solver, of pruning and of the polygraph: nothing from src/solver, src/solve,
 * src/prune or src/graph is used. Two checks:
 * 1. every edge is re-derived from the raw operations of its two transactions (session order,
 *    what was read and written, and for a write order that its direction matches its side);
 * 2. brute force over every choice of the counterexample's write orders (2^constraints, at most
 *    `CERTIFY_CONSTRAINTS_MAX` of them): each choice, with the certain edges, holds a cycle the
 *    level forbids, each test the level's dependency-graph characterisation written out directly
 *    on relations (Cerone & Gotsman; Bernardi & Gotsman 2016; Adya), RT counting as SO:
 *    SI: `Dep ; RW?` is acyclic (Dep = SO ∪ WR ∪ WW); SER: `Dep ∪ RW` is acyclic;
 *    PC: `((SO ∪ WR) ; RW?) ∪ WW` is acyclic; PSI: `Dep+ ; RW?` is irreflexive;
 *    RR (PL-2.99): `WR ∪ WW ∪ RW` is acyclic.
 * The counterexample's sides hold only some edges of the history's write orders; fewer edges only
 * remove cycles, so a violation of the counterexample is a violation of the history.
 */

import {
  INITIAL_VALUE,
  OP_APPEND,
  OP_READ,
  OP_READ_LIST,
  OP_WRITE,
  TXN_ABORTED,
  TXN_COMMITTED,
  txnLabel,
  type History,
} from '../history/model.ts';
import { INIT_TXN } from '../result/types.ts';
import type { Certificate, Counterexample, CxEdge } from '../result/counterexample.ts';

/** Write orders enumerated at most (2^16 = 65,536 choices of a graph of a few dozen nodes). */
export const CERTIFY_CONSTRAINTS_MAX = 16;
/** Transactions of a counterexample certified at most (the closure is quadratic in them). */
export const CERTIFY_TXNS_MAX = 256;

/** Certifies `cx` (a cycle counterexample) against the history it came from. */
export function certify(h: History, cx: Counterexample): Certificate {
  if (cx.type !== 'cycle') return { status: 'not applicable', choices: 0, reason: 'a non-cycle anomaly: the operations shown are the evidence' };
  if (!cx.selfContained) return { status: 'uncertified', choices: 0, reason: 'the explain budget ran out before the counterexample was self-contained' };
  for (const e of cx.edges) {
    const why = edgeProblem(h, cx, e);
    if (why !== null) return { status: 'failed', choices: 0, reason: `edge ${e.id} (${e.kind} ${e.from}->${e.to}): ${why}` };
  }
  const m = cx.constraints.length;
  const nodes = new Set<number>();
  for (const e of cx.edges) { nodes.add(e.from); nodes.add(e.to); }
  if (m > CERTIFY_CONSTRAINTS_MAX || nodes.size > CERTIFY_TXNS_MAX) {
    return { status: 'uncertified', choices: 0, reason: `${m} write orders over ${nodes.size} transactions: too many to enumerate (limits ${CERTIFY_CONSTRAINTS_MAX} and ${CERTIFY_TXNS_MAX})` };
  }
  const acyclicChoice = firstAcyclicChoice(cx, [...nodes]);
  if (acyclicChoice !== null) {
    const sides = cx.constraints.map((c, i) => `${c.a}/${c.b}: ${(acyclicChoice >> i) & 1 ? 'or' : 'either'}`).join(', ');
    return { status: 'failed', choices: 1 << m, reason: `a choice of its write orders leaves no forbidden cycle (${sides || 'no write orders'})` };
  }
  return { status: 'certified', choices: 1 << m, reason: '' };
}

// ------------------------------------------------------------------ edges from the operations

/** t's last write (or append) of key, as an op index; -1 if none. */
function lastWrite(h: History, t: number, key: number): number {
  let at = -1;
  for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
    if (h.opKey[op] === key && (h.opKind[op] === OP_WRITE || h.opKind[op] === OP_APPEND)) at = op;
  }
  return at;
}

/**
 * t's external reads of key, as op indices in program order (empty if none). A register's are
 * t's reads of the key before its own first write of it (a re-read that returns another value is
 * one more external read: docs/levels.md, "Re-reads"). A list's are all of t's list reads of the
 * key, even after t's own appends: those are the list's suffix, and what precedes them is the
 * version t read.
 */
export function externalReads(h: History, t: number, key: number): number[] {
  const out: number[] = [];
  let wrote = false;
  for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
    if (h.opKey[op] !== key) continue;
    const kind = h.opKind[op];
    if (kind === OP_WRITE) wrote = true;
    else if (kind === OP_READ_LIST || (kind === OP_READ && !wrote)) out.push(op);
  }
  return out;
}

/** Reader t's own appends to key before its op `readOp`. */
export function ownAppendsBefore(h: History, t: number, readOp: number, key: number): number {
  let n = 0;
  for (let op = h.txnOpStart[t]!; op < readOp; op++) if (h.opKey[op] === key && h.opKind[op] === OP_APPEND) n++;
  return n;
}

/** Did `reader`'s read op `readOp` see the version `writer` installed (INIT_TXN: the initial value)? */
function readsVersionOf(h: History, reader: number, readOp: number, writer: number, key: number): boolean {
  const v = h.opValue[readOp]!;
  if (h.opKind[readOp] === OP_READ_LIST) {
    // The reader's own earlier appends end the list; the element before them is the writer's.
    const start = h.listStart[v]!;
    const end = h.listStart[v + 1]! - ownAppendsBefore(h, reader, readOp, key);
    if (writer === INIT_TXN) return start === end;
    if (end <= start) return false;
    const last = h.listElems[end - 1];
    for (let op = h.txnOpStart[writer]!; op < h.txnOpStart[writer + 1]!; op++) {
      if (h.opKey[op] === key && h.opKind[op] === OP_APPEND && h.opValue[op] === last) return true;
    }
    return false;
  }
  if (writer === INIT_TXN) return v === INITIAL_VALUE;
  const w = lastWrite(h, writer, key);
  return w >= 0 && h.opKind[w] === OP_WRITE && h.opValue[w] === v;
}

function writes(h: History, t: number, key: number): boolean {
  return t === INIT_TXN || lastWrite(h, t, key) >= 0;
}

/** Edge `e` re-derived from the history; null if it holds, else what is wrong. */
function edgeProblem(h: History, cx: Counterexample, e: CxEdge): string | null {
  for (const t of [e.from, e.to]) {
    if (t === INIT_TXN) continue;
    if (!Number.isInteger(t) || t < 0 || t >= h.txnCount) return `transaction ${t} does not exist`;
    if (h.txnStatus[t] === TXN_ABORTED) return `transaction ${txnLabel(h, t)} aborted`;
  }
  if (e.from === e.to) return 'a self-loop';
  if (e.to === INIT_TXN) return 'an edge into the initial transaction';
  if (e.kind !== 'SO' && e.kind !== 'RT' && (e.key < 0 || e.key >= h.keyLabels.length)) return `key ${e.key} does not exist`;
  // The side of a write order fixes which writer's version comes first.
  const sideOrder = (): [number, number] | null => {
    const c = cx.constraints[e.constraint];
    if (c === undefined || e.side === null) return null;
    return e.side === 'either' ? [c.a, c.b] : [c.b, c.a];
  };
  switch (e.kind) {
    case 'SO':
      if (e.status !== 'certain') return 'session order is always certain';
      return e.from !== INIT_TXN && h.txnSession[e.from] === h.txnSession[e.to] && e.from < e.to ? null : 'not in session order';
    case 'RT': {
      if (e.status !== 'certain') return 'real-time order is always certain';
      if (e.from === INIT_TXN || h.txnStart === undefined || h.txnEnd === undefined) return 'no times to order by';
      if (h.txnStatus[e.from] !== TXN_COMMITTED) return 'the earlier transaction did not commit';
      return h.txnEnd[e.from]! < h.txnStart[e.to]! ? null : 'the first did not complete before the second was invoked';
    }
    case 'WR': {
      if (e.status !== 'certain') return 'a read is always certain';
      const rs = externalReads(h, e.to, e.key);
      if (rs.length === 0) return 'the reader does not read the key';
      return rs.some((r) => readsVersionOf(h, e.to, r, e.from, e.key)) ? null : 'the reader did not read this writer\'s version';
    }
    case 'WW': {
      if (!writes(h, e.from, e.key) || !writes(h, e.to, e.key)) return 'not both writers of the key';
      if (e.status === 'certain') {
        // Certain write orders come from the initial state or from list reads (a prefix of the order).
        if (e.from === INIT_TXN) return null;
        const w = lastWrite(h, e.to, e.key);
        return h.opKind[w] === OP_APPEND ? null : 'a certain write order between two writers of a register';
      }
      const order = sideOrder();
      if (order === null) return 'a write order that belongs to no constraint';
      return order[0] === e.from && order[1] === e.to ? null : 'its direction does not match its side';
    }
    case 'RW': {
      if (e.from === INIT_TXN) return 'the initial transaction reads nothing';
      const rs = externalReads(h, e.from, e.key);
      if (rs.length === 0) return 'the reader does not read the key';
      if (!writes(h, e.to, e.key)) return 'the overwriter does not write the key';
      const source = e.readFrom;
      if (source === null || source === e.to) return 'the reader read the overwriter\'s own version';
      if (!rs.some((r) => readsVersionOf(h, e.from, r, source, e.key))) return 'the reader did not read the version it is said to have read';
      if (e.status === 'certain') {
        if (source === INIT_TXN) return null;
        const w = lastWrite(h, e.to, e.key);
        return h.opKind[w] === OP_APPEND ? null : 'a certain anti-dependency from a read of a register that is not the initial value';
      }
      const order = sideOrder();
      if (order === null) return 'an anti-dependency that belongs to no constraint';
      return order[0] === source && order[1] === e.to ? null : 'it does not follow from its side';
    }
    default:
      return 'unknown kind';
  }
}

// ------------------------------------------------------------------ brute force over the choices

/** The first choice (bit i = side of constraint i, 1 = or) that leaves no forbidden cycle, or null. */
function firstAcyclicChoice(cx: Counterexample, nodes: readonly number[]): number | null {
  const ix = new Map(nodes.map((t, i) => [t, i]));
  const n = nodes.length;
  const level = cx.level;
  const certain = cx.edges.filter((e) => e.constraint < 0);
  const sides = cx.constraints.map((c) => [c.either.map((id) => cx.edges[id]!), c.or.map((id) => cx.edges[id]!)] as const);
  const words = (n + 31) >>> 5;
  // One relation per kind, RT merged into SO.
  const rel: Record<'SO' | 'WR' | 'WW' | 'RW', Uint32Array> = {
    SO: new Uint32Array(n * words), WR: new Uint32Array(n * words), WW: new Uint32Array(n * words), RW: new Uint32Array(n * words),
  };
  for (let choice = 0; choice < 1 << sides.length; choice++) {
    for (const m of Object.values(rel)) m.fill(0);
    const add = (e: CxEdge) => {
      const a = ix.get(e.from)!, b = ix.get(e.to)!;
      const m = rel[e.kind === 'RT' ? 'SO' : e.kind];
      m[a * words + (b >>> 5)]! |= 1 << (b & 31);
    };
    certain.forEach(add);
    sides.forEach((s, i) => s[(choice >> i) & 1]!.forEach(add));
    if (!forbids(level, rel, n, words)) return choice;
  }
  return null;
}

/** Does the graph (one relation per kind) hold a cycle `level` forbids? */
function forbids(level: Counterexample['level'], r: Record<'SO' | 'WR' | 'WW' | 'RW', Uint32Array>, n: number, words: number): boolean {
  const union = (...ms: Uint32Array[]) => { const u = new Uint32Array(n * words); for (const m of ms) for (let i = 0; i < u.length; i++) u[i]! |= m[i]!; return u; };
  switch (level) {
    case 'ser': case 'strict-ser': return hasCycle(union(r.SO, r.WR, r.WW, r.RW), n, words);
    case 'si': case 'strict-si': return hasCycle(compose(union(r.SO, r.WR, r.WW), r.RW, n, words), n, words);
    case 'rr': return hasCycle(union(r.WR, r.WW, r.RW), n, words);
    case 'ru': case 'rc': case 'ra': case 'tcc':
      throw new Error(`internal error: ${level} counterexamples are certified by certify-saturated.ts`);
    case 'pc': return hasCycle(union(compose(union(r.SO, r.WR), r.RW, n, words), r.WW), n, words);
    case 'psi': {
      const dep = union(r.SO, r.WR, r.WW);
      if (hasCycle(dep, n, words)) return true;
      const plus = closure(dep, n, words);
      // (Dep+ ; RW?) is reflexive somewhere iff an RW edge a -> b has b Dep+ a.
      const has = (m: Uint32Array, a: number, b: number) => (m[a * words + (b >>> 5)]! & (1 << (b & 31))) !== 0;
      for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) if (has(r.RW, a, b) && has(plus, b, a)) return true;
      return false;
    }
  }
}

/** Transitive closure (Warshall) of a relation given as bit rows. */
function closure(m: Uint32Array, n: number, words: number): Uint32Array {
  const r = m.slice();
  for (let k = 0; k < n; k++) {
    for (let a = 0; a < n; a++) {
      if ((r[a * words + (k >>> 5)]! & (1 << (k & 31))) === 0) continue;
      for (let w = 0; w < words; w++) r[a * words + w]! |= r[k * words + w]!;
    }
  }
  return r;
}

/** R = D ∪ D;RW as bit rows (with an empty RW, just D). */
function compose(dep: Uint32Array, rw: Uint32Array, n: number, words: number): Uint32Array {
  const r = dep.slice();
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      if ((dep[a * words + (b >>> 5)]! & (1 << (b & 31))) === 0) continue;
      for (let w = 0; w < words; w++) r[a * words + w]! |= rw[b * words + w]!;
    }
  }
  return r;
}

/** Kahn's algorithm on a relation given as bit rows: true if some node never reaches in-degree 0. */
function hasCycle(r: Uint32Array, n: number, words: number): boolean {
  const indeg = new Int32Array(n);
  const has = (a: number, b: number) => (r[a * words + (b >>> 5)]! & (1 << (b & 31))) !== 0;
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) if (has(a, b)) indeg[b]!++;
  const queue: number[] = [];
  for (let a = 0; a < n; a++) if (indeg[a] === 0) queue.push(a);
  for (let head = 0; head < queue.length; head++) {
    const a = queue[head]!;
    for (let b = 0; b < n; b++) if (has(a, b) && --indeg[b]! === 0) queue.push(b);
  }
  return queue.length < n;
}
