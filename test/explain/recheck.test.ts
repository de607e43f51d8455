/**
 * recheck (src/explain/recheck.ts) tells "no further violation" from "the deadline passed first".
 * Both used to be null, and explainCycles took a null returned at the very millisecond of the
 * budget's end for "no further violation": the CLI then said the anomaly search was complete
 * (anomalySearchComplete true, truncated false) when its budget had cut it short.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recheck } from '../../src/explain/recheck.ts';
import { validate } from '../../src/validate/validate.ts';
import { buildPolygraph } from '../../src/graph/polygraph.ts';
import { tinyHistory } from '../support/tiny-history.ts';

// Two lost updates on two keys: a violation, and another one once the first's edges are gone.
const h = tinyHistory([
  { s: 0, ops: 'w(x,1) w(y,1)' },
  { s: 1, ops: 'r(x,1) w(x,2)' }, { s: 2, ops: 'r(x,1) w(x,3)' },
  { s: 3, ops: 'r(y,1) w(y,2)' }, { s: 4, ops: 'r(y,1) w(y,3)' },
]);

function input() {
  const v = validate(h);
  const pg = buildPolygraph(v);
  return { pg, level: 'si' as const, provenance: null, active: new Uint8Array(pg.consCount).fill(1), validated: v };
}

test('recheck: a deadline already passed is "stopped", not "no further violation"', () => {
  assert.equal(recheck(input(), new Set(), new Set(), Date.now() - 1), 'stopped');
});

test('recheck: with time, the violation is found; a polygraph without violation gives null', () => {
  const r = recheck(input(), new Set(), new Set(), Number.POSITIVE_INFINITY);
  assert.ok(r !== null && r !== 'stopped' && r.cycle.length >= 2);
  // Without any WR edge nothing can form a cycle: no further violation.
  const inp = input();
  const removed = new Set<number>();
  for (let i = 0; i < inp.pg.known.length; i++) if (inp.pg.known.kind.get(i) !== 0) removed.add(i);
  const ceAll = new Set<number>(Array.from({ length: inp.pg.ceFrom.length }, (_, i) => i));
  assert.equal(recheck(inp, removed, ceAll, Number.POSITIVE_INFINITY), null);
});
