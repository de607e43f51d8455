/**
 * The `predicate` workload (issue 22): inserts, deletes, updates, reads of rows, and predicate
 * reads (`select` / `count`) over a few small relations, in three transaction shapes drawn at
 * random after Hermitage's predicate tests (ept/hermitage):
 * - G2 (predicate write skew): read a predicate (select or count), then insert a row that
 *   matches it. Two of these running concurrently on one relation each miss the other's insert:
 *   an anti-dependency cycle through predicates, which serializability forbids and snapshot
 *   isolation allows.
 * - PMP (predicate-many-preceders): a read-only transaction that reads a predicate, a row, and
 *   a predicate again; a writer committing in between must be seen by both reads or by neither.
 * - writer: one to three row operations (insert, delete, update, read of one row).
 * With `shapes: 'g2'` every transaction is of the first shape, with a select.
 *
 * Takes: WorkloadOptions (`keys` is the number of rows over all relations; `opsPerTxn` is not
 * used). Gives: a WorkloadPlan with `relations` (`r0`, `r1`, ...: relation r holds keys
 * `r*rows .. r*rows+rows-1`) and `predicates` (value-modulo tests shared by all relations, and a
 * key range per relation).
 * Invariant: written values are unique in the whole run: session s's u-th write is
 * `10 * (s + 1 + u * sessions) + d`, d in 0..9 chosen so that a G2 insert matches the predicate
 * it read (d reaches every residue of the moduli 2..5 used); values are never 0 (absent).
 */

import { Random } from '../util/random.ts';
import { matches, parsePredicate } from '../history/predicate.ts';
import {
  W_COUNT, W_DELETE, W_INSERT, W_READ, W_SELECT, W_WRITE,
  type TxnPlan, type WorkloadOptions, type WorkloadPlan, type WorkloadPredicate, type WorkloadRelation,
} from './types.ts';

/** Relations when there are enough rows (2 rows each at least); else one. */
export const PREDICATE_RELATIONS_MAX = 3;
/** The shapes' shares: G2 write skews, PMP readers, the rest writers. */
export const G2_FRACTION = 0.35;
export const PMP_FRACTION = 0.2;

/** The moduli tests every relation's predicate reads draw from. */
const VALUE_PREDICATES = ['value % 3 = 0', 'value % 2 = 1', 'value % 5 < 2', 'value % 4 != 0 and key % 2 = 0'];

/** The relations for `keys` rows. */
export function predicateRelations(keys: number): WorkloadRelation[] {
  const n = keys >= 2 * PREDICATE_RELATIONS_MAX ? PREDICATE_RELATIONS_MAX : 1;
  const rows = Math.floor(keys / n);
  return Array.from({ length: n }, (_, r) => ({ name: `r${r}`, keys: Array.from({ length: rows }, (_, i) => r * rows + i) }));
}

export function generatePredicateWorkload(o: WorkloadOptions): WorkloadPlan {
  const relations = predicateRelations(o.keys);
  const predicates: WorkloadPredicate[] = VALUE_PREDICATES.map((text) => ({ text, parsed: parsePredicate(text) }));
  // Per relation: the value tests, and a key range over the first half of its rows.
  const relPreds: number[][] = relations.map((rel) => {
    const lo = rel.keys[0]!, hi = rel.keys[Math.max(0, Math.floor(rel.keys.length / 2) - 1)]!;
    const text = `key between ${lo} and ${hi}`;
    predicates.push({ text, parsed: parsePredicate(text) });
    return [...VALUE_PREDICATES.keys(), predicates.length - 1];
  });
  const root = new Random(o.seed);
  const seeds = Array.from({ length: o.sessions }, () => root.uint32());

  function* session(s: number): Generator<TxnPlan> {
    if (!Number.isInteger(s) || s < 0 || s >= o.sessions) throw new RangeError(`no session ${s}`);
    const rng = new Random(seeds[s]!);
    let u = s + 1;
    /** The next unique value; when `want` is given, one that makes it true (if some d does). */
    const nextValue = (want?: (v: number) => boolean): number => {
      const base = 10 * u;
      u += o.sessions;
      if (want !== undefined) for (let d = 0; d < 10; d++) if (want(base + d)) return base + d;
      return base + rng.int(10);
    };
    for (let i = 0; i < o.txnsPerSession; i++) {
      const kinds: number[] = [], keys: number[] = [], values: number[] = [];
      const op = (kind: number, key: number, value: number) => { kinds.push(kind); keys.push(key); values.push(value); };
      const r = rng.int(relations.length);
      const rel = relations[r]!;
      const row = () => rel.keys[rng.int(rel.keys.length)]!;
      const pred = () => relPreds[r]![rng.int(relPreds[r]!.length)]!;
      const x = rng.next();
      const g2Only = o.shapes === 'g2';
      if (g2Only || x < G2_FRACTION) {
        const p = pred();
        const y = rng.next();
        op(!g2Only && y < 0.5 ? W_COUNT : W_SELECT, r, p);
        // A row the predicate can match (a key range picks among its keys), inserted matching.
        let k = row();
        for (let tries = 0; tries < 8 && !matches(predicates[p]!.parsed, k, 10); tries++) k = row();
        op(W_INSERT, k, nextValue((v) => matches(predicates[p]!.parsed, k, v)));
      } else if (x < G2_FRACTION + PMP_FRACTION) {
        const p = pred();
        op(W_SELECT, r, p);
        op(W_READ, row(), 0);
        op(rng.next() < 0.5 ? W_SELECT : W_COUNT, r, rng.next() < 0.5 ? p : pred());
      } else {
        const n = 1 + rng.int(3);
        for (let j = 0; j < n; j++) {
          const y = rng.next();
          const k = row();
          // Deletes outnumber inserts here: the G2 shape inserts too, and a relation kept about
          // half full makes both an insert's duplicate-key failure and its success common.
          if (y < 0.3) op(W_INSERT, k, nextValue());
          else if (y < 0.65) op(W_DELETE, k, 0);
          else if (y < 0.85) op(W_WRITE, k, nextValue());
          else op(W_READ, k, 0);
        }
      }
      yield { kinds, keys, values };
    }
  }
  return { options: { ...o }, session, kinds: { registers: false, lists: false, relations }, relations, predicates };
}
