/**
 * Lost updates found directly in the history, so that a report names one when the history has
 * one, whichever cycle the checker's search happened to meet first.
 *
 * Takes: the validated history and the polygraph of the check. Gives: candidate pairs (two
 * committed transactions that read key k from the same writer w, each before writing k itself:
 * Berenson et al. 1995's P4, Hermitage's "lost update", Elle's `lost-update`; docs/explain.md,
 * "Names"), and for one pair the scenario of the history's own dependencies among {w, a, b}.
 * Invariant: a scenario uses only dependencies that follow from the history (the known edges
 * before pruning added any, and whole sides of the write-order constraints between the three):
 * when every choice of its write orders is cyclic, the history violates the level whatever the
 * rest of it says, so the counterexample built on it is evidence on its own (and is certified
 * like any other). Why it is needed: in a history with many lost updates, the search's first
 * cycle often runs through session order (a txn of the same session later misses the lost
 * write), and the argument's loosest cycle then names it a G-single-process.
 */

import { TXN_COMMITTED } from '../history/model.ts';
import type { Validated } from '../validate/validate.ts';
import type { Dep } from './scenario.ts';
import { ceDep, knownDep, type CheckState } from './restore.ts';

/** Two read-modify-writes of key `key` that read the version `writer` installed (INIT_TXN: the initial one). */
export interface LostUpdatePair {
  key: number;
  writer: number;
  a: number;
  b: number;
}

/**
 * Up to `limit` pairs, in the order of the history's resolved reads (one pair per key and
 * version read: the first two transactions that read it and wrote the key). Linear in the reads
 * and final writes.
 */
export function findLostUpdatePairs(v: Validated, limit: number): LostUpdatePair[] {
  const h = v.history;
  const nKeys = Math.max(1, h.keyLabels.length);
  const writes = new Set<number>();
  for (let i = 0; i < v.writes.count; i++) writes.add(v.writes.txn[i]! * nKeys + v.writes.key[i]!);
  // (key, version read) -> the first committed read-modify-write of it; -2 once a pair was taken.
  const first = new Map<number, number>();
  const seen = new Set<number>(); // (txn, key) already counted: a txn's first external read of the key
  const out: LostUpdatePair[] = [];
  for (let i = 0; i < v.reads.count && out.length < limit; i++) {
    const t = v.reads.txn[i]!, k = v.reads.key[i]!, w = v.reads.writer[i]!;
    if (h.txnStatus[t] !== TXN_COMMITTED || !writes.has(t * nKeys + k)) continue;
    if (seen.has(t * nKeys + k)) continue;
    seen.add(t * nKeys + k);
    const at = k * (h.txnCount + 1) + (w + 1); // w >= INIT_TXN = -1
    const a = first.get(at);
    if (a === undefined) first.set(at, t);
    else if (a >= 0 && a !== t) { out.push({ key: k, writer: w, a, b: t }); first.set(at, -2); }
  }
  return out;
}

/**
 * The history's dependencies among the pair and the writer they read from: the known edges
 * between them (those that follow from the history, not what pruning added) and every
 * constraint between two of them, its sides cut to the edges between the three.
 */
export function lostUpdateScenario(st: CheckState, p: LostUpdatePair): Dep[] {
  const pg = st.pg;
  const inS = (t: number) => t === p.a || t === p.b || t === p.writer;
  const base = st.provenance === null ? pg.known.length : st.provenance.knownBase;
  const deps: Dep[] = [];
  for (let i = 0; i < base; i++) if (inS(pg.known.from.get(i)) && inS(pg.known.to.get(i))) deps.push(knownDep(pg, i));
  for (let c = 0; c < pg.consCount; c++) {
    if (!inS(pg.consA[c]!) || !inS(pg.consB[c]!)) continue;
    for (let e = pg.edgeStart[2 * c]!; e < pg.edgeStart[2 * c + 2]!; e++) if (inS(pg.ceFrom[e]!) && inS(pg.ceTo[e]!)) deps.push(ceDep(pg, e));
  }
  return deps;
}
