/**
 * Who wrote what: the index from (key, value) to the write (or append) that wrote it.
 *
 * Takes: a History. Gives: `WriterIndex.get(key, value)` = the op id, or undefined.
 * Throws InputError 'unsupported' when a value is written to a key twice, or a write writes the
 * initial value: reads are resolved by value, so either would make that ambiguous.
 * Layout: per value id, its sole writer when one op wrote it (the common case: a lookup is one
 * probe and a key check); the writes of values written more than once, sorted by (key, value)
 * with two stable counting sorts (linear, typed arrays, no hash map entry per write), CSR by key,
 * where a lookup is a binary search within the key.
 * Invariant: within a key, `values` is strictly increasing (duplicates were rejected).
 */

import { InputError } from '../history/errors.ts';
import { describeOp, INITIAL_VALUE, OP_APPEND, OP_WRITE, opWhere, type History, valueLabel } from '../history/model.ts';

export class WriterIndex {
  private constructor(
    private readonly opKey: Int32Array,
    /** Per value id: the op that wrote it when exactly one op did (to any key), -1 if none did, -2 if several. */
    private readonly sole: Int32Array,
    /** The index over the values written more than once (to different keys): CSR by key, values ascending. */
    private readonly keyStart: Int32Array,
    private readonly values: Int32Array,
    private readonly ops: Int32Array,
    /**
     * Whether at least half of the writes are of values written once (most generators and
     * databases write unique values; dbcop's histories write a txn's value to each of its keys,
     * so only txns writing a single key have one).
     */
    readonly mostlySole: boolean,
  ) {}

  static build(h: History): WriterIndex {
    // Most histories write each value once in all (generators and databases use unique values):
    // a value's sole writer answers a lookup with one probe. Only values written more than once
    // (to different keys, or a duplicate to reject) go into the sorted index.
    // One loop per helper: these run once per check, mostly before V8 optimises them (an
    // on-stack replacement compiles the whole function holding the loop), with the columns
    // in locals (a property load per element is a bytecode each in the interpreter).
    const opKind = h.opKind, opValue = h.opValue;
    // Every value id is below valueCount (assertHistory): no pass to find the largest written.
    const bound = Math.max(1, h.valueCount);
    const sole = new Int32Array(bound).fill(-1);
    const { several, writes: writeCount } = soleWriters(h, sole);
    const writes = writesOfShared(opKind, opValue, h.opCount, sole, several);
    const nKeys = h.keyLabels.length;
    const m = several, opKey = h.opKey;
    // By key (stable: op order within a key). Generators intern a value when it is first written,
    // so within a key the values mostly ascend in op order already (fig8 30 %: 56,000 writes, all
    // of values shared between keys): then that is the (key, value) order and one sort is enough.
    let sorted = countingSort(writes, nKeys, opKey);
    const values = new Int32Array(m);
    let dup = sortedValues(sorted, m, opKey, opValue, values);
    if (dup > 0) {
      // Not ascending somewhere: by value, then stably by key.
      sorted = countingSort(countingSort(writes, bound, opValue), nKeys, opKey);
      dup = sortedValues(sorted, m, opKey, opValue, values);
    }
    const keyStart = new Int32Array(nKeys + 1);
    keyStarts(sorted, m, opKey, nKeys, keyStart);
    if (dup > 0) {
      const op = sorted[dup]!, prev = sorted[dup - 1]!;
      // Stable sorts keep equal pairs in op order: prev is the earlier write.
      throw new InputError('unsupported', h.source, h.locUnit, h.opLoc[op]!,
        `value ${valueLabel(h, values[dup]!)} is written to key ${h.keyLabels[h.opKey[op]!]} twice ` +
        `(${describeOp(h, prev)} at ${opWhere(h, prev)} and ${describeOp(h, op)}); ` +
        'the checker needs unique values per key to know which write a read saw');
    }
    return new WriterIndex(h.opKey, sole, keyStart, values, sorted, writeCount - several >= several);
  }

  /** The op that wrote `value` to `key`, or undefined if none did. */
  get(key: number, value: number): number | undefined {
    if (value >= this.sole.length) return undefined; // nobody wrote it
    const s = this.sole[value]!;
    if (s >= 0) return this.opKey[s] === key ? s : undefined;
    if (s === -1) return undefined;
    let lo = this.keyStart[key]!, hi = this.keyStart[key + 1]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.values[mid]!;
      if (v === value) return this.ops[mid]!;
      if (v < value) lo = mid + 1; else hi = mid - 1;
    }
    return undefined;
  }

  /** The op that wrote `value` when exactly one op wrote it (to any key), else -1. */
  soleWriter(value: number): number {
    const s = value < this.sole.length ? this.sole[value]! : -1;
    return s >= 0 ? s : -1;
  }

  /** Above every value id (written or not: the History's value count). */
  get valueBound(): number {
    return this.sole.length;
  }
}

/**
 * Fills `sole` (all -1 on entry): per value, its only writing op, or -2 when several wrote it.
 * Returns how many writes there are, and how many of them are of values written several times.
 * Rejects writes of the initial value.
 */
function soleWriters(h: History, sole: Int32Array): { several: number; writes: number } {
  const opKind = h.opKind, opValue = h.opValue, opCount = h.opCount;
  let several = 0, writes = 0;
  for (let op = 0; op < opCount; op++) {
    const kind = opKind[op];
    if (kind !== OP_WRITE && kind !== OP_APPEND) continue;
    const v = opValue[op]!;
    if (v === INITIAL_VALUE) {
      throw new InputError('unsupported', h.source, h.locUnit, h.opLoc[op]!,
        `${describeOp(h, op)} writes the initial value of key ${h.keyLabels[h.opKey[op]!]}; ` +
        'the checker needs every written value to differ from the initial one');
    }
    const s = sole[v]!;
    writes++;
    if (s === -1) sole[v] = op;
    else { several += s >= 0 ? 2 : 1; sole[v] = -2; }
  }
  return { several, writes };
}

/** The `several` writing ops (in op order) of values written more than once. */
function writesOfShared(opKind: Uint8Array, opValue: Int32Array, opCount: number, sole: Int32Array, several: number): Int32Array {
  const writes = new Int32Array(several);
  for (let op = 0, i = 0; op < opCount && i < several; op++) {
    const kind = opKind[op];
    if ((kind === OP_WRITE || kind === OP_APPEND) && sole[opValue[op]!] === -2) writes[i++] = op;
  }
  return writes;
}

/** CSR starts by key of the `m` sorted writes (prefix sums done). */
function keyStarts(sorted: Int32Array, m: number, opKey: Int32Array, nKeys: number, keyStart: Int32Array): void {
  countBy(sorted, m, opKey, keyStart);
  prefixSums(keyStart, nKeys);
}

// One loop per function below: a loop compiled on its own (on-stack replacement) compiles the
// whole function holding it, and a second loop after it, never run, has no type feedback, so
// reaching it threw the compiled code away (fig8 30 %: countingSort was deoptimised up to three
// times per check, keyStarts once).

/** `start[keyOf[items[i]] + 1]++` for the first `m` items. */
function countBy(items: Int32Array, m: number, keyOf: Int32Array, start: Int32Array): void {
  for (let i = 0; i < m; i++) start[keyOf[items[i]!]! + 1]!++;
}

/** Running sums: `a[k + 1] += a[k]` for k < n. */
function prefixSums(a: Int32Array, n: number): void {
  for (let k = 0; k < n; k++) a[k + 1]! += a[k]!;
}

/** Stable scatter of `items` into the buckets of `keyOf[item]` (`fill`: bucket starts, advanced). */
function scatterBy(items: Int32Array, keyOf: Int32Array, fill: Int32Array, out: Int32Array): void {
  for (let i = 0; i < items.length; i++) out[fill[keyOf[items[i]!]!]!++] = items[i]!;
}

/**
 * The values of the `m` writes sorted by key into `values`; returns the first index whose value
 * is not above the previous one's of the same key, or -1 (the order is by (key, value), without
 * a value written to a key twice). For writes sorted by (key, value), that index is a duplicate.
 */
function sortedValues(sorted: Int32Array, m: number, opKey: Int32Array, opValue: Int32Array, values: Int32Array): number {
  for (let i = 0; i < m; i++) {
    const op = sorted[i]!;
    values[i] = opValue[op]!;
    if (i > 0 && opKey[sorted[i - 1]!] === opKey[op] && values[i - 1]! >= values[i]!) return i;
  }
  return -1;
}

/** Stable counting sort of `items` by `keyOf[item]` in [0, range). */
function countingSort(items: Int32Array, range: number, keyOf: Int32Array): Int32Array {
  const start = new Int32Array(range + 1);
  countBy(items, items.length, keyOf, start);
  prefixSums(start, range);
  const out = new Int32Array(items.length);
  scatterBy(items, keyOf, start, out);
  return out;
}
