/**
 * Workload generation: `register` (PolySI's reads and writes of registers), `list-append`
 * (Elle's appends to lists and reads of whole lists, which expose each key's version order) and
 * `predicate` (rows, inserts, deletes and predicate reads over relations: predicate.ts).
 *
 * Takes: WorkloadOptions. Gives: a WorkloadPlan, the same for the same options and seed.
 * Invariant: written values and appended elements are unique in the whole run (per key, as the
 * checker needs, and across keys as a bonus: session s writes s+1, s+1+S, s+1+2S, ... for S
 * sessions); each session draws from its own generator seeded in session order, so a session's
 * transactions depend only on (options, seed, s).
 */

import { Random } from '../util/random.ts';
import { keyChooser } from './keys.ts';
import { generatePredicateWorkload } from './predicate.ts';
import { W_APPEND, W_READ, W_READ_LIST, W_WRITE, type TxnPlan, type WorkloadOptions, type WorkloadPlan } from './types.ts';

/** Throws a RangeError naming the first option out of range (the CLI turns it into a usage error). */
export function checkWorkloadOptions(o: WorkloadOptions): void {
  const int = (name: string, v: number, min: number) => {
    if (!Number.isInteger(v) || v < min) throw new RangeError(`${name} must be an integer ≥ ${min}, got ${v}`);
  };
  int('sessions', o.sessions, 1);
  int('txns per session', o.txnsPerSession, 0);
  int('ops per txn', o.opsPerTxn, 1);
  int('keys', o.keys, 1);
  int('long ops', o.longOps, 1);
  int('seed', o.seed, 0);
  for (const [name, v] of [['read fraction', o.readFraction], ['long fraction', o.longFraction], ['read-modify-write fraction', o.rmwFraction ?? 0]] as const) {
    if (!(v >= 0 && v <= 1)) throw new RangeError(`${name} must be within [0, 1], got ${v}`);
  }
  if (o.workload !== 'register' && o.workload !== 'list-append' && o.workload !== 'predicate') throw new RangeError(`unknown workload ${String(o.workload)}`);
}

export function generateWorkload(o: WorkloadOptions): WorkloadPlan {
  checkWorkloadOptions(o);
  if (o.workload === 'predicate') return generatePredicateWorkload(o);
  const opts = { ...o };
  const pick = keyChooser(o.keys, o.distribution);
  const rmw = o.rmwFraction ?? 0;
  const readKind = o.workload === 'register' ? W_READ : W_READ_LIST;
  const writeKind = o.workload === 'register' ? W_WRITE : W_APPEND;
  // Per-session seeds are drawn once, in session order, so session s's stream depends only on
  // (seed, s) and never on how far other sessions have got.
  const root = new Random(o.seed);
  const seeds = Array.from({ length: o.sessions }, () => root.uint32());
  function* session(s: number): Generator<TxnPlan> {
    if (!Number.isInteger(s) || s < 0 || s >= o.sessions) throw new RangeError(`no session ${s}`);
    const rng = new Random(seeds[s]!);
    let nextValue = s + 1; // never 0, the initial value in every store
    for (let i = 0; i < o.txnsPerSession; i++) {
      const n = o.longFraction > 0 && rng.next() < o.longFraction ? o.longOps : o.opsPerTxn;
      const kinds: number[] = [], keys: number[] = [], values: number[] = [];
      for (let j = 0; j < n; j++) {
        const key = pick(rng);
        keys.push(key);
        if (rng.next() < o.readFraction) { kinds.push(readKind); values.push(0); continue; }
        // The draw is made only when asked for, so other workloads keep their streams.
        if (rmw > 0 && rng.next() < rmw) { kinds.push(readKind); values.push(0); keys.push(key); }
        kinds.push(writeKind); values.push(nextValue); nextValue += o.sessions;
      }
      yield { kinds, keys, values };
    }
  }
  return { options: opts, session, kinds: { registers: o.workload === 'register', lists: o.workload === 'list-append' } };
}
