/**
 * checkHistory lets the Validated go after construction on large histories (HeldValidation in
 * src/check/index.ts) and validates again only to explain a violation. That must give the same
 * Validated: checked on seeded simulated histories with store bugs (violations) and unknown or
 * aborted txns, anomalies and all; and the drop must only happen when asked for.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { HeldValidation } from '../../src/check/index.ts';
import { validate } from '../../src/validate/validate.ts';
import { caseSeed, mulberry32, simulatedSiHistory } from '../support/gen.ts';

test('a dropped Validated is validated again to the same value', () => {
  for (let i = 0; i < 60; i++) {
    const h = simulatedSiHistory(mulberry32(caseSeed(0x4e1d, i)), { sessions: 4, txnsPerSession: 8, keys: 6, bug: 'mixed', pBug: 0.3, pUnknown: 0.1, pVoluntaryAbort: 0.1 });
    const v = validate(h);
    const held = new HeldValidation(v, h, true);
    assert.equal(held.get(), v);
    held.drop();
    const again = held.get();
    assert.notEqual(again, v, `#${i}: validated again`);
    assert.deepEqual({ ...again, lists: [...again.lists.chains] }, { ...v, lists: [...v.lists.chains] }, `#${i}`);
    assert.equal(held.get(), again, `#${i}: kept once validated again`);
  }
});

test('a small history keeps its Validated', () => {
  const h = simulatedSiHistory(mulberry32(7), { sessions: 2, txnsPerSession: 3, keys: 3 });
  const v = validate(h);
  const held = new HeldValidation(v, h, false);
  held.drop();
  assert.equal(held.get(), v);
});
