/**
 * Records one history for a benchmark point: runs the generated workload on a target and writes
 * it as JSON Lines, exactly as `polysi run --check none` does.
 *
 * Takes: WorkloadOptions, a target spec (`memory:snapshot`, or a database URL such as
 * POLYSI_PG_URL) and a path. Gives: the file, and the run's counts (committed / aborted).
 * Invariant: the target is closed whatever happens; the file holds whole lines only.
 */

import { JsonlRecorder } from '../../src/run/recorder.ts';
import { connectAll, runWorkload } from '../../src/run/runner.ts';
import { openTarget } from '../../src/run/targets.ts';
import type { IsolationLevel } from '../../src/run/types.ts';
import { generateWorkload, type WorkloadOptions } from '../../src/workload/index.ts';

export interface Recorded {
  target: string;
  isolation: IsolationLevel;
  committed: number;
  aborted: number;
  unknown: number;
  runMs: number;
}

/**
 * The embedded store in snapshot mode by default. A database runs at REPEATABLE READ, which is
 * snapshot isolation in PostgreSQL (the paper's histories are PostgreSQL REPEATABLE READ ones).
 */
export async function recordHistory(o: WorkloadOptions, targetSpec: string, path: string): Promise<Recorded> {
  const plan = generateWorkload(o);
  const isMemory = targetSpec === 'memory' || targetSpec.startsWith('memory:');
  const { target, isolation } = await openTarget(targetSpec, isMemory ? undefined : 'repeatable-read', o.seed);
  try {
    await target.setup(o.keys, plan.kinds);
    const conns = await connectAll(target, o.sessions);
    const t0 = performance.now();
    const rec = new JsonlRecorder(path, o.sessions, t0);
    try {
      const sum = await runWorkload(target, conns, plan, {
        isolation,
        ...(isMemory ? {} : { txnTimeoutMs: 10_000 }),
        onTxn: (r) => rec.record(r),
      });
      return { target: target.name, isolation, committed: sum.committed, aborted: sum.aborted, unknown: sum.unknown, runMs: sum.elapsedMs };
    } finally {
      rec.close(); // the runner closes the connections itself, as for `polysi run`
    }
  } finally {
    await target.close().catch(() => {});
  }
}
