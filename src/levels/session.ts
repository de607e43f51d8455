/**
 * Walking sessions in order with, per key, the last committed writer seen so far in the session:
 * what read committed and read atomic need of session order (only the last earlier writer of x
 * matters, since every earlier one precedes it in SO).
 *
 * Takes: a LevelBase. Gives: `forEachSessionTxn` (included txns, session by session, in order)
 * and `SessionWriters` (stamped per-key table; no per-session allocation).
 */

import { TXN_COMMITTED } from '../history/model.ts';
import type { LevelBase } from './base.ts';

export class SessionWriters {
  private readonly writer: Int32Array;
  private readonly stamp: Int32Array;
  private session = -1;

  constructor(private readonly b: LevelBase) {
    const nKeys = b.v.history.keyLabels.length;
    this.writer = new Int32Array(nKeys);
    this.stamp = new Int32Array(nKeys).fill(-1);
  }

  enter(session: number): void {
    this.session = session;
  }

  /** The last committed txn of the current session, before the current one, that writes x; -1 if none. */
  last(x: number): number {
    return this.stamp[x] === this.session ? this.writer[x]! : -1;
  }

  /** t is finished: if it committed, its writes are now the session's last. */
  done(t: number): void {
    const b = this.b;
    if (b.v.history.txnStatus[t] !== TXN_COMMITTED) return;
    for (let k = b.writeStart[t]!; k < b.writeStart[t + 1]!; k++) {
      this.writer[b.writeKey[k]!] = t;
      this.stamp[b.writeKey[k]!] = this.session;
    }
  }
}

/**
 * Calls `visit` on every included txn, session by session in session order, after entering its
 * session in `sw` (the visitor calls `sw.done(t)`); stops as soon as `visit` returns false.
 */
export function forEachSessionTxn(b: LevelBase, visit: (t: number) => boolean, sw?: SessionWriters): boolean {
  const h = b.v.history;
  for (let s = 0; s < h.sessionCount; s++) {
    sw?.enter(s);
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      if (b.v.included[t] === 1 && !visit(t)) return false;
    }
  }
  return true;
}
