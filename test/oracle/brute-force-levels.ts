/**
 * Brute-force oracles for the ladder's polygraph levels on tiny register histories: PC, PSI,
 * RR (Adya PL-2.99), SI, SER, strict SI and strict SER (docs/levels.md).
 *
 * Takes: a History of read/write-register txns (at most LEVELS_ORACLE_TXNS_MAX), optionally with
 * txnStart/txnEnd. Gives: 'valid' | 'violation' per level, by two methods sharing no code with
 * `src/` (only the History model's types and constants) nor with each other beyond reading the
 * operations:
 * - `axiomaticLevel` (Cerone, Bernardi, Gotsman 2015, abstract executions), for registers and
 *   list-append keys alike: enumerate every commit order CO of the transactions, and ask whether
 *   a visibility VIS ⊆ CO exists with the level's axioms, EXT being checked by *running* each
 *   txn's program against the effects of the txns it sees, in CO order. SER: VIS = CO. SI, PC: each txn sees a prefix of CO (PREFIX), chosen per
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
  INITIAL_VALUE, OP_APPEND, OP_READ, OP_WRITE, TXN_ABORTED, TXN_COMMITTED, type History,
} from '../../src/history/model.ts';

export type LadderLevel = 'pc' | 'psi' | 'rr' | 'si' | 'ser' | 'strict-si' | 'strict-ser';
export type Verdict = 'valid' | 'violation';
export const LEVELS_ORACLE_TXNS_MAX = 7;

interface Txn {
  session: number;
  status: number;
  intOk: boolean;
  /** key -> the distinct values read before the txn's own write (a re-read of another value is one more external read). */
  reads: Map<number, number[]>;
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
    const reads = new Map<number, number[]>(), writes = new Map<number, number>();
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
        else if (reads.has(k)) { if (!reads.get(k)!.includes(v)) reads.get(k)!.push(v); }
        else reads.set(k, [v]);
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
function resolveReads(w: World, inWorld: boolean[]): Map<number, number[]>[] | null {
  const res: Map<number, number[]>[] = [];
  for (let t = 0; t < w.n; t++) {
    const m = new Map<number, number[]>();
    res.push(m);
    if (!inWorld[t]) continue;
    if (!w.txns[t]!.intOk) return null;
    for (const [k, vs] of w.txns[t]!.reads) {
      const writers: number[] = [];
      for (const v of vs) {
        if (v === INITIAL_VALUE) { writers.push(-1); continue; }
        const o = w.origin[k]!.get(v);
        if (o === undefined || !o[1] || o[0] === t || !inWorld[o[0]]) return null;
        writers.push(o[0]);
      }
      m.set(k, writers);
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

/** One op of a txn's program; the state of a key is a sequence (a register holds its last write). */
type Step = { kind: 'r' | 'w' | 'a'; key: number; value: number } | { kind: 'rl'; key: number; list: number[] };

interface Prog {
  session: number;
  status: number;
  start: number;
  end: number;
  steps: Step[];
  /** Keys it writes or appends to. */
  writes: Set<number>;
  /** Txns whose effects it read (writers of register values, appenders of list elements), itself excluded. */
  readFrom: Set<number>;
}

function programs(h: History): Prog[] {
  if (h.txnCount > LEVELS_ORACLE_TXNS_MAX) throw new Error(`levels oracle: ${h.txnCount} txns (limit ${LEVELS_ORACLE_TXNS_MAX})`);
  const writerOf = new Map<string, number>();
  for (let t = 0; t < h.txnCount; t++) {
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      if (h.opKind[op] === OP_WRITE || h.opKind[op] === OP_APPEND) writerOf.set(`${h.opKey[op]}/${h.opValue[op]}`, t);
    }
  }
  const progs: Prog[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    const steps: Step[] = [], writes = new Set<number>(), readFrom = new Set<number>();
    const saw = (k: number, v: number) => { const x = writerOf.get(`${k}/${v}`); if (x !== undefined && x !== t) readFrom.add(x); };
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = h.opKey[op]!, v = h.opValue[op]!;
      switch (h.opKind[op]) {
        case OP_READ: steps.push({ kind: 'r', key: k, value: v }); if (v !== INITIAL_VALUE) saw(k, v); break;
        case OP_WRITE: steps.push({ kind: 'w', key: k, value: v }); writes.add(k); break;
        case OP_APPEND: steps.push({ kind: 'a', key: k, value: v }); writes.add(k); break;
        default: {
          const list = Array.from(h.listElems.subarray(h.listStart[v]!, h.listStart[v + 1]!));
          list.forEach((e) => saw(k, e));
          steps.push({ kind: 'rl', key: k, list });
        }
      }
    }
    progs.push({
      session: h.txnSession[t]!, status: h.txnStatus[t]!, start: h.txnStart?.[t] ?? Number.NaN, end: h.txnEnd?.[t] ?? Number.NaN,
      steps, writes, readFrom,
    });
  }
  return progs;
}

/** Runs txn t against the effects of `visible` (in commit order): does every read return the local state? */
function runs(progs: Prog[], t: number, visible: number[]): boolean {
  const state = new Map<number, number[]>();
  const apply = (p: Prog, into: Map<number, number[]>, check: boolean): boolean => {
    for (const s of p.steps) {
      const cur = into.get(s.key) ?? [];
      if (s.kind === 'w') into.set(s.key, [s.value]);
      else if (s.kind === 'a') into.set(s.key, [...cur, s.value]);
      else if (!check) continue;
      else if (s.kind === 'r') { if ((cur.length === 0 ? INITIAL_VALUE : cur[cur.length - 1]) !== s.value) return false; }
      else {
        const list = (s as Extract<Step, { kind: 'rl' }>).list;
        if (cur.length !== list.length || cur.some((x, i) => x !== list[i])) return false;
      }
    }
    return true;
  };
  for (const v of visible) apply(progs[v]!, state, false);
  return apply(progs[t]!, state, true);
}

/**
 * Registers and lists alike: the txns are run against the states visibility gives them, so no
 * writer is looked up and every read anomaly (aborted, intermediate, garbage, fractured lists)
 * is simply a read no state explains. `tcc` (PSI without NOCONFLICT, Cerone et al. 2015) is
 * decided too, only so that the boundary tests can show a history on TCC's side.
 */
export function axiomaticLevel(h: History, level: Exclude<LadderLevel, 'rr'> | 'tcc'): Verdict {
  const progs = programs(h);
  const strict = level === 'strict-si' || level === 'strict-ser';
  const unknown: number[] = [];
  progs.forEach((p, t) => { if (p.status !== TXN_COMMITTED && p.status !== TXN_ABORTED) unknown.push(t); });
  for (let mask = 0; mask < 1 << unknown.length; mask++) {
    const inWorld = progs.map((p) => p.status === TXN_COMMITTED);
    unknown.forEach((t, i) => { inWorld[t] = ((mask >> i) & 1) === 1; });
    const members = progs.map((_, t) => t).filter((t) => inWorld[t]);
    // SESSION (after earlier committed txns of the session) and, for strict levels, real time.
    const must: [number, number][] = [];
    for (const a of members) {
      for (const b of members) {
        if (a === b || progs[a]!.status !== TXN_COMMITTED) continue;
        if ((progs[a]!.session === progs[b]!.session && a < b) || (strict && progs[a]!.end < progs[b]!.start)) must.push([a, b]);
      }
    }
    for (const co of permutations(members)) {
      const holds = level === 'psi' || level === 'tcc' ? causalHolds(progs, co, must, level === 'psi') : prefixHolds(progs, level, co, must);
      if (holds) return 'valid';
    }
  }
  return 'violation';
}

const conflict = (a: Prog, b: Prog) => [...a.writes].some((k) => b.writes.has(k));

/** SER, SI, PC and strict variants: every txn sees some prefix of CO (SER: all before it). */
function prefixHolds(progs: Prog[], level: LadderLevel | 'tcc', co: number[], must: [number, number][]): boolean {
  const pos = new Map(co.map((t, i) => [t, i]));
  for (let i = 0; i < co.length; i++) {
    const t = co[i]!;
    let found = false;
    for (let p = level === 'ser' || level === 'strict-ser' ? i : 0; p <= i && !found; p++) {
      const sees = (a: number) => pos.get(a)! < p; // VIS^-1(t) = co[0 .. p-1]
      if (must.some(([a, b]) => b === t && !sees(a))) continue;
      if (level !== 'pc' && co.slice(0, i).some((a) => conflict(progs[a]!, progs[t]!) && !sees(a))) continue; // NOCONFLICT
      found = runs(progs, t, co.slice(0, p));
    }
    if (!found) return false;
  }
  return true;
}

/**
 * PSI (`noConflict`) and TCC: the least transitive VIS ⊆ CO holding SESSION, what each txn read
 * (and for PSI the CO-ordered write conflicts); more visibility only adds effects a read must
 * not see, so if this one fails every one does.
 */
function causalHolds(progs: Prog[], co: number[], must: [number, number][], noConflict: boolean): boolean {
  const m = co.length;
  const pos = new Map(co.map((t, i) => [t, i]));
  const vis = Array.from({ length: m }, () => new Array<boolean>(m).fill(false)); // by CO position
  const add = (a: number, b: number): boolean => {
    const i = pos.get(a), j = pos.get(b)!;
    if (i === undefined || i >= j) return false; // a read from outside the world, or VIS ⊄ CO
    vis[i]![j] = true;
    return true;
  };
  for (const [a, b] of must) if (!add(a, b)) return false;
  for (const t of co) for (const w of progs[t]!.readFrom) if (!add(w, t)) return false;
  if (noConflict) for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) if (conflict(progs[co[i]!]!, progs[co[j]!]!)) vis[i]![j] = true;
  for (let k = 0; k < m; k++) for (let i = 0; i < m; i++) if (vis[i]![k]) for (let j = 0; j < m; j++) if (vis[k]![j]) vis[i]![j] = true;
  for (let j = 0; j < m; j++) {
    if (!runs(progs, co[j]!, co.filter((_, i) => vis[i]![j]))) return false;
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
        for (const [k, writer] of [...rf[t]!].flatMap(([key, ws]) => ws.map((x) => [key, x] as const))) {
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
