/**
 * Opportunities for a lost update in a recorded history: how often two read-modify-writes of one
 * key ran at the same time, and what the database made of it (issue 21: a run without a lost
 * update proves little unless the anomaly had its chances).
 *
 * Takes: a History with transaction times (`txnStart` / `txnEnd`; JSON Lines recordings of
 * `polysi run` have them). Gives: `LostUpdateOpportunities`, or null without times.
 * Definitions. A read-modify-write of key k: a transaction whose first operation on k is a read
 * and that writes (or appends to) k later (Berenson et al.'s P4 needs both). An opportunity: two
 * read-modify-writes of the same key by transactions whose [start, end] intervals overlap, each
 * pair of transactions counted once per key. Its outcome, from the recorded values and statuses:
 * - `allowed`: both committed, and both read the same version (the same register value, or a
 *   list of the same length): a lost update happened;
 * - `blocked`: both committed, and the one that ended later read the other's write (its read
 *   waited for the other's commit, e.g. on a row lock, though it started before that commit);
 * - `aborted`: at least one aborted (`abortCodes` counts the aborted transactions' error codes,
 *   'none' when none was recorded; a transaction is counted once per pair it takes part in);
 * - `unknown`: neither aborted, at least one of unknown outcome;
 * - `other`: both committed, neither of the above (e.g. read committed re-read a newer version).
 * Invariant: pairs = allowed + blocked + aborted + unknown + other. A pure function of the History.
 * Cost: per key, a sweep over its read-modify-writes sorted by start: linear in them plus the
 * pairs found (at most the number of sessions per transaction).
 */

import { OP_APPEND, OP_READ, OP_READ_LIST, OP_WRITE, type History } from './model.ts';
import { emptyOpportunities, tallyFailed, type PairOpportunities } from './opportunity-outcome.ts';
import { writeSkewOpportunities } from './write-skew-opportunities.ts';

export type LostUpdateOpportunities = PairOpportunities;
export type { PairOpportunities } from './opportunity-outcome.ts';
export { writeSkewOpportunities, type WriteSkewOpportunities } from './write-skew-opportunities.ts';

/** Every kind of opportunity the recording shows (null each without transaction times). */
export interface Opportunities {
  lostUpdate: LostUpdateOpportunities | null;
  writeSkew: PairOpportunities | null;
}

export function historyOpportunities(h: History): Opportunities {
  return { lostUpdate: lostUpdateOpportunities(h), writeSkew: writeSkewOpportunities(h) };
}

/** One read-modify-write: its txn, what its first read of the key returned, what it wrote last. */
interface Rmw {
  txn: number;
  /** Register: the value id read; list: the length of the list read. */
  readVersion: number;
  readOp: number;
  /** Register: the value id of its last write; list: the element of its last append. */
  wrote: number;
}

export function lostUpdateOpportunities(h: History): LostUpdateOpportunities | null {
  const start = h.txnStart, end = h.txnEnd;
  if (start === undefined || end === undefined) return null;
  const byKey = new Map<number, Rmw[]>();
  const firstOp = new Map<number, number>(); // key -> first op of the current txn on it
  for (let t = 0; t < h.txnCount; t++) {
    if (Number.isNaN(start[t]!) || Number.isNaN(end[t]!)) continue;
    firstOp.clear();
    const last = new Map<number, number>(); // key -> last write/append op
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = h.opKey[op]!, kind = h.opKind[op]!;
      if (!firstOp.has(k)) firstOp.set(k, op);
      if (kind === OP_WRITE || kind === OP_APPEND) last.set(k, op);
    }
    for (const [k, w] of last) {
      const r = firstOp.get(k)!;
      const kind = h.opKind[r]!;
      if (kind !== OP_READ && kind !== OP_READ_LIST) continue;
      const v = h.opValue[r]!;
      const readVersion = kind === OP_READ ? v : h.listStart[v + 1]! - h.listStart[v]!;
      let list = byKey.get(k);
      if (list === undefined) byKey.set(k, (list = []));
      list.push({ txn: t, readVersion, readOp: r, wrote: h.opValue[w]! });
    }
  }
  const out = emptyOpportunities();
  for (const list of byKey.values()) {
    list.sort((a, b) => start[a.txn]! - start[b.txn]!);
    let active: Rmw[] = [];
    for (const b of list) {
      active = active.filter((a) => end[a.txn]! >= start[b.txn]!);
      for (const a of active) if (a.txn !== b.txn) classify(h, a, b, out);
      active.push(b);
    }
  }
  return out;
}

function classify(h: History, a: Rmw, b: Rmw, out: LostUpdateOpportunities): void {
  if (!tallyFailed(h, a.txn, b.txn, out)) return;
  if (a.readVersion === b.readVersion) { out.allowed++; return; }
  const [first, later] = h.txnEnd![a.txn]! <= h.txnEnd![b.txn]! ? [a, b] : [b, a];
  out[readsWrite(h, later, first) ? 'blocked' : 'other']++;
}

/** Did `reader`'s first read of the key see `writer`'s last write (or append) to it? */
function readsWrite(h: History, reader: Rmw, writer: Rmw): boolean {
  const op = reader.readOp;
  if (h.opKind[op] === OP_READ) return h.opValue[op] === writer.wrote;
  const l = h.opValue[op]!;
  for (let i = h.listStart[l]!; i < h.listStart[l + 1]!; i++) if (h.listElems[i] === writer.wrote) return true;
  return false;
}
