/**
 * Benchmark of the levels checked by saturation (read committed, read atomic, causal
 * consistency; src/levels/): the fig8 histories of ../shared/data (25 sessions × 400 txns × 8
 * ops) and generated SI-valid histories of 125k, 250k, 500k and 1M transactions in the fig8
 * shape (25 sessions, 8 ops per txn, 50% reads, keys = txns), checked in-process. Prints, per
 * history and level, the verdict and the validate and saturate (construct) times, plus the heap
 * and RSS high-water mark, and the CPU time of the whole check (less sensitive than the wall clock
 * to other load on the machine), so near-linear growth can be read off the columns.
 *
 * Usage: npm run bench:levels [-- TXNS ...]   (default 125000 250000 500000 1000000)
 *        POLYSI_BENCH_LEVELS=rc,ra,tcc (default) selects the levels.
 */

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkHistory } from '../src/check/index.ts';
import type { Level } from '../src/result/types.ts';
import type { History } from '../src/history/model.ts';
import { readHistory } from '../src/formats/index.ts';
import { mulberry32, simulatedSiHistory } from '../test/support/gen.ts';
import { DATA_DIR } from '../test/support/requirements.ts';

const LEVELS = (process.env['POLYSI_BENCH_LEVELS'] ?? 'rc,ra,tcc').split(',') as Level[];

function measure(label: string, h: History, parseMs: number): void {
  for (const level of LEVELS) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const r = checkHistory(h, { level, pruning: true });
    const wall = performance.now() - t0;
    // CPU time of this process (user + system): on a shared, loaded machine it says more than the wall clock.
    const c1 = process.cpuUsage(c0);
    const cpuMs = (c1.user + c1.system) / 1000;
    const rssMb = process.memoryUsage().rss / 2 ** 20;
    console.log(`${label.padEnd(34)} ${level.padEnd(4)} ${r.verdict.padEnd(9)} parse ${parseMs.toFixed(0).padStart(6)} ms  ` +
      `validate ${r.timesMs.validate.toFixed(0).padStart(6)} ms  saturate ${r.timesMs.construct.toFixed(0).padStart(6)} ms  ` +
      `total ${wall.toFixed(0).padStart(6)} ms  cpu ${cpuMs.toFixed(0).padStart(6)} ms  rss ${rssMb.toFixed(0)} MB`);
  }
}

const fig8 = join(DATA_DIR, 'polysi/valid/fig8');
if (existsSync(fig8)) {
  for (const f of readdirSync(fig8).filter((x) => x.endsWith('.bincode')).sort()) {
    const t0 = performance.now();
    const { history: h } = await readHistory(join(fig8, f), 'auto');
    measure(`fig8/${f}`, h, performance.now() - t0);
  }
} else console.log(`(no fig8 histories at ${fig8})`);

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
for (const txns of sizes.length > 0 ? sizes : [125_000, 250_000, 500_000, 1_000_000]) {
  const sessions = 25;
  const t0 = performance.now();
  const h = simulatedSiHistory(mulberry32(txns), {
    sessions, txnsPerSession: Math.ceil(txns / sessions), keys: txns, opsPerTxnMin: 8, opsPerTxnMax: 8,
    pRead: 0.5, pVoluntaryAbort: 0, pUnknown: 0, bug: 'none',
  });
  measure(`generated ${h.txnCount} txns ${h.opCount} ops`, h, performance.now() - t0);
}
