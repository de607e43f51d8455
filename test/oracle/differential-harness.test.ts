/**
 * Tests of the differential harness (test/support/differential.ts) with fake checkers, so that
 * the differential test of the real pipeline is known to catch what it claims to catch: wrong
 * verdicts, pruning on/off disagreements, invented cycles, 'unknown', and exceptions, with a
 * failure message that replays.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { History } from '../../src/history/model.ts';
import type { Anomaly, CheckOptions, CheckResult, Verdict } from '../../src/result/types.ts';
/** The levels the polygraph pipeline decides, which these oracles check (the weak levels have their own tests). */
type Level = 'si' | 'ser';
import { bruteForceGraph } from './brute-force.ts';
import { runSimDifferential, runTinyDifferential, type CheckFn } from '../support/differential.ts';
import { mulberry32, tinyMixedHistory } from '../support/gen.ts';
import { renderHistory } from '../support/history-text.ts';

function fakeResult(h: History, level: Level, verdict: Verdict, anomalies?: Anomaly[]): CheckResult {
  const stub: Anomaly[] = verdict === 'violation'
    ? [{ type: 'non-cycle', name: 'INT', txn: 0, op: h.txnOpStart[0]!, key: h.opKey[h.txnOpStart[0]!]!, writer: -2, message: 'fake' }]
    : [];
  return {
    verdict,
    level,
    decidedBy: verdict === 'unknown' ? 'limit' : verdict === 'violation' ? 'validation' : 'pruning',
    counts: { sessions: h.sessionCount, transactions: h.txnCount, checkedTransactions: h.txnCount, operations: h.opCount, keys: h.keyLabels.length },
    timesMs: { parse: 0, validate: 0, construct: 0, prune: 0, solve: 0 },
    constraints: { before: 0, after: 0, pruneRounds: 0 },
    solver: null,
    anomalies: anomalies ?? stub,
    truncated: false,
    anomaliesNotShown: 0,
    anomalySearchComplete: verdict === 'valid',
    ...(verdict === 'unknown' ? { unknownReason: 'fake budget' } : {}),
  };
}

/** A correct (if slow) checker: the graph oracle, which shares no code with the operational one. */
const graphChecker: CheckFn = (h: History, o: CheckOptions) => fakeResult(h, (o.level as Level), bruteForceGraph(h, (o.level as Level)));

const TINY = { cases: 400, seed: 77, txnsMax: 6, failuresMax: 3 };

test('a correct checker passes the tiny differential run', () => {
  const r = runTinyDifferential(graphChecker, TINY);
  assert.equal(r.failureCount, 0, r.failures.join('\n\n'));
  assert.equal(r.cases, 400);
  assert.equal(r.pipelineCalls, 400 * 2 * 2);
  // Every run is counted once under its variant and decision path (the fake decides by
  // 'validation' or 'pruning').
  assert.equal(Object.values(r.decided).reduce((a, b) => a + b, 0), 400 * 2 * 2);
  assert.equal((r.decided['on:validation'] ?? 0) + (r.decided['on:pruning-valid'] ?? 0), 400 * 2);
  assert.ok((r.decided['off:validation'] ?? 0) > 0 && (r.decided['off:pruning-valid'] ?? 0) > 0);
});

test('a capped third run is made, counted and compared when asked for', () => {
  const seen: (number | undefined)[] = [];
  const check: CheckFn = (h, o) => { seen.push(o.pruneRoundsMax); return graphChecker(h, o); };
  const r = runTinyDifferential(check, { ...TINY, cases: 50, cappedPruneRounds: 2 });
  assert.equal(r.failureCount, 0, r.failures.join('\n\n'));
  assert.equal(r.pipelineCalls, 50 * 2 * 3);
  assert.equal(seen.filter((x) => x === 2).length, 50 * 2);
  assert.equal(Object.entries(r.decided).filter(([k]) => k.startsWith('capped:')).reduce((a, [, c]) => a + c, 0), 50 * 2);
  const wrongWhenCapped: CheckFn = (h, o) => fakeResult(h, (o.level as Level), o.pruneRoundsMax !== undefined ? 'valid' : bruteForceGraph(h, (o.level as Level)));
  const bad = runTinyDifferential(wrongWhenCapped, { ...TINY, cases: 50, cappedPruneRounds: 2 });
  assert.ok(bad.failureCount > 0, 'a capped run that disagrees is not caught');
  assert.match(bad.failures[0]!, /pruning capped/);
});

test('a correct checker passes the small simulated runs', () => {
  const sim = { sessions: 3, txnsPerSession: 2, keys: 2 };
  for (const kind of ['si-store', 'serial-store', 'buggy-store'] as const) {
    const r = runSimDifferential(graphChecker, { kind, cases: 100, seed: 5, sim, failuresMax: 3 });
    assert.equal(r.failureCount, 0, `${kind}\n${r.failures.join('\n\n')}`);
  }
});

test('wrong checkers are caught, with messages that replay', () => {
  const wrong: Record<string, CheckFn> = {
    'always valid': (h, o) => fakeResult(h, (o.level as Level), 'valid'),
    'SI checked as SER': (h, o) => fakeResult(h, (o.level as Level), bruteForceGraph(h, 'ser')),
    'pruning changes the verdict': (h, o) => fakeResult(h, (o.level as Level), o.pruning ? 'valid' : bruteForceGraph(h, (o.level as Level))),
    'unknown': (h, o) => fakeResult(h, (o.level as Level), 'unknown'),
    'throws': () => {
      throw new Error('boom');
    },
    'invented cycle': (h, o) => {
      const v = bruteForceGraph(h, (o.level as Level));
      // Right verdict, wrong witness: a WR self-loop on txn 0.
      return fakeResult(h, (o.level as Level), v, v === 'valid' ? [] : [{ type: 'cycle', edges: [{ from: 0, to: 0, kind: 'WR', key: 0 }] }]);
    },
  };
  for (const [name, check] of Object.entries(wrong)) {
    const r = runTinyDifferential(check, TINY);
    assert.ok(r.failureCount > 0, `${name}: not caught`);
    assert.ok(r.failures.length <= TINY.failuresMax);
    const msg = r.failures[0]!;
    const m = /replay: tinyMixedHistory\(mulberry32\((\d+)\), (\d+)\)\.history/.exec(msg);
    assert.ok(m !== null, `${name}: no replay line in\n${msg}`);
    const replayed = tinyMixedHistory(mulberry32(Number(m[1])), Number(m[2])).history;
    assert.ok(msg.includes(renderHistory(replayed)), `${name}: the replayed history differs from the printed one`);
  }
});
