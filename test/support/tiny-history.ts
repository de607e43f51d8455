/**
 * A tiny history language for hand-written test cases.
 *
 * Takes: a list of transactions, each `{ s: session, ops: 'r(x,0) w(x,1)', status? }`, in
 * session order per session. Gives: a History (txn labels T1, T2, ... in list order).
 * In `ops`, a value of 0 is the initial value; keys are names, other values are numbers.
 * List-append keys: `a(l,3)` appends 3 to l, `r(l,[1,3])` reads the list (`r(l,[])`: empty).
 */

import { HistoryBuilder } from '../../src/history/builder.ts';
import {
  TXN_ABORTED,
  TXN_COMMITTED,
  TXN_UNKNOWN,
  type History,
  type TxnStatus,
} from '../../src/history/model.ts';

export interface TinyTxn {
  s: number | string;
  ops: string;
  status?: 'committed' | 'aborted' | 'unknown';
}

const STATUS: Record<NonNullable<TinyTxn['status']>, TxnStatus> = {
  committed: TXN_COMMITTED,
  aborted: TXN_ABORTED,
  unknown: TXN_UNKNOWN,
};

const OP_RE = /^([rwa])\(\s*([^,\s)]+)\s*,\s*(-?\d+|\[[-\d,]*\])\s*\)$/;

export function tinyHistory(txns: readonly TinyTxn[]): History {
  const b = new HistoryBuilder('<tiny>');
  txns.forEach((t, i) => {
    const id = b.beginTxn(b.session(t.s), `T${i + 1}`, STATUS[t.status ?? 'committed']);
    for (const word of t.ops.trim().split(/\s+/).filter((w) => w !== '')) {
      const m = OP_RE.exec(word);
      if (m === null) throw new Error(`tinyHistory: bad op ${JSON.stringify(word)} in T${i + 1}`);
      if (m[3]!.startsWith('[')) {
        if (m[1] !== 'r') throw new Error(`tinyHistory: only reads take a list, in ${JSON.stringify(word)} of T${i + 1}`);
        b.readList(id, m[2]!, m[3]!.slice(1, -1).split(',').filter((e) => e !== '').map(Number));
        continue;
      }
      const value = Number(m[3]) === 0 ? null : Number(m[3]);
      if (m[1] === 'r') b.read(id, m[2]!, value);
      else if (m[1] === 'a') b.append(id, m[2]!, value);
      else b.write(id, m[2]!, value);
    }
  });
  return b.build();
}
