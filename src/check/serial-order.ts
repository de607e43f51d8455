/**
 * A serial order, tried first on predicate histories (issue 22; docs/levels.md, "Predicates",
 * "How it is decided"): the cheapest witness there is.
 *
 * Takes: a History with relations, and an order of its transactions (`position[t]`, distinct for
 * the committed ones). Gives: `serialOrderBreaks(h, position, realTime)`, null when running the
 * committed txns one at a time in that order, from the initial state (every row absent, every
 * key at its initial value), gives each of their ops exactly what it returned, and the order
 * keeps session order (and, with `realTime`, the recorded real-time order); else the first
 * reason it does not. `completionOrder(h)` is the order the recorded completion times give.
 * `serialOrderResult` wraps the two into a `valid` CheckResult for the levels a serial order
 * proves (`validResult`); `PredicateResults` evaluates a select or count on given versions (the
 * snapshot run, snapshot-order.ts, uses it too).
 *
 * Why it is exact: such an order *is* a serial execution with the history's results, which is
 * the definition of serializability (Papadimitriou; Cerone et al.'s SER: a commit order in which
 * each txn sees all of the txns before it): every read, item or predicate, returns the latest
 * version before its txn, so a select's version set is the state it ran on and its result the
 * rows of that state matching its predicate; an insert finds its row absent. Txns of unknown
 * outcome are run as aborted (a legal outcome: validation drops them the same way when nobody
 * read them; when somebody did, a read here fails and the full check decides). SER implies every
 * level of the ladder (result/lattice.ts), and a completion order with every txn's times also
 * keeps real-time order (a txn that completed before another was invoked completed before it),
 * so then strict SER and every level are proved.
 *
 * Invariant: only ever says `valid`, and only when the order passes; anything it does not model
 * (list appends and reads, a value written twice to a key, which validation rejects) makes it
 * give up with a reason, and the caller runs the full check. Linear in the ops plus, per select
 * and count, the rows of its relation; O(n log n) for the completion order.
 */

import {
  INITIAL_VALUE, OP_APPEND, OP_COUNT, OP_DELETE, OP_INSERT, OP_READ, OP_READ_LIST, OP_SELECT, OP_WRITE, TXN_COMMITTED, type History,
} from '../history/model.ts';
import { matches, type Scalar } from '../history/predicate.ts';
import { rowKey, rowValue } from '../history/predicate-table.ts';
import { implies } from '../result/lattice.ts';
import type { CheckOptions, CheckResult } from '../result/types.ts';
import { validResultOf } from '../result/valid.ts';
import { now } from '../util/clock.ts';

/**
 * Positions of the txns by recorded completion time (ties: txn order), or null when some
 * committed txn has no invocation or completion time.
 */
export function completionOrder(h: History): Int32Array | null {
  const start = h.txnStart, end = h.txnEnd;
  if (start === undefined || end === undefined) return null;
  for (let t = 0; t < h.txnCount; t++) {
    if (h.txnStatus[t] === TXN_COMMITTED && (Number.isNaN(start[t]!) || Number.isNaN(end[t]!))) return null;
  }
  const byEnd = Array.from({ length: h.txnCount }, (_, t) => t);
  const endOf = (t: number): number => (Number.isNaN(end[t]!) ? Number.POSITIVE_INFINITY : end[t]!);
  byEnd.sort((a, b) => endOf(a) - endOf(b) || a - b);
  const position = new Int32Array(h.txnCount);
  byEnd.forEach((t, i) => { position[t] = i; });
  return position;
}

/**
 * Null when the committed txns of `h`, run one at a time in the order of `position` from the
 * initial state, return what the history says they returned, in an order that keeps session
 * order (and real-time order when `realTime`); else why not (see the module comment).
 */
export function serialOrderBreaks(h: History, position: Int32Array, realTime: boolean): string | null {
  const order: number[] = [];
  for (let t = 0; t < h.txnCount; t++) if (h.txnStatus[t] === TXN_COMMITTED) order.push(t);
  order.sort((a, b) => position[a]! - position[b]!);
  const why = sessionOrderBreak(h, position) ?? (realTime ? realTimeBreak(h, order) : null) ?? uniqueWritesBreak(h);
  return why ?? run(h, order);
}

/** The first committed txn of a session placed before an earlier committed txn of it, as a reason. */
function sessionOrderBreak(h: History, position: Int32Array): string | null {
  for (let s = 0; s < h.sessionCount; s++) {
    let last = -1;
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      if (h.txnStatus[t] !== TXN_COMMITTED) continue;
      if (last >= 0 && position[t]! <= position[last]!) return `it puts a txn of session ${h.sessionLabels[s]} before an earlier one of it`;
      last = t;
    }
  }
  return null;
}

/** A txn invoked after a txn placed later in `order` had completed, as a reason (a suffix minimum of completions). */
function realTimeBreak(h: History, order: readonly number[]): string | null {
  const start = h.txnStart, end = h.txnEnd;
  if (start === undefined || end === undefined) return 'no recorded times';
  let minEnd = Number.POSITIVE_INFINITY;
  for (let i = order.length - 1; i >= 0; i--) {
    const t = order[i]!;
    if (Number.isNaN(start[t]!) || Number.isNaN(end[t]!)) return 'a txn has no recorded time';
    if (minEnd < start[t]!) return 'it puts a txn before one that completed before it was invoked';
    minEnd = Math.min(minEnd, end[t]!);
  }
  return null;
}

/** Validation rejects a value written twice to one key (or the initial value written): left to it. */
export function uniqueWritesBreak(h: History): string | null {
  const seen = new Set<number>();
  for (let op = 0; op < h.opCount; op++) {
    const kind = h.opKind[op]!;
    if (kind === OP_APPEND || kind === OP_READ_LIST) return 'list operations are not run here';
    if (kind !== OP_WRITE && kind !== OP_INSERT) continue;
    const v = h.opValue[op]!;
    const kv = h.opKey[op]! * h.valueCount + v;
    if (v === INITIAL_VALUE || seen.has(kv)) return 'a value is written twice to a key';
    seen.add(kv);
  }
  return null;
}

/** Runs the txns of `order` one at a time (see serialOrderBreaks); the first op that returned something else, as a reason. */
function run(h: History, order: readonly number[]): string | null {
  // state[k]: the value id of key k's latest version (INITIAL_VALUE: the initial state, an absent row).
  const state = new Int32Array(h.keyLabels.length);
  const seen = (k: number): number => state[k]!;
  const results = new PredicateResults(h);
  for (const t of order) {
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = h.opKey[op]!, v = h.opValue[op]!;
      switch (h.opKind[op]) {
        case OP_READ:
          if (state[k] !== v) return `a read of key ${h.keyLabels[k]} returns something else there`;
          break;
        case OP_INSERT:
          if (state[k] !== INITIAL_VALUE) return `an insert of row ${h.keyLabels[k]} finds it present there`;
          state[k] = v;
          break;
        case OP_WRITE:
          state[k] = v;
          break;
        case OP_DELETE:
          state[k] = INITIAL_VALUE;
          break;
        case OP_SELECT: case OP_COUNT: {
          const why = results.breaks(op, seen);
          if (why !== null) return `${why} there`;
          break;
        }
        default:
          return 'list operations are not run here';
      }
    }
  }
  return null;
}

/**
 * Whether a select or count returned exactly what the versions it is given of its relation's
 * rows say: a select the present rows matching its predicate, with their values; a count their
 * number. Holds the scalars the predicate language evaluates (made once per key and value) and a
 * stamp per row for a select's result. Shared by the serial and the snapshot runs.
 */
export class PredicateResults {
  private readonly keyScalar: (Scalar | undefined)[];
  private readonly valueScalar: (Scalar | null | undefined)[];
  /** `retStamp[k] === op` while row k is in select op's result, with value `retValue[k]`. */
  private readonly retStamp: Int32Array;
  private readonly retValue: Int32Array;

  constructor(private readonly h: History) {
    this.keyScalar = new Array(h.keyLabels.length);
    this.valueScalar = new Array(h.valueCount);
    this.retStamp = new Int32Array(h.keyLabels.length).fill(-1);
    this.retValue = new Int32Array(h.keyLabels.length);
  }

  /** Null when select or count `op` returned what `seen(row)` (a value id, INITIAL_VALUE: absent) gives; else why not. */
  breaks(op: number, seen: (k: number) => number): string | null {
    const h = this.h, pt = h.predicates;
    if (pt === undefined) return 'a predicate read without relations';
    const r = h.opKey[op]!, select = h.opKind[op] === OP_SELECT;
    const returned = this.prepare(op);
    let matching = 0;
    for (let j = pt.relStart[r]!; j < pt.relStart[r + 1]!; j++) {
      const rk = pt.relKeys[j]!, sv = seen(rk);
      if (this.matches(op, rk, sv)) matching++;
      if (select && !this.accepts(op, rk, sv)) return `a select's result differs from its predicate on row ${h.keyLabels[rk]}`;
    }
    return matching !== (select ? returned : pt.count[h.opValue[op]!]) ? 'a predicate read returns something else' : null;
  }

  /**
   * Stamps select `op`'s returned rows (for `accepts`) and gives how many rows it returned (a
   * count: 0). Call before `accepts` for that op; the history must have relations.
   */
  prepare(op: number): number {
    const pt = this.h.predicates!, p = this.h.opValue[op]!;
    if (this.h.opKind[op] !== OP_SELECT) return 0;
    for (let i = pt.resultStart[p]!; i < pt.resultStart[p + 1]!; i++) { this.retStamp[pt.resultKeys[i]!] = op; this.retValue[pt.resultKeys[i]!] = pt.resultValues[i]!; }
    return pt.resultStart[p + 1]! - pt.resultStart[p]!;
  }

  /** Whether row `rk` in version `sv` (INITIAL_VALUE: absent) matches predicate read `op`'s predicate. */
  matches(op: number, rk: number, sv: number): boolean {
    return sv !== INITIAL_VALUE && matches(this.h.predicates!.parsed[this.h.opValue[op]!]!, this.keyOf(rk), this.valueOf(sv));
  }

  /**
   * Whether select `op` (prepared) is right about row `rk` if it saw version `sv`: a returned row
   * only in the version it was returned with (which must match), a row not returned only in a
   * version that does not match (absent, or a non-matching value).
   */
  accepts(op: number, rk: number, sv: number): boolean {
    return this.acceptsMatch(op, rk, sv, this.matches(op, rk, sv));
  }

  /** `accepts`, given `m` = whether version `sv` matches (`matches(op, rk, sv)`). */
  acceptsMatch(op: number, rk: number, sv: number, m: boolean): boolean {
    return this.retStamp[rk] === op ? m && sv === this.retValue[rk] : !m;
  }

  private keyOf(k: number): Scalar {
    return (this.keyScalar[k] ??= rowKey(this.h, k));
  }

  private valueOf(v: number): Scalar | null {
    if (v === INITIAL_VALUE) return null;
    let s = this.valueScalar[v];
    if (s === undefined) s = this.valueScalar[v] = rowValue(this.h, v);
    return s;
  }
}

/**
 * The recorded completion order as a serial execution of `h` (serialOrderBreaks), for
 * `opts.level`: a valid result when it is one and SER (strict SER, when every committed txn has
 * times and the order keeps real time) implies the level; else null, and the caller checks in
 * full. Recorded times are how a serial execution shows itself: a database that ran the txns
 * one at a time (or serializably, committing in serial order) records exactly this order.
 */
export function serialOrderResult(h: History, opts: CheckOptions, parseMs: number): CheckResult | null {
  const t0 = now();
  const strict = opts.level === 'strict-ser' || opts.level === 'strict-si';
  if (!implies(strict ? 'strict-ser' : 'ser', opts.level)) return null;
  const position = completionOrder(h);
  if (position === null || serialOrderBreaks(h, position, strict) !== null) return null;
  return validResult(h, opts, parseMs, now() - t0,
    `the committed transactions, run one at a time in the order of their recorded completion times, return what the history says: ` +
    `a serial execution${strict ? ' that keeps real-time order' : ''}, which satisfies every level (docs/levels.md, "Predicates")`);
}

/** A `valid` result decided by a recorded order (this module, snapshot-order.ts), with `note` saying which. */
export function validResult(h: History, opts: CheckOptions, parseMs: number, ms: number, note: string): CheckResult {
  let checked = 0;
  for (let t = 0; t < h.txnCount; t++) if (h.txnStatus[t] === TXN_COMMITTED) checked++;
  return validResultOf(h, opts, 'recorded-order', checked, { parse: parseMs, validate: ms, construct: 0, prune: 0, solve: 0 }, [note]);
}
