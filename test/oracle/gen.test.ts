/**
 * Tests of the history generators: that they produce what they promise, checked with the
 * brute-force oracles (tiny sizes) and with direct structural checks (any size).
 *
 * A simulated SI store whose histories the oracle rejected would mean a bug in the store or in
 * the oracle; either would poison every test built on them, hence these tests.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { INITIAL_VALUE, OP_WRITE, TXN_ABORTED, TXN_UNKNOWN, type History } from '../../src/history/model.ts';
import { bruteForceCheck } from './brute-force.ts';
import {
  caseSeed,
  mulberry32,
  randomHistory,
  simulatedSerialHistory,
  simulatedSiHistory,
  type StoreBug,
} from '../support/gen.ts';
import { renderHistory } from '../support/history-text.ts';

/** Written values are unique per key and never the initial value (the checker's precondition). */
function assertUniqueWrites(h: History): void {
  const seen = new Set<string>();
  for (let op = 0; op < h.opCount; op++) {
    if (h.opKind[op] !== OP_WRITE) continue;
    assert.notEqual(h.opValue[op], INITIAL_VALUE, 'a write of the initial value');
    const id = `${h.opKey[op]}:${h.opValue[op]}`;
    assert.ok(!seen.has(id), `value written twice: ${id}`);
    seen.add(id);
  }
}

test('mulberry32 is deterministic and roughly uniform', () => {
  const a = mulberry32(42), b = mulberry32(42);
  const xs = Array.from({ length: 10000 }, () => a());
  assert.deepEqual(xs.slice(0, 100), Array.from({ length: 100 }, () => b()));
  assert.ok(xs.every((x) => x >= 0 && x < 1));
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  assert.ok(Math.abs(mean - 0.5) < 0.02, `mean ${mean}`);
});

test('randomHistory respects its size limits and the unique-value precondition', () => {
  let aborted = 0, unknown = 0;
  for (let i = 0; i < 2000; i++) {
    const h = randomHistory(mulberry32(caseSeed(7, i)));
    assertUniqueWrites(h);
    assert.ok(h.txnCount >= 1 && h.txnCount <= 6);
    assert.ok(h.sessionCount >= 1 && h.sessionCount <= 3);
    assert.ok(h.keyLabels.length <= 3);
    for (let t = 0; t < h.txnCount; t++) {
      const ops = h.txnOpStart[t + 1]! - h.txnOpStart[t]!;
      assert.ok(ops >= 1 && ops <= 4);
      if (h.txnStatus[t] === TXN_ABORTED) aborted++;
      if (h.txnStatus[t] === TXN_UNKNOWN) unknown++;
    }
  }
  assert.ok(aborted > 0 && unknown > 0, 'outcomes other than committed appear');
  // Same seed, same history.
  assert.equal(renderHistory(randomHistory(mulberry32(99))), renderHistory(randomHistory(mulberry32(99))));
});

test('simulated SI store: tiny histories are SI-valid by the oracle', () => {
  let withAborts = 0;
  for (let i = 0; i < 1500; i++) {
    const seed = caseSeed(0x51, i);
    const h = simulatedSiHistory(mulberry32(seed), { sessions: 3, txnsPerSession: 2, keys: 2 });
    assertUniqueWrites(h);
    assert.equal(bruteForceCheck(h, 'si'), 'valid', `seed ${seed}\n${renderHistory(h)}`);
    if (h.txnStatus.some((s) => s === TXN_ABORTED)) withAborts++;
  }
  // First-committer-wins must actually fire sometimes, or the store tests too little.
  assert.ok(withAborts > 100, `only ${withAborts} histories with aborts`);
});

test('simulated SI store produces write skew: some SI-valid histories are not serializable', () => {
  let nonSer = 0;
  for (let i = 0; i < 500; i++) {
    const h = simulatedSiHistory(mulberry32(caseSeed(0x52, i)), { sessions: 3, txnsPerSession: 2, keys: 2, pVoluntaryAbort: 0, pUnknown: 0 });
    if (bruteForceCheck(h, 'ser') === 'violation') nonSer++;
  }
  assert.ok(nonSer > 0, 'no non-serializable SI history in 500');
});

test('simulated serial store: tiny histories are SER-valid by the oracle', () => {
  for (let i = 0; i < 1500; i++) {
    const seed = caseSeed(0x53, i);
    const h = simulatedSerialHistory(mulberry32(seed), { sessions: 3, txnsPerSession: 2, keys: 2 });
    assertUniqueWrites(h);
    assert.equal(bruteForceCheck(h, 'ser'), 'valid', `seed ${seed}\n${renderHistory(h)}`);
  }
});

test('buggy stores produce SI violations', () => {
  const bugs: StoreBug[] = ['lost-update', 'stale-snapshot', 'fractured', 'mixed'];
  for (const bug of bugs) {
    let violations = 0;
    for (let i = 0; i < 300; i++) {
      const h = simulatedSiHistory(mulberry32(caseSeed(0x54, i)), { sessions: 3, txnsPerSession: 2, keys: 2, bug });
      assertUniqueWrites(h);
      if (bruteForceCheck(h, 'si') === 'violation') violations++;
    }
    assert.ok(violations >= 15, `${bug}: only ${violations} violations in 300`);
  }
});

test('simulated stores scale to 10 sessions x 50 txns', (t) => {
  const started = performance.now();
  for (let i = 0; i < 20; i++) {
    const si = simulatedSiHistory(mulberry32(caseSeed(0x55, i)), { sessions: 10, txnsPerSession: 50, keys: 20, opsPerTxnMax: 8 });
    const serial = simulatedSerialHistory(mulberry32(caseSeed(0x56, i)), { sessions: 10, txnsPerSession: 50, keys: 20, opsPerTxnMax: 8 });
    for (const h of [si, serial]) {
      assert.equal(h.txnCount, 500);
      assert.equal(h.sessionCount, 10);
      assertUniqueWrites(h);
    }
  }
  t.diagnostic(`20 x 2 histories of 500 txns generated in ${(performance.now() - started).toFixed(0)} ms`);
});
