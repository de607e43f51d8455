/**
 * The production certificate of counterexamples (src/explain/certify.ts): real violations pass,
 * deliberately corrupted counterexamples are rejected with a reason, and counterexamples too
 * large to enumerate are reported as uncertified rather than certain.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHistory, type Level } from '../../src/check/index.ts';
import { certify, CERTIFY_CONSTRAINTS_MAX, type Counterexample } from '../../src/explain/index.ts';
import type { History } from '../../src/history/model.ts';
import { tinyHistory } from '../support/tiny-history.ts';
import { join } from 'node:path';
import { readHistory } from '../../src/formats/index.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';

/** Lost update: T2 and T3 both read x = 1 from T1 and both overwrite it. */
const LOST_UPDATE = () => tinyHistory([
  { s: 1, ops: 'w(x,1)' },
  { s: 1, ops: 'r(x,1) w(x,2)' },
  { s: 2, ops: 'r(x,1) w(x,3)' },
]);

/** Long fork: T2 sees T1 but not T3, T4 sees T3 but not T1 (only certain edges). */
const LONG_FORK = () => tinyHistory([
  { s: 1, ops: 'w(x,1)' },
  { s: 2, ops: 'r(x,1) r(y,0)' },
  { s: 3, ops: 'w(y,1)' },
  { s: 4, ops: 'r(y,1) r(x,0)' },
]);

function explained(h: History, level: Level = 'si'): Counterexample {
  const r = checkHistory(h, { level, pruning: true, explain: true });
  assert.equal(r.verdict, 'violation');
  const cx = r.anomalies[0]!.explanation!;
  assert.equal(cx.type, 'cycle');
  return cx;
}

const clone = (cx: Counterexample): Counterexample => structuredClone(cx);

test('real violations are certified, and the result data says so', () => {
  for (const [h, level, choices] of [[LOST_UPDATE(), 'si', 8], [LONG_FORK(), 'si', 1]] as const) {
    const cx = explained(h, level);
    assert.deepEqual(cx.certificate, { status: 'certified', choices, reason: '' });
    assert.deepEqual(certify(h, cx), cx.certificate);
  }
});

test('a counterexample with a write order missing from one side is rejected: some choice is acyclic', () => {
  const h = LOST_UPDATE();
  const cx = clone(explained(h));
  // Drop the last constraint's "or" side (the dilemma's): choosing it then adds no edge.
  cx.constraints[cx.constraints.length - 1]!.or = [];
  const cert = certify(h, cx);
  assert.equal(cert.status, 'failed');
  assert.match(cert.reason, /leaves no forbidden cycle/);
});

test('a counterexample without one of its certain reads is rejected by the brute force', () => {
  const h = LONG_FORK();
  const cx = clone(explained(h));
  const wr = cx.edges.find((e) => e.kind === 'WR')!;
  // Long fork has no write orders: its certain edges alone must hold the cycle.
  cx.edges = cx.edges.filter((e) => e.id !== wr.id).map((e, id) => ({ ...e, id }));
  const cert = certify(h, cx);
  assert.equal(cert.status, 'failed');
  assert.match(cert.reason, /leaves no forbidden cycle/);
});

test('an edge the history does not show is rejected, even when the graph alone would be a violation', () => {
  const h = LONG_FORK();
  const base = explained(h);
  const corruptions: [string, (cx: Counterexample) => void, RegExp][] = [
    ['a WR edge from a writer the reader did not read', (cx) => {
      const wr = cx.edges.find((e) => e.kind === 'WR')!;
      const other = cx.txns.find((t) => t.txn !== wr.from && t.txn !== wr.to && t.role === 'core')!;
      wr.from = other.txn;
    }, /did not read this writer|does not read the key/],
    ['an RW edge whose reader read something else', (cx) => {
      const rw = cx.edges.find((e) => e.kind === 'RW')!;
      rw.readFrom = rw.to === 0 ? 2 : 0;
    }, /did not read the version|own version/],
    ['a session order between two sessions', (cx) => {
      cx.edges.push({ ...cx.edges[0]!, id: cx.edges.length, kind: 'SO', key: -1, keyLabel: null, from: 0, to: 1 });
    }, /not in session order/],
    ['an edge to a transaction that does not exist', (cx) => {
      cx.edges[0]!.to = 99;
    }, /does not exist/],
  ];
  for (const [what, corrupt, reason] of corruptions) {
    const cx = clone(base);
    corrupt(cx);
    const cert = certify(h, cx);
    assert.equal(cert.status, 'failed', what);
    assert.match(cert.reason, reason, what);
  }
});

test('a counterexample with more write orders than the brute force allows is uncertified, not certain', () => {
  const h = LOST_UPDATE();
  const cx = clone(explained(h));
  // Pad with copies of the first write order (no edges of their own): only the count grows.
  const c = cx.constraints[0]!;
  while (cx.constraints.length <= CERTIFY_CONSTRAINTS_MAX) cx.constraints.push({ ...c, id: cx.constraints.length, either: [], or: [] });
  const cert = certify(h, cx);
  assert.equal(cert.status, 'uncertified');
  assert.match(cert.reason, /too many to enumerate/);
});

test('a witness that a budget left incomplete is uncertified', () => {
  const h = LOST_UPDATE();
  const cx = clone(explained(h));
  cx.selfContained = false;
  assert.equal(certify(h, cx).status, 'uncertified');
});

test('list-append: a read after the reader\'s own appends is certified (Elle\'s paper example, SI and SER)', { skip: needsData() }, async () => {
  // T4 appends 4 to key 256, then reads [1 2 4]: it read T0's version, its own append at the end.
  // The first certificate took only a read before any own write as the external read (the
  // register rule) and rejected this, turning the verdict into "unknown".
  const { history } = await readHistory(join(DATA_DIR, 'elle/paper-example.edn'));
  for (const level of ['si', 'ser'] as const) {
    const r = checkHistory(history, { level, pruning: true, explain: true });
    assert.equal(r.verdict, 'violation', `${level}: ${r.unknownReason ?? ''}`);
    for (const a of r.anomalies) assert.equal(a.explanation!.certificate.status, 'certified', `${level}: ${a.explanation!.certificate.reason}`);
  }
});
