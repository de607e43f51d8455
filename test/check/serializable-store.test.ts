/**
 * Histories of the shape test/db/isolation.test.ts records from PostgreSQL SERIALIZABLE (8
 * sessions x 25 txns x 3 op attempts, few keys, half reads, about half the txns aborted),
 * from a simulated serializable store (test/support/gen-serializable.ts) instead of a server:
 * every one is SER-valid by construction, so the checker must say valid, with pruning (each
 * of its paths: the early stop at <= 256 constraints on polygraphs of >= 1,024, the fixpoint,
 * the small-history hand-over without a table, the solver's phase shortcut or its search) and
 * without. Added while hunting one CI run's SER violation on such a PostgreSQL history that no
 * rerun reproduced. The same store without its commit-time check (plain SI) must give some SER
 * violations, all confirmed with pruning off: the shape reaches the violation paths as well.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHistory, type CheckResult } from '../../src/check/index.ts';
import { serializableStoreHistory, type SerializableShape } from '../support/gen-serializable.ts';
import { caseSeed, mulberry32 } from '../support/gen.ts';

const SCALE = Number(process.env['POLYSI_FUZZ_SCALE'] ?? '1');
const CASES = Math.max(1, Math.round(120 * SCALE));

function shapeOf(seed: number, check: boolean): SerializableShape {
  const r = mulberry32(seed ^ 0x5bd1e995);
  return {
    sessions: 8 + Math.floor(r() * 5), txnsPerSession: 25, opsPerTxn: 3,
    keys: 4 + Math.floor(r() * 3), readFraction: 0.3 + r() * 0.3, check,
  };
}

function path(r: CheckResult): string {
  const size = r.constraints.before >= 1024 ? 'large' : 'small';
  return `${size}:${r.decidedBy}:rounds=${Math.min(r.constraints.pruneRounds, 3)}${(r.solver?.conflicts ?? 0) + (r.solver?.flips ?? 0) > 0 ? ':conflicts' : ''}`;
}

test('a serializable store\'s histories of the PostgreSQL test\'s shape satisfy SER, with pruning and without', () => {
  const paths = new Map<string, number>();
  let aborted = 0, txns = 0;
  for (let i = 0; i < CASES; i++) {
    const seed = caseSeed(0x5e71a1, i);
    const shape = shapeOf(seed, true);
    const { history, aborted: a } = serializableStoreHistory(mulberry32(seed), shape);
    aborted += a; txns += history.txnCount;
    const on = checkHistory(history, { level: 'ser', pruning: true, explain: false });
    const off = checkHistory(history, { level: 'ser', pruning: false, explain: false });
    const replay = `seed ${seed}, shape ${JSON.stringify(shape)}`;
    assert.equal(on.verdict, 'valid', `${replay}: pruning on says ${on.verdict} (${path(on)}): ${JSON.stringify(on.anomalies.slice(0, 1))}`);
    assert.equal(off.verdict, 'valid', `${replay}: pruning off says ${off.verdict}`);
    paths.set(path(on), (paths.get(path(on)) ?? 0) + 1);
    if (process.env['POLYSI_SHOW_PATHS'] !== undefined && i === CASES - 1) console.log(JSON.stringify([...paths]));
  }
  const summary = JSON.stringify([...paths]);
  // The shape of the PostgreSQL runs: many aborted txns, and both sizes of polygraph.
  assert.ok(aborted > 0.3 * txns, `aborted ${aborted} of ${txns}`);
  const count = (prefix: string): number => [...paths].filter(([k]) => k.startsWith(prefix)).reduce((n, [, c]) => n + c, 0);
  assert.ok(count('small:') > 0 && count('large:') > 0, `both sizes of polygraph: ${summary}`);
  assert.ok(count('large:solver-sat:rounds=1') + count('large:solver-sat:rounds=2') > 0, `the early stop at <= 256 constraints: ${summary}`);
});

test('the same store without its serialization check (plain SI) gives SER violations, confirmed with pruning off', () => {
  let violations = 0;
  const cases = Math.max(1, Math.round(30 * SCALE));
  for (let i = 0; i < cases; i++) {
    const seed = caseSeed(0x51, i);
    const shape = shapeOf(seed, false);
    const { history } = serializableStoreHistory(mulberry32(seed), shape);
    const on = checkHistory(history, { level: 'ser', pruning: true, explain: false });
    const off = checkHistory(history, { level: 'ser', pruning: false, explain: false });
    assert.equal(on.verdict, off.verdict, `seed ${seed}, shape ${JSON.stringify(shape)}: pruning on ${on.verdict}, off ${off.verdict}`);
    // SI histories of this store always satisfy SI.
    assert.equal(checkHistory(history, { level: 'si', pruning: true, explain: false }).verdict, 'valid', `seed ${seed}: not SI`);
    if (on.verdict === 'violation') violations++;
  }
  assert.ok(violations > 0, 'plain SI on this shape gives at least one SER violation');
});
