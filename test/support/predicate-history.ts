/**
 * Predicate histories for tests, written as data: sessions of transactions of ops
 * (`['insert', k, v]`, `['delete', k]`, `['r', k, v|null]`, `['w', k, v]`,
 * `['select', 'R', 'predicate', [[k, v], ...]]`, `['count', 'R', 'predicate', n]`), as the JSON
 * Lines format writes them (docs/formats.md). Built with the HistoryBuilder for the key-value
 * part; the predicate ops and the PredicateTable are filled in after (the builder of the
 * `pred-format` branch does this for parsers).
 */

import { HistoryBuilder } from '../../src/history/builder.ts';
import { OP_COUNT, OP_DELETE, OP_INSERT, OP_SELECT, TXN_ABORTED, TXN_COMMITTED, type History, type PredicateTable } from '../../src/history/model.ts';
import { parsePredicate, type Predicate } from '../../src/history/predicate.ts';

export type POp =
  | readonly ['insert', number | string, number | string]
  | readonly ['delete', number | string]
  | readonly ['r', number | string, number | string | null]
  | readonly ['w', number | string, number | string]
  | readonly ['select', string, string, readonly (readonly [number | string, number | string])[]]
  | readonly ['count', string, string, number];

export interface PTxn { id: string; ops: readonly POp[]; aborted?: boolean }

export function predicateHistory(relations: Record<string, readonly (number | string)[]>, sessions: Record<string, readonly PTxn[]>): History {
  const b = new HistoryBuilder('<memory>');
  const relNames = Object.keys(relations);
  for (const r of relNames) for (const k of relations[r]!) b.key(k);
  const patches: { op: number; kind: number; key?: number; value?: number }[] = [];
  const text: string[] = [], parsed: Predicate[] = [], count: number[] = [];
  const resultStart: number[] = [0], resultKeys: number[] = [], resultValues: number[] = [];
  let op = 0;
  for (const [s, txns] of Object.entries(sessions)) {
    const sid = b.session(s);
    for (const t of txns) {
      const tid = b.beginTxn(sid, t.id, t.aborted === true ? TXN_ABORTED : TXN_COMMITTED);
      for (const o of t.ops) {
        switch (o[0]) {
          case 'r': b.read(tid, o[1], o[2]); break;
          case 'w': b.write(tid, o[1], o[2]); break;
          case 'insert': b.write(tid, o[1], o[2]); patches.push({ op, kind: OP_INSERT }); break;
          case 'delete': b.write(tid, o[1], null); patches.push({ op, kind: OP_DELETE }); break;
          case 'select': case 'count': {
            const r = relNames.indexOf(o[1]);
            if (r < 0) throw new Error(`no relation ${o[1]}`);
            b.read(tid, relations[o[1]]![0]!, null); // a placeholder, patched below
            const p = text.length;
            text.push(o[2]); parsed.push(parsePredicate(o[2]));
            if (o[0] === 'select') {
              for (const [k, v] of o[3]) { resultKeys.push(b.key(k)); resultValues.push(b.value(v)); }
              count.push(-1);
            } else {
              count.push(o[3]);
            }
            resultStart.push(resultKeys.length);
            patches.push({ op, kind: o[0] === 'select' ? OP_SELECT : OP_COUNT, key: r, value: p });
            break;
          }
        }
        op++;
      }
    }
  }
  const h = b.build();
  const kinds = h.opKind as Uint8Array, keys = h.opKey as Int32Array, values = h.opValue as Int32Array;
  for (const p of patches) {
    kinds[p.op] = p.kind;
    if (p.key !== undefined) keys[p.op] = p.key;
    if (p.value !== undefined) values[p.op] = p.value;
  }
  const keyRelation = new Int32Array(h.keyLabels.length).fill(-1);
  const relStart = [0], relKeys: number[] = [];
  relNames.forEach((r, i) => {
    const ids = relations[r]!.map((k) => b.key(k)).sort((x, y) => x - y);
    for (const k of ids) keyRelation[k] = i;
    relKeys.push(...ids);
    relStart.push(relKeys.length);
  });
  const predicates: PredicateTable = {
    relationLabels: relNames, relStart: Int32Array.from(relStart), relKeys: Int32Array.from(relKeys), keyRelation,
    text, parsed, resultStart: Int32Array.from(resultStart), resultKeys: Int32Array.from(resultKeys),
    resultValues: Int32Array.from(resultValues), count: Int32Array.from(count),
  };
  return { ...h, predicates };
}
