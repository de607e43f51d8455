/**
 * Benchmark of predicate histories (issue 22; docs/levels.md, "Predicates"): a generated serial
 * execution over one relation, checked in-process at one level. Each txn, in 20 round-robin
 * sessions with non-overlapping recorded times, runs a select (or, with SELECTS < 1, sometimes a
 * count) with one of three predicates, answered from the current state, then two writes of
 * random rows: an insert if the row is absent, else a delete (20 %) or an update. The history is
 * serializable, so the verdict is `valid` unless the check is incomplete (`unknown`).
 * Prints one JSON line: the size, the verdict, the wall time and the stage times of the check.
 *
 * Usage: node --import tsx bench/predicates.ts TXNS ROWS [LEVEL]   (e.g. 1000 100 ser)
 *        SELECTS=0.8 makes a fifth of the predicate reads counts (default: selects only).
 *        CONCURRENT=4 runs each txn beside the next 4 under snapshot isolation (see below): valid at
 *        SI, proved by the snapshot witness (check/snapshot-order.ts); at SER it may not be.
 *        TIMES=0 records no times: the serial-order witness (check/serial-order.ts) cannot
 *        apply, and the polygraph steps decide (the cost of a history whose order is unknown).
 */

import { checkHistory } from '../src/check/index.ts';
import { HistoryBuilder } from '../src/history/builder.ts';
import type { Level } from '../src/result/types.ts';
import { mulberry32 } from '../test/support/gen.ts';

const nTxn = Number(process.argv[2] ?? 1000), nKeys = Number(process.argv[3] ?? 100), level = (process.argv[4] ?? 'ser') as Level;
const selects = Number(process.env['SELECTS'] ?? 1);
const times = process.env['TIMES'] !== '0';
const concurrent = Number(process.env['CONCURRENT'] ?? 0);
const rng = mulberry32(42);
const b = new HistoryBuilder('<bench>');
const keys = Array.from({ length: nKeys }, (_, i) => i + 1);
b.relation('R', keys);
const sessions = Array.from({ length: 20 }, (_, i) => b.session(`s${i}`));
const state = new Map<number, number>();
let next = 1;
const preds: [string, (v: number) => boolean][] = [
  ['value % 3 = 0', (v) => v % 3 === 0], ['value % 7 = 1', (v) => v % 7 === 1], ['value between 100 and 200', (v) => v >= 100 && v <= 200],
];
// CONCURRENT=c: txn i runs from 10 i to 10 (i + c) + 5, reading the snapshot of the txns that
// completed before it began (i - c - 1 and earlier) and writing only rows that none of the c txns
// running beside it writes (first-committer-wins): snapshot isolation, not a serial execution.
const snap = concurrent === 0 ? state : new Map<number, number>();
const written: number[][] = [];
for (let i = 0; i < nTxn; i++) {
  const t = b.beginTxn(sessions[i % 20]!, `t${i}`);
  if (times) b.setTimes(t, i * 10, (i + concurrent) * 10 + 5);
  if (concurrent > 0 && i - concurrent - 1 >= 0) for (const k of written[i - concurrent - 1]!) { if (state.has(k)) snap.set(k, state.get(k)!); else snap.delete(k); }
  const busy = new Set(written.slice(Math.max(0, i - concurrent), i).flat());
  const [text, f] = preds[Math.floor(rng() * preds.length)]!;
  const matching = keys.filter((k) => snap.has(k) && f(snap.get(k)!));
  if (rng() < selects) b.select(t, 'R', text, matching.map((k) => [k, snap.get(k)!] as const));
  else b.count(t, 'R', text, matching.length);
  const mine: number[] = [];
  for (let w = 0; w < 2; w++) {
    let k = keys[Math.floor(rng() * nKeys)]!;
    while (busy.has(k)) k = keys[Math.floor(rng() * nKeys)]!;
    mine.push(k);
    if (!state.has(k)) { const v = next++; b.insert(t, k, v); state.set(k, v); } else if (rng() < 0.2) { b.delete(t, k); state.delete(k); } else { const v = next++; b.write(t, k, v); state.set(k, v); }
  }
  written.push(mine);
}
const h = b.build();
const t0 = performance.now();
const r = checkHistory(h, { level, pruning: true });
const stages = Object.fromEntries(Object.entries(r.timesMs).map(([k, v]) => [k, Math.round(v ?? 0)]));
console.log(JSON.stringify({ txns: nTxn, rows: nKeys, level, recordedTimes: times, concurrent, verdict: r.verdict, ms: Math.round(performance.now() - t0), times: stages, decidedBy: r.decidedBy, unknownReason: r.unknownReason, solver: r.solver }));
