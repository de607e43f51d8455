/**
 * Why a format other than JSON Lines cannot hold a History with relations (issue 22).
 *
 * Takes: a History. Gives: null for a key-value history, else the reason every writer but
 * JSON Lines gives for refusing it (`cannot write X as <format>: <reason>`), naming what the
 * history has: its relations and its inserts, deletes, selects and counts.
 * Why: no other format (PolySI text, dbcop, Elle, Cobra) has inserts, deletes, absent rows or
 * predicate reads; writing the item ops alone would drop them and change the verdict.
 */

import { OP_COUNT, OP_DELETE, OP_INSERT, OP_SELECT, type History } from '../history/model.ts';

/** Per kind, how many ops of `h` are inserts, deletes, selects and counts. */
export function predicateOpCounts(h: History): { inserts: number; deletes: number; selects: number; counts: number } {
  const c = { inserts: 0, deletes: 0, selects: 0, counts: 0 };
  if (h.predicates === undefined) return c;
  for (let op = 0; op < h.opCount; op++) {
    switch (h.opKind[op]) {
      case OP_INSERT: c.inserts++; break;
      case OP_DELETE: c.deletes++; break;
      case OP_SELECT: c.selects++; break;
      case OP_COUNT: c.counts++; break;
    }
  }
  return c;
}

export function predicateRefusal(h: History): string | null {
  const t = h.predicates;
  if (t === undefined) return null;
  const c = predicateOpCounts(h);
  const has = [
    [c.selects + c.counts, 'predicate read'], [c.inserts, 'insert'], [c.deletes, 'delete'],
  ].filter(([n]) => (n as number) > 0).map(([n, what]) => `${n} ${what}${n === 1 ? '' : 's'}`);
  const rels = t.relationLabels.map((r) => JSON.stringify(r)).join(', ');
  const relations = `relation${t.relationLabels.length === 1 ? '' : 's'} ${rels}`;
  return `it has ${has.length === 0 ? relations : `${has.join(', ')} over ${relations}`}, ` +
    'which only JSON Lines can hold (--to jsonl; docs/formats.md, "Predicates")';
}
