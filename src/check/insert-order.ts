/**
 * An insert's precondition on a witness's version order (issue 22; docs/levels.md, "Predicates").
 *
 * Takes: a History with relations and, for `insertsFollowAbsent`, a witness position per txn
 * (check/index.ts's checkWithWitness: the version order of every key follows it). Gives:
 * `insertOrderMatters(h)`, whether some insert's precondition (the row absent just before it in
 * its version order) depends on that order: a row inserted by one txn and left present by another
 * (the two-inserts-no-delete case is duplicate-insert, found without an order); and
 * `insertsFollowAbsent(h, position)`, null when under that order every insert of a txn that did not
 * abort follows the initial (absent) version or a delete, else why not.
 * Why: the key-value check of the lowered history orders versions freely, so its `valid` can rest
 * on an order that puts an insert right after a present version, which no level allows. A valid
 * verdict stands only when its witness keeps the precondition; otherwise the caller says unknown.
 * Linear in the ops plus a sort of each row's writers.
 */

import { INITIAL_VALUE, OP_DELETE, OP_INSERT, OP_READ, OP_WRITE, TXN_ABORTED, TXN_COMMITTED, type History } from '../history/model.ts';

/** Per relation row, its writers that did not abort: txn, whether its last write leaves the row present, whether its first is an insert. */
function rowWriters(h: History, status: Uint8Array = h.txnStatus): Map<number, { txn: number; present: boolean; inserts: boolean }[]> {
  const pt = h.predicates!;
  const out = new Map<number, { txn: number; present: boolean; inserts: boolean }[]>();
  for (let t = 0; t < h.txnCount; t++) {
    if (status[t] === TXN_ABORTED) continue;
    const mine = new Map<number, { txn: number; present: boolean; inserts: boolean }>();
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const kind = h.opKind[op], k = h.opKey[op]!;
      if ((kind !== OP_WRITE && kind !== OP_INSERT && kind !== OP_DELETE) || pt.keyRelation[k]! < 0) continue;
      let w = mine.get(k);
      if (w === undefined) {
        w = { txn: t, present: false, inserts: kind === OP_INSERT };
        mine.set(k, w);
        if (!out.has(k)) out.set(k, []);
        out.get(k)!.push(w);
      }
      w.present = kind !== OP_DELETE;
    }
  }
  return out;
}

export function insertOrderMatters(h: History): boolean {
  if (h.predicates === undefined) return false;
  for (const ws of rowWriters(h).values()) {
    if (ws.some((a) => a.inserts && ws.some((b) => b !== a && b.present))) return true;
  }
  return false;
}

/**
 * `status`: the outcomes the witness was found with (the lowering makes a contradicting unknown
 * txn aborted). An unknown txn may have been dropped by the check (treated as aborted), so its
 * delete is not trusted to make room for an insert: the answer is then "not shown".
 */
export function insertsFollowAbsent(h: History, position: Int32Array, status: Uint8Array = h.txnStatus): string | null {
  for (const [k, ws] of rowWriters(h, status)) {
    ws.sort((a, b) => position[a.txn]! - position[b.txn]!);
    for (let i = 1; i < ws.length; i++) {
      const prev = ws[i - 1]!;
      if (ws[i]!.inserts && (prev.present || status[prev.txn] !== TXN_COMMITTED)) {
        return `in the witness's version order of row ${h.keyLabels[k]}, an insert follows a present version`;
      }
    }
  }
  return null;
}

/**
 * The lowered history `low` with, before each insert that is its txn's first write of the row, an
 * item read of the absent version that precedes the insert under `position` (the initial value, or
 * the tombstone of the delete just before it); null when a present version precedes some insert
 * there. A read of a version followed by a write of the same row leaves no room for another
 * version between them at any polygraph level but PC (a lost update): so when this history
 * satisfies the level, so does the input with every insert after an absent version.
 */
export function withInsertReads(h: History, low: { history: History; origin: Int32Array; tombstoneOf: Int32Array }, position: Int32Array): History | null {
  const status = low.history.txnStatus;
  // The absent value each first insert reads, by input op.
  const readOf = new Map<number, number>();
  const writers = new Map<number, { txn: number; last: number; first: number }[]>();
  const pt = h.predicates!;
  for (let t = 0; t < h.txnCount; t++) {
    if (status[t] === TXN_ABORTED) continue;
    const mine = new Map<number, { txn: number; last: number; first: number }>();
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const kind = h.opKind[op], k = h.opKey[op]!;
      if ((kind !== OP_WRITE && kind !== OP_INSERT && kind !== OP_DELETE) || pt.keyRelation[k]! < 0) continue;
      const w = mine.get(k);
      if (w === undefined) {
        const x = { txn: t, last: op, first: op };
        mine.set(k, x);
        if (!writers.has(k)) writers.set(k, []);
        writers.get(k)!.push(x);
      } else w.last = op;
    }
  }
  for (const ws of writers.values()) {
    ws.sort((a, b) => position[a.txn]! - position[b.txn]!);
    for (let i = 0; i < ws.length; i++) {
      if (h.opKind[ws[i]!.first] !== OP_INSERT) continue;
      const prev = ws[i - 1];
      if (prev === undefined) { readOf.set(ws[i]!.first, INITIAL_VALUE); continue; }
      if (h.opKind[prev.last] !== OP_DELETE || status[prev.txn] !== TXN_COMMITTED) return null;
      readOf.set(ws[i]!.first, low.tombstoneOf[prev.last]!);
    }
  }
  const g = low.history;
  const n = g.opCount + readOf.size;
  const opKind = new Uint8Array(n), opKey = new Int32Array(n), opValue = new Int32Array(n), opLoc = new Float64Array(n);
  const txnOpStart = new Int32Array(g.txnCount + 1);
  let j = 0;
  for (let t = 0; t < g.txnCount; t++) {
    txnOpStart[t] = j;
    for (let op = g.txnOpStart[t]!; op < g.txnOpStart[t + 1]!; op++) {
      const v = readOf.get(low.origin[op]!);
      if (v !== undefined && g.opKind[op] === OP_WRITE) {
        opKind[j] = OP_READ; opKey[j] = g.opKey[op]!; opValue[j] = v; opLoc[j] = g.opLoc[op]!; j++;
      }
      opKind[j] = g.opKind[op]!; opKey[j] = g.opKey[op]!; opValue[j] = g.opValue[op]!; opLoc[j] = g.opLoc[op]!; j++;
    }
  }
  txnOpStart[g.txnCount] = j;
  return { ...g, opCount: j, opKind: opKind.subarray(0, j), opKey: opKey.subarray(0, j), opValue: opValue.subarray(0, j), opLoc: opLoc.subarray(0, j), txnOpStart };
}
