/**
 * Renders a History as PolySI-like text for failure messages, so a failing random case can be
 * read, pasted into a file, and replayed.
 *
 * Takes: a History. Gives: one comment line per transaction (label, session, outcome, ops)
 * followed by the operations as PolySI lines `r(key,value,session,txn)` / `w(...)`, with the
 * initial value printed as 0. PolySI's format has no outcomes, so they live in the comments.
 * `parsePolySiText` reads such text back (all transactions committed).
 */

import { HistoryBuilder } from '../../src/history/builder.ts';
import {
  describeOp,
  INITIAL_VALUE,
  OP_READ,
  OP_WRITE,
  TXN_ABORTED,
  TXN_COMMITTED,
  txnLabel,
  valueLabel,
  type History,
} from '../../src/history/model.ts';

export function statusName(status: number): string {
  return status === TXN_COMMITTED ? 'committed' : status === TXN_ABORTED ? 'ABORTED' : 'UNKNOWN';
}

export function renderHistory(h: History): string {
  const lines: string[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    const ops: string[] = [];
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) ops.push(describeOp(h, op));
    lines.push(
      `# txn ${t} (label ${txnLabel(h, t)}, session ${h.sessionLabels[h.txnSession[t]!]}, ` +
        `${statusName(h.txnStatus[t]!)}): ${ops.join(' ')}`,
    );
  }
  for (let t = 0; t < h.txnCount; t++) {
    const session = h.sessionLabels[h.txnSession[t]!];
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const kind = h.opKind[op]!;
      if (kind !== OP_READ && kind !== OP_WRITE) {
        lines.push(`# list op: ${describeOp(h, op)}`);
        continue;
      }
      const v = h.opValue[op]!;
      const value = v === INITIAL_VALUE ? '0' : valueLabel(h, v);
      lines.push(`${kind === OP_READ ? 'r' : 'w'}(${h.keyLabels[h.opKey[op]!]},${value},${session},${txnLabel(h, t)})`);
    }
  }
  return lines.join('\n');
}

/**
 * PolySI's text format: one op a line, `r(key,value,session,txn)` / `w(...)`, value 0 = the
 * initial value, transactions committed, sessions and txns in order of first appearance.
 * Lines starting with `#` (as `renderHistory` writes them) and blank lines are skipped.
 */
export function parsePolySiText(text: string, source: string): History {
  const b = new HistoryBuilder(source);
  const txnIds = new Map<string, number>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^([rw])\((-?\d+),(-?\d+),(-?\d+),(-?\d+)\)$/.exec(line);
    if (m === null) throw new Error(`${source}:${i + 1}: bad line ${JSON.stringify(line)}`);
    const [, kind, key, value, session, txn] = m as unknown as [string, string, string, string, string, string];
    let t = txnIds.get(txn);
    if (t === undefined) {
      t = b.beginTxn(b.session(session), txn, undefined, i + 1);
      txnIds.set(txn, t);
    }
    const v = Number(value) === 0 ? null : Number(value);
    if (kind === 'r') b.read(t, Number(key), v, i + 1);
    else b.write(t, Number(key), v, i + 1);
  });
  return b.build();
}
