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
 * Cost: one sort of the transactions by start, then per key a sweep over its read-modify-writes
 * in that order (src/history/overlap-sweep.ts): linear in them plus the pairs found (at most the
 * number of sessions per transaction).
 */

import { OP_APPEND, OP_READ, OP_READ_LIST, OP_WRITE, type History } from './model.ts';
import { emptyOpportunities, tallyFailed, type PairOpportunities } from './opportunity-outcome.ts';
import { byKey, byStart, Running, timed, type KeyLists } from './overlap-sweep.ts';
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

/**
 * The read-modify-writes, per transaction (CSR: txn t's are entries `first[t] .. first[t+1]-1`):
 * the key, the op of the first read of it, the version read (register: the value id; list: the
 * length of the list read) and what was written last (register: the value id; list: the element
 * of the last append).
 */
interface Rmws { first: Int32Array; key: Int32Array; readOp: Int32Array; readVersion: Int32Array; wrote: Int32Array }

function rmwsOf(h: History): Rmws {
  const n = h.txnCount, keyCount = h.keyLabels.length;
  const first = new Int32Array(n + 1);
  // At most one entry per operation: sized so, handed out as views of what was filled.
  const key = new Int32Array(h.opCount), readOp = new Int32Array(h.opCount), readVersion = new Int32Array(h.opCount), wrote = new Int32Array(h.opCount);
  let m = 0;
  // seen[k] = t + 1 once txn t touched k (firstOp[k]: its first op on k); lastW[k]: its last write, when wroteAt[k] = t + 1.
  const seen = new Int32Array(keyCount), firstOp = new Int32Array(keyCount), wroteAt = new Int32Array(keyCount), lastW = new Int32Array(keyCount);
  const touched: number[] = [];
  for (let t = 0; t < n; t++) {
    first[t] = m;
    if (!timed(h, t)) continue;
    touched.length = 0;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = h.opKey[op]!, kind = h.opKind[op]!;
      if (seen[k] !== t + 1) { seen[k] = t + 1; firstOp[k] = op; touched.push(k); }
      if (kind === OP_WRITE || kind === OP_APPEND) { wroteAt[k] = t + 1; lastW[k] = op; }
    }
    for (const k of touched) {
      if (wroteAt[k] !== t + 1) continue;
      const r = firstOp[k]!, kind = h.opKind[r]!;
      if (kind !== OP_READ && kind !== OP_READ_LIST) continue;
      const v = h.opValue[r]!;
      key[m] = k; readOp[m] = r; wrote[m] = h.opValue[lastW[k]!]!;
      readVersion[m++] = kind === OP_READ ? v : h.listStart[v + 1]! - h.listStart[v]!;
    }
  }
  first[n] = m;
  return { first, key: key.subarray(0, m), readOp: readOp.subarray(0, m), readVersion: readVersion.subarray(0, m), wrote: wrote.subarray(0, m) };
}

export function lostUpdateOpportunities(h: History): LostUpdateOpportunities | null {
  if (h.txnStart === undefined || h.txnEnd === undefined) return null;
  const rmw = rmwsOf(h);
  const keyCount = h.keyLabels.length;
  const lists = byKey(h, byStart(h), rmw.first, rmw.key, keyCount);
  const out = emptyOpportunities();
  const running = new Running();
  for (let k = 0; k < keyCount; k++) {
    running.n = 0;
    for (let b = lists.at[k]!; b < lists.at[k + 1]!; b++) {
      running.keepRunningAt(lists, lists.ts[b]!);
      for (let i = 0; i < running.n; i++) {
        const a = running.items[i]!;
        if (lists.txns[a] !== lists.txns[b]) classify(h, rmw, lists, a, b, out);
      }
      running.push(b);
    }
  }
  return out;
}

/** Slots a and b of `lists`: two overlapping read-modify-writes of one key. */
function classify(h: History, rmw: Rmws, lists: KeyLists, a: number, b: number, out: LostUpdateOpportunities): void {
  if (!tallyFailed(h, lists.txns[a]!, lists.txns[b]!, out)) return;
  const ea = lists.entry[a]!, eb = lists.entry[b]!;
  if (rmw.readVersion[ea] === rmw.readVersion[eb]) { out.allowed++; return; }
  const [first, later] = lists.te[a]! <= lists.te[b]! ? [ea, eb] : [eb, ea];
  out[readsWrite(h, rmw.readOp[later]!, rmw.wrote[first]!) ? 'blocked' : 'other']++;
}

/** Did the read `op` (a register read, or a list read) see the write of value (or element) `wrote`? */
function readsWrite(h: History, op: number, wrote: number): boolean {
  if (h.opKind[op] === OP_READ) return h.opValue[op] === wrote;
  const l = h.opValue[op]!;
  for (let i = h.listStart[l]!; i < h.listStart[l + 1]!; i++) if (h.listElems[i] === wrote) return true;
  return false;
}
