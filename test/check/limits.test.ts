// The limits of a check: one deadline over every stage (unknown, naming the stage) and the
// constraint count known before construction (unknown, naming the hottest key) instead of a
// quadratic blow-up of memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { checkHistory } from '../../src/check/index.ts';
import { validate } from '../../src/validate/validate.ts';
import { buildPolygraph, countConstraints, CONSTRAINTS_MAX } from '../../src/graph/polygraph.ts';
import { pruneConstraints } from '../../src/prune/prune.ts';
import { TimeLimitError } from '../../src/util/deadline.ts';
import type { History } from '../../src/history/model.ts';
import { tinyHistory } from '../support/tiny-history.ts';
import { scratchDir } from '../support/scratch.ts';

/** `writers` sessions, each one txn that blindly writes key "hot" (and key "k<i>"). */
function blindWrites(writers: number): History {
  const b = new HistoryBuilder('<blind>');
  for (let i = 0; i < writers; i++) {
    const t = b.beginTxn(b.session(`s${i}`), `t${i}`);
    b.write(t, 'hot', i + 1);
    b.write(t, `k${i}`, i + 1);
  }
  return b.build();
}

test('10,000 blind writes to one key: unknown naming the key, before any constraint is built', () => {
  // 49,995,000 writer pairs: building them took ~7 GB; counting them is linear.
  const h = blindWrites(10_000);
  const before = process.memoryUsage().arrayBuffers;
  const r = checkHistory(h, { level: 'si', pruning: true });
  assert.equal(r.verdict, 'unknown');
  assert.equal(r.unknownReason,
    `the polygraph would have 49995000 constraints, more than constraintsMax (${CONSTRAINTS_MAX}); ` +
    'the hottest key, hot, has 10000 writers (49995000 pairs)');
  assert.equal(r.constraints.before, 49_995_000);
  // Nothing quadratic was allocated (the pairs alone would be 400 MB of typed arrays).
  assert.ok(process.memoryUsage().arrayBuffers - before < 100 * 1024 * 1024);
});

test('constraintsMax and constraintEdgesMax are options; under them the check runs as before', () => {
  const h = blindWrites(6); // 15 pairs, 30 edges
  const c = countConstraints(validate(h));
  assert.deepEqual(c, { pairs: 15, edges: 30, hotKey: 0, hotWriters: 6, hotPairs: 15 });
  const cut = checkHistory(h, { level: 'si', pruning: true, constraintsMax: 14 });
  assert.equal(cut.verdict, 'unknown');
  assert.match(cut.unknownReason!, /15 constraints, more than constraintsMax \(14\); the hottest key, hot, has 6 writers/);
  const edges = checkHistory(h, { level: 'si', pruning: true, constraintEdgesMax: 29 });
  assert.match(edges.unknownReason!, /30 constraint edges, more than constraintEdgesMax \(29\)/);
  const ok = checkHistory(h, { level: 'si', pruning: true, constraintsMax: 15, constraintEdgesMax: 30 });
  assert.equal(ok.verdict, 'valid');
  assert.equal(ok.constraints.before, 15);
});

test('the count matches what construction builds (readers add RW edges; coalescing only merges)', () => {
  // x: writers T1, T2, T3; T4 reads T1's x, T5 reads T2's x. y: T1 and T2 both write it.
  const h = tinyHistory([
    { s: 1, ops: 'w(x,1) w(y,1)' }, { s: 2, ops: 'w(x,2) w(y,2)' }, { s: 3, ops: 'w(x,3)' },
    { s: 4, ops: 'r(x,1)' }, { s: 5, ops: 'r(x,2)' },
  ]);
  const v = validate(h);
  const c = countConstraints(v);
  const pg = buildPolygraph(v);
  assert.equal(c.pairs, 3 + 1);
  assert.equal(pg.consCount, 3); // {T1,T2} is one constraint over x and y
  assert.equal(c.edges, pg.edgeStart[2 * pg.consCount]);
  assert.equal(c.hotWriters, 3);
});

test('a deadline in any stage gives unknown naming that stage', () => {
  const h = blindWrites(50);
  const past = Date.now() - 1;
  const r = checkHistory(h, { level: 'si', pruning: true, deadlineMs: past });
  assert.equal(r.verdict, 'unknown');
  assert.equal(r.unknownReason, 'the time limit was reached while validating');
  const v = validate(h);
  assert.throws(() => validate(h, undefined, past), (e: unknown) => e instanceof TimeLimitError && e.stage === 'validate');
  assert.throws(() => buildPolygraph(v, past), (e: unknown) => e instanceof TimeLimitError && e.stage === 'construct');
  const p = pruneConstraints(h, buildPolygraph(v), { level: 'si', roundsMax: 10, deadlineMs: past });
  assert.equal(p.timedOut, true);
  // timeoutMs and deadlineMs: the earlier one wins.
  const both = checkHistory(h, { level: 'si', pruning: true, timeoutMs: 60_000, deadlineMs: past });
  assert.equal(both.verdict, 'unknown');
  assert.equal(checkHistory(h, { level: 'si', pruning: true, timeoutMs: 60_000 }).verdict, 'valid');
});

test('the CLI: 10,000 blind writes to one key exit 3 (unknown) with the key named', async () => {
  const { main } = await import('../../src/cli/main.ts');
  const { writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = scratchDir('polysi-limits-');
  try {
    const path = join(dir, 'blind.txt');
    let text = '';
    for (let i = 1; i <= 10_000; i++) text += `w(7,${i},${i},${i})\n`;
    writeFileSync(path, text);
    let out = '';
    const code = await main(['check', path, '--json'], { stdout: (s) => { out += s; }, stderr: () => {} });
    assert.equal(code, 3);
    const j = JSON.parse(out);
    assert.equal(j.verdict, 'unknown');
    assert.match(j.unknownReason, /the hottest key, 7, has 10000 writers \(49995000 pairs\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
