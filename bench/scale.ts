/**
 * Scaling benchmark: SI-valid histories from the simulated snapshot-isolation store (the same
 * generator the tests use), of growing size, checked in-process; prints per-stage times, the
 * constraint counts and the heap/RSS high-water mark so the cost of each stage can be followed
 * as histories grow.
 *
 * Usage: npm run bench:scale [-- TXNS ...]   (default 10000 50000 100000)
 * Each size: 25 sessions, 8 ops per txn, 50% reads, keys = txns (the fig8 shape).
 */

import { checkHistory } from '../src/check/index.ts';
import { mulberry32, simulatedSiHistory } from '../test/support/gen.ts';

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
for (const txns of sizes.length > 0 ? sizes : [10_000, 50_000, 100_000]) {
  const sessions = 25;
  const t0 = performance.now();
  const h = simulatedSiHistory(mulberry32(txns), {
    sessions, txnsPerSession: Math.ceil(txns / sessions), keys: txns, opsPerTxnMin: 8, opsPerTxnMax: 8,
    pRead: 0.5, pVoluntaryAbort: 0, pUnknown: 0, bug: 'none',
  });
  const genMs = performance.now() - t0;
  const r = checkHistory(h, { level: 'si', pruning: true });
  const t = r.timesMs;
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  console.log(`${h.txnCount} txns ${h.opCount} ops: ${r.verdict}; generate ${genMs.toFixed(0)} ms; ` +
    `validate ${t.validate.toFixed(0)}, construct ${t.construct.toFixed(0)}, prune ${t.prune.toFixed(0)}, solve ${t.solve.toFixed(0)} ms; ` +
    `constraints ${r.constraints.before} -> ${r.constraints.after} (${r.constraints.pruneRounds} rounds); rss ${rssMb.toFixed(0)} MB`);
}
