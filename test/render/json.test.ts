/**
 * The JSON forms in src/render/json.ts: a parse timeout's result is data built without a check.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTimeoutJson, SCHEMA_VERSION } from '../../src/render/json.ts';

test('parseTimeoutJson builds an unknown result with zero counts and zero stage times (no check ran)', () => {
  const j = parseTimeoutJson('/x/h.jsonl', 'rc', 'the time limit passed while parsing') as Record<string, any>;
  assert.equal(j['schemaVersion'], SCHEMA_VERSION);
  assert.equal(j['file'], '/x/h.jsonl');
  assert.equal(j['verdict'], 'unknown');
  assert.equal(j['level'], 'rc');
  assert.equal(j['decidedBy'], 'limit');
  assert.equal(j['unknownReason'], 'the time limit passed while parsing');
  assert.deepEqual(j['timesMs'], { parse: 0, validate: 0, construct: 0, prune: 0, solve: 0 });
  assert.deepEqual(j['counts'], { sessions: 0, transactions: 0, checkedTransactions: 0, operations: 0, keys: 0 });
  assert.deepEqual(j['anomalies'], []);
  assert.deepEqual(j['transactions'], []);
});
