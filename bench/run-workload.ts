/**
 * Throughput of `polysi run`'s machinery on the embedded store: the default workload (20
 * sessions x 15 ops, 50 % reads, 10,000 uniform keys) at each isolation level, with the abort
 * rate and the split between the store (runner + scheduler + store, recording off) and the
 * recorder (building JSON lines and writing them to a file).
 *
 * Usage: npm run bench:run [-- TXNS_PER_SESSION [REPS]]   (default 2500 per session = 50,000 txns, 3 reps)
 * Prints the best of REPS for each mode, after one warm-up run. The check is not included.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonlRecorder } from '../src/run/recorder.ts';
import { connectAll, runWorkload, type RunSummary } from '../src/run/runner.ts';
import { MemoryTarget } from '../src/run/store/memory.ts';
import type { MemoryMode } from '../src/run/store/modes.ts';
import { DEFAULT_WORKLOAD, generateWorkload } from '../src/workload/index.ts';

const perSession = Number(process.argv[2] ?? 2500);
const reps = Number(process.argv[3] ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'polysi-bench-run-'));

/** CPU time of this process in ms (user + system): the machine is shared, so wall time overstates cost. */
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

async function once(mode: MemoryMode, record: boolean): Promise<{ sum: RunSummary; recordMs: number; txns: number; cpu: number }> {
  const plan = generateWorkload({ ...DEFAULT_WORKLOAD, txnsPerSession: perSession });
  const target = new MemoryTarget(mode, 1);
  const conns = await connectAll(target, plan.options.sessions);
  const rec = record ? new JsonlRecorder(join(dir, `${mode}.jsonl`), plan.options.sessions, performance.now()) : null;
  let txns = 0;
  const c0 = cpuMs();
  const sum = await runWorkload(target, conns, plan, { isolation: 'snapshot', onTxn: (r) => { txns++; rec?.record(r); } });
  const t = performance.now();
  rec?.close();
  return { sum, recordMs: (rec?.busyMs ?? 0) + (performance.now() - t), txns, cpu: cpuMs() - c0 };
}

console.log(`load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')} on ${(await import('node:os')).cpus().length} cores`);
console.log(`embedded store, default workload with ${perSession} txns per session (${perSession * 20} txns), best of ${reps}`);
for (const mode of ['serializable', 'snapshot', 'read-committed'] as MemoryMode[]) {
  await once(mode, true); // warm-up
  let best: { withRec: number; withRecCpu: number; without: number; withoutCpu: number; recordMs: number; abortPct: number } | null = null;
  for (let i = 0; i < reps; i++) {
    const a = await once(mode, false);
    const b = await once(mode, true);
    const r = {
      without: (a.txns / a.sum.elapsedMs) * 1000, withoutCpu: (a.txns / a.cpu) * 1000,
      withRec: (b.txns / b.sum.elapsedMs) * 1000, withRecCpu: (b.txns / b.cpu) * 1000,
      recordMs: b.recordMs, abortPct: (100 * b.sum.aborted) / b.txns,
    };
    if (best === null) best = r;
    else { // best of each measure separately: on a shared machine, the best is the least disturbed
      best = { withRec: Math.max(best.withRec, r.withRec), withRecCpu: Math.max(best.withRecCpu, r.withRecCpu),
        without: Math.max(best.without, r.without), withoutCpu: Math.max(best.withoutCpu, r.withoutCpu),
        recordMs: Math.min(best.recordMs, r.recordMs), abortPct: r.abortPct };
    }
  }
  const b = best!;
  const n = (x: number) => Math.round(x).toLocaleString('en');
  const txns = perSession * 20;
  const storeCpuMs = (txns * 1000) / b.withoutCpu;
  // Recording's CPU cost: the best recorded run's CPU time minus the best unrecorded one's.
  const recordCpuMs = Math.max(0, (txns * 1000) / b.withRecCpu - storeCpuMs);
  console.log(`${mode.padEnd(15)} recorded: ${n(b.withRec)} txn/s wall, ${n(b.withRecCpu)} txn per CPU-s; ` +
    `not recorded: ${n(b.without)} txn/s wall, ${n(b.withoutCpu)} per CPU-s; aborts ${b.abortPct.toFixed(1)} %; ` +
    `store ${storeCpuMs.toFixed(0)} CPU-ms, recording ≈ ${recordCpuMs.toFixed(0)} CPU-ms (${b.recordMs.toFixed(0)} ms wall in the recorder)`);
}
rmSync(dir, { recursive: true, force: true });
