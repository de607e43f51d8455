/**
 * Growable typed arrays: append-only buffers that double their capacity.
 *
 * Takes: pushes of numbers. Gives: a trimmed typed array view (`toArray`).
 * Invariant: `length <= capacity`; elements past `length` are unspecified.
 * A leaf module (imports nothing), shared by every stage that builds arrays, the solver included.
 * Why: parsers append millions of operations; plain JS arrays of numbers cost ~4x the memory
 * and allocation churn of a typed array.
 */

export class GrowableInt32 {
  private buf: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.buf = new Int32Array(Math.max(16, capacity));
  }

  push(x: number): void {
    if (this.length === this.buf.length) {
      const next = new Int32Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = x;
  }

  /**
   * Room for `n` more elements: the buffer itself (capacity-long, grown by doubling if needed),
   * for a caller that writes elements `length ..` directly and then advances `length` by what it
   * wrote. A hot loop writing an array does no call per element (`push` is one, and stays slow
   * for long in a fresh process).
   */
  spare(n: number): Int32Array {
    const need = this.length + n;
    if (need > this.buf.length) {
      const next = new Int32Array(Math.max(need, this.buf.length * 2));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    return this.buf;
  }

  /** Makes room for at least n elements in all. */
  reserve(n: number): void {
    if (n > this.buf.length) {
      const next = new Int32Array(n);
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
  }

  get(i: number): number {
    return this.buf[i]!;
  }

  set(i: number, x: number): void {
    this.buf[i] = x;
  }

  /** Appends every element of `xs` (one copy instead of a push each). */
  pushAll(xs: Int32Array): void {
    const need = this.length + xs.length;
    if (need > this.buf.length) {
      const next = new Int32Array(Math.max(need, this.buf.length * 2));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    this.buf.set(xs, this.length);
    this.length = need;
  }

  /** A copy of the first `length` elements. */
  toArray(): Int32Array {
    return this.buf.slice(0, this.length);
  }

  /** The first `length` elements without copying; valid only until the next push. */
  view(): Int32Array {
    return this.buf.subarray(0, this.length);
  }
}

export class GrowableFloat64 {
  private buf: Float64Array;
  length = 0;

  constructor(capacity = 1024) {
    this.buf = new Float64Array(Math.max(16, capacity));
  }

  push(x: number): void {
    if (this.length === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = x;
  }

  /** Makes room for at least n elements in all. */
  reserve(n: number): void {
    if (n > this.buf.length) {
      const next = new Float64Array(n);
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
  }

  get(i: number): number {
    return this.buf[i]!;
  }

  set(i: number, x: number): void {
    this.buf[i] = x;
  }

  toArray(): Float64Array {
    return this.buf.slice(0, this.length);
  }
}
