/**
 * Snapshot windows at the recorded times, tried on predicate histories after the serial order
 * (issue 22; docs/levels.md, "Predicates", "How it is decided"): the cheapest witness of SI.
 *
 * Takes: a History with relations and recorded times. Gives: `snapshotWindows(h)`, which looks
 * for Cerone, Bernardi and Gotsman's SI axioms (CONCUR 2015) under the commit order CO = order
 * of completion and, per committed txn T, a visibility VIS(T) = the first p(T) txns of CO, with
 * p(T) in T's **window**: lo(T) <= p(T) <= idx(T), where lo(T) is the number of txns that
 * completed before T was invoked and idx(T) is T's own place in CO. A database takes T's
 * snapshot somewhere between T's invocation and its commit (PostgreSQL and the embedded store at
 * its first statement), so a txn that committed in between may be in it; fixing p(T) = lo(T)
 * (what this module did before) rejected every such history. `snapshotOrderBreaks(h)` is null
 * when every committed txn has a p(T) meeting the axioms, else the first reason one has none;
 * `snapshotOrderResult` wraps it into a `valid` CheckResult. The windows also give step 2's
 * time order its reader positions (check/predicates.ts) and check/window-serial.ts a proposed
 * serial order (`latest`: a txn's own place in CO where its reads hold there too).
 *
 * Given CO, the axioms are per txn: SESSION (the previous committed txn of T's session is in
 * VIS(T)) and NOCONFLICT (the previous CO writer of every key T writes is in VIS(T)) bound p
 * from below; INT and EXT (each read, select and count returns what T's own earlier writes and,
 * for the rest, the state of the first p txns of CO give; a select exactly the present rows
 * matching its predicate) hold on a union of intervals of p per observation; an insert's row
 * must be absent in the state of all of CO before T (the version order; docs/levels.md,
 * "Predicates", "Insert of a present row"), whatever p is; PREFIX holds by construction. The
 * search starts at the greatest lower bound and, while some observation fails at p, moves p to
 * the least position past p where that observation holds (the next version of its row that it
 * accepts; for a count, the next change of any row of its relation): every solution >= p is
 * >= that, so the first p at which everything holds is the least solution, and when a failing
 * observation has no later position below idx(T), T has no window (complete for the fixed CO).
 *
 * What it proves: such a CO and VIS make the history SI; and since every txn that completed
 * before T was invoked is in VIS(T) (p >= lo) and CO extends real-time order (a completion
 * order does), strict SI (Daudjee & Salem's strong SI, "a is in b's snapshot when a completed
 * before b was invoked", as the axiomatic oracle checks it: RT within VIS), whatever p is in
 * the window. So every level strict SI implies (result/lattice.ts), as before.
 *
 * Invariant: as serial-order.ts: only ever says `valid`; txns of unknown outcome are run as
 * aborted; what it does not model (list ops, values written twice to a key) makes it give up.
 * Cost: O(n log n + ops + reads x log(writers of the key) + selects x rows x log(writers of a
 * row)) per position tried; a txn tries at most ROUNDS_MAX positions, and its scans stop at
 * idx(T), so they cover only the versions committed while T ran.
 */

import {
  INITIAL_VALUE, OP_COUNT, OP_DELETE, OP_INSERT, OP_READ, OP_SELECT, OP_WRITE, TXN_COMMITTED, txnLabel, type History,
} from '../history/model.ts';
import { implies } from '../result/lattice.ts';
import type { CheckOptions, CheckResult } from '../result/types.ts';
import { now } from '../util/clock.ts';
import { completionOrder, PredicateResults, uniqueWritesBreak, validResult } from './serial-order.ts';

/** Positions tried per txn before giving up on it (each costs a pass over its ops and selects' rows). */
export const ROUNDS_MAX = 64;

/** What the window search found (snapshotWindows). */
export interface SnapshotWindows {
  /** The committed txns in CO (completion) order. */
  order: number[];
  /** `idx[t]`: t's place in CO (-1: not committed). */
  idx: Int32Array;
  /** `lo[t]`: how many txns of CO completed before t was invoked (the least snapshot real time allows). */
  lo: Int32Array;
  /** `snap[t]`: the length of VIS(t) found; where t has none, the last position tried (a guess, for picking versions). */
  snap: Int32Array;
  /** `latest[t]`: idx[t] when t's ops return what they did at its own place in CO, else snap[t] (for window-serial.ts). */
  latest: Int32Array;
  /** Null when every committed txn has a window position meeting the axioms; else the first reason one has none. */
  why: string | null;
  /** Committed txns whose snapshot is later than their invocation (snap > lo). */
  late: number;
  /** The committed txns' final versions per key, in CO order. */
  versions: Versions;
}

/** Null when the recorded times give a CO and snapshot windows that satisfy SI's axioms (module comment); else why not. */
export function snapshotOrderBreaks(h: History): string | null {
  const w = snapshotWindows(h);
  return typeof w === 'string' ? w : w.why;
}

/**
 * Results of snapshotWindows by history (a History is immutable): --levels and step 2 ask for the
 * same history's windows several times.
 */
const MEMO = new WeakMap<History, SnapshotWindows | string>();

/** The window search of the module comment, or a reason when it cannot start (no times, what it does not model). */
export function snapshotWindows(h: History): SnapshotWindows | string {
  let w = MEMO.get(h);
  if (w === undefined) MEMO.set(h, w = searchWindows(h));
  return w;
}

function searchWindows(h: History): SnapshotWindows | string {
  const position = completionOrder(h);
  if (position === null) return 'no recorded times';
  const start = h.txnStart!, end = h.txnEnd!;
  const order: number[] = [];
  for (let t = 0; t < h.txnCount; t++) if (h.txnStatus[t] === TXN_COMMITTED) order.push(t);
  order.sort((a, b) => position[a]! - position[b]!);
  const idx = new Int32Array(h.txnCount).fill(-1), lo = new Int32Array(h.txnCount);
  const ends = order.map((t) => end[t]!);
  order.forEach((t, i) => { idx[t] = i; });
  for (const t of order) {
    if (!(start[t]! <= end[t]!)) return 'a txn completed before it was invoked';
    let a = 0, b = ends.length;
    while (a < b) { const mid = (a + b) >> 1; if (ends[mid]! < start[t]!) a = mid + 1; else b = mid; }
    lo[t] = a;
  }
  const unmodelled = uniqueWritesBreak(h);
  if (unmodelled !== null) return unmodelled;
  const versions = finalVersions(h, order, idx);
  const least = lowerBounds(h, versions, idx, lo);
  const search = new WindowSearch(h, versions, idx);
  const snap = new Int32Array(h.txnCount);
  let why: string | null = null, late = 0;
  // latest[t]: t's own place in CO when its reads hold there too (a snapshot taken at its
  // commit), else snap[t]: the position fewest txns committed after, for a serial order.
  const latest = new Int32Array(h.txnCount);
  for (const t of order) {
    const found = search.window(t, least[t]!);
    snap[t] = found.p;
    latest[t] = found.why === null && found.p < idx[t]! && search.holds(t, idx[t]!) ? idx[t]! : found.p;
    if (found.why !== null) why ??= `${txnLabel(h, t)} has no snapshot between its invocation and its commit: ${found.why}`;
    else if (found.p > lo[t]!) late++;
  }
  return { order, idx, lo, snap, latest, why, late, versions };
}

/**
 * Per key, the committed txns' final versions in CO order: `txn`, `value` (INITIAL_VALUE for a
 * delete) and `at` (the writer's place in CO), CSR by key.
 */
export interface Versions { start: Int32Array; txn: Int32Array; value: Int32Array; at: Int32Array }

/** Index (in key k's range of `v`) of the latest version among the first n txns of CO; v.start[k] - 1 for the initial one. */
export function versionAt(v: Versions, k: number, n: number): number {
  let a = v.start[k]!, b = v.start[k + 1]!;
  while (a < b) { const mid = (a + b) >> 1; if (v.at[mid]! < n) a = mid + 1; else b = mid; }
  return a - 1;
}

function finalVersions(h: History, order: readonly number[], idx: Int32Array): Versions {
  const nKeys = h.keyLabels.length;
  const stamp = new Int32Array(nKeys).fill(-1), last = new Int32Array(nKeys);
  const keys: number[] = [], txns: number[] = [], values: number[] = [];
  for (const t of order) {
    const touched: number[] = [];
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const kind = h.opKind[op]!, k = h.opKey[op]!;
      if (kind !== OP_WRITE && kind !== OP_INSERT && kind !== OP_DELETE) continue;
      if (stamp[k] !== t) { stamp[k] = t; touched.push(k); }
      last[k] = kind === OP_DELETE ? INITIAL_VALUE : h.opValue[op]!;
    }
    for (const k of touched) { keys.push(k); txns.push(t); values.push(last[k]!); }
  }
  // By key, stable (CO order kept within a key).
  const start = new Int32Array(nKeys + 1);
  for (const k of keys) start[k + 1]!++;
  for (let k = 0; k < nKeys; k++) start[k + 1]! += start[k]!;
  const fill = start.slice(0, nKeys), txn = new Int32Array(keys.length), value = new Int32Array(keys.length), at = new Int32Array(keys.length);
  keys.forEach((k, i) => { const j = fill[k]!++; txn[j] = txns[i]!; value[j] = values[i]!; at[j] = idx[txns[i]!]!; });
  return { start, txn, value, at };
}

/** Per txn, the least p that real time, SESSION and NOCONFLICT allow (module comment). */
function lowerBounds(h: History, versions: Versions, idx: Int32Array, lo: Int32Array): Int32Array {
  const least = lo.slice();
  for (let s = 0; s < h.sessionCount; s++) {
    let last = -1;
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      if (h.txnStatus[t] !== TXN_COMMITTED) continue;
      if (last >= 0) least[t] = Math.max(least[t]!, idx[last]! + 1);
      last = t;
    }
  }
  for (let k = 0; k + 1 < versions.start.length; k++) {
    for (let i = versions.start[k]! + 1; i < versions.start[k + 1]!; i++) {
      const t = versions.txn[i]!;
      least[t] = Math.max(least[t]!, versions.at[i - 1]! + 1);
    }
  }
  return least;
}

/** Looks for each txn's least window position (module comment); one instance per history. */
class WindowSearch {
  private readonly results: PredicateResults;
  /** The txn's own latest write of each key, valid while `ownStamp[k] === this.pass`. */
  private readonly ownStamp: Int32Array;
  private readonly ownValue: Int32Array;
  private pass = 0;

  constructor(private readonly h: History, private readonly v: Versions, private readonly idx: Int32Array) {
    this.results = new PredicateResults(h);
    this.ownStamp = new Int32Array(h.keyLabels.length).fill(-1);
    this.ownValue = new Int32Array(h.keyLabels.length);
  }

  /** The least p in [least, idx(t)] at which t's ops return what they did, or the last p tried and why there is none. */
  window(t: number, least: number): { p: number; why: string | null } {
    const top = this.idx[t]!;
    let p = least;
    for (let round = 0; round < ROUNDS_MAX; round++) {
      if (p > top) return { p: top, why: 'the txns its session or its writes must see had not all completed before it did' };
      const need = this.demand(t, p, top);
      if (typeof need === 'string') return { p, why: need };
      if (need === 0) return { p, why: null };
      p = need;
    }
    return { p, why: `no position among the first ${ROUNDS_MAX} tried` };
  }

  /** Whether t's ops return what they did on the snapshot of the first p txns of CO. */
  holds(t: number, p: number): boolean {
    return this.demand(t, p, p) === 0;
  }

  /** Index (in key k's CSR range) of the latest version among the first n txns of CO; start - 1 for the initial one. */
  private versionAt(k: number, n: number): number {
    return versionAt(this.v, k, n);
  }

  private valueOf(k: number, i: number): number {
    return i < this.v.start[k]! ? INITIAL_VALUE : this.v.value[i]!;
  }

  /**
   * For an observation of key k that accepts a version by `accepts`: 0 when the version at p
   * does, else the least later position (<= top) whose version does, else -1.
   */
  private observe(k: number, p: number, top: number, accepts: (value: number) => boolean): number {
    const i = this.versionAt(k, p);
    return accepts(this.valueOf(k, i)) ? 0 : this.later(k, i, top, accepts);
  }

  /** The least position past version i of key k (and <= top) whose version `accepts` takes, or -1. */
  private later(k: number, i: number, top: number, accepts: (value: number) => boolean): number {
    const v = this.v;
    for (i++; i < v.start[k + 1]! && v.at[i]! < top; i++) if (accepts(v.value[i]!)) return v.at[i]! + 1;
    return -1;
  }

  /**
   * Runs t's ops on the snapshot of the first p txns of CO: 0 when all return what they did; a
   * position > p that every solution reaches; or why no position from p to top can do.
   */
  private demand(t: number, p: number, top: number): number | string {
    const h = this.h, pass = ++this.pass, own = this.ownStamp, ownValue = this.ownValue;
    let need = 0;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = h.opKey[op]!, value = h.opValue[op]!;
      switch (h.opKind[op]) {
        case OP_READ: {
          if (own[k] === pass) {
            if (ownValue[k] !== value) return `its read of key ${h.keyLabels[k]} differs from its own earlier write`;
            break;
          }
          const at = this.observe(k, p, top, (x) => x === value);
          if (at < 0) return `its read of key ${h.keyLabels[k]} returns a version no such snapshot holds`;
          need = Math.max(need, at);
          break;
        }
        case OP_INSERT: {
          const before = own[k] === pass ? ownValue[k]! : this.valueOf(k, this.versionAt(k, top));
          if (before !== INITIAL_VALUE) return `its insert of row ${h.keyLabels[k]} follows a present version`;
          own[k] = pass; ownValue[k] = value;
          break;
        }
        case OP_WRITE:
          own[k] = pass; ownValue[k] = value;
          break;
        case OP_DELETE:
          own[k] = pass; ownValue[k] = INITIAL_VALUE;
          break;
        case OP_SELECT: case OP_COUNT: {
          const at = this.predicateRead(op, p, top, pass);
          if (typeof at === 'string') return at;
          need = Math.max(need, at);
          break;
        }
        default:
          return 'list operations are not run here';
      }
    }
    return need;
  }

  /** `demand` for one select or count (rows the txn wrote itself are read from its own writes). */
  private predicateRead(op: number, p: number, top: number, pass: number): number | string {
    const h = this.h, pt = h.predicates;
    if (pt === undefined) return 'a predicate read without relations';
    const res = this.results, own = this.ownStamp, ownValue = this.ownValue;
    const r = h.opKey[op]!, select = h.opKind[op] === OP_SELECT;
    const returned = res.prepare(op);
    let matching = 0, need = 0, nextChange = Number.POSITIVE_INFINITY;
    for (let j = pt.relStart[r]!; j < pt.relStart[r + 1]!; j++) {
      const rk = pt.relKeys[j]!;
      if (own[rk] === pass) {
        if (res.matches(op, rk, ownValue[rk]!)) matching++;
        if (select && !res.accepts(op, rk, ownValue[rk]!)) return `its select differs on row ${h.keyLabels[rk]} from its own earlier write`;
        continue;
      }
      const i = this.versionAt(rk, p), sv = this.valueOf(rk, i), m = res.matches(op, rk, sv);
      if (m) matching++;
      if (i + 1 < this.v.start[rk + 1]! && this.v.at[i + 1]! < top) nextChange = Math.min(nextChange, this.v.at[i + 1]! + 1);
      if (!select || res.acceptsMatch(op, rk, sv, m)) continue;
      const at = this.later(rk, i, top, (x) => res.accepts(op, rk, x));
      if (at < 0) return `its select's result on row ${h.keyLabels[rk]} is in no such snapshot`;
      need = Math.max(need, at);
    }
    if (select) return need === 0 && matching !== returned ? 'its select returns a row outside its relation' : need;
    if (matching === pt.count[h.opValue[op]!]) return 0;
    return nextChange === Number.POSITIVE_INFINITY ? 'its count is the number of matching rows in no such snapshot' : nextChange;
  }
}

/** A valid result for `opts.level` when strict SI implies it and the recorded snapshot windows satisfy SI's axioms; else null. */
export function snapshotOrderResult(h: History, opts: CheckOptions, parseMs: number): CheckResult | null {
  const t0 = now();
  if (!implies('strict-si', opts.level)) return null;
  const w = snapshotWindows(h);
  if (typeof w === 'string' || w.why !== null) return null;
  return validResult(h, opts, parseMs, now() - t0,
    'the committed transactions, committing in order of completion, each reading the state of a prefix of that order that holds ' +
    'every transaction completed before it was invoked and none after it completed, return what the history says, and none writes ' +
    `a key whose previous writer it did not see: snapshot isolation with real-time order (${w.late} of ${w.order.length} read a ` +
    'snapshot taken after their invocation; docs/levels.md, "Predicates")');
}
