// The validation of commit 0813a55, kept as the reference for test/validate/validate-differential.test.ts.
/**
 * Who wrote what: the index from (key, value) to the write (or append) that wrote it.
 *
 * Takes: a History. Gives: `WriterIndex.get(key, value)` = the op id, or undefined.
 * Throws InputError 'unsupported' when a value is written to a key twice, or a write writes the
 * initial value: reads are resolved by value, so either would make that ambiguous.
 * Layout: the write ops sorted by (key, value) with two stable counting sorts (linear, typed
 * arrays, no hash map entry per write), CSR by key; a lookup is a binary search within the key.
 * Invariant: within a key, `values` is strictly increasing (duplicates were rejected).
 */

import { InputError } from '../../../src/history/errors.ts';
import { valueCountOf, valueLabelOf } from '../labels-compat.ts';
import { describeOp, INITIAL_VALUE, OP_APPEND, OP_WRITE, opWhere, type History } from '../../../src/history/model.ts';

export class WriterIndex {
  private constructor(
    private readonly keyStart: Int32Array,
    private readonly values: Int32Array,
    private readonly ops: Int32Array,
  ) {}

  static build(h: History): WriterIndex {
    let m = 0;
    for (let op = 0; op < h.opCount; op++) {
      const kind = h.opKind[op];
      if (kind !== OP_WRITE && kind !== OP_APPEND) continue;
      if (h.opValue[op] === INITIAL_VALUE) {
        throw new InputError('unsupported', h.source, h.locUnit, h.opLoc[op]!,
          `${describeOp(h, op)} writes the initial value of key ${h.keyLabels[h.opKey[op]!]}; ` +
          'the checker needs every written value to differ from the initial one');
      }
      m++;
    }
    const writes = new Int32Array(m);
    for (let op = 0, i = 0; op < h.opCount; op++) {
      const kind = h.opKind[op];
      if (kind === OP_WRITE || kind === OP_APPEND) writes[i++] = op;
    }
    const byValue = countingSort(writes, valueCountOf(h), h.opValue);
    const sorted = countingSort(byValue, h.keyLabels.length, h.opKey);
    const nKeys = h.keyLabels.length;
    const keyStart = new Int32Array(nKeys + 1);
    for (let i = 0; i < m; i++) keyStart[h.opKey[sorted[i]!]! + 1]!++;
    for (let k = 0; k < nKeys; k++) keyStart[k + 1]! += keyStart[k]!;
    const values = new Int32Array(m);
    for (let i = 0; i < m; i++) {
      const op = sorted[i]!;
      values[i] = h.opValue[op]!;
      if (i > 0) {
        const prev = sorted[i - 1]!;
        if (h.opKey[prev] === h.opKey[op] && values[i - 1] === values[i]) {
          // Stable sorts keep equal pairs in op order: prev is the earlier write.
          throw new InputError('unsupported', h.source, h.locUnit, h.opLoc[op]!,
            `value ${valueLabelOf(h, values[i]!)} is written to key ${h.keyLabels[h.opKey[op]!]} twice ` +
            `(${describeOp(h, prev)} at ${opWhere(h, prev)} and ${describeOp(h, op)}); ` +
            'the checker needs unique values per key to know which write a read saw');
        }
      }
    }
    return new WriterIndex(keyStart, values, sorted);
  }

  /** The op that wrote `value` to `key`, or undefined if none did. */
  get(key: number, value: number): number | undefined {
    let lo = this.keyStart[key]!, hi = this.keyStart[key + 1]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.values[mid]!;
      if (v === value) return this.ops[mid]!;
      if (v < value) lo = mid + 1; else hi = mid - 1;
    }
    return undefined;
  }
}

/** Stable counting sort of `items` by `keyOf[item]` in [0, range). */
function countingSort(items: Int32Array, range: number, keyOf: Int32Array | Uint8Array): Int32Array {
  const start = new Int32Array(range + 1);
  for (let i = 0; i < items.length; i++) start[keyOf[items[i]!]! + 1]!++;
  for (let k = 0; k < range; k++) start[k + 1]! += start[k]!;
  const out = new Int32Array(items.length);
  for (let i = 0; i < items.length; i++) out[start[keyOf[items[i]!]!]!++] = items[i]!;
  return out;
}
