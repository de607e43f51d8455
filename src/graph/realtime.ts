/**
 * Real-time order edges for the strict levels (docs/levels.md, "Strict levels").
 *
 * Takes: a `Validated` history whose History carries times (`txnStart` / `txnEnd`).
 * Gives: RT edges a -> b, pushed to an EdgeList, whose transitive closure (with nothing else)
 * is exactly the real-time order on the included transactions: a -> b whenever a committed and
 * completed (`txnEnd[a]`) strictly before b was invoked (`txnStart[b]`).
 * A txn of unknown outcome gets no edge out (it may have committed at any later time) and a txn
 * without a time gets no edge at all; edges into included unknown-outcome txns are kept.
 *
 * Size: a sorted sweep, O(n log n) time. For b, the txns that completed before b's start form a
 * prefix P of the txns sorted by completion; with M = the latest invocation in P, every txn of P
 * that completed before M precedes (in real time) the txn invoked at M, which is itself in P.
 * So b needs edges only from the *frontier*: the txns of P completed at or after M, all of them
 * running at instant M. One edge per (b, frontier member): at most n x (the most txns running at
 * one instant), i.e. linear for a fixed number of clients, and never the quadratic closure.
 */

import { TXN_COMMITTED } from '../history/model.ts';
import type { Validated } from '../validate/validate.ts';
import { K_RT, type EdgeList } from './edges.ts';

export function addRealTimeOrder(v: Validated, known: EdgeList): number {
  const h = v.history;
  const start = h.txnStart, end = h.txnEnd;
  if (start === undefined || end === undefined) return 0;
  // Sources: included committed txns with a completion time, sorted by it.
  const src: number[] = [];
  const dst: number[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    if (v.included[t] !== 1) continue;
    if (h.txnStatus[t] === TXN_COMMITTED && !Number.isNaN(end[t]!) && !Number.isNaN(start[t]!)) src.push(t);
    if (!Number.isNaN(start[t]!)) dst.push(t);
  }
  src.sort((a, b) => end[a]! - end[b]! || a - b);
  dst.sort((a, b) => start[a]! - start[b]! || a - b);
  let before = 0; // src[0 .. before-1] completed strictly before the current invocation
  let latestStart = Number.NEGATIVE_INFINITY; // M: the latest invocation among them
  let frontier = 0; // src[frontier .. before-1]: those completed at or after M
  let pushed = 0;
  for (const b of dst) {
    const s = start[b]!;
    while (before < src.length && end[src[before]!]! < s) {
      latestStart = Math.max(latestStart, start[src[before]!]!);
      before++;
    }
    // The frontier's lower end only moves forward: M only grows as the prefix grows.
    while (frontier < before && end[src[frontier]!]! < latestStart) frontier++;
    for (let i = frontier; i < before; i++) {
      const a = src[i]!;
      if (a !== b) { known.push(a, b, K_RT, -1); pushed++; }
    }
  }
  return pushed;
}
