/**
 * The checker's refusal of inserts, deletes and predicate reads (issue 22) until it decides them.
 *
 * Takes: a History. Gives: nothing, or an InputError 'unsupported' at the first insert, delete,
 * select or count. Why: every later stage (validation, graph, pruning, solving, explanation) reads
 * ops as item reads and writes; fed a predicate read it would mis-check (a phantom missed, an
 * insert taken for an update), and a wrong verdict is the worst bug. A history whose relations
 * see only `r` / `w` ops is checked as it is: a row's absent state is the key's initial value,
 * and item semantics are exact for it.
 *
 * Invariant: the ONE place that keeps predicate histories out of the checker; validate() calls it
 * first. The predicate checker (branch pred-core) removes this module and its call.
 */

import { InputError } from '../history/errors.ts';
import { describeOp, OP_INSERT, type History } from '../history/model.ts';

export function refusePredicateOps(h: History): void {
  if (h.predicates === undefined) return;
  const { opKind } = h;
  for (let op = 0; op < h.opCount; op++) {
    if (opKind[op]! < OP_INSERT) continue;
    throw new InputError('unsupported', h.source, h.locUnit, h.opLoc[op]!,
      `${describeOp(h, op)}: the checker does not yet decide inserts, deletes and predicate reads ` +
      '(select, count; issue 22); it refuses them rather than check them as item reads and writes, which would miss phantoms. ' +
      '`polysi stat` reads such histories and `polysi convert` copies them to JSON Lines');
  }
}
