/**
 * Read atomic (Biswas & Enea's axiom, after Bailis et al.'s RAMP): no fractured reads. If t3
 * reads x from t1 and t3 observed t2 directly (t2 precedes t3 in its session, or t3 read
 * something t2 wrote), and t2 also writes x, then t2's version of x precedes t1's:
 *   t1 -WR(x)-> t3,  t2 -(SO ∪ WR)-> t3,  t2 writes x,  t1 ≠ t2   ⟹   t2 -CO-> t1.
 *
 * Takes: a Validated history. Gives: a LevelOutcome. Cost: O(reads + Σ over WR pairs (t2, t3)
 * of t2's writes): per reader, a stamped key -> read table; per session, a stamped key -> last
 * writer table (only the last writer of x before t3 matters: earlier ones precede it in SO).
 */

import type { Validated } from '../validate/validate.ts';
import { buildBase, type LevelBase } from './base.ts';
import { outcomeOf, type LevelOutcome } from './outcome.ts';
import { findCycle, SatGraph, VIA_SO } from './saturate.ts';
import { forEachSessionTxn, SessionWriters } from './session.ts';

export function checkRa(v: Validated): LevelOutcome {
  const base = buildBase(v);
  const g = new SatGraph(base);
  if (!deriveRa(base, g)) return outcomeOf('ra', g, null);
  return outcomeOf('ra', g, findCycle(base.n, g));
}

/**
 * Adds the read-atomic edges; false as soon as one lands on the initial state. The premise holds
 * for every read of x by t3: a txn that read x twice and saw two versions (a fuzzy read,
 * docs/levels.md "Re-reads") observed each writer through one read and read the other's
 * version through the other, so the axiom orders each writer before the other (or before the
 * initial state): a fractured read.
 */
function deriveRa(b: LevelBase, g: SatGraph): boolean {
  const v = b.v;
  const nKeys = v.history.keyLabels.length;
  // Per key, t3's reads of it as a linked list: readHead[x] (valid while readStamp[x] === t3), then nextRead.
  const readHead = new Int32Array(nKeys), readStamp = new Int32Array(nKeys).fill(-1);
  const nextRead = new Int32Array(v.reads.count);
  const obsStamp = new Int32Array(b.n).fill(-1);
  const sw = new SessionWriters(b);
  return forEachSessionTxn(b, (t3) => {
    for (let i = b.readStart[t3]!; i < b.readStart[t3 + 1]!; i++) {
      const r = b.readIdx[i]!, x = v.reads.key[r]!;
      nextRead[r] = readStamp[x] === t3 ? readHead[x]! : -1;
      readHead[x] = r; readStamp[x] = t3;
      const w = sw.last(x);
      if (w >= 0 && !g.derive(w, r, VIA_SO)) return false;
    }
    for (let i = b.readStart[t3]!; i < b.readStart[t3 + 1]!; i++) {
      const r = b.readIdx[i]!;
      for (let j = b.obsStart[r]!; j < b.obsStart[r + 1]!; j++) {
        const t2 = b.obs[j]!;
        if (obsStamp[t2] === t3) continue;
        obsStamp[t2] = t3;
        for (let k = b.writeStart[t2]!; k < b.writeStart[t2 + 1]!; k++) {
          const x = b.writeKey[k]!;
          if (readStamp[x] !== t3) continue;
          for (let q = readHead[x]!; q !== -1; q = nextRead[q]!) if (!g.derive(t2, q, r)) return false;
        }
      }
    }
    sw.done(t3);
    return true;
  }, sw);
}
