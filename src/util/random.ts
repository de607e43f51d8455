/**
 * A small seeded pseudo-random generator (sfc32, seeded through splitmix32).
 *
 * Takes: a 32-bit integer seed. Gives: a deterministic stream of uniform doubles / integers.
 * Invariant: the same seed gives the same stream on every platform (integer arithmetic only);
 * `Math.random` is never used by code that must reproduce (workloads, the store's scheduler).
 * A leaf module (imports nothing).
 */

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // splitmix32 spreads a small seed over the 128-bit state, so seeds 1 and 2 differ at once.
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next(); this.b = next(); this.c = next(); this.d = next();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** A uniform 32-bit unsigned integer. */
  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A uniform double in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** A uniform integer in [0, n), n ≥ 1. */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An independent generator derived from this one (for per-session streams). */
  fork(): Random {
    return new Random(this.uint32());
  }
}
