/**
 * Brute-force oracle for the weak levels (Adya's PL-1 and PL-2 without session order, read
 * uncommitted, monotonic atomic view, read committed and its strong-session variant, read
 * atomic, transactional causal consistency) on tiny histories, straight from the axiomatic
 * definitions (Biswas & Enea, OOPSLA 2019, §3; Bailis et al., VLDB 2014; docs/levels.md). Shares
 * no code with `src/` (only the History model's types and constants).
 *
 * A history satisfies a level iff for some choice of outcome for each unknown-outcome txn and
 * some total commit order `co` of the txns taking part:
 * - every read is explained: a register read returns the final write of a txn taking part (or
 *   the initial value); a list read returns exactly the appends of the writers of its key up to
 *   one writer in `co` order (the key's version order is `co` restricted to its writers);
 *   no read contradicts its own txn (INT), returns a value nobody wrote or its own later write;
 * - `co` contains session order (committed earlier txns of the session; not for pl-1, pl-2 and
 *   mav, whose definitions have none) and, above read uncommitted, every observation (t3
 *   observed t2 iff a read of t3 returned a value t2 wrote; for a list, any element);
 * - the level's axiom: when t3 reads x from t1 and t2 ≠ t1 writes x, t2 must precede t1 in `co`
 *   if t3 observed t2 before that read (rc and mav: by an earlier read of t3; ss-rc: also by
 *   SO), directly (ra: by SO or by any read of t3), or causally (tcc: through
 *   (SO ∪ observation)+); pl-2 has no axiom (G1c only).
 * Read uncommitted (ru, and pl-1 without sessions) checks only session order and the list
 * version orders (no G0), and lets a read of an aborted or intermediate write (G1a, G1b) go
 * unexplained.
 * Enumerates 2^unknown × txns! orders: tiny histories only (`WEAK_ORACLE_TXNS_MAX`).
 */

import {
  INITIAL_VALUE, OP_APPEND, OP_READ_LIST, OP_WRITE, TXN_COMMITTED, TXN_UNKNOWN, type History,
} from '../../src/history/model.ts';

export type WeakLevel = 'pl-1' | 'ru' | 'pl-2' | 'mav' | 'rc' | 'ss-rc' | 'ra' | 'tcc';

/** Levels whose definitions have no session order. */
const SESSIONLESS: ReadonlySet<WeakLevel> = new Set(['pl-1', 'pl-2', 'mav']);
/** Levels that put no read in the commit order and let dirty reads go unexplained. */
const UNCOMMITTED: ReadonlySet<WeakLevel> = new Set(['pl-1', 'ru']);
export const WEAK_ORACLE_TXNS_MAX = 7;

interface Read {
  op: number;
  key: number;
  list: number[] | null;
  value: number;
}

interface Txn {
  id: number;
  session: number;
  status: number;
  reads: Read[];
  /** key -> values written or appended, in program order. */
  writes: Map<number, number[]>;
  intOk: boolean;
}

/**
 * Each txn's external reads, straight from program order. A register read before the txn's own
 * write of the key is external; after its own write it must return that write (else INT). A list
 * read must end with the txn's own appends so far (else INT); what precedes them is external. A
 * re-read is thus one more read with its own writer, even of the same version (Biswas & Enea's
 * axioms quantify over every read event), and each level's axiom judges it (docs/levels.md,
 * "Re-reads").
 */
function facts(h: History): Txn[] {
  const txns: Txn[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    const reads: Read[] = [];
    const writes = new Map<number, number[]>();
    const ownWrite = new Map<number, number>(); // register key -> the txn's last write
    let intOk = true;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = h.opKey[op]!, v = h.opValue[op]!, kind = h.opKind[op]!;
      if (kind === OP_WRITE || kind === OP_APPEND) {
        if (!writes.has(k)) writes.set(k, []);
        writes.get(k)!.push(v);
        if (kind === OP_WRITE) ownWrite.set(k, v);
        continue;
      }
      if (kind !== OP_READ_LIST) {
        if (ownWrite.has(k)) { if (ownWrite.get(k) !== v) intOk = false; continue; }
        reads.push({ op, key: k, list: null, value: v });
        continue;
      }
      const list = Array.from(h.listElems.subarray(h.listStart[v]!, h.listStart[v + 1]!));
      const mine = writes.get(k) ?? [];
      const tail = list.slice(list.length - mine.length);
      if (list.length < mine.length || tail.some((x, i) => x !== mine[i])) { intOk = false; continue; }
      const ext = list.slice(0, list.length - mine.length);
      reads.push({ op, key: k, list: ext, value: v });
    }
    txns.push({ id: t, session: h.txnSession[t]!, status: h.txnStatus[t]!, reads, writes, intOk });
  }
  return txns;
}

function* permutations(xs: number[]): Generator<number[]> {
  if (xs.length <= 1) { yield xs; return; }
  for (let i = 0; i < xs.length; i++) {
    for (const rest of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) yield [xs[i]!, ...rest];
  }
}

export function bruteForceWeak(h: History, level: WeakLevel): 'valid' | 'violation' {
  if (h.txnCount > WEAK_ORACLE_TXNS_MAX) throw new Error(`weak oracle: ${h.txnCount} transactions (limit ${WEAK_ORACLE_TXNS_MAX})`);
  const all = facts(h);
  const unknown = all.filter((t) => t.status === TXN_UNKNOWN).map((t) => t.id);
  for (let mask = 0; mask < 1 << unknown.length; mask++) {
    const inc = new Set(all.filter((t) => t.status === TXN_COMMITTED || unknown.some((u, i) => u === t.id && (mask >> i) & 1)).map((t) => t.id));
    if (choiceValid(all, inc, level)) return 'valid';
  }
  return 'violation';
}

/** A resolved read: the writer it read from (-1 = initial) and every txn it observed. */
interface Resolved {
  t3: number;
  read: Read;
  t1: number;
  observed: number[];
}

function choiceValid(all: Txn[], inc: Set<number>, level: WeakLevel): boolean {
  const resolved: Resolved[] = [];
  for (const t of all) {
    if (!inc.has(t.id)) continue;
    if (!t.intOk) return false;
    for (const r of t.reads) {
      const res = resolve(all, inc, t, r);
      if (res === 'garbage') return false;
      const explained = res !== 'unexplained' && res.observed.every((w) => inc.has(w)) && (res.t1 === -1 || inc.has(res.t1));
      if (!explained) {
        if (UNCOMMITTED.has(level)) continue;
        return false;
      }
      resolved.push({ t3: t.id, read: r, ...res });
    }
  }
  const txns = [...inc];
  const writesKey = (t: number, k: number) => all[t]!.writes.has(k);
  for (const co of permutations(txns)) {
    const pos = new Map(co.map((t, i) => [t, i]));
    const before = (a: number, b: number) => pos.get(a)! < pos.get(b)!;
    let ok = true;
    // Session order: a txn follows every committed earlier txn of its session.
    if (!SESSIONLESS.has(level)) for (const a of txns) for (const b of txns) {
      if (a < b && all[a]!.session === all[b]!.session && all[a]!.status === TXN_COMMITTED && !before(a, b)) ok = false;
    }
    if (!ok) continue;
    // List reads: exactly the appends of the writers up to t1, in co order.
    for (const r of resolved) {
      if (r.read.list === null) continue;
      const expect: number[] = [];
      if (r.t1 !== -1) for (const w of co) { if (writesKey(w, r.read.key)) expect.push(...all[w]!.writes.get(r.read.key)!); if (w === r.t1) break; }
      if (expect.join(',') !== r.read.list.join(',')) { ok = false; break; }
    }
    if (!ok) continue;
    if (UNCOMMITTED.has(level)) return true;
    for (const r of resolved) for (const w of r.observed) if (!before(w, r.t3)) ok = false;
    if (!ok) continue;
    const hb = level === 'tcc' ? causalPast(all, resolved, txns) : null;
    for (const r of resolved) {
      for (const t2 of txns) {
        if (t2 === r.t1 || t2 === r.t3 || !writesKey(t2, r.read.key)) continue;
        if (!premise(all, resolved, r, t2, level, hb)) continue;
        if (r.t1 === -1 || !before(t2, r.t1)) { ok = false; break; }
      }
      if (!ok) break;
    }
    if (ok) return true;
  }
  return false;
}

function soBefore(all: Txn[], a: number, b: number): boolean {
  return a < b && all[a]!.session === all[b]!.session && all[a]!.status === TXN_COMMITTED;
}

function premise(all: Txn[], resolved: Resolved[], r: Resolved, t2: number, level: WeakLevel, hb: Map<number, Set<number>> | null): boolean {
  const mine = resolved.filter((x) => x.t3 === r.t3);
  const readBefore = mine.some((x) => x.read.op < r.read.op && x.observed.includes(t2));
  switch (level) {
    case 'mav': case 'rc': return readBefore;
    case 'ss-rc': return soBefore(all, t2, r.t3) || readBefore;
    case 'ra': return soBefore(all, t2, r.t3) || mine.some((x) => x.observed.includes(t2));
    case 'tcc': return soBefore(all, t2, r.t3) || hb!.get(r.t3)!.has(t2);
    case 'pl-1': case 'ru': case 'pl-2': return false;
  }
}

/** hb⁻¹ as sets: past(t) = every txn with a path of SO and observation edges to t. */
function causalPast(all: Txn[], resolved: Resolved[], txns: number[]): Map<number, Set<number>> {
  const direct = new Map<number, Set<number>>(txns.map((t) => [t, new Set<number>()]));
  for (const a of txns) for (const b of txns) if (soBefore(all, a, b)) direct.get(b)!.add(a);
  for (const r of resolved) for (const w of r.observed) direct.get(r.t3)!.add(w);
  const past = new Map<number, Set<number>>();
  for (const t of txns) {
    const seen = new Set<number>();
    const stack = [...direct.get(t)!];
    while (stack.length > 0) { const u = stack.pop()!; if (!seen.has(u)) { seen.add(u); stack.push(...direct.get(u)!); } }
    past.set(t, seen);
  }
  return past;
}

/**
 * Who wrote what t read: the writer whose final write (register) or last element (list) it
 * returned, and everyone it observed. 'unexplained': an aborted / unknown writer's or an
 * intermediate value; 'garbage': nobody wrote it, or only the reader itself.
 */
function resolve(all: Txn[], inc: ReadonlySet<number>, t: Txn, r: Read): { t1: number; observed: number[] } | 'unexplained' | 'garbage' {
  if (r.list === null) {
    if (r.value === INITIAL_VALUE) return { t1: -1, observed: [] };
    for (const w of all) {
      const vs = w.writes.get(r.key);
      if (vs === undefined || !vs.includes(r.value)) continue;
      if (w.id === t.id) return 'garbage';
      return vs[vs.length - 1] === r.value ? { t1: w.id, observed: [w.id] } : 'unexplained';
    }
    return 'garbage';
  }
  if (r.list.length === 0) return { t1: -1, observed: [] };
  // The first defect in list order decides: an element of a txn not taking part makes the read
  // dirty (unexplained: allowed at read uncommitted); an element nobody appended, the reader's
  // own, or a repeated one makes it corrupt (garbage: no level allows it).
  const writers: number[] = [];
  const seen = new Set<number>();
  for (const x of r.list) {
    const w = all.find((u) => u.writes.get(r.key)?.includes(x));
    if (w === undefined || w.id === t.id || seen.has(x)) return 'garbage';
    if (!inc.has(w.id)) return 'unexplained';
    seen.add(x);
    writers.push(w.id);
  }
  // Each writer's elements must be contiguous and in its program order; showing only some of
  // them is an intermediate read.
  const observed: number[] = [];
  let partial = false;
  for (let i = 0; i < r.list.length;) {
    const w = writers[i]!;
    if (observed.includes(w)) return 'garbage';
    const run: number[] = [];
    while (i < r.list.length && writers[i] === w) run.push(r.list[i++]!);
    const mine = all[w]!.writes.get(r.key)!;
    // In the order the writer made them (else garbage); some of them only is an intermediate read.
    let j = 0;
    for (const x of run) { while (j < mine.length && mine[j] !== x) j++; if (j === mine.length) return 'garbage'; j++; }
    if (run.length < mine.length) partial = true;
    observed.push(w);
  }
  if (partial) return 'unexplained';
  return { t1: observed[observed.length - 1]!, observed };
}
