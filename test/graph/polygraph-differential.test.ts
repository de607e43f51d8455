/**
 * buildPolygraph and countConstraints against the straightforward implementation they replaced
 * (test/support/polygraph-reference.ts: every edge into a pending buffer, then coalescing by a
 * radix sort of all records and a scatter of all edges). The Polygraph must be identical, column
 * by column: the known edges, the constraints' numbering, writers and edges in the same order.
 * Cases: seeded random register and list-append histories (few keys, so pairs of writers often
 * share two keys and are coalesced), simulated SI stores with and without bugs, and a history
 * built so that most pairs repeat. A failure names the case.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { History } from '../../src/history/model.ts';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { validate } from '../../src/validate/validate.ts';
import { buildPolygraph, countConstraints, type Polygraph } from '../../src/graph/polygraph.ts';
import * as reference from '../support/polygraph-reference.ts';
import { caseSeed, mulberry32, randInt, randomHistory, simulatedSiHistory } from '../support/gen.ts';
import { randomListHistory, simulatedListHistory } from '../support/gen-lists.ts';

const SCALE = Number(process.env['POLYSI_FUZZ_SCALE'] ?? '1');

function same(name: string, h: History, realTime: boolean): boolean {
  // Separate Validated objects: each implementation memoises per Validated.
  let v1, v2;
  try {
    v1 = validate(h);
    v2 = validate(h);
  } catch {
    return false; // unsupported input (e.g. a key both register and list): nothing to build
  }
  assert.deepEqual(countConstraints(v1), reference.countConstraints(v2), `${name}: countConstraints`);
  const a = buildPolygraph(v1, Infinity, undefined, realTime);
  const b = reference.buildPolygraph(v2, Infinity, undefined, realTime);
  assertSamePolygraph(a, b, name);
  return a.consCount < reference.countConstraints(v2).pairs;
}

function assertSamePolygraph(a: Polygraph, b: reference.Polygraph, name: string): void {
  assert.equal(a.nodeCount, b.nodeCount, `${name}: nodeCount`);
  assert.equal(a.consCount, b.consCount, `${name}: consCount`);
  for (const col of ['from', 'to', 'kind', 'key'] as const) {
    assert.deepEqual(Array.from(a.known[col].view()), Array.from(b.known[col].view()), `${name}: known.${col}`);
  }
  for (const col of ['consA', 'consB', 'edgeStart', 'ceFrom', 'ceTo', 'ceKind', 'ceKey'] as const) {
    assert.deepEqual(Array.from(a[col]), Array.from(b[col]), `${name}: ${col}`);
  }
}

test('buildPolygraph equals the reference on random register histories (coalescing included)', () => {
  let coalesced = 0;
  for (let i = 0; i < 400 * SCALE; i++) {
    const rng = mulberry32(caseSeed(0x9a11, i));
    const h = randomHistory(rng, { sessionsMax: 4, txnsPerSessionMax: 5, txnsMax: 16, keysMax: randInt(rng, 1, 4), opsPerTxnMax: 6 });
    if (same(`random #${i}`, h, i % 2 === 0)) coalesced++;
  }
  // The point of few keys: many cases must exercise the coalescing path.
  assert.ok(coalesced >= 40, `only ${coalesced} cases coalesced pairs`);
});

test('buildPolygraph equals the reference on list-append histories and simulated stores', () => {
  for (let i = 0; i < 150 * SCALE; i++) {
    const rng = mulberry32(caseSeed(0x9a12, i));
    same(`list #${i}`, randomListHistory(rng, { txnsMax: 14, keysMax: randInt(rng, 1, 4) }), false);
    same(`list sim #${i}`, simulatedListHistory(rng, { sessions: 4, txnsPerSession: 6, keys: randInt(rng, 2, 6) }), false);
    const bug = (['none', 'lost-update', 'stale-snapshot', 'fractured'] as const)[i % 4]!;
    same(`si sim #${i} (${bug})`, simulatedSiHistory(rng, { sessions: 5, txnsPerSession: 8, keys: randInt(rng, 3, 12), bug, pBug: 0.3 }), i % 3 === 0);
  }
});

test('buildPolygraph equals the reference when almost every pair of writers shares several keys', () => {
  // Every txn blind-writes every key: each pair of txns is a record on every key.
  const b = new HistoryBuilder();
  let value = 1;
  for (let s = 0; s < 3; s++) {
    const session = b.session(s);
    for (let t = 0; t < 4; t++) {
      const txn = b.beginTxn(session);
      for (let k = 0; k < 5; k++) {
        if ((s + t + k) % 3 === 0) b.read(txn, k, null);
        b.write(txn, k, value++);
      }
    }
  }
  const h = b.build();
  assert.ok(same('all pairs repeat', h, false), 'pairs must coalesce');
  const pg = buildPolygraph(validate(h));
  assert.equal(pg.consCount, (12 * 11) / 2);
});
