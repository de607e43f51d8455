/**
 * The one seeded PRNG of the tests and benchmarks (mulberry32): tiny, fast, reproducible.
 * Takes a 32-bit seed; gives floats in [0, 1). Shares nothing with the code under test.
 */

/** A PRNG returning floats in [0, 1). */
export type Rng = () => number;

/** mulberry32: a 32-bit PRNG, good enough for test generation and reproducible by seed. */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
