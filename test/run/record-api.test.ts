/**
 * The recording API (src/run/record.ts): an application's own transactions, recorded by hand,
 * read back with their outcomes, times and error codes, and checked like any history.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonl } from '../../src/formats/jsonl.ts';
import { TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN } from '../../src/history/model.ts';
import { openHistory } from '../../src/run/record.ts';
import { anomalyNames, check } from './support.ts';
import { scratchDir } from '../support/scratch.ts';

const DIR = scratchDir('polysi-record-api-');

test('a lost update recorded through the API is found and named', () => {
  const path = join(DIR, 'lost.jsonl');
  const h = openHistory(path);
  // Two clients increment the same counter concurrently; both read 0 (the initial value).
  const a = h.session('alice').begin({ node: 'n1' }), b = h.session('bob').begin({ node: 'n2' });
  a.read('counter', null);
  b.read('counter', null);
  a.write('counter', 1);
  b.write('counter', 2);
  a.commit();
  b.commit();
  const c = h.session('carol').begin();
  c.read('counter', 2).readList('log', []).append('log', 'x');
  c.abort('40001');
  h.session('dave').begin().write('other', 'v').unknown('timeout');
  assert.equal(h.count, 4);
  h.close();

  const hist = parseJsonl(readFileSync(path, 'utf8'), path);
  assert.deepEqual(hist.sessionLabels, ['alice', 'bob', 'carol', 'dave']);
  assert.deepEqual([...hist.txnStatus], [TXN_COMMITTED, TXN_COMMITTED, TXN_ABORTED, TXN_UNKNOWN]);
  assert.deepEqual(hist.txnError, ['', '', '40001', 'timeout']);
  assert.deepEqual([...hist.txnNode!].map((n) => (n < 0 ? null : hist.nodeLabels![n])), ['n1', 'n2', null, null]);
  for (let t = 0; t < hist.txnCount; t++) assert.ok(hist.txnStart![t]! <= hist.txnEnd![t]!);
  const r = check(hist, 'si');
  assert.equal(r.verdict, 'violation');
  assert.ok(anomalyNames(r).includes('lost update'), anomalyNames(r).join(', '));
});

test('misuse is refused: two open txns in a session, use after the outcome, unsafe numbers', () => {
  const h = openHistory(join(DIR, 'misuse.jsonl'));
  const s = h.session(1);
  const t = s.begin();
  assert.throws(() => s.begin(), /already has a transaction open/);
  t.commit();
  assert.throws(() => t.read('x', 1), /already finished/);
  assert.throws(() => t.commit(), /already finished/);
  assert.throws(() => s.begin().write('x', 1.5), /not a safe integer/);
  h.close();
  assert.throws(() => h.session(2).begin().commit(), /already closed/);
});

test('predicate operations are recorded as the JSON Lines contract says; an undeclared relation or a bad predicate is refused', () => {
  const path = join(DIR, 'predicates.jsonl');
  const rec = openHistory(path, { relations: { test: [1, 2, 'c'] } });
  const t = rec.session('s').begin();
  t.select('test', 'value % 3 = 0', [[1, 30]]).count('test', 'value > 5', 1).insert(2, 42).delete(1).read('c', null);
  t.commit();
  assert.throws(() => rec.session('s').begin().select('nope', 'true', []), /relation "nope" was not declared/);
  assert.throws(() => rec.session('u').begin().count('test', 'value %% 3', 0), /column 8/);
  assert.throws(() => rec.session('v').begin().count('test', 'true', -1), /not a count/);
  rec.close();
  const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(lines[0]!['relations'], { test: [1, 2, 'c'] });
  assert.deepEqual(lines[1]!['ops'], [['select', 'test', 'value % 3 = 0', [[1, 30]]], ['count', 'test', 'value > 5', 1], ['insert', 2, 42], ['delete', 1], ['r', 'c', null]]);
});
