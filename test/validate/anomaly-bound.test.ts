/**
 * Validation's bound on the anomalies it collects (ANOMALIES_MAX_DEFAULT) never hides a class:
 * past it, the first anomaly of each new name is still kept (issue 21: in `memory:intermediate-read`
 * runs, a hundred aborted reads came before the first intermediate read and hid it).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANOMALIES_MAX_DEFAULT, validate } from '../../src/validate/validate.ts';
import { tinyHistory, type TinyTxn } from '../support/tiny-history.ts';

test('past the bound, an anomaly of a new class is still reported, one of a known class is not', () => {
  const txns: TinyTxn[] = [];
  // More aborted reads than the bound, each of its own aborted write...
  for (let i = 1; i <= ANOMALIES_MAX_DEFAULT + 5; i++) txns.push({ s: 'w', ops: `w(x,${i})`, status: 'aborted' }, { s: 'r', ops: `r(x,${i})` });
  // ...then one intermediate read: T writes y twice, a reader sees the first value.
  txns.push({ s: 'g', ops: 'w(y,1) w(y,2)' }, { s: 'h', ops: 'r(y,1)' });
  const v = validate(tinyHistory(txns));
  const count = (name: string) => v.anomalies.filter((a) => a.name === name).length;
  assert.equal(count('G1a'), ANOMALIES_MAX_DEFAULT);
  assert.equal(count('G1b'), 1);
});
