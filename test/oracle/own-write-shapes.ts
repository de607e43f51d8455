/**
 * Tiny histories of one shape, randomised: a predicate read that misses a row its own
 * transaction writes later (docs/levels.md, "Predicates", "A predicate read and its
 * transaction's later write"). The general generator (test/support/gen-predicates.ts) makes this
 * shape often, but the sub-case where Adya's version sets and a plain reading part (the read saw
 * a version the order puts after its own transaction's write) rarely: 0 of the oracle agreement
 * test's 250 histories, 1 of the differential's 300. This family makes it on purpose.
 *
 * Takes: a seeded Rng. Gives: a PredHistory (predicate-history.ts) over relation R = {1, 2}:
 *   T1: insert(1, a)
 *   T2: select(P) -> ... (not row 1)  [select(Q) -> ...]  then its own write of row 1 (update
 *       or delete), sometimes between the two selects (the second then sees it)
 *   T3: delete(1), update(1, c) or insert(2, d)
 * where each select's result is what one random state of the rows gives (row 1 absent, a, or
 * T3's version; row 2 absent or T3's insert): plausible, not always serializable, so both
 * verdicts occur. Values are distinct per row, as predicate-history.ts requires.
 */

import type { Rng } from '../support/prng.ts';
import { rowMatches } from './predicate-eval.ts';
import type { PredHistory, PredOp, Scalar } from './predicate-history.ts';

const PREDICATES = ['value % 2 = 1', 'value % 2 = 0', 'value > 2', 'true', 'not (value % 3 = 0)', 'value < 4 or key = 2'];

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;

export function ownWriteShape(rng: Rng): PredHistory {
  const values = [1, 2, 3, 4, 5, 6].sort(() => rng() - 0.5);
  const [a, b, c, d] = values as [number, number, number, number];
  const t3: PredOp = pick(rng, [{ op: 'delete', key: 1 }, { op: 'w', key: 1, value: c }, { op: 'insert', key: 2, value: d }] as PredOp[]);
  // States a select before T2's own write may see: row 1 and row 2 (null: absent).
  const row1: (Scalar | null)[] = [null, a, ...(t3.op === 'w' ? [c] : [])];
  const row2: (Scalar | null)[] = [null, ...(t3.op === 'insert' ? [d] : [])];
  const own: PredOp = rng() < 0.75 ? { op: 'w', key: 1, value: b } : { op: 'delete', key: 1 };
  const ownValue = own.op === 'w' ? b : null;
  // `miss`: the select does not return row 1 (it saw a version of it that does not match).
  // The first select mostly has a predicate T1's row matches (missing it then matters), a second
  // one before the own write mostly sees T1's row: the read that sees too much and too little.
  const select = (afterOwn: boolean, miss = false): PredOp => {
    const matchingA = PREDICATES.filter((P) => rowMatches(P, 1, a));
    const P = miss && rng() < 0.7 ? pick(rng, matchingA) : pick(rng, PREDICATES);
    const seen = miss ? row1.filter((v) => v === null || !rowMatches(P, 1, v)) : rng() < 0.6 ? [a] : row1;
    const v1 = afterOwn ? ownValue : pick(rng, seen), v2 = pick(rng, row2);
    const rows: [Scalar, Scalar][] = [];
    if (v1 !== null && rowMatches(P, 1, v1)) rows.push([1, v1]);
    if (v2 !== null && rowMatches(P, 2, v2)) rows.push([2, v2]);
    return { op: 'select', rel: 'R', pred: P, rows };
  };
  const t2: PredOp[] = [select(false, true)];
  const second = rng();
  if (second < 0.4) t2.push(select(false), own);
  else if (second < 0.7) t2.push(own, select(true));
  else t2.push(own);
  return {
    relations: { R: [1, 2] },
    txns: [
      { session: 's1', status: 'committed', ops: [{ op: 'insert', key: 1, value: a }] },
      { session: 's2', status: 'committed', ops: t2 },
      { session: rng() < 0.5 ? 's3' : 's1', status: 'committed', ops: [t3] },
    ],
  };
}
