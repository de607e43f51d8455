/**
 * The outcome of one opportunity for a two-transaction anomaly (a lost update, a write skew):
 * the tally both counters fill (src/history/opportunities.ts, write-skew-opportunities.ts).
 *
 * Takes: a History and the two transactions of a pair. Gives: `PairOpportunities` (the counts)
 * and `tallyFailed`, which settles the outcomes every anomaly shares (an abort, an unknown
 * commit) so that each counter only decides what differs (allowed, blocked, other).
 * Invariant: pairs = allowed + blocked + aborted + unknown + other.
 */

import { TXN_ABORTED, TXN_COMMITTED, type History } from './model.ts';

export interface PairOpportunities {
  pairs: number;
  /** Both committed and the anomaly happened. */
  allowed: number;
  /** Both committed, and the one that ended later saw the other's write: it waited, or ran after. */
  blocked: number;
  /** At least one aborted. */
  aborted: number;
  /** Error code -> aborted transactions, once per pair a transaction takes part in ('none' without a code). */
  abortCodes: Record<string, number>;
  /** Neither aborted, at least one of unknown outcome. */
  unknown: number;
  /** Both committed, neither allowed nor blocked. */
  other: number;
}

export function emptyOpportunities(): PairOpportunities {
  return { pairs: 0, allowed: 0, blocked: 0, aborted: 0, abortCodes: {}, unknown: 0, other: 0 };
}

/**
 * Counts the pair (a, b) and, when one of them aborted or is of unknown outcome, its outcome.
 * Returns true when both committed: the caller then decides allowed / blocked / other.
 */
export function tallyFailed(h: History, a: number, b: number, out: PairOpportunities): boolean {
  out.pairs++;
  const sa = h.txnStatus[a]!, sb = h.txnStatus[b]!;
  if (sa === TXN_ABORTED || sb === TXN_ABORTED) {
    out.aborted++;
    for (const t of [a, b]) {
      if (h.txnStatus[t] !== TXN_ABORTED) continue;
      const code = h.txnError?.[t] || 'none';
      out.abortCodes[code] = (out.abortCodes[code] ?? 0) + 1;
    }
    return false;
  }
  if (sa !== TXN_COMMITTED || sb !== TXN_COMMITTED) {
    out.unknown++;
    return false;
  }
  return true;
}
