/**
 * Predicate reads as item reads of the versions they observed (issue 22; docs/levels.md,
 * "Predicates").
 *
 * Takes: a History with relations (`History.predicates`): inserts, deletes, selects, counts and
 * reads of absent rows. Gives: `lowerPredicates(h, mode, pick?)`, a key-value History over the
 * same sessions and transactions (same txn ids; ops renumbered, `origin` maps each back) in which
 * - an insert is a write, a delete a write of a fresh *tombstone* value (an absent version of its
 *   own, so that values stay unique per key);
 * - a row a select returned is an item read of that version (a row that does not match the
 *   select's predicate is the anomaly `predicate-mismatch`, and is left out);
 * - a row of the relation a select did not return is an *observation*: the read saw some version
 *   of the row that does not match (Adya's version set holds one version of every row). Its
 *   candidates are the initial (absent) version, other transactions' deletes of the row, and
 *   their final writes of values that do not match. With the initial version the only one, the
 *   observation is *forced* and becomes an item read of it (flagged `predicate`: its
 *   anti-dependencies are predicate ones); otherwise it is a *choice*, left out (mode
 *   'necessary') or read from the version `pick` names (mode 'picked');
 * - a count of 0 is a select that returned nothing; another count is a choice per row (mode
 *   'picked' only; a count larger than the rows that could match is `predicate-mismatch`);
 * - a read of an absent row (`["r", k, null]`) is an observation whose candidates are the
 *   initial version and other transactions' deletes of k (an item read, not a predicate one);
 * - a row the transaction itself wrote earlier is read from that write (INT if it contradicts).
 * Mode 'item-only' leaves every observation out (forced or not): repeatable read's necessary
 * check, whose cycles must not rest on predicate anti-dependencies.
 *
 * Invariant: the choices are numbered in the same order in every mode, so that a `pick` made from
 * one lowering applies to another. Linear in the ops plus, per observation, its row's writers
 * until one candidate other than the initial version is found.
 */

import {
  INITIAL_VALUE, OP_APPEND, OP_COUNT, OP_DELETE, OP_INSERT, OP_READ, OP_READ_LIST, OP_SELECT, OP_WRITE,
  TXN_ABORTED, TXN_COMMITTED, opWhere, txnLabel, valueLabel, type History, type PredicateTable,
} from '../history/model.ts';
import { matches, type Scalar } from '../history/predicate.ts';
import { LabelTable } from '../history/labels.ts';
import { rowKey, rowValue } from '../history/predicate-table.ts';
import { GrowableFloat64, GrowableInt32 } from '../util/growable.ts';
import type { NonCycleAnomaly } from '../result/types.ts';

export type LowerMode = 'necessary' | 'item-only' | 'picked';

/** What a choice's row observed, as far as the history says. */
export type ChoiceWant = 'nomatch' | 'absent' | 'any';

/** An undecided observation: txn `txn`'s op `op` saw some version of row `key` of class `want`. */
export interface Choice {
  txn: number;
  op: number;
  key: number;
  want: ChoiceWant;
  /** For a count's rows: the predicate read (rows of one count share it), else -1. */
  count: number;
}

export interface Lowered {
  history: History;
  /** `origin[op]`: the op of the input history that lowered op `op` comes from. */
  origin: Int32Array;
  /** `predicate[op]` = 1: op is an observation of a predicate read (its anti-dependencies are predicate ones). */
  predicate: Uint8Array;
  /** The observations left undecided (mode 'necessary' and 'item-only'), in a fixed order. */
  choices: Choice[];
  /** Observations left out of the lowered history: the choices, and in mode 'item-only' the forced ones too. */
  leftOut: number;
  /** predicate-mismatch, duplicate-insert and INT of a predicate read against the txn's own write (input op ids). */
  anomalies: NonCycleAnomaly[];
  /**
   * predicate-mismatch of counts that only a dirty version explains (a row some other txn wrote
   * matching, but aborted or overwrote in the same txn): violations except at read uncommitted,
   * which allows reading those (G1a, G1b); the caller adds them to `anomalies` at other levels.
   */
  dirtyCounts: NonCycleAnomaly[];
  /** Value ids of the tombstones: `tombstoneOf[op]` for each delete op of the input (else -1). */
  tombstoneOf: Int32Array;
}

/** A version a pick names: a value id of the lowered history (INITIAL_VALUE, a tombstone, or a written value). */
export type Pick = (choice: number, c: Choice) => number;

/**
 * Per relation key, the versions other transactions may have installed: each non-aborted txn's
 * final write, insert or delete of the key, as (txn, lowered value id).
 */
export interface RowVersions {
  start: Int32Array;
  txn: Int32Array;
  value: Int32Array;
}

/**
 * `inserts` (constrainedInserts): give each of these inserts, when it is its txn's first write of
 * the row, a read of the absent version it overwrote (an observation over the initial version
 * and other txns' deletes) just before its write. At the levels that forbid a read-modify-write
 * to lose an update (RW then WW back: SER, SI, PSI, RR, PL-3, PL-SI and the strict ones) that
 * read holds the insert right after that absent version in the row's version order, which is
 * exactly its precondition; elsewhere it would say more, and the caller passes null.
 */
export function lowerPredicates(h: History, mode: LowerMode, pick?: Pick, inserts: Map<number, number[]> | null = null): Lowered {
  const pt = h.predicates;
  if (pt === undefined) throw new Error('internal error: lowerPredicates on a history without relations');
  const nKeys = h.keyLabels.length;
  const tombstoneOf = new Int32Array(h.opCount).fill(-1);
  let values = h.valueCount;
  for (let op = 0; op < h.opCount; op++) if (h.opKind[op] === OP_DELETE) tombstoneOf[op] = values++;
  const keyScalar: (Scalar | undefined)[] = new Array(nKeys);
  const valueScalar: (Scalar | null | undefined)[] = new Array(values);
  const keyOf = (k: number): Scalar => (keyScalar[k] ??= rowKey(h, k));
  // A tombstone (or the initial value) is the absent row: null, which no predicate matches.
  const valueOf = (v: number): Scalar | null => {
    if (v === INITIAL_VALUE || v >= h.valueCount) return null;
    let s = valueScalar[v];
    if (s === undefined) s = valueScalar[v] = rowValue(h, v);
    return s;
  };
  const rows = rowVersions(h, pt, tombstoneOf);
  const anomalies: NonCycleAnomaly[] = duplicateInserts(h, pt);
  const dirtyCounts: NonCycleAnomaly[] = [];
  let rowWrites: Map<number, number[]> | undefined;

  const kind = new GrowableInt32(h.opCount), key = new GrowableInt32(h.opCount), value = new GrowableInt32(h.opCount);
  const loc = new GrowableFloat64(h.opCount), origin = new GrowableInt32(h.opCount), pred = new GrowableInt32(h.opCount);
  const txnOpStart = new Int32Array(h.txnCount + 1);
  const choices: Choice[] = [];
  let leftOut = 0;
  const emit = (k: number, kk: number, v: number, op: number, isPred: number) => {
    kind.push(k); key.push(kk); value.push(v); loc.push(h.opLoc[op]!); origin.push(op); pred.push(isPred);
  };
  // The txn's own latest version of each key so far (valid while ownStamp[key] === t).
  const ownStamp = new Int32Array(nKeys).fill(-1), ownValue = new Int32Array(nKeys);
  // The rows a select returned (valid while retStamp[key] === op).
  const retStamp = new Int32Array(nKeys).fill(-1), retValue = new Int32Array(nKeys);

  const classes = new VersionClasses(h, pt, rows, keyOf, valueOf);

  /** A row `k` that op (of txn t) saw in some version of class `want` (`pr`: its predicate read, or -1): forced, own, or a choice. */
  const observe = (t: number, op: number, k: number, want: ChoiceWant, pr: number, count: number, isPred: number) => {
    const p = pr < 0 ? null : pt.parsed[pr]!;
    if (ownStamp[k] === t) {
      const own = ownValue[k]!;
      const ok = want === 'any' || (want === 'absent' ? valueOf(own) === null : p === null || !matches(p, keyOf(k), valueOf(own)));
      if (!ok) anomalies.push(ownMissed(h, t, op, k, own));
      return;
    }
    if (want !== 'any' && classes.onlyInitial(k, t, want, pr)) {
      if (mode !== 'item-only' || isPred === 0) emit(OP_READ, k, INITIAL_VALUE, op, isPred);
      else leftOut++;
      return;
    }
    const c: Choice = { txn: t, op, key: k, want, count };
    const i = choices.length;
    choices.push(c);
    if (mode !== 'picked') leftOut++;
    if (mode === 'picked' && pick !== undefined) {
      const v = pick(i, c);
      if (v >= 0) emit(OP_READ, k, v, op, isPred);
    }
  };

  for (let t = 0; t < h.txnCount; t++) {
    txnOpStart[t] = kind.length;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const k = h.opKey[op]!, v = h.opValue[op]!;
      switch (h.opKind[op]) {
        case OP_READ:
          if (v === INITIAL_VALUE && pt.keyRelation[k]! >= 0) observe(t, op, k, 'absent', -1, -1, 0);
          else emit(OP_READ, k, v, op, 0);
          break;
        case OP_WRITE: case OP_INSERT:
          if (inserts !== null && h.opKind[op] === OP_INSERT && ownStamp[k] !== t && inserts.get(k)?.includes(t) === true) observe(t, op, k, 'absent', -1, -1, 0);
          emit(OP_WRITE, k, v, op, 0);
          ownStamp[k] = t; ownValue[k] = v;
          break;
        case OP_DELETE:
          emit(OP_WRITE, k, tombstoneOf[op]!, op, 0);
          ownStamp[k] = t; ownValue[k] = tombstoneOf[op]!;
          break;
        case OP_APPEND: case OP_READ_LIST:
          emit(h.opKind[op]!, k, v, op, 0);
          break;
        case OP_SELECT:
          lowerSelect(t, op, k, v);
          break;
        case OP_COUNT:
          lowerCount(t, op, k, v);
          break;
      }
    }
  }
  txnOpStart[h.txnCount] = kind.length;

  function lowerSelect(t: number, op: number, r: number, p: number): void {
    const P = pt!.parsed[p]!;
    for (let i = pt!.resultStart[p]!; i < pt!.resultStart[p + 1]!; i++) {
      const k = pt!.resultKeys[i]!, v = pt!.resultValues[i]!;
      retStamp[k] = op; retValue[k] = v;
    }
    for (let j = pt!.relStart[r]!; j < pt!.relStart[r + 1]!; j++) {
      const k = pt!.relKeys[j]!;
      if (retStamp[k] === op) {
        const v = retValue[k]!;
        if (!matches(P, keyOf(k), valueOf(v))) {
          anomalies.push(mismatch(h, t, op, k, `returned row ${h.keyLabels[k]}=${valueLabel(h, v)}, which does not match its predicate \`${pt!.text[p]}\``));
          continue;
        }
        // Read from the txn's own write or another's: validation resolves it (INT if it contradicts).
        emit(OP_READ, k, v, op, 0);
      } else {
        observe(t, op, k, 'nomatch', p, -1, 1);
      }
    }
  }

  function lowerCount(t: number, op: number, r: number, p: number): void {
    const P = pt!.parsed[p]!, n = pt!.count[p]!;
    let possible = 0;
    for (let j = pt!.relStart[r]!; j < pt!.relStart[r + 1]!; j++) {
      const k = pt!.relKeys[j]!;
      if (ownStamp[k] === t ? matches(P, keyOf(k), valueOf(ownValue[k]!)) : classes.anyMatching(k, t, p)) possible++;
    }
    if (n > possible) {
      // Rows some txn ever wrote matching, whatever its outcome: what a dirty count may see.
      const written = (rowWrites ??= allRowWrites(h, pt!));
      const dirtyMatch = (k: number): boolean => {
        const l = written.get(k) ?? [];
        for (let i = 0; i < l.length; i += 2) if (l[i] !== t && matches(P, keyOf(k), valueOf(l[i + 1]!))) return true;
        return false;
      };
      let dirty = 0;
      for (let j = pt!.relStart[r]!; j < pt!.relStart[r + 1]!; j++) {
        const k = pt!.relKeys[j]!;
        if (ownStamp[k] === t ? matches(P, keyOf(k), valueOf(ownValue[k]!)) : dirtyMatch(k)) dirty++;
      }
      (n <= dirty ? dirtyCounts : anomalies).push(mismatch(h, t, op, -1, `counted ${n} rows matching \`${pt!.text[p]}\`, but at most ${possible} rows of ${pt!.relationLabels[r]} ever match it in a version it could see`));
      return;
    }
    for (let j = pt!.relStart[r]!; j < pt!.relStart[r + 1]!; j++) {
      const k = pt!.relKeys[j]!;
      if (n === 0) observe(t, op, k, 'nomatch', p, -1, 1);
      else if (ownStamp[k] !== t) observe(t, op, k, 'any', p, p, 1);
    }
  }

  const nOps = kind.length;
  const originOf = origin.toArray();
  const history: History = {
    ...h,
    predicates: undefined,
    opCount: nOps,
    txnOpStart,
    opKind: Uint8Array.from(kind.view()),
    opKey: key.toArray(),
    opValue: value.toArray(),
    opLoc: loc.toArray(),
    opStatement: originOf,
    valueCount: values,
    valueLabelTable: values === h.valueCount ? h.valueLabelTable : withTombstones(h, tombstoneOf, values),
  };
  delete (history as { predicates?: PredicateTable }).predicates;
  return { history, origin: originOf, predicate: Uint8Array.from(pred.view()), choices, leftOut, anomalies, dirtyCounts, tombstoneOf };
}

/** The value labels with one label per tombstone: `(deleted by T)`. */
function withTombstones(h: History, tombstoneOf: Int32Array, values: number): LabelTable {
  const labels = h.valueLabelTable.toArray();
  labels.length = values;
  let t = 0;
  for (let op = 0; op < h.opCount; op++) {
    while (op >= h.txnOpStart[t + 1]!) t++;
    const v = tombstoneOf[op]!;
    if (v >= 0) labels[v] = `(deleted by ${txnLabel(h, t)})`;
  }
  return LabelTable.of(labels);
}

/** Per relation key, the versions of it that non-aborted txns installed last (see RowVersions). */
export function rowVersions(h: History, pt: PredicateTable, tombstoneOf: Int32Array): RowVersions {
  const nKeys = h.keyLabels.length;
  const lastStamp = new Int32Array(nKeys).fill(-1), lastValue = new Int32Array(nKeys);
  const txn = new GrowableInt32(), key = new GrowableInt32(), value = new GrowableInt32();
  const touched: number[] = [];
  for (let t = 0; t < h.txnCount; t++) {
    if (h.txnStatus[t] === TXN_ABORTED) continue;
    touched.length = 0;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const kind = h.opKind[op]!, k = h.opKey[op]!;
      if (kind !== OP_WRITE && kind !== OP_INSERT && kind !== OP_DELETE) continue;
      if (pt.keyRelation[k]! < 0) continue;
      if (lastStamp[k] !== t) { lastStamp[k] = t; touched.push(k); }
      lastValue[k] = kind === OP_DELETE ? tombstoneOf[op]! : h.opValue[op]!;
    }
    for (const k of touched) { txn.push(t); key.push(k); value.push(lastValue[k]!); }
  }
  // By key (a stable counting sort).
  const start = new Int32Array(nKeys + 1);
  const m = txn.length, kv = key.view();
  for (let i = 0; i < m; i++) start[kv[i]! + 1]!++;
  for (let k = 0; k < nKeys; k++) start[k + 1]! += start[k]!;
  const fill = start.slice(0, nKeys), outTxn = new Int32Array(m), outValue = new Int32Array(m);
  const tv = txn.view(), vv = value.view();
  for (let i = 0; i < m; i++) { const at = fill[kv[i]!]!++; outTxn[at] = tv[i]!; outValue[at] = vv[i]!; }
  return { start, txn: outTxn, value: outValue };
}

/**
 * Per row of a relation, how many versions other txns installed are of each class, and the txn
 * of the first: absent (a delete), not matching a predicate (absent included), matching it. Each
 * txn installs at most one version per row (RowVersions), so "the versions of txns other than t"
 * is empty exactly when the count is 0, or 1 and the first is t's: O(1) per observation, where
 * a pass over the row's versions per observation was quadratic (every select observes every row
 * of its relation, and a row's versions grow with the history). Per predicate text and relation,
 * computed when first asked: at most the rows the lowering visits anyway.
 */
class VersionClasses {
  /** `absentCount[k]` / `absentFirst[k]`: row k's tombstones, and the txn of the first. */
  private readonly absentCount: Int32Array;
  private readonly absentFirst: Int32Array;
  /** `keyPos[k]`: row k's place in its relation (relKeys index minus the relation's start). */
  private readonly keyPos: Int32Array;
  /** Per "relation id, predicate text": [non-matching count, first, matching count, first], 4 cells per row by keyPos. */
  private readonly byPredicate = new Map<string, Int32Array>();
  /** `byRead[pr]`: predicate read pr's entry of byPredicate (a string key per observation cost more than the pass it saves). */
  private readonly byRead: (Int32Array | undefined)[] = [];

  constructor(
    h: History, private readonly pt: PredicateTable, private readonly rows: RowVersions,
    private readonly keyOf: (k: number) => Scalar, private readonly valueOf: (v: number) => Scalar | null,
  ) {
    const nKeys = h.keyLabels.length;
    this.absentCount = new Int32Array(nKeys);
    this.absentFirst = new Int32Array(nKeys).fill(-1);
    this.keyPos = new Int32Array(nKeys).fill(-1);
    for (let r = 0; r < pt.relationLabels.length; r++) {
      for (let j = pt.relStart[r]!; j < pt.relStart[r + 1]!; j++) this.keyPos[pt.relKeys[j]!] = j - pt.relStart[r]!;
    }
    for (let k = 0; k < nKeys; k++) {
      for (let i = rows.start[k]!; i < rows.start[k + 1]!; i++) {
        if (rows.value[i]! < h.valueCount) continue;
        if (this.absentCount[k]!++ === 0) this.absentFirst[k] = rows.txn[i]!;
      }
    }
  }

  /** Whether the initial version is the only version of row k, of class `want` ('absent', or 'nomatch' of predicate read pr), that a txn other than t installed. */
  onlyInitial(k: number, t: number, want: 'absent' | 'nomatch', pr: number): boolean {
    if (want === 'absent') return only(this.absentCount[k]!, this.absentFirst[k]!, t);
    const c = this.cells(k, pr), at = 4 * this.keyPos[k]!;
    return only(c[at]!, c[at + 1]!, t);
  }

  /** Whether some txn other than t installed a version of row k that matches predicate read pr's predicate. */
  anyMatching(k: number, t: number, pr: number): boolean {
    const c = this.cells(k, pr), at = 4 * this.keyPos[k]!;
    return !only(c[at + 2]!, c[at + 3]!, t);
  }

  private cells(k: number, pr: number): Int32Array {
    const known = this.byRead[pr];
    if (known !== undefined) return known;
    const pt = this.pt, r = pt.keyRelation[k]!;
    const id = `${r} ${pt.text[pr]!}`;
    let c = this.byPredicate.get(id);
    if (c !== undefined) return (this.byRead[pr] = c);
    const P = pt.parsed[pr]!, rows = this.rows, j0 = pt.relStart[r]!, j1 = pt.relStart[r + 1]!;
    c = new Int32Array(4 * (j1 - j0));
    for (let j = j0; j < j1; j++) {
      const row = pt.relKeys[j]!, at = 4 * (j - j0);
      c[at + 1] = -1; c[at + 3] = -1;
      for (let i = rows.start[row]!; i < rows.start[row + 1]!; i++) {
        const v = this.valueOf(rows.value[i]!);
        const side = v !== null && matches(P, this.keyOf(row), v) ? at + 2 : at;
        if (c[side]!++ === 0) c[side + 1] = rows.txn[i]!;
      }
    }
    this.byPredicate.set(id, c);
    return (this.byRead[pr] = c);
  }
}

/** No version of a class but t's own: none (count 0), or one, t's. */
function only(count: number, first: number, t: number): boolean {
  return count === 0 || (count === 1 && first === t);
}

/**
 * Every write and insert of a relation row by any txn, whatever its outcome, final or not (the
 * versions a dirty read may see): row -> [txn, value, txn, value, ...]. Built once, on the first
 * count that committed versions cannot explain.
 */
function allRowWrites(h: History, pt: PredicateTable): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (let u = 0; u < h.txnCount; u++) {
    for (let op = h.txnOpStart[u]!; op < h.txnOpStart[u + 1]!; op++) {
      const kind = h.opKind[op], k = h.opKey[op]!;
      if ((kind !== OP_WRITE && kind !== OP_INSERT) || pt.keyRelation[k]! < 0) continue;
      let l = out.get(k);
      if (l === undefined) out.set(k, (l = []));
      l.push(u, h.opValue[op]!);
    }
  }
  return out;
}

/**
 * duplicate-insert: a row with no delete anywhere in the history, inserted by two committed txns.
 * Its versions are then its inserts and updates after the initial one, so whatever the version
 * order, the later insert overwrote a present row (the database broke its own key's uniqueness).
 * With a delete of the row somewhere, an insert's precondition depends on the version order and
 * is not checked (docs/levels.md, "Predicates").
 */
function duplicateInserts(h: History, pt: PredicateTable): NonCycleAnomaly[] {
  const nKeys = h.keyLabels.length;
  const deleted = new Uint8Array(nKeys), firstInsert = new Int32Array(nKeys).fill(-1), firstTxn = new Int32Array(nKeys).fill(-1);
  for (let op = 0; op < h.opCount; op++) if (h.opKind[op] === OP_DELETE) deleted[h.opKey[op]!] = 1;
  const out: NonCycleAnomaly[] = [];
  // The txn's own version of each row so far: 1 present, 0 absent (valid while ownStamp[k] === t).
  const ownStamp = new Int32Array(nKeys).fill(-1), ownPresent = new Uint8Array(nKeys);
  for (let t = 0; t < h.txnCount; t++) {
    if (h.txnStatus[t] !== TXN_COMMITTED) continue;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const kind = h.opKind[op]!;
      if (kind !== OP_INSERT && kind !== OP_WRITE && kind !== OP_DELETE) continue;
      const k = h.opKey[op]!;
      const mine = ownStamp[k] === t;
      ownStamp[k] = t; ownPresent[k] = kind === OP_DELETE ? 0 : 1;
      if (kind !== OP_INSERT) continue;
      if (mine) {
        if (ownPresent[k] === 1 && pt.keyRelation[k]! >= 0 && isPresentBefore(h, t, op, k)) {
          out.push({ type: 'non-cycle', name: 'duplicate-insert', txn: t, op, key: k, writer: t,
            message: `${txnLabel(h, t)} inserted row ${h.keyLabels[k]} at ${opWhere(h, op)} over its own present version of the row` });
        }
        continue;
      }
      if (deleted[k] === 1 || pt.keyRelation[k]! < 0) continue;
      if (firstInsert[k]! < 0) { firstInsert[k] = op; firstTxn[k] = t; continue; }
      if (firstTxn[k] === t) continue;
      const first = firstInsert[k]!;
      out.push({
        type: 'non-cycle', name: 'duplicate-insert', txn: t, op, key: k, writer: firstTxn[k]!,
        message: `${txnLabel(h, t)} inserted row ${h.keyLabels[k]} at ${opWhere(h, op)}, which ${txnLabel(h, firstTxn[k]!)} ` +
          `had inserted too (${opWhere(h, first)}) and nobody deleted: both committed, so one insert found the row present`,
      });
    }
  }
  return out;
}

/** Whether txn t's last write of row k before op installed a present version (an insert or an update). */
function isPresentBefore(h: History, t: number, op: number, k: number): boolean {
  for (let o = op - 1; o >= h.txnOpStart[t]!; o--) {
    if (h.opKey[o] !== k) continue;
    const kind = h.opKind[o]!;
    if (kind === OP_DELETE) return false;
    if (kind === OP_INSERT || kind === OP_WRITE) return true;
  }
  return false;
}

function mismatch(h: History, t: number, op: number, k: number, what: string): NonCycleAnomaly {
  return { type: 'non-cycle', name: 'predicate-mismatch', txn: t, op, key: k, writer: -2, message: `${txnLabel(h, t)}'s predicate read at ${opWhere(h, op)} ${what}` };
}

function ownMissed(h: History, t: number, op: number, k: number, own: number): NonCycleAnomaly {
  const mine = own >= h.valueCount ? 'its own delete' : `its own write ${h.keyLabels[k]}=${valueLabel(h, own)}`;
  return { type: 'non-cycle', name: 'INT', txn: t, op, key: k, writer: -2, message: `${txnLabel(h, t)}'s read at ${opWhere(h, op)} contradicts ${mine} of row ${h.keyLabels[k]}` };
}

/**
 * The inserts whose precondition (the row absent just before them in its version order) some
 * version order could break: per row with an insert by a non-aborted txn and a present version
 * installed by another (an insert or an update), the txns whose first write of the row is an
 * insert. Empty for most histories (each row inserted once, then deleted or left alone).
 */
export function constrainedInserts(h: History): Map<number, number[]> {
  const pt = h.predicates!;
  const nKeys = h.keyLabels.length;
  const stamp = new Int32Array(nKeys).fill(-1), presentWriters = new Int32Array(nKeys);
  const inserters = new Map<number, number[]>();
  for (let t = 0; t < h.txnCount; t++) {
    if (h.txnStatus[t] === TXN_ABORTED) continue;
    for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
      const kind = h.opKind[op]!, k = h.opKey[op]!;
      if ((kind !== OP_WRITE && kind !== OP_INSERT && kind !== OP_DELETE) || pt.keyRelation[k]! < 0) continue;
      if (stamp[k] !== t && stamp[k] !== -2 - t) {
        // The txn's first write of the row: an insert there needs the row absent before the txn.
        stamp[k] = -2 - t;
        if (kind === OP_INSERT) {
          const list = inserters.get(k);
          if (list === undefined) inserters.set(k, [t]); else list.push(t);
        }
      }
      // Counted once per txn that installs a present version (an insert or an update, anywhere in it).
      if (kind !== OP_DELETE && stamp[k] !== t) { stamp[k] = t; presentWriters[k]!++; }
    }
  }
  for (const k of [...inserters.keys()]) if (presentWriters[k]! < 2) inserters.delete(k);
  return inserters;
}

/**
 * Whether the version order `position` gives (each row's versions by their txns' positions)
 * puts a version that is not absent just before one of the `constrained` inserts: the first such
 * insert's txn and row, or null.
 */
export function insertOverPresent(h: History, rows: RowVersions, constrained: Map<number, number[]>, position: Int32Array): { txn: number; key: number } | null {
  for (const [k, ins] of constrained) {
    const idx: number[] = [];
    for (let i = rows.start[k]!; i < rows.start[k + 1]!; i++) idx.push(i);
    idx.sort((a, b) => position[rows.txn[a]!]! - position[rows.txn[b]!]!);
    const isIns = new Set(ins);
    for (let j = 1; j < idx.length; j++) {
      const t = rows.txn[idx[j]!]!;
      if (isIns.has(t) && rows.value[idx[j - 1]!]! < h.valueCount) return { txn: t, key: k };
    }
  }
  return null;
}

/**
 * A row's versions (RowVersions) sorted by their txns' places in an order (`position`), for
 * picking the latest version before a reader in O(log versions) plus the versions skipped,
 * instead of a pass over all of the row's versions per observation (quadratic at scale).
 */
export class VersionsByOrder {
  /** RowVersions indices per row (same CSR starts as `rows`), ascending by position of their txn. */
  private readonly sorted: Int32Array;

  constructor(private readonly rows: RowVersions, private readonly position: Int32Array) {
    this.sorted = new Int32Array(rows.txn.length);
    for (let i = 0; i < this.sorted.length; i++) this.sorted[i] = i;
    for (let k = 0; k + 1 < rows.start.length; k++) {
      const a = rows.start[k]!, b = rows.start[k + 1]!;
      if (b - a > 1) this.sorted.subarray(a, b).sort((x, y) => position[rows.txn[x]!]! - position[rows.txn[y]!]!);
    }
  }

  /**
   * The RowVersions index of row k's version whose txn's position is the largest below `at`
   * among those `accept` takes, or -1 when there is none.
   */
  lastBefore(k: number, at: number, accept: (i: number) => boolean): number {
    const s = this.sorted, position = this.position, txn = this.rows.txn;
    let lo = this.rows.start[k]!, hi = this.rows.start[k + 1]!;
    const first = lo;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (position[txn[s[mid]!]!]! < at) lo = mid + 1; else hi = mid; }
    for (let x = lo - 1; x >= first; x--) if (accept(s[x]!)) return s[x]!;
    return -1;
  }
}
