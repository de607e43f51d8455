/**
 * Brute-force oracles for the ladder's polygraph levels on tiny register histories: PC, PSI,
 * RR (Adya PL-2.99), SI, SER, strict SI and strict SER (docs/levels.md).
 *
 * Takes: a History of read/write-register txns (at most LEVELS_ORACLE_TXNS_MAX), optionally with
 * txnStart/txnEnd. Gives: 'valid' | 'violation' per level, by two methods sharing no code with
 * `src/` (only the History model's types and constants) nor with each other beyond reading the
 * operations:
 * - `axiomaticLevel` (Cerone, Bernardi, Gotsman 2015, abstract executions): enumerate every
 *   commit order CO of the transactions, and ask whether a visibility VIS ⊆ CO exists with the
 *   level's axioms. SER: VIS = CO. SI, PC: each txn sees a prefix of CO (PREFIX), chosen per
 *   txn; SI also NOCONFLICT. PSI: VIS transitive with NOCONFLICT; the least such VIS (the
 *   closure of SO, WR and CO-ordered write conflicts) is the one to test, since EXT only gets
 *   harder with more visible writers. Strict: RT ⊆ VIS. RR has no such definition (Adya's is
 *   on the graph), so this method does not decide it.
 * - `graphLevel`: enumerate every per-key version order and test the level's characterisation on
 *   explicit relations (Adya; Cerone & Gotsman; Bernardi & Gotsman 2016): SER: SO ∪ WR ∪ WW ∪
 *   RW acyclic; SI: (Dep ; RW?) acyclic with Dep = SO ∪ WR ∪ WW; PC: ((SO ∪ WR) ; RW?) ∪ WW
 *   acyclic; PSI: Dep acyclic and no RW a->b with b Dep+ a; RR: WR ∪ WW ∪ RW acyclic (no SO).
 *   Strict: RT joins SO.
 * Session order and unknown outcomes as everywhere in the tests (brute-force.ts): a txn follows
 * the earlier *committed* txns of its session; unknown-outcome txns go either way (valid iff
 * some choice is); real time: a precedes b when a committed (status, not a choice) and
 * end(a) < start(b).
 */

import {
  INITIAL_VALUE, OP_READ, OP_WRITE, TXN_ABORTED, TXN_COMMITTED, type History,
} from '../../src/history/model.ts';

export type LadderLevel = 'pc' | 'psi' | 'rr' | 'si' | 'ser' | 'strict-si' | 'strict-ser';
export type Verdict = 'valid' | 'violation';
export const LEVELS_ORACLE_TXNS_MAX = 7;

interface Txn {
  session: number;
  status: number;
  intOk: boolean;
  reads: Map<number, number>;
  writes: Map<number, number>;
  start: number;
  end: number;
}

interface World {
  txns: Txn[];
  n: number;
  /** writer of (key, value) with whether it is the final write: key -> value -> [txn, final]. */
  origin: Map<number, [number, boolean]>[];
}

function load(h: History): World {
  if (h.txnCount > LEVELS_ORACLE_TXNS_MAX) throw new Error(`levels oracle: ${h.txnCount} txns (limit ${LEVELS_ORACLE_TXNS_MAX})`);
  const origin: Map<number, [number, boolean]>[] = h.keyLabels.map(() => new Map());
  const txns: Txn[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    const reads = new Map<number, number>(), writes = new Map<number, number>();
    let intOk = true;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = h.opKey[op]!, v = h.opValue[op]!;
      if (h.opKind[op] === OP_WRITE) {
        if (v === INITIAL_VALUE || origin[k]!.has(v)) throw new Error('levels oracle: values must be unique and not initial');
        const prev = writes.get(k);
        if (prev !== undefined) origin[k]!.set(prev, [t, false]);
        origin[k]!.set(v, [t, true]);
        writes.set(k, v);
      } else if (h.opKind[op] === OP_READ) {
        if (writes.has(k)) { if (writes.get(k) !== v) intOk = false; }
        else if (reads.has(k)) { if (reads.get(k) !== v) intOk = false; }
        else reads.set(k, v);
      } else {
        throw new Error('levels oracle: registers only');
      }
    }
    txns.push({
      session: h.txnSession[t]!, status: h.txnStatus[t]!, intOk, reads, writes,
      start: h.txnStart?.[t] ?? Number.NaN, end: h.txnEnd?.[t] ?? Number.NaN,
    });
  }
  return { txns, n: h.txnCount, origin };
}

/** Pairs (a, b) that must be ordered a before b regardless of the level's other axioms. */
function orderPairs(w: World, inWorld: boolean[], strict: boolean, withSession: boolean): [number, number][] {
  const out: [number, number][] = [];
  for (let a = 0; a < w.n; a++) {
    for (let b = 0; b < w.n; b++) {
      if (a === b || !inWorld[a] || !inWorld[b] || w.txns[a]!.status !== TXN_COMMITTED) continue;
      const A = w.txns[a]!, B = w.txns[b]!;
      if (withSession && A.session === B.session && a < b) out.push([a, b]);
      else if (strict && A.end < B.start) out.push([a, b]);
    }
  }
  return out;
}

/**
 * Each included txn's external reads resolved to a writer (-1 = initial value), or null when
 * the world contradicts a read (its value was never written, written by a txn outside the
 * world or later in the same txn, or not a final write) or a txn contradicts itself.
 */
function resolveReads(w: World, inWorld: boolean[]): Map<number, number>[] | null {
  const res: Map<number, number>[] = [];
  for (let t = 0; t < w.n; t++) {
    const m = new Map<number, number>();
    res.push(m);
    if (!inWorld[t]) continue;
    if (!w.txns[t]!.intOk) return null;
    for (const [k, v] of w.txns[t]!.reads) {
      if (v === INITIAL_VALUE) { m.set(k, -1); continue; }
      const o = w.origin[k]!.get(v);
      if (o === undefined || !o[1] || o[0] === t || !inWorld[o[0]]) return null;
      m.set(k, o[0]);
    }
  }
  return res;
}

function someWorld(w: World, ok: (inWorld: boolean[]) => boolean): Verdict {
  const unknown: number[] = [];
  w.txns.forEach((x, t) => { if (x.status !== TXN_COMMITTED && x.status !== TXN_ABORTED) unknown.push(t); });
  for (let mask = 0; mask < 1 << unknown.length; mask++) {
    const inWorld = w.txns.map((x) => x.status === TXN_COMMITTED);
    unknown.forEach((t, i) => { inWorld[t] = ((mask >> i) & 1) === 1; });
    if (ok(inWorld)) return 'valid';
  }
  return 'violation';
}

function permutations(items: number[]): number[][] {
  if (items.length <= 1) return [items.slice()];
  const out: number[][] = [];
  items.forEach((x, i) => {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) out.push([x, ...rest]);
  });
  return out;
}

// ------------------------------------------------------------------ axiomatic (commit orders)

/**
 * `tcc` (transactional causal consistency: PSI without NOCONFLICT, Cerone et al. 2015) is
 * decided here too, only so that the boundary tests can show a history on TCC's side.
 */
export function axiomaticLevel(h: History, level: Exclude<LadderLevel, 'rr'> | 'tcc'): Verdict {
  const w = load(h);
  const strict = level === 'strict-si' || level === 'strict-ser';
  return someWorld(w, (inWorld) => {
    const rf = resolveReads(w, inWorld);
    if (rf === null) return false;
    const members = w.txns.map((_, t) => t).filter((t) => inWorld[t]);
    const must = orderPairs(w, inWorld, strict, true);
    for (const co of permutations(members)) {
      const pos = new Map(co.map((t, i) => [t, i]));
      const holds = level === 'psi' || level === 'tcc' ? causalHolds(w, co, pos, rf, must, level === 'psi') : prefixHolds(w, level, co, pos, rf, must);
      if (holds) return true;
    }
    return false;
  });
}

/** SER, SI, PC and strict variants: every txn sees some prefix of CO (SER: all before it). */
function prefixHolds(w: World, level: LadderLevel | 'tcc', co: number[], pos: Map<number, number>, rf: Map<number, number>[], must: [number, number][]): boolean {
  const noConflict = level !== 'pc';
  for (let i = 0; i < co.length; i++) {
    const t = co[i]!;
    let found = false;
    for (let p = level === 'ser' || level === 'strict-ser' ? i : 0; p <= i && !found; p++) {
      // VIS^-1(t) = co[0 .. p-1].
      const sees = (a: number) => pos.get(a)! < p;
      if (must.some(([a, b]) => b === t && !sees(a))) continue;
      if (noConflict && co.slice(0, i).some((a) => [...w.txns[a]!.writes.keys()].some((k) => w.txns[t]!.writes.has(k)) && !sees(a))) continue;
      let ext = true;
      for (const [k, writer] of rf[t]!) {
        let last = -1;
        for (let j = 0; j < p; j++) if (w.txns[co[j]!]!.writes.has(k)) last = co[j]!;
        if (last !== writer) { ext = false; break; }
      }
      found = ext;
    }
    if (!found) return false;
  }
  return true;
}

/**
 * PSI (`noConflict`) and TCC: the least transitive VIS ⊆ CO holding SO, WR (and for PSI the
 * CO-ordered write conflicts); then EXT.
 */
function causalHolds(w: World, co: number[], pos: Map<number, number>, rf: Map<number, number>[], must: [number, number][], noConflict: boolean): boolean {
  const m = co.length;
  const vis = Array.from({ length: m }, () => new Array<boolean>(m).fill(false)); // by CO position
  const add = (a: number, b: number): boolean => {
    const i = pos.get(a)!, j = pos.get(b)!;
    if (i >= j) return false; // VIS ⊆ CO
    vis[i]![j] = true;
    return true;
  };
  for (const [a, b] of must) if (!add(a, b)) return false;
  for (const t of co) for (const [, writer] of rf[t]!) if (writer >= 0 && !add(writer, t)) return false;
  for (let i = 0; i < m; i++) {
    for (let j = i + 1; j < m; j++) {
      const A = w.txns[co[i]!]!, B = w.txns[co[j]!]!;
      if (noConflict && [...A.writes.keys()].some((k) => B.writes.has(k))) vis[i]![j] = true;
    }
  }
  for (let k = 0; k < m; k++) for (let i = 0; i < m; i++) if (vis[i]![k]) for (let j = 0; j < m; j++) if (vis[k]![j]) vis[i]![j] = true;
  for (let j = 0; j < m; j++) {
    const t = co[j]!;
    for (const [k, writer] of rf[t]!) {
      let last = -1;
      for (let i = 0; i < j; i++) if (vis[i]![j] && w.txns[co[i]!]!.writes.has(k)) last = co[i]!;
      if (last !== writer) return false;
    }
  }
  return true;
}

// ------------------------------------------------------------------ graphs over version orders

export function graphLevel(h: History, level: LadderLevel): Verdict {
  const w = load(h);
  const strict = level === 'strict-si' || level === 'strict-ser';
  return someWorld(w, (inWorld) => {
    const rf = resolveReads(w, inWorld);
    if (rf === null) return false;
    const keys = new Set<number>();
    w.txns.forEach((x, t) => { if (inWorld[t]) for (const k of x.writes.keys()) keys.add(k); });
    const keyList = [...keys];
    const ordersPerKey = keyList.map((k) => permutations(w.txns.map((_, t) => t).filter((t) => inWorld[t] && w.txns[t]!.writes.has(k))));
    const so = orderPairs(w, inWorld, strict, level !== 'rr');
    const choice = new Array<number>(keyList.length).fill(0);
    for (;;) {
      const n = w.n;
      const rel = () => Array.from({ length: n }, () => new Array<boolean>(n).fill(false));
      const SO = rel(), WR = rel(), WW = rel(), RW = rel();
      for (const [a, b] of so) SO[a]![b] = true;
      const rank = new Map<string, number>();
      keyList.forEach((k, i) => ordersPerKey[i]![choice[i]!]!.forEach((t, r) => rank.set(`${k}/${t}`, r)));
      keyList.forEach((_k, i) => {
        const order = ordersPerKey[i]![choice[i]!]!;
        for (let x = 0; x < order.length; x++) for (let y = x + 1; y < order.length; y++) WW[order[x]!]![order[y]!] = true;
      });
      for (let t = 0; t < n; t++) {
        for (const [k, writer] of rf[t]!) {
          if (writer >= 0) WR[writer]![t] = true;
          const from = writer < 0 ? -1 : rank.get(`${k}/${writer}`)!;
          const i = keyList.indexOf(k);
          if (i < 0) continue;
          for (const other of ordersPerKey[i]![choice[i]!]!) if (other !== t && rank.get(`${k}/${other}`)! > from) RW[t]![other] = true;
        }
      }
      if (!forbidden(level, n, SO, WR, WW, RW)) return true;
      let i = 0;
      while (i < keyList.length && ++choice[i]! === ordersPerKey[i]!.length) { choice[i] = 0; i++; }
      if (i === keyList.length) return false;
    }
  });
}

type Rel = boolean[][];

function forbidden(level: LadderLevel, n: number, SO: Rel, WR: Rel, WW: Rel, RW: Rel): boolean {
  const union = (...rs: Rel[]): Rel => rs[0]!.map((row, a) => row.map((_, b) => rs.some((r) => r[a]![b])));
  const seq = (r: Rel, s: Rel): Rel => r.map((row) => row.map((_, c) => row.some((x, b) => x && s[b]![c])));
  const plus = (r: Rel): Rel => {
    const c = r.map((row) => row.slice());
    for (let k = 0; k < n; k++) for (let a = 0; a < n; a++) if (c[a]![k]) for (let b = 0; b < n; b++) if (c[k]![b]) c[a]![b] = true;
    return c;
  };
  const cyclic = (r: Rel): boolean => plus(r).some((row, a) => row[a]);
  const dep = union(SO, WR, WW);
  switch (level) {
    case 'ser': case 'strict-ser': return cyclic(union(dep, RW));
    case 'si': case 'strict-si': return cyclic(union(dep, seq(dep, RW)));
    case 'pc': { const c = union(SO, WR); return cyclic(union(c, seq(c, RW), WW)); }
    case 'psi': { const p = plus(dep); return p.some((row, a) => row[a]) || RW.some((row, a) => row.some((x, b) => x && p[b]![a])); }
    case 'rr': return cyclic(union(WR, WW, RW));
  }
}
