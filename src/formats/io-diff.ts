/**
 * Comparing two Histories, for round-trip checks (tests, `convert` verification).
 *
 * Takes: two Histories. Gives: null if they are the same history, else a sentence naming the
 * first difference. "The same" means: same sessions (labels, order), same txns (labels, order,
 * sessions, statuses, nodes when both have them), same ops (kind, key, value or list) in the same order. Source names and
 * locations are not compared (a converted file has other line numbers), and neither are the
 * interned ids themselves unless `exact` is set: a writer may meet values in another order than
 * the original parser did. Without `exact`, keys and values are compared by label AND by
 * identity, i.e. the id maps between the two Histories must be one-to-one.
 */

import type { History } from '../history/model.ts';
import { OP_READ_LIST, txnNodeLabel } from '../history/model.ts';

export function diffHistories(a: History, b: History, exact = false): string | null {
  const arr = (name: string, x: ArrayLike<unknown>, y: ArrayLike<unknown>): string | null => {
    if (x.length !== y.length) return `${name}: length ${x.length} vs ${y.length}`;
    for (let i = 0; i < x.length; i++) {
      if (x[i] !== y[i]) return `${name}[${i}]: ${String(x[i])} vs ${String(y[i])}`;
    }
    return null;
  };
  const valuesA = a.valueLabelTable.toArray(), valuesB = b.valueLabelTable.toArray();
  const structural =
    arr('sessionLabels', a.sessionLabels, b.sessionLabels) ??
    arr('sessionTxnStart', a.sessionTxnStart, b.sessionTxnStart) ??
    arr('txnLabels', a.txnLabelTable.toArray(), b.txnLabelTable.toArray()) ??
    arr('txnSession', a.txnSession, b.txnSession) ??
    arr('txnStatus', a.txnStatus, b.txnStatus) ??
    arr('txnOpStart', a.txnOpStart, b.txnOpStart) ??
    arr('opKind', a.opKind, b.opKind);
  if (structural !== null) return structural;
  const nodes = diffNodes(a, b);
  if (nodes !== null) return nodes;
  if (exact) {
    return arr('keyLabels', a.keyLabels, b.keyLabels) ??
      arr('valueLabels', valuesA, valuesB) ??
      arr('opKey', a.opKey, b.opKey) ??
      arr('opValue', a.opValue, b.opValue) ??
      arr('listStart', a.listStart, b.listStart) ??
      arr('listElems', a.listElems, b.listElems);
  }

  // Id correspondences, checked both ways so that two ids never merge or split.
  const keyAB = new Map<number, number>(), keyBA = new Map<number, number>();
  const valAB = new Map<number, number>(), valBA = new Map<number, number>();
  const match = (what: string, labelsA: readonly string[], labelsB: readonly string[],
    ab: Map<number, number>, ba: Map<number, number>, x: number, y: number, op: number): string | null => {
    if (labelsA[x] !== labelsB[y]) return `op ${op}: ${what} ${labelsA[x]} vs ${labelsB[y]}`;
    const seenY = ab.get(x), seenX = ba.get(y);
    if ((seenY !== undefined && seenY !== y) || (seenX !== undefined && seenX !== x)) {
      return `op ${op}: ${what} ${labelsA[x]} is not the same ${what} in both histories`;
    }
    ab.set(x, y);
    ba.set(y, x);
    return null;
  };
  // The initial value is special in both: it must correspond to itself.
  valAB.set(0, 0);
  valBA.set(0, 0);
  for (let op = 0; op < a.opCount; op++) {
    const d = match('key', a.keyLabels, b.keyLabels, keyAB, keyBA, a.opKey[op]!, b.opKey[op]!, op);
    if (d !== null) return d;
    const va = a.opValue[op]!, vb = b.opValue[op]!;
    if (a.opKind[op] === OP_READ_LIST) {
      const la = a.listStart[va]!, na = a.listStart[va + 1]! - la;
      const lb = b.listStart[vb]!, nb = b.listStart[vb + 1]! - lb;
      if (na !== nb) return `op ${op}: list of ${na} vs ${nb} elements`;
      for (let i = 0; i < na; i++) {
        const e = match('value', valuesA, valuesB, valAB, valBA, a.listElems[la + i]!, b.listElems[lb + i]!, op);
        if (e !== null) return e;
      }
    } else {
      const e = match('value', valuesA, valuesB, valAB, valBA, va, vb, op);
      if (e !== null) return e;
    }
  }
  return null;
}

/**
 * The first txn whose node (by label; none = null) differs between a and b, or null. Only when
 * both record nodes: a format that cannot hold them drops them all (convert says so).
 */
function diffNodes(a: History, b: History): string | null {
  if (a.txnNode === undefined || b.txnNode === undefined) return null;
  for (let t = 0; t < a.txnCount; t++) {
    const x = txnNodeLabel(a, t), y = txnNodeLabel(b, t);
    if (x !== y) return `txnNode[${t}]: ${x ?? 'none'} vs ${y ?? 'none'}`;
  }
  return null;
}
