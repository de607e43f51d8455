/**
 * The uncontracted solve's model check (src/solve/solve.ts `splitEdgesForwards`): its one test
 * per edge from a table of positions with per-kind offsets (the later of the tail twins, or a
 * layer's node, against the head's layer) against
 * the loop over a level's split-edge pairs, and both against the definition (every split edge
 * forEachSplitEdge makes goes forwards in the order), on seeded random orders and edge lists at
 * every level the split graph encodes, with edges that all go forwards and with one that does not
 * (a loop included); the edges in plain columns and as listed slots of a CSR (slots not listed
 * hold backward edges that must not count).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { flatPairs, splitEdgesForwards } from '../../src/solve/solve.ts';
import { forEachSplitEdge } from '../../src/graph/split.ts';
import { KIND_NAMES } from '../../src/graph/edges.ts';
import type { Level } from '../../src/result/types.ts';
import { mulberry32 } from '../support/gen.ts';

const LEVELS: Level[] = ['ser', 'strict-ser', 'si', 'strict-si', 'pc', 'psi', 'rr'];

test('the per-kind model check agrees with the loop over the pairs and with the definition', () => {
  const rng = mulberry32(0xf0d5);
  const int = (k: number): number => Math.floor(rng() * k);
  const tally = { yes: 0, no: 0 };
  for (let round = 0; round < 3000; round++) {
    const level = LEVELS[round % LEVELS.length]!;
    const n = 1 + int(round % 5 === 0 ? 200 : 12);
    // A random order of the 2n split nodes.
    const order = Array.from({ length: 2 * n }, (_, i) => i);
    for (let i = order.length - 1; i > 0; i--) { const j = int(i + 1); [order[i], order[j]] = [order[j]!, order[i]!]; }
    const at = new Int32Array(2 * n);
    order.forEach((u, i) => { at[u] = i; });
    const forwards = (a: number, b: number, k: number): boolean => {
      let ok = true;
      forEachSplitEdge(a, b, k, level, (u, v) => { if (at[u]! >= at[v]!) ok = false; });
      return ok;
    };
    // Edges that go forwards, then (half the rounds) one that does not, somewhere in the list.
    const from: number[] = [], to: number[] = [], kind: number[] = [];
    const want = 1 + int(3 * n);
    for (let tries = 0; from.length < want && tries < 50 * want; tries++) {
      const a = int(n), b = int(n), k = int(KIND_NAMES.length);
      if (forwards(a, b, k)) { from.push(a); to.push(b); kind.push(k); }
    }
    if (round % 2 === 1) {
      for (let tries = 0; tries < 200; tries++) {
        const a = int(n), b = tries < 20 && rng() < 0.2 ? a : int(n), k = int(KIND_NAMES.length);
        if (forwards(a, b, k)) continue;
        const at2 = int(from.length + 1);
        from.splice(at2, 0, a); to.splice(at2, 0, b); kind.splice(at2, 0, k);
        break;
      }
    }
    const expected = from.every((a, i) => forwards(a, to[i]!, kind[i]!));
    // In two sets (as the model check passes the known and the chosen edges), split at random.
    const cut = int(from.length + 1);
    const set = (lo: number, hi: number) => ({ from: Int32Array.from(from.slice(lo, hi)), to: Int32Array.from(to.slice(lo, hi)), kind: Int32Array.from(kind.slice(lo, hi)) });
    // The second set as slots of a CSR (as the chosen sides are read in pg's columns): its
    // edges in listed slots, in a random order of slots, with unlisted slots between them that
    // hold a backward edge (the other side of a constraint: never read).
    const sf: number[] = [], st: number[] = [], sk: number[] = [], start = [0], slots: number[] = [];
    for (let i = cut; i < from.length || rng() < 0.3; ) {
      if (rng() < 0.3) {
        for (let tries = 0; tries < 20; tries++) {
          const a = int(n), b = int(n), k = int(KIND_NAMES.length);
          if (!forwards(a, b, k)) { sf.push(a); st.push(b); sk.push(k); break; }
        }
      } else {
        slots.push(start.length - 1);
        for (let m = int(3); m > 0 && i < from.length; m--, i++) { sf.push(from[i]!); st.push(to[i]!); sk.push(kind[i]!); }
      }
      start.push(sf.length);
    }
    for (let i = slots.length - 1; i > 0; i--) { const j = int(i + 1); [slots[i], slots[j]] = [slots[j]!, slots[i]!]; }
    const slotted = { from: Int32Array.from(sf), to: Int32Array.from(st), kind: Uint8Array.from(sk), slots: Int32Array.from(slots), start: Int32Array.from(start) };
    const sets = round % 3 === 0 ? [set(0, cut), set(cut, from.length)] : [set(0, cut), slotted];
    const pairs = flatPairs(level);
    const what = `round ${round} ${level} n ${n}`;
    assert.equal(splitEdgesForwards(n, sets, pairs, at), expected, `${what}: per kind`);
    assert.equal(splitEdgesForwards(n, sets, pairs, at, 'general'), expected, `${what}: general`);
    if (expected) tally.yes++; else tally.no++;
  }
  assert.ok(tally.yes > 500 && tally.no > 500, JSON.stringify(tally));
});
