/**
 * The snapshot witness of predicate histories (src/check/snapshot-order.ts), against the
 * brute-force predicate oracle's axiomatic SI (test/oracle/brute-force-predicates.ts: a commit
 * order and a visible prefix of it per txn, Cerone et al.'s axioms; no code shared with src/).
 *
 * Recorded times stand for a commit order CO (completion) and a visibility per txn (the txns
 * completed before its invocation): every CO with every visible prefix VIS(T) shorter than T's
 * place in CO is realised by times (T's end at 10 (i + 1) for place i, its start at 10 L + 5 for
 * a prefix of length L). On seeded tiny histories with at most 4 committed txns all of them are
 * tried: if some passes, the oracle must say SI; and when no txn has an unknown outcome, SI must
 * be matched by some that passes (both directions: a witness that rejects good snapshots fails
 * too). Larger histories get a random sample, one direction. Through checkHistory, times that
 * pass decide SI and the levels below it ('recorded-order') and the oracle agrees.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkHistory } from '../../src/check/index.ts';
import { snapshotOrderBreaks } from '../../src/check/snapshot-order.ts';
import { TXN_COMMITTED, type History } from '../../src/history/model.ts';
import { axiomaticPredLevel } from '../oracle/brute-force-predicates.ts';
import { predHistoryText } from '../oracle/predicate-history.ts';
import { buildPredHistory, tinyPredicateHistory } from '../support/gen-predicates.ts';
import { caseSeed, mulberry32 } from '../support/gen.ts';

const CASES = Number(process.env['POLYSI_SNAPSHOT_ORDER_CASES'] ?? 300);
const SAMPLES = 200;

function permutations(xs: readonly number[]): number[][] {
  if (xs.length <= 1) return [xs.slice()];
  const out: number[][] = [];
  xs.forEach((x, i) => { for (const rest of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) out.push([x, ...rest]); });
  return out;
}

/** Every choice of a visible prefix length per place i of CO (0 .. i). */
function prefixChoices(n: number): number[][] {
  let out: number[][] = [[]];
  for (let i = 0; i < n; i++) out = out.flatMap((c) => Array.from({ length: i + 1 }, (_, l) => [...c, l]));
  return out;
}

/** `h` with times realising CO = `order` and VIS(order[i]) = the first `vis[i]` of it; other txns overlap everything. */
function withTimes(h: History, order: readonly number[], vis: readonly number[]): History {
  const start = new Float64Array(h.txnCount).fill(0), end = new Float64Array(h.txnCount).fill(10 * h.txnCount + 20);
  order.forEach((t, i) => { end[t] = 10 * (i + 1); start[t] = 10 * vis[i]! + 5; });
  return { ...h, txnStart: start, txnEnd: end };
}

test(`snapshot order: ${CASES} tiny predicate histories, commit orders and snapshots as recorded times, against the oracle's SI`, () => {
  const failures: string[] = [];
  let proved = 0, exhaustive = 0, viaCheck = 0;
  for (let i = 0; i < CASES; i++) {
    const rng = mulberry32(caseSeed(8484, i));
    const { history: p, generator } = tinyPredicateHistory(rng);
    const h = buildPredHistory(p);
    const committed: number[] = [];
    for (let t = 0; t < h.txnCount; t++) if (h.txnStatus[t] === TXN_COMMITTED) committed.push(t);
    const small = committed.length <= 4;
    const tries: [number[], number[]][] = [];
    if (small) {
      for (const o of permutations(committed)) for (const v of prefixChoices(committed.length)) tries.push([o, v]);
    } else {
      for (let s = 0; s < SAMPLES; s++) {
        const o = committed.slice().sort(() => rng() - 0.5);
        tries.push([o, o.map((_, j) => Math.floor(rng() * (j + 1)))]);
      }
    }
    const passing = tries.find(([o, v]) => snapshotOrderBreaks(withTimes(h, o, v)) === null);
    const si = axiomaticPredLevel(p, 'si');
    if (passing !== undefined) {
      proved++;
      if (si !== 'valid' && failures.length < 5) failures.push(`case ${i} (${generator}): CO ${passing[0].join(',')} with prefixes ${passing[1].join(',')} passes, oracle SI ${si}\n${predHistoryText(p)}`);
      if (i % 5 === 0) {
        const timed = withTimes(h, passing[0], passing[1]);
        for (const level of ['si', 'pl-si', 'pc', 'psi', 'strict-si', 'tcc', 'ra'] as const) {
          viaCheck++;
          const r = checkHistory(timed, { level, pruning: true, timeoutMs: 20_000 });
          if ((r.verdict !== 'valid' || r.decidedBy !== 'recorded-order') && failures.length < 5) failures.push(`case ${i} ${level}: ${r.verdict} by ${r.decidedBy}`);
        }
      }
    } else if (small && si === 'valid' && p.txns.every((t) => t.status !== 'unknown')) {
      if (failures.length < 5) failures.push(`case ${i} (${generator}): SI, but no commit order and snapshots pass\n${predHistoryText(p)}`);
    }
    if (small) exhaustive++;
  }
  assert.deepEqual(failures, []);
  assert.ok(proved >= CASES / 5, `only ${proved} histories had passing snapshots`);
  assert.ok(exhaustive >= CASES / 3, `only ${exhaustive} histories were small enough to try exhaustively`);
  assert.ok(viaCheck > 0);
});
