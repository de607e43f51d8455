/**
 * Snapshots at the recorded times, tried on predicate histories after the serial order (issue
 * 22; docs/levels.md, "Predicates", "How it is decided"): the cheapest witness of SI.
 *
 * Takes: a History with relations and recorded times. Gives: `snapshotOrderBreaks(h)`, null
 * when the committed txns satisfy Cerone, Bernardi and Gotsman's SI axioms (CONCUR 2015) under
 * the commit order CO = order of completion and the visibility VIS(T) = the txns that completed
 * before T was invoked; else the first reason they do not. Checked: VIS(T) is a prefix of CO
 * that T does not belong to (by construction, given start <= end); SESSION (an earlier
 * committed txn of T's session is in VIS(T)); NOCONFLICT (of two txns writing a key, the one
 * first in CO is visible to the other); INT and EXT (each read, select and count returns what T's
 * own earlier writes and, for the rest, the latest version in CO among VIS(T) give: a select
 * exactly the present rows matching its predicate); an insert's row absent in the state of all
 * of CO before T (the version order; docs/levels.md, "Predicates", "Insert of a present row").
 * Such a CO and VIS make the history SI, and, since every txn that completed before T was
 * invoked is in VIS(T), strict SI (Daudjee & Salem's strong SI): every level strict SI implies
 * (result/lattice.ts). `snapshotOrderResult` wraps it into a `valid` CheckResult for them.
 *
 * Invariant: as serial-order.ts: only ever says `valid`; txns of unknown outcome are run as
 * aborted; what it does not model (list ops, values written twice to a key) makes it give up.
 * O(n log n + ops + reads x log(writers of the key) + selects x rows x log(writers of a row)).
 */

import {
  INITIAL_VALUE, OP_COUNT, OP_DELETE, OP_INSERT, OP_READ, OP_SELECT, OP_WRITE, TXN_COMMITTED, type History,
} from '../history/model.ts';
import { implies } from '../result/lattice.ts';
import type { CheckOptions, CheckResult } from '../result/types.ts';
import { now } from '../util/clock.ts';
import { completionOrder, PredicateResults, uniqueWritesBreak, validResult } from './serial-order.ts';

/** Null when the recorded times give a CO and VIS that satisfy SI's axioms (module comment); else why not. */
export function snapshotOrderBreaks(h: History): string | null {
  const position = completionOrder(h);
  if (position === null) return 'no recorded times';
  const start = h.txnStart!, end = h.txnEnd!;
  const order: number[] = [];
  for (let t = 0; t < h.txnCount; t++) if (h.txnStatus[t] === TXN_COMMITTED) order.push(t);
  order.sort((a, b) => position[a]! - position[b]!);
  // idx[t]: t's place in CO; vis[t]: how many txns of CO are in VIS(t) (those completed before t was invoked).
  const idx = new Int32Array(h.txnCount).fill(-1), vis = new Int32Array(h.txnCount);
  const ends = order.map((t) => end[t]!);
  order.forEach((t, i) => { idx[t] = i; });
  for (const t of order) {
    if (!(start[t]! <= end[t]!)) return 'a txn completed before it was invoked';
    let lo = 0, hi = ends.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (ends[mid]! < start[t]!) lo = mid + 1; else hi = mid; }
    vis[t] = lo;
  }
  const why = uniqueWritesBreak(h) ?? sessionBreak(h, idx, vis);
  if (why !== null) return why;
  const versions = finalVersions(h, order);
  return noConflictBreak(h, versions, idx, vis) ?? run(h, order, idx, vis, versions);
}

/** An earlier committed txn of a session not visible to a later one, as a reason. */
function sessionBreak(h: History, idx: Int32Array, vis: Int32Array): string | null {
  for (let s = 0; s < h.sessionCount; s++) {
    let last = -1;
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      if (h.txnStatus[t] !== TXN_COMMITTED) continue;
      if (last >= 0 && idx[last]! >= vis[t]!) return `a txn of session ${h.sessionLabels[s]} was invoked before the one before it completed`;
      last = t;
    }
  }
  return null;
}

/** Per key, the committed txns' final versions in CO order: `txn` and `value` (INITIAL_VALUE for a delete), CSR by key. */
interface Versions { start: Int32Array; txn: Int32Array; value: Int32Array }

function finalVersions(h: History, order: readonly number[]): Versions {
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
  const fill = start.slice(0, nKeys), txn = new Int32Array(keys.length), value = new Int32Array(keys.length);
  keys.forEach((k, i) => { const at = fill[k]!++; txn[at] = txns[i]!; value[at] = values[i]!; });
  return { start, txn, value };
}

/** Two consecutive writers of a key (in CO) of which the first is not visible to the second, as a reason. */
function noConflictBreak(h: History, versions: Versions, idx: Int32Array, vis: Int32Array): string | null {
  for (let k = 0; k + 1 < versions.start.length; k++) {
    for (let i = versions.start[k]! + 1; i < versions.start[k + 1]!; i++) {
      if (idx[versions.txn[i - 1]!]! >= vis[versions.txn[i]!]!) return `two concurrent txns write key ${h.keyLabels[k]}`;
    }
  }
  return null;
}

/** Key k's value in the state of the first `n` txns of CO. */
function valueAt(versions: Versions, idx: Int32Array, k: number, n: number): number {
  let lo = versions.start[k]!, hi = versions.start[k + 1]!;
  const first = lo;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (idx[versions.txn[mid]!]! < n) lo = mid + 1; else hi = mid; }
  return lo === first ? INITIAL_VALUE : versions.value[lo - 1]!;
}

/** INT, EXT and the inserts' precondition, txn by txn (module comment); the first op that breaks them, as a reason. */
function run(h: History, order: readonly number[], idx: Int32Array, vis: Int32Array, versions: Versions): string | null {
  const nKeys = h.keyLabels.length;
  const results = new PredicateResults(h);
  // The txn's own latest write of each key (valid while ownStamp[k] === t).
  const ownStamp = new Int32Array(nKeys).fill(-1), ownValue = new Int32Array(nKeys);
  for (const t of order) {
    const seen = (k: number): number => (ownStamp[k] === t ? ownValue[k]! : valueAt(versions, idx, k, vis[t]!));
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = h.opKey[op]!, v = h.opValue[op]!;
      switch (h.opKind[op]) {
        case OP_READ:
          if (seen(k) !== v) return `a read of key ${h.keyLabels[k]} returns something else in its snapshot`;
          break;
        case OP_INSERT:
          if ((ownStamp[k] === t ? ownValue[k]! : valueAt(versions, idx, k, idx[t]!)) !== INITIAL_VALUE) return `an insert of row ${h.keyLabels[k]} follows a present version`;
          ownStamp[k] = t; ownValue[k] = v;
          break;
        case OP_WRITE:
          ownStamp[k] = t; ownValue[k] = v;
          break;
        case OP_DELETE:
          ownStamp[k] = t; ownValue[k] = INITIAL_VALUE;
          break;
        case OP_SELECT: case OP_COUNT: {
          const why = results.breaks(op, seen);
          if (why !== null) return `${why} in its snapshot`;
          break;
        }
        default:
          return 'list operations are not run here';
      }
    }
  }
  return null;
}

/** A valid result for `opts.level` when strict SI implies it and the recorded snapshots satisfy SI's axioms; else null. */
export function snapshotOrderResult(h: History, opts: CheckOptions, parseMs: number): CheckResult | null {
  const t0 = now();
  if (!implies('strict-si', opts.level) || snapshotOrderBreaks(h) !== null) return null;
  return validResult(h, opts, parseMs, now() - t0,
    'the committed transactions, each reading the state of those that completed before it was invoked and committing in order of ' +
    'completion, return what the history says, and no two concurrent ones write a common key: snapshot isolation with real-time order ' +
    '(docs/levels.md, "Predicates")');
}
