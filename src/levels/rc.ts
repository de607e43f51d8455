/**
 * Read committed (Biswas & Enea's axiom, OOPSLA 2019, as Plume and AWDIT check it): a
 * transaction never reads a version older than one it has already observed. If t3's read α of x
 * returns t1's version, and an earlier read β of t3 returned something t2 wrote, and t2 writes
 * x, then t2's version of x precedes t1's; the commit order also contains session order:
 *   t1 -WR(x)-> α,  t2 -WR-> β,  β before α in t3,  t2 writes x,  t1 ≠ t2   ⟹   t2 -CO-> t1.
 * It implies Adya's PL-2 (no G1a, G1b, G1c) and forbids non-monotonic reads inside a
 * transaction, which PL-2 allows (docs/levels.md).
 * `ss-rc`, strong session read committed, also fires the premise along session order
 * (t2 -SO-> t3: a transaction never reads a version older than one its session wrote before).
 *
 * Takes: a Validated history. Gives: a LevelOutcome. Cost: O(reads + Σ over WR pairs (t2, t3) of
 * t2's writes + edges derived): per reader, a stamped key -> observed-writers list built in
 * program order.
 */

import { GrowableInt32 } from '../util/growable.ts';
import type { Validated } from '../validate/validate.ts';
import { buildBase, type LevelBase } from './base.ts';
import { outcomeOf, type LevelOutcome } from './outcome.ts';
import { findCycle, SatGraph, VIA_SO } from './saturate.ts';
import { forEachSessionTxn, SessionWriters } from './session.ts';

export function checkRc(v: Validated): LevelOutcome {
  const base = buildBase(v);
  const g = new SatGraph(base);
  if (!deriveRc(base, g, false)) return outcomeOf('rc', g, null);
  return outcomeOf('rc', g, findCycle(base.n, g));
}

export function checkSsRc(v: Validated): LevelOutcome {
  const base = buildBase(v);
  const g = new SatGraph(base);
  if (!deriveRc(base, g, true)) return outcomeOf('ss-rc', g, null);
  return outcomeOf('ss-rc', g, findCycle(base.n, g));
}

/**
 * Adds the read-committed edges (along session order too when `sessionPremise`); false as soon
 * as one lands on the initial state.
 */
export function deriveRc(b: LevelBase, g: SatGraph, sessionPremise: boolean): boolean {
  const v = b.v;
  const nKeys = v.history.keyLabels.length;
  // Per key, a linked list (stamped by reader) of (observed writer, the read that observed it).
  const head = new Int32Array(nKeys), headStamp = new Int32Array(nKeys).fill(-1);
  const next = new GrowableInt32(), who = new GrowableInt32(), by = new GrowableInt32();
  const obsStamp = new Int32Array(b.n).fill(-1);
  const sw = new SessionWriters(b);
  // The rows of one predicate read are read by one statement (History.opStatement).
  const statement = v.history.opStatement;
  const stmtOf = (i: number): number => (statement === undefined ? i : statement[v.reads.op[b.readIdx[i]!]!]!);
  return forEachSessionTxn(b, (t3) => {
    next.length = 0; who.length = 0; by.length = 0;
    // Reads readStart[t3] .. pending-1 have been recorded as observed; pending .. i-1 belong to i's statement.
    let pending = b.readStart[t3]!;
    for (let i = b.readStart[t3]!; i < b.readStart[t3 + 1]!; i++) {
      const r = b.readIdx[i]!, x = v.reads.key[r]!;
      // What α observed counts for the reads of later statements, not for α nor its statement's other rows.
      if (i > pending && stmtOf(i) !== stmtOf(i - 1)) for (; pending < i; pending++) record(t3, b.readIdx[pending]!);
      const w = sessionPremise ? sw.last(x) : -1;
      if (w >= 0 && !g.derive(w, r, VIA_SO)) return false;
      if (headStamp[x] === t3) {
        for (let e = head[x]!; e !== -1; e = next.get(e)) if (!g.derive(who.get(e), r, by.get(e))) return false;
      }
    }
    sw.done(t3);
    return true;
  }, sw);

  /** Records what read r of t3 observed: each observed txn's written keys, for t3's later reads. */
  function record(t3: number, r: number): void {
    for (let j = b.obsStart[r]!; j < b.obsStart[r + 1]!; j++) {
      const t2 = b.obs[j]!;
      if (obsStamp[t2] === t3) continue;
      obsStamp[t2] = t3;
      for (let k = b.writeStart[t2]!; k < b.writeStart[t2 + 1]!; k++) {
        const y = b.writeKey[k]!;
        if (headStamp[y] !== t3) { headStamp[y] = t3; head[y] = -1; }
        next.push(head[y]!); who.push(t2); by.push(r); head[y] = next.length - 1;
      }
    }
  }
}
