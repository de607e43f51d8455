/**
 * Looking for a further violation: the history's polygraph without some dependencies, checked
 * again with the checker's own stages (pruning, then the solver).
 *
 * Takes: the explain input (whose Polygraph pruning may have grown: its first `knownBase` known
 * edges are the original ones) and the known edges and constraint edges to leave out (none, to
 * get a pruned state for a check that ran without pruning). Gives: the state
 * of the smaller polygraph at its violation and the witness cycle there, with maps back to the
 * original indices; null if it has no violation; 'stopped' if the deadline passed first (a
 * search cut short must not be reported as complete: both used to be null, and a recheck that
 * stopped at the very millisecond of its deadline was taken for "no further violation").
 * Sound because a violation of a sub-polygraph is a violation of the polygraph: taking edges
 * away never adds a cycle to any choice. Session-order edges are never taken away (pruning's
 * chain cover follows them, and a session's committed txns then stay one chain), so each
 * counterexample loses at least one of its other edges, and the next one found is a different one.
 */

import { EdgeList, K_SO } from '../graph/edges.ts';
import type { Polygraph } from '../graph/polygraph.ts';
import { pruneConstraints } from '../prune/prune.ts';
import { chosenEdges, solveConstraints, witnessCycle } from '../solve/solve.ts';
import type { Validated } from '../validate/validate.ts';
import { knownDep, unsatCycle, type CheckState } from './restore.ts';
import type { Dep } from './scenario.ts';

/** Same bound as the check's own pruning. */
const PRUNE_ROUNDS_MAX = 1000;

export interface Recheck {
  state: CheckState & { validated: Validated };
  cycle: Dep[];
  /** Index in the smaller polygraph -> index in the original (null: they are the original's). */
  knownMap: Int32Array | null;
  ceMap: Int32Array | null;
}

export function recheck(
  inp: CheckState & { validated: Validated }, removedKnown: ReadonlySet<number>, removedCe: ReadonlySet<number>, deadlineMs: number,
): Recheck | null | 'stopped' {
  const pg0 = inp.pg;
  const base = inp.provenance === null ? pg0.known.length : inp.provenance.knownBase;
  const known = new EdgeList();
  // Typed arrays filled by plain loops: this runs once per further anomaly, usually cold, where
  // `Int32Array.from(list, fn)` (an iterator and a call per element) cost several ms.
  const knownMapAll = new Int32Array(base);
  let nKnown = 0;
  for (let i = 0; i < base; i++) {
    // Session order stays: pruning's chain cover follows it (chains.ts).
    if (removedKnown.has(i) && pg0.known.kind.get(i) !== K_SO) continue;
    known.push(pg0.known.from.get(i), pg0.known.to.get(i), pg0.known.kind.get(i), pg0.known.key.get(i));
    knownMapAll[nKnown++] = i;
  }
  const edgeStart = new Int32Array(2 * pg0.consCount + 1);
  const ceMapAll = new Int32Array(pg0.ceFrom.length);
  let nCe = 0;
  for (let slot = 0; slot < 2 * pg0.consCount; slot++) {
    for (let e = pg0.edgeStart[slot]!; e < pg0.edgeStart[slot + 1]!; e++) if (!removedCe.has(e)) ceMapAll[nCe++] = e;
    edgeStart[slot + 1] = nCe;
  }
  const ceMap = ceMapAll.slice(0, nCe);
  const pick = (src: ArrayLike<number>) => {
    const out = new Int32Array(nCe);
    for (let i = 0; i < nCe; i++) out[i] = src[ceMap[i]!]!;
    return out;
  };
  const pg: Polygraph = {
    nodeCount: pg0.nodeCount, known, consCount: pg0.consCount, consA: pg0.consA, consB: pg0.consB, edgeStart,
    ceFrom: pick(pg0.ceFrom), ceTo: pick(pg0.ceTo), ceKind: Uint8Array.from(pick(pg0.ceKind)), ceKey: pick(pg0.ceKey),
  };
  const maps = { knownMap: knownMapAll.slice(0, nKnown), ceMap };
  const level = inp.level;
  // Always pruned, even if the check ran without: what pruning forces comes with its reason,
  // which is what Restore needs (and pruning never changes whether there is a violation).
  const p = pruneConstraints(inp.validated.history, pg, { level, roundsMax: PRUNE_ROUNDS_MAX, deadlineMs });
  if (p.timedOut) return 'stopped';
  const state = { pg, level, provenance: p.provenance, active: p.active, validated: inp.validated };
  if (p.cyclic) {
    const none = new Uint8Array(pg.consCount);
    const cycle = witnessCycle(pg.nodeCount, chosenEdges(pg, none, new Int32Array(pg.consCount), () => true), level);
    if (cycle === null) throw new Error('internal error: pruning reported a cycle that is not there');
    return { state, cycle: Array.from(cycle, (i) => knownDep(pg, i)), ...maps };
  }
  const s = solveConstraints(pg, p.active, { level, deadlineMs });
  if (s.result === 'unknown') return 'stopped';
  if (s.result !== 'unsat') return null;
  return { state, cycle: unsatCycle(pg, p.active, s, level), ...maps };
}
