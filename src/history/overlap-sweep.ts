/**
 * The sweep both opportunity counters use (lost update, write skew): per key, the transactions
 * that touch it in start order, and the set of those still running when the next one starts.
 *
 * Takes: a History with times, per-transaction key lists (CSR). Gives: `byStart` (the timed
 * transactions by start), `byKey` (per key, its transactions in start order with their times),
 * `Running` (a stack of entries pruned by end time).
 * Invariant: two entries of one key are both in a sweep's view exactly when their [start, end]
 * intervals overlap, so each overlapping pair is met once, by whichever starts later.
 */

import type { History } from './model.ts';

/**
 * CSR over keys of transactions, each key's in start order: entries `at[k] .. at[k+1]-1` of
 * `txns`, with their start and end times beside them (`ts`, `te`) so that the sweep reads
 * memory in order instead of jumping through the per-transaction columns.
 */
export interface KeyLists {
  at: Int32Array; txns: Int32Array; ts: Float64Array; te: Float64Array;
  /** `entry[slot]`: the index in `keys` (the per-transaction entry) the slot came from. */
  entry: Int32Array;
}

/** Txn t's entries are `keys[first[t]] .. keys[first[t+1]-1]`; `order` the transactions to list. */
export function byKey(h: History, order: Int32Array, first: Int32Array, keys: Int32Array, keyCount: number): KeyLists {
  const at = new Int32Array(keyCount + 1);
  for (let i = 0; i < keys.length; i++) at[keys[i]! + 1]!++;
  for (let k = 0; k < keyCount; k++) at[k + 1]! += at[k]!;
  const fill = at.slice(0, keyCount), txns = new Int32Array(keys.length);
  const ts = new Float64Array(keys.length), te = new Float64Array(keys.length), entry = new Int32Array(keys.length);
  for (const t of order) {
    const s = h.txnStart![t]!, e = h.txnEnd![t]!;
    for (let i = first[t]!; i < first[t + 1]!; i++) {
      const slot = fill[keys[i]!]!++;
      txns[slot] = t; ts[slot] = s; te[slot] = e; entry[slot] = i;
    }
  }
  return { at, txns, ts, te, entry };
}

/** The entries (indices into one KeyLists) of transactions still running; a growable stack. */
export class Running {
  items = new Int32Array(64);
  n = 0;

  push(i: number): void {
    if (this.n === this.items.length) {
      const grown = new Int32Array(2 * this.n);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.n++] = i;
  }

  /** Keeps the entries that end at or after time s. */
  keepRunningAt(l: KeyLists, s: number): void {
    let j = 0;
    for (let i = 0; i < this.n; i++) if (l.te[this.items[i]!]! >= s) this.items[j++] = this.items[i]!;
    this.n = j;
  }
}

/** Does txn t have both times (a recording may lack them for some)? */
export function timed(h: History, t: number): boolean {
  return !Number.isNaN(h.txnStart![t]!) && !Number.isNaN(h.txnEnd![t]!);
}

/**
 * The transactions with both times, by start (ties by index). A recording lists transactions as
 * they end, so it is nearly in start order already (a transaction is out of place only against
 * those it overlaps): an insertion sort does it in linear time plus those inversions. A file in
 * another order (more than SHIFTS_PER_TXN_MAX shifts per transaction) is sorted by comparison.
 */
export function byStart(h: History): Int32Array {
  const start = h.txnStart!;
  const ids = new Int32Array(h.txnCount), at = new Float64Array(h.txnCount);
  let n = 0, shifts = 0;
  const shiftsMax = SHIFTS_PER_TXN_MAX * h.txnCount;
  for (let t = 0; t < h.txnCount; t++) {
    if (!timed(h, t)) continue;
    const s = start[t]!;
    let j = n++;
    for (; j > 0 && at[j - 1]! > s; j--) { ids[j] = ids[j - 1]!; at[j] = at[j - 1]!; }
    ids[j] = t;
    at[j] = s;
    shifts += n - 1 - j;
    if (shifts > shiftsMax) return Int32Array.from(timedIds(h)).sort((a, b) => start[a]! - start[b]! || a - b);
  }
  return ids.subarray(0, n);
}

/** The insertion sort's budget: beyond it the order is far from start order. */
const SHIFTS_PER_TXN_MAX = 64;

function timedIds(h: History): number[] {
  const ids: number[] = [];
  for (let t = 0; t < h.txnCount; t++) if (timed(h, t)) ids.push(t);
  return ids;
}
