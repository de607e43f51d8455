/**
 * Workload generation: `register` (PolySI's reads and writes of registers) and `list-append`
 * (Elle's appends to lists and reads of whole lists, which expose each key's version order).
 *
 * Takes: WorkloadOptions. Gives: a WorkloadPlan, the same for the same options and seed.
 * Invariant: written values and appended elements are drawn from one counter, so each is
 * unique in the whole run (per key, as the checker needs, and across keys as a bonus); each
 * session draws from its own generator forked in session order, so changing one session's
 * length does not reshuffle the others.
 */

import { Random } from '../util/random.ts';
import { keyChooser } from './keys.ts';
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
  for (const [name, v] of [['read fraction', o.readFraction], ['long fraction', o.longFraction]] as const) {
    if (!(v >= 0 && v <= 1)) throw new RangeError(`${name} must be within [0, 1], got ${v}`);
  }
  if (o.workload !== 'register' && o.workload !== 'list-append') throw new RangeError(`unknown workload ${String(o.workload)}`);
}

export function generateWorkload(o: WorkloadOptions): WorkloadPlan {
  checkWorkloadOptions(o);
  const root = new Random(o.seed);
  const pick = keyChooser(o.keys, o.distribution);
  const readKind = o.workload === 'register' ? W_READ : W_READ_LIST;
  const writeKind = o.workload === 'register' ? W_WRITE : W_APPEND;
  let nextValue = 1; // 0 would collide with nothing, but 1.. keeps "0 = initial" free in every store
  const sessions: TxnPlan[][] = [];
  for (let s = 0; s < o.sessions; s++) {
    const rng = root.fork();
    const txns: TxnPlan[] = [];
    for (let i = 0; i < o.txnsPerSession; i++) {
      const n = o.longFraction > 0 && rng.next() < o.longFraction ? o.longOps : o.opsPerTxn;
      const kinds = new Uint8Array(n), keys = new Int32Array(n), values = new Int32Array(n);
      for (let j = 0; j < n; j++) {
        keys[j] = pick(rng);
        if (rng.next() < o.readFraction) kinds[j] = readKind;
        else { kinds[j] = writeKind; values[j] = nextValue++; }
      }
      txns.push({ kinds, keys, values });
    }
    sessions.push(txns);
  }
  return {
    options: { ...o },
    sessions,
    kinds: { registers: o.workload === 'register', lists: o.workload === 'list-append' },
  };
}
