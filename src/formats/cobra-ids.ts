/**
 * Interning of 64-bit ids (Cobra txn ids, write ids, key hashes) without BigInt.
 *
 * Takes: 64-bit integers as (hi, lo) 32-bit halves. Gives: dense ids 0, 1, 2, ... in order of
 * first sight. Invariant: equal (hi, lo) pairs get equal ids; the table never shrinks.
 * Why: Cobra logs hold one to four 64-bit fields per record; a BigInt per field plus a
 * Map<bigint> lookup cost more than the rest of the parser together.
 */

export class Int64Table {
  private hi: Int32Array;
  private lo: Int32Array;
  /** Slot -> dense id, -1 if empty. */
  private slots: Int32Array;
  private mask: number;
  count = 0;
  /** Whether the last `intern` added a new id. */
  added = false;

  constructor(capacity = 1024) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.slots = new Int32Array(size).fill(-1);
    this.hi = new Int32Array(size >> 1);
    this.lo = new Int32Array(size >> 1);
    this.mask = size - 1;
  }

  private static hash(hi: number, lo: number): number {
    let h = Math.imul(hi ^ 0x9e3779b9, 0x85ebca6b) ^ lo;
    h = Math.imul(h ^ (h >>> 16), 0xc2b2ae35);
    return h ^ (h >>> 13);
  }

  /** The id of (hi, lo), or -1 if it was never interned. */
  get(hi: number, lo: number): number {
    let s = Int64Table.hash(hi, lo) & this.mask;
    for (;;) {
      const id = this.slots[s]!;
      if (id < 0) return -1;
      if (this.hi[id] === hi && this.lo[id] === lo) return id;
      s = (s + 1) & this.mask;
    }
  }

  hiOf(id: number): number {
    return this.hi[id]!;
  }

  loOf(id: number): number {
    return this.lo[id]!;
  }

  /** The id of (hi, lo), new ids numbered in order of first sight; sets `added`. */
  intern(hi: number, lo: number): number {
    let s = Int64Table.hash(hi, lo) & this.mask;
    for (;;) {
      const id = this.slots[s]!;
      if (id < 0) break;
      if (this.hi[id] === hi && this.lo[id] === lo) {
        this.added = false;
        return id;
      }
      s = (s + 1) & this.mask;
    }
    const id = this.count++;
    this.slots[s] = id;
    if (id >= this.hi.length) this.growIds();
    this.hi[id] = hi;
    this.lo[id] = lo;
    this.added = true;
    if (this.count * 2 > this.slots.length) this.rehash();
    return id;
  }

  private growIds(): void {
    const hi = new Int32Array(this.hi.length * 2);
    const lo = new Int32Array(this.lo.length * 2);
    hi.set(this.hi);
    lo.set(this.lo);
    this.hi = hi;
    this.lo = lo;
  }

  private rehash(): void {
    const size = this.slots.length * 2;
    this.slots = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    for (let id = 0; id < this.count; id++) {
      let s = Int64Table.hash(this.hi[id]!, this.lo[id]!) & this.mask;
      while (this.slots[s]! >= 0) s = (s + 1) & this.mask;
      this.slots[s] = id;
    }
  }
}

/** The signed 64-bit integer with halves (hi, lo). */
export function int64(hi: number, lo: number): bigint {
  return (BigInt(hi) << 32n) | BigInt(lo >>> 0);
}
