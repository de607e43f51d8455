/**
 * Key choosers: uniform, zipfian (YCSB's theta 0.99) and hotspot (80 % of picks on 20 % of keys).
 *
 * Takes: a key count and a seeded Random. Gives: a function returning a key in [0, keys).
 * Invariant: deterministic given the Random's state; O(log keys) per pick at most.
 */

import type { Random } from '../util/random.ts';
import type { KeyDistribution } from './types.ts';

export const ZIPF_THETA = 0.99;
export const HOTSPOT_KEYS = 0.2;
export const HOTSPOT_OPS = 0.8;

export type KeyChooser = (rng: Random) => number;

export function keyChooser(keys: number, distribution: KeyDistribution): KeyChooser {
  if (!Number.isInteger(keys) || keys < 1) throw new RangeError(`keys must be a positive integer, got ${keys}`);
  switch (distribution) {
    case 'uniform': return (rng) => rng.int(keys);
    case 'hotspot': {
      const hot = Math.max(1, Math.floor(keys * HOTSPOT_KEYS));
      if (hot === keys) return (rng) => rng.int(keys);
      return (rng) => (rng.next() < HOTSPOT_OPS ? rng.int(hot) : hot + rng.int(keys - hot));
    }
    case 'zipfian': {
      // Cumulative weights 1/(k+1)^theta, searched by bisection: exact and simple for ≤ 10^7 keys.
      const cdf = new Float64Array(keys);
      let sum = 0;
      for (let k = 0; k < keys; k++) { sum += 1 / Math.pow(k + 1, ZIPF_THETA); cdf[k] = sum; }
      return (rng) => {
        const x = rng.next() * sum;
        let lo = 0, hi = keys - 1;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (cdf[mid]! > x) hi = mid; else lo = mid + 1;
        }
        return lo;
      };
    }
  }
}
