/**
 * Scaling benchmark: SI-valid histories from the simulated snapshot-isolation store (the same
 * generator the tests use), of growing size, checked in-process; prints per-stage times, the
 * constraint counts and the peak RSS so the cost of each stage can be followed as histories grow.
 *
 * Usage: npm run bench:scale [-- TXNS ...]   (default 10000 50000 100000)
 * Each size: 25 sessions, 8 ops per txn, 50% reads, keys = txns (the fig8 shape).
 * Each size runs in its own process (so that its peak RSS is its own, not the largest so far),
 * and reports wall and CPU milliseconds of construct + prune, the stages of src/graph and
 * src/prune, next to the others. Peak RSS includes generating the history.
 */

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { checkHistory } from '../src/check/index.ts';
import { mulberry32, simulatedSiHistory } from '../test/support/gen.ts';

function runOne(txns: number): void {
  const sessions = 25;
  const t0 = performance.now();
  const h = simulatedSiHistory(mulberry32(txns), {
    sessions, txnsPerSession: Math.ceil(txns / sessions), keys: txns, opsPerTxnMin: 8, opsPerTxnMax: 8,
    pRead: 0.5, pVoluntaryAbort: 0, pUnknown: 0, bug: 'none',
  });
  const genMs = performance.now() - t0;
  // CPU time of construct + prune: sampled at the stage boundaries through onProgress.
  const cpuMs = (): number => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
  let cpuConstruct = 0, cpuPrune = 0, cpuSolve = 0;
  const r = checkHistory(h, {
    level: 'si', pruning: true,
    onProgress: (p) => {
      if (p.stage === 'construct' && cpuConstruct === 0) cpuConstruct = cpuMs();
      else if (p.stage === 'prune' && cpuPrune === 0) cpuPrune = cpuMs();
      else if (p.stage === 'solve' && cpuSolve === 0) cpuSolve = cpuMs();
    },
  });
  const cpuEnd = cpuMs();
  const cpuGraph = (cpuSolve === 0 ? cpuEnd : cpuSolve) - cpuConstruct;
  const t = r.timesMs;
  const peakMb = process.resourceUsage().maxRSS / 1024;
  console.log(`${h.txnCount} txns ${h.opCount} ops: ${r.verdict}; generate ${genMs.toFixed(0)} ms; ` +
    `validate ${t.validate.toFixed(0)}, construct ${t.construct.toFixed(0)}, prune ${t.prune.toFixed(0)}, solve ${t.solve.toFixed(0)} ms; ` +
    `construct+prune ${(t.construct + t.prune).toFixed(0)} ms wall, ${cpuGraph.toFixed(0)} ms CPU; ` +
    `constraints ${r.constraints.before} -> ${r.constraints.after} (${r.constraints.pruneRounds} rounds); peak rss ${peakMb.toFixed(0)} MB`);
}

const args = process.argv.slice(2);
if (args[0] === '--one') {
  runOne(Number(args[1]));
} else {
  const sizes = args.map(Number).filter((n) => n > 0);
  for (const txns of sizes.length > 0 ? sizes : [10_000, 50_000, 100_000]) {
    const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--one', String(txns)], { stdio: 'inherit' });
    if (r.status !== 0) console.log(`${txns} txns: failed (exit ${r.status ?? r.signal})`);
  }
}
