/**
 * Finalize, the minimal part (PolySI Appendix E): drop dependencies while what is left is still a
 * violation.
 *
 * Takes: a violating scenario. Gives: a sub-scenario that is still a violation and from which no
 * single dependency can be removed without losing that (when the deadline allows; `minimal`
 * says whether it did).
 * Why one pass suffices: being a violation is monotone (more edges, or more edges on a side,
 * only add cycles to every choice), so a dependency that was needed when it was tried is still
 * needed in every subset of that scenario. Chunks are tried first (a delta-debugging shortcut
 * for big scenarios), then every dependency on its own.
 * Order: edges of constraints go first and certain edges last, so that the result leans on what
 * the history shows directly; among certain edges SO goes before WR (a read shows more).
 */

import type { Level } from '../result/types.ts';
import { K_RW, K_SO, K_WR, K_WW } from '../graph/edges.ts';
import { solveScenario, type Dep } from './scenario.ts';

function removalRank(d: Dep): number {
  if (d.cons >= 0) return d.kind === K_RW ? 0 : 1;
  switch (d.kind) {
    case K_SO: return 2;
    case K_WR: return 3;
    case K_WW: return 4;
    default: return 5;
  }
}

export function minimizeScenario(deps: readonly Dep[], level: Level, deadlineMs: number): { deps: Dep[]; minimal: boolean } {
  let cur = [...deps].sort((x, y) => removalRank(x) - removalRank(y));
  for (let chunk = Math.max(1, cur.length >> 2); chunk >= 1; chunk = chunk === 1 ? 0 : Math.max(1, chunk >> 1)) {
    for (let i = 0; i < cur.length;) {
      if (Date.now() > deadlineMs) return { deps: cur, minimal: false };
      const trial = cur.slice(0, i).concat(cur.slice(i + chunk));
      if (trial.length > 0 && solveScenario(trial, level).violation) cur = trial;
      else i += chunk;
    }
  }
  return { deps: cur, minimal: true };
}
