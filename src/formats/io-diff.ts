/**
 * Comparing two Histories, for round-trip checks (tests, `convert` verification).
 *
 * Takes: two Histories. Gives: null if they are the same history, else a sentence naming the
 * first difference. "The same" means: same sessions (labels, order), same txns (labels, order,
 * sessions, statuses), same ops (kind, key, value or list) in the same order. Source names and
 * locations are not compared (a converted file has other line numbers), and neither are the
 * interned ids themselves unless `exact` is set: a writer may meet values in another order than
 * the original parser did. Without `exact`, keys and values are compared by label AND by
 * identity, i.e. the id maps between the two Histories must be one-to-one. Relations (issue 22)
 * are compared by name and key labels, in relation order; a predicate read by relation, text as
 * written, count and result rows (keys and values as above).
 */

import type { History } from '../history/model.ts';
import { OP_COUNT, OP_READ_LIST, OP_SELECT } from '../history/model.ts';

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
  const relations = diffRelations(a, b, arr);
  if (relations !== null) return relations;
  if (exact) {
    const pa = a.predicates, pb = b.predicates;
    const preds = pa === undefined || pb === undefined ? null :
      arr('predicates.keyRelation', pa.keyRelation, pb.keyRelation) ??
      arr('predicates.relKeys', pa.relKeys, pb.relKeys) ??
      arr('predicates.resultStart', pa.resultStart, pb.resultStart) ??
      arr('predicates.resultKeys', pa.resultKeys, pb.resultKeys) ??
      arr('predicates.resultValues', pa.resultValues, pb.resultValues);
    if (preds !== null) return preds;
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
    const kind = a.opKind[op]!;
    if (kind === OP_SELECT || kind === OP_COUNT) {
      // Relations compare equal in order (diffRelations): the relation id is the same in both.
      const pa = a.predicates!, pb = b.predicates!, x = a.opValue[op]!, y = b.opValue[op]!;
      if (a.opKey[op] !== b.opKey[op]) return `op ${op}: relation ${pa.relationLabels[a.opKey[op]!]} vs ${pb.relationLabels[b.opKey[op]!]}`;
      if (pa.text[x] !== pb.text[y]) return `op ${op}: predicate ${pa.text[x]} vs ${pb.text[y]}`;
      if (pa.count[x] !== pb.count[y]) return `op ${op}: count ${pa.count[x]} vs ${pb.count[y]}`;
      const la = pa.resultStart[x]!, na = pa.resultStart[x + 1]! - la;
      const lb = pb.resultStart[y]!, nb = pb.resultStart[y + 1]! - lb;
      if (na !== nb) return `op ${op}: select of ${na} vs ${nb} rows`;
      for (let i = 0; i < na; i++) {
        const e = match('key', a.keyLabels, b.keyLabels, keyAB, keyBA, pa.resultKeys[la + i]!, pb.resultKeys[lb + i]!, op) ??
          match('value', valuesA, valuesB, valAB, valBA, pa.resultValues[la + i]!, pb.resultValues[lb + i]!, op);
        if (e !== null) return e;
      }
      continue;
    }
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
 * Relations: both histories have them or neither; the same names in the same order, each with
 * the same key labels (as sets: relKeys is in key-id order, which a writer may change), and the
 * same predicate text per read.
 */
function diffRelations(a: History, b: History, arr: (name: string, x: ArrayLike<unknown>, y: ArrayLike<unknown>) => string | null): string | null {
  const pa = a.predicates, pb = b.predicates;
  if (pa === undefined || pb === undefined) {
    return pa === pb ? null : `predicates: ${pa === undefined ? 'none' : 'relations'} vs ${pb === undefined ? 'none' : 'relations'}`;
  }
  const rels = arr('relations', pa.relationLabels, pb.relationLabels);
  if (rels !== null) return rels;
  for (let r = 0; r < pa.relationLabels.length; r++) {
    const keysOf = (h: History, t: NonNullable<History['predicates']>): string[] =>
      Array.from(t.relKeys.subarray(t.relStart[r], t.relStart[r + 1]), (k) => h.keyLabels[k]!).sort();
    const d = arr(`keys of relation ${pa.relationLabels[r]}`, keysOf(a, pa), keysOf(b, pb));
    if (d !== null) return d;
  }
  return null;
}
