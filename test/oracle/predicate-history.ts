/**
 * The predicate oracle's own description of a history (issue 22): relations, inserts, deletes,
 * predicate selects and counts beside reads and writes, with keys and values as written.
 *
 * Takes: nothing (types, and one writer). Gives: `PredHistory`, what the generator
 * (test/support/gen-predicates.ts) makes and the oracle (brute-force-predicates.ts) reads, and
 * `predHistoryJsonl(h)`, the history as PolySI JSON Lines (docs/formats.md, "Predicates";
 * /work/notes/contract.md), which is how the real checker receives it. The oracle never sees a
 * `History` built by src/, so neither the parser nor the interning is shared with it.
 * Invariants (the generator keeps them; the oracle checks them): a (key, value) pair is written by
 * at most one op of the whole history; relation keys are integers and belong to one relation;
 * txns are listed in session order (a session's txns in the order they ran).
 */

export type Scalar = number | string;

export type PredOp =
  /** Read of a key: `null` is the initial state (for a relation key: the row is absent). */
  | { op: 'r'; key: Scalar; value: Scalar | null }
  | { op: 'w'; key: Scalar; value: Scalar }
  | { op: 'insert'; key: Scalar; value: Scalar }
  | { op: 'delete'; key: Scalar }
  /** Predicate read over relation `rel`: the rows returned (key, value), in the order returned. */
  | { op: 'select'; rel: string; pred: string; rows: [Scalar, Scalar][] }
  | { op: 'count'; rel: string; pred: string; n: number };

export type PredStatus = 'committed' | 'aborted' | 'unknown';

export interface PredTxn {
  session: string;
  status: PredStatus;
  ops: PredOp[];
}

export interface PredHistory {
  /** Relation name -> its keys (rows), each absent until inserted. */
  relations: Record<string, Scalar[]>;
  txns: PredTxn[];
}

/** The history as JSON Lines: a header with the sessions and relations, then one txn per line (`T1`, `T2`, ...). */
export function predHistoryJsonl(h: PredHistory): string {
  const sessions = [...new Set(h.txns.map((t) => t.session))];
  const lines = [JSON.stringify({ format: 'polysi-history', version: 1, sessions, relations: h.relations })];
  h.txns.forEach((t, i) => {
    const ops = t.ops.map((o) => {
      switch (o.op) {
        case 'r': case 'w': case 'insert': return [o.op, o.key, o.value];
        case 'delete': return ['delete', o.key];
        case 'select': return ['select', o.rel, o.pred, o.rows];
        case 'count': return ['count', o.rel, o.pred, o.n];
      }
    });
    lines.push(JSON.stringify({ session: t.session, txn: `T${i + 1}`, status: t.status, ops }));
  });
  return lines.join('\n') + '\n';
}

/** One line per txn, for failure messages: `T1 s1 committed: insert(1,5) select(R, value % 2 = 0)->[(1,5)]`. */
export function predHistoryText(h: PredHistory): string {
  const op = (o: PredOp): string => {
    switch (o.op) {
      case 'r': return `r(${o.key},${o.value === null ? 'null' : JSON.stringify(o.value)})`;
      case 'w': case 'insert': return `${o.op}(${o.key},${JSON.stringify(o.value)})`;
      case 'delete': return `delete(${o.key})`;
      case 'select': return `select(${o.rel}, ${o.pred})->[${o.rows.map(([k, v]) => `(${k},${JSON.stringify(v)})`).join(' ')}]`;
      case 'count': return `count(${o.rel}, ${o.pred})->${o.n}`;
    }
  };
  return [`relations ${JSON.stringify(h.relations)}`, ...h.txns.map((t, i) => `T${i + 1} ${t.session} ${t.status}: ${t.ops.map(op).join(' ')}`)].join('\n');
}

/**
 * Whether some txn's predicate read (a select that did not return the row, or a count) observed
 * a row that the same txn writes only later: the case where Adya's reading of a version set and
 * a plain item read could part (docs/levels.md, "Predicates", "A predicate read and its
 * transaction's later write"). Tests use it to show that they cover that case on purpose.
 */
export function readsBeforeOwnWrite(h: PredHistory): boolean {
  return h.txns.some((t) => t.ops.some((o, i) => {
    if (o.op !== 'select' && o.op !== 'count') return false;
    const returned = new Set(o.op === 'select' ? o.rows.map(([k]) => String(k)) : []);
    const written = (ops: PredOp[]) => new Set(ops.flatMap((x) => (x.op === 'w' || x.op === 'insert' || x.op === 'delete' ? [String(x.key)] : [])));
    const before = written(t.ops.slice(0, i)), after = written(t.ops.slice(i + 1));
    return (h.relations[o.rel] ?? []).some((k) => !returned.has(String(k)) && !before.has(String(k)) && after.has(String(k)));
  }));
}
