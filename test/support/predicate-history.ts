/**
 * Predicate histories for tests, written as data: sessions of transactions of ops
 * (`['insert', k, v]`, `['delete', k]`, `['r', k, v|null]`, `['w', k, v]`,
 * `['select', 'R', 'predicate', [[k, v], ...]]`, `['count', 'R', 'predicate', n]`), as the JSON
 * Lines format writes them (docs/formats.md), built with the HistoryBuilder. Each transaction
 * is on a line of its own (line 1, 2, ... in the order given).
 */

import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_ABORTED, TXN_COMMITTED, type History } from '../../src/history/model.ts';

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
  for (const [r, keys] of Object.entries(relations)) b.relation(r, keys);
  let line = 0;
  for (const [s, txns] of Object.entries(sessions)) {
    const sid = b.session(s);
    for (const t of txns) {
      const tid = b.beginTxn(sid, t.id, t.aborted === true ? TXN_ABORTED : TXN_COMMITTED, ++line);
      for (const o of t.ops) {
        switch (o[0]) {
          case 'r': b.read(tid, o[1], o[2], line); break;
          case 'w': b.write(tid, o[1], o[2], line); break;
          case 'insert': b.insert(tid, o[1], o[2], line); break;
          case 'delete': b.delete(tid, o[1], line); break;
          case 'select': b.select(tid, o[1], o[2], o[3], line); break;
          case 'count': b.count(tid, o[1], o[2], o[3], line); break;
        }
      }
    }
  }
  return b.build();
}
