/**
 * solve.ts's `activeList` (the active constraints' indices, by indexOf) against a
 * plain filter: seeded random flags of every length 0-70 and some long sparse ones, at byte
 * offsets 0-3 into a buffer, and with flags other than 1.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { activeList } from '../../src/solve/solve.ts';
import { mulberry32 } from '../support/prng.ts';

test('activeList lists exactly the constraints whose flag is 1, in order', () => {
  const rng = mulberry32(7);
  let cases = 0;
  for (let len = 0; len <= 70; len++) {
    for (const density of [0, 0.05, 0.5, 1]) {
      for (let offset = 0; offset < 4; offset++) {
        for (const long of len === 70 ? [0, 5000, 157073] : [0]) {
          const n = len + long;
          const buf = new Uint8Array(n + offset + 3);
          const active = buf.subarray(offset, offset + n);
          for (let c = 0; c < n; c++) active[c] = rng() < density ? 1 : rng() < 0.01 ? 2 : 0;
          const expected: number[] = [];
          active.forEach((a, c) => { if (a === 1) expected.push(c); });
          assert.deepEqual(Array.from(activeList(active)), expected, `length ${n}, density ${density}, offset ${offset}`);
          cases++;
        }
      }
    }
  }
  assert.ok(cases > 1000);
});
