/**
 * A growable Int32 buffer for the solver's build phase (edges added one by one).
 *
 * Takes: pushes of 32-bit integers. Gives: indexed reads and a trimmed copy (`toArray`).
 * Invariant: `length <= capacity`; slots past `length` are unspecified.
 * Why here and not shared: the solver package depends on nothing outside `src/solver/`.
 */

export class IntBuffer {
  private buf: Int32Array;
  length = 0;

  constructor(capacity = 16) {
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

  get(i: number): number {
    return this.buf[i]!;
  }

  /** A copy of the first `length` elements. */
  toArray(): Int32Array {
    return this.buf.slice(0, this.length);
  }
}
