/**
 * The text summary and the JSON of `polysi check` on violations: the cycle printed is the
 * explained counterexample's (the one its name describes), and a list cut by --max-anomalies
 * says so ("shown", how many more, `truncated` in the JSON).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { checkHistory } from '../../src/check/index.ts';
import { readHistory } from '../../src/formats/index.ts';
import { renderText } from '../../src/cli/render.ts';
import { namedCycleText } from '../../src/render/text.ts';
import { tinyHistory, type TinyTxn } from '../support/tiny-history.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';

const YUGABYTE = join(DATA_DIR, 'polysi/violations/yugabyte-causality.txt');

async function run(...argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await main(argv, { stdout: (s) => { out += s; }, stderr: () => {} });
  return { code, out };
}

test('the summary prints each explained cycle, not the search\'s witness (the reader that missed the write is on it)', { skip: needsData() }, async () => {
  const { history } = await readHistory(YUGABYTE);
  const r = checkHistory(history, { level: 'si', pruning: true, explain: true });
  const text = renderText(history, r, 'y', 'text', []);
  const cycleLines = text.split('\n').filter((l) => / cycle \(\d+ txns?, \d+ edges?\): /.test(l));
  assert.equal(cycleLines.length, r.anomalies.length);
  r.anomalies.forEach((a, i) => {
    const cx = a.explanation!;
    assert.ok(cycleLines[i]!.endsWith(`: ${namedCycleText(cx)}`), cycleLines[i]);
    // The counts are the printed cycle's own: its edges and the transactions on it (issue 23 item 4).
    const [, txns, edges] = / cycle \((\d+) txns?, (\d+) edges?\)/.exec(cycleLines[i]!)!;
    assert.equal(Number(edges), cx.cycle!.edges.length, cycleLines[i]);
    assert.equal(Number(edges), namedCycleText(cx).split(' -').length - 1, cycleLines[i]);
    assert.equal(Number(txns), new Set(cx.cycle!.edges.map((id) => cx.edges[id]!.from)).size, cycleLines[i]);
  });
  // The fifth: T8 read key 1 from T16 and missed T7's write although T7 -SO-> T8. The witness
  // the search started from (T16 -RW(0)-> T7 -WW(1)-> T16) had no T8 on it.
  assert.equal(cycleLines[4], '  G-single-process (causality violation) cycle (2 txns, 2 edges): T8 -RW(1)-> T7 -SO-> T8');
  assert.match(text, /\n {4}T8 \(session 0 #8/);
});

test('--max-anomalies 1 on five violations says "1 anomaly shown (4 more not shown)" and sets truncated', { skip: needsData() }, async () => {
  const cut = await run('check', YUGABYTE, '--max-anomalies', '1');
  assert.equal(cut.code, 1);
  assert.match(cut.out, /SI: VIOLATION — 1 anomaly shown \(4 more not shown; raise --max-anomalies\)/);
  const j = JSON.parse((await run('check', YUGABYTE, '--max-anomalies', '1', '--json')).out);
  assert.equal(j.anomalies.length, 1);
  assert.equal(j.truncated, true);
  assert.equal(j.anomaliesNotShown, 4);
  assert.equal(j.anomalySearchComplete, true);

  // Asked for (--max-anomalies), the search runs to its end: all five, nothing cut.
  const all = await run('check', YUGABYTE, '--max-anomalies', '10');
  assert.match(all.out, /SI: VIOLATION — 5 anomalies found\n/);
  const jAll = JSON.parse((await run('check', YUGABYTE, '--max-anomalies', '10', '--json')).out);
  assert.equal(jAll.truncated, false);
  assert.equal(jAll.anomaliesNotShown, 0);
  assert.equal(jAll.anomalySearchComplete, true);
});

test('by default the CLI explains the first anomaly and looks for more only within a time budget, and says when it stopped', { skip: needsData() }, async () => {
  // How many fit in the budget depends on the machine; what may not vary is the honesty.
  const j = JSON.parse((await run('check', YUGABYTE, '--json')).out);
  assert.ok(j.anomalies.length >= 1 && j.anomalies.length <= 5, `${j.anomalies.length} anomalies`);
  assert.ok(j.anomalies[0].explanation !== undefined, 'the first anomaly is explained');
  if (j.anomalies.length < 5) {
    assert.equal(j.truncated, true);
    assert.equal(j.anomalySearchComplete, false);
  }
  const text = (await run('check', YUGABYTE)).out;
  assert.match(text, /SI: VIOLATION — (5 anomalies found|\d anomal(y|ies) shown \(there may be more: the search stopped; raise --max-anomalies\))\n/);
});

test('explainMoreMs: 0 explains the first anomaly only and reports the search as stopped', { skip: needsData() }, async () => {
  const { history } = await readHistory(YUGABYTE);
  const r = checkHistory(history, { level: 'si', pruning: true, explain: true, explainMoreMs: 0 });
  assert.equal(r.anomalies.length, 1);
  assert.equal(r.truncated, true);
  assert.equal(r.anomalySearchComplete, false);
  assert.equal(r.anomaliesNotShown, 0);
  const full = checkHistory(history, { level: 'si', pruning: true, explain: true });
  assert.equal(full.anomalies.length, 5);
  // The first one is the same counterexample either way: the budget only cuts the search for more.
  assert.deepEqual(r.anomalies[0], full.anomalies[0]);
});

/** `n` independent lost updates, one key each: n distinct violations. */
function lostUpdates(n: number): TinyTxn[] {
  const txns: TinyTxn[] = [];
  for (let k = 0; k < n; k++) {
    txns.push({ s: 3 * k, ops: `w(k${k},1)` }, { s: 3 * k + 1, ops: `r(k${k},1) w(k${k},2)` }, { s: 3 * k + 2, ops: `r(k${k},1) w(k${k},3)` });
  }
  return txns;
}

test('when the count stops before the search ends, the summary says "at least"', () => {
  const h = tinyHistory(lostUpdates(12));
  const r = checkHistory(h, { level: 'si', pruning: true, explain: true, maxAnomalies: 2 });
  assert.equal(r.anomalies.length, 2);
  assert.equal(r.truncated, true);
  assert.equal(r.anomalySearchComplete, false);
  // The search counts up to 10 distinct violations (MAX_ANOMALIES_DEFAULT), then stops.
  assert.equal(r.anomaliesNotShown, 8);
  assert.match(renderText(h, r, 'h', 'text', []), /SI: VIOLATION — 2 anomalies shown \(at least 8 more not shown; raise --max-anomalies\)/);

  const few = checkHistory(tinyHistory(lostUpdates(3)), { level: 'si', pruning: true, explain: true, maxAnomalies: 2 });
  assert.deepEqual([few.anomalies.length, few.truncated, few.anomaliesNotShown, few.anomalySearchComplete], [2, true, 1, true]);
  const exact = checkHistory(tinyHistory(lostUpdates(3)), { level: 'si', pruning: true, explain: true });
  assert.deepEqual([exact.anomalies.length, exact.truncated, exact.anomaliesNotShown, exact.anomalySearchComplete], [3, false, 0, true]);
});

test('non-cycle anomalies cut by --max-anomalies are counted exactly', () => {
  // Three aborted reads (G1a): validation finds them all before any graph work.
  const h = tinyHistory([
    { s: 1, ops: 'w(x,1) w(y,1) w(z,1)', status: 'aborted' },
    { s: 2, ops: 'r(x,1)' }, { s: 3, ops: 'r(y,1)' }, { s: 4, ops: 'r(z,1)' },
  ]);
  const r = checkHistory(h, { level: 'si', pruning: true, explain: true, maxAnomalies: 1 });
  assert.deepEqual([r.anomalies.length, r.truncated, r.anomaliesNotShown, r.anomalySearchComplete], [1, true, 2, true]);
  assert.match(renderText(h, r, 'h', 'text', []), /1 anomaly shown \(2 more not shown; raise --max-anomalies\)/);
});

test('the public API takes explainMoreMs (a non-negative number) and rejects a bad one', async () => {
  const api = await import('../../src/index.ts');
  const h = tinyHistory(lostUpdates(3));
  const r = api.checkHistory(h, { explainMoreMs: 0 });
  assert.equal(r.anomalies.length, 1);
  assert.equal(r.truncated, true);
  assert.equal(api.checkHistory(h, {}).anomalies.length, 3, 'without it, the search runs to its end');
  assert.throws(() => api.checkHistory(h, { explainMoreMs: -1 }), (e: unknown) => e instanceof TypeError && /explainMoreMs/.test(e.message));
});
