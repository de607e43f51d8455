/**
 * Pruning constraints to a fixpoint (PolySI §4.3, Algorithm 2 lines 37-73).
 *
 * Takes: a Polygraph and a level. Gives: `PruneOutcome`: the known edges grown by every
 * side that pruning forced, which constraints are still undecided (`active`), and whether the
 * known graph became cyclic (then the history violates the level).
 * A side of a constraint is impossible when one of its edges would close a cycle of the split
 * graph with the known edges: for a Dep edge a->b when b.d reaches a.d or a.n; for an RW edge
 * a->b when b.n reaches a.d (SI). Then the other side is forced and its edges become known.
 * Reachability is computed in full in the first round only; later rounds update the rows that
 * the edges forced in the previous round can change (ReachTable.update, exact).
 * Invariant: reachability is computed once per round, so within a round it can be stale, but
 * only in the safe direction (known edges only grow, so stale reachability under-approximates):
 * pruning never removes a possibility that does not truly close a cycle.
 */

import type { History } from '../history/model.ts';
import type { Level } from '../result/types.ts';
import type { Polygraph } from '../graph/polygraph.ts';
import { closingRw } from '../graph/forbidden.ts';
import { buildSplitGraph, checksRwApart, forEachSplitEdge, splitPairs, topoOrder, type SplitGraph } from '../graph/split.ts';
import { GrowableInt32 } from '../util/growable.ts';
import { DEADLINE_CHECK_MASK, TimeLimitError } from '../util/deadline.ts';
import { REACH_CELLS_MAX, ReachTable, type Reach } from './reach.ts';

export interface PruneOptions {
  level: Level;
  roundsMax: number;
  deadlineMs: number;
  /** Bound on the reachability table (Int32 cells); see reach.ts. Default REACH_CELLS_MAX. */
  reachCellsMax?: number;
  /** Called after each round with the constraints still undecided. */
  onRound?: (round: number, activeCount: number) => void;
}

export interface PruneOutcome {
  /** 1 if constraint c is still undecided. */
  active: Uint8Array;
  activeCount: number;
  rounds: number;
  /** The known graph (with forced sides) is cyclic: a violation. */
  cyclic: boolean;
  /** Pruning stopped early (deadline) or was skipped (memory guard); active constraints remain correct. */
  note: string | null;
  timedOut: boolean;
  /** Why each forced side was forced: read by the explain stage, never by the check itself. */
  provenance: PruneProvenance;
  /** A topological order of the final known split graph (null when it is cyclic). */
  order: Int32Array | null;
  /**
   * The reachability table when it is exactly that of the final known split graph (pruning
   * ended on a round that forced nothing) and tracks every chain; else null. The solver
   * contracts the known graph with it (src/solve/contract.ts).
   */
  reach: ReachTable | null;
  /** The final known split graph (`order`'s graph) whenever `reach` is set, else null. */
  graph: SplitGraph | null;
}

/**
 * Provenance of the edges pruning added to `pg.known` (it appends to the list in place).
 * Known edges `0 .. knownBase-1` follow from the history alone; edge `knownBase + i` is a copy
 * of constraint edge `forcedCe[i]` (an index into `pg.ce*`). A forced constraint c has
 * `blockingCe[c]` = the edge of its other side that would close a cycle with the known edges
 * `0 .. reachKnown[c]-1` (the graph whose reachability that round used); -1 if not forced.
 */
export interface PruneProvenance {
  knownBase: number;
  forcedCe: GrowableInt32;
  blockingCe: Int32Array;
  reachKnown: Int32Array;
}

export function pruneConstraints(h: History, pg: Polygraph, opts: PruneOptions): PruneOutcome {
  const active = new Uint8Array(pg.consCount).fill(1);
  let activeCount = pg.consCount;
  const known = pg.known;
  const provenance: PruneProvenance = {
    knownBase: known.length,
    forcedCe: new GrowableInt32(),
    blockingCe: new Int32Array(pg.consCount).fill(-1),
    reachKnown: new Int32Array(pg.consCount).fill(-1),
  };
  // Every return below happens either right after sorting the current known graph or at the end
  // of a round that added nothing, so `order` always belongs to the final known graph.
  let order: Int32Array | null = null;
  // Set when a round's chain cover had more chains than the reachability table could track.
  let partial: string | null = null;
  const out = (cyclic: boolean, rounds: number, note: string | null, timedOut = false, reach: ReachTable | null = null, graph: SplitGraph | null = null): PruneOutcome =>
    ({ active, activeCount, rounds, cyclic, note: note ?? partial, timedOut, provenance, order, reach, graph: reach === null ? null : graph });

  const cellsMax = opts.reachCellsMax ?? REACH_CELLS_MAX;
  // Constraint endpoints get a chain even if no known edge touches them yet (see ReachTable).
  const endpoints = new Uint8Array(h.txnCount);
  for (let e = 0; e < pg.ceFrom.length; e++) { endpoints[pg.ceFrom[e]!] = 1; endpoints[pg.ceTo[e]!] = 1; }
  let table: ReachTable | null = null;
  // Known edges 0 .. tableKnown-1 are those the table reflects.
  let tableKnown = 0;
  // Txns whose reachability answers may differ from the last round (null: all of them).
  let recheck: Uint8Array | null = null;
  let rounds = 0;
  for (;;) {
    const g = buildSplitGraph(pg.nodeCount, known.length, known.from.view(), known.to.view(), known.kind.view(), opts.level);
    order = topoOrder(g);
    if (order === null) return out(true, rounds, null);
    // PSI: the known graph also violates when one of its RW edges closes a Dep path.
    const rwClosed = (): boolean => checksRwApart(opts.level) && knownRwClosed(g, order!, known);
    if (activeCount === 0) return rwClosed() ? out(true, rounds, null) : out(false, rounds, partial);
    if (rounds >= opts.roundsMax) return rwClosed() ? out(true, rounds, null) : out(false, rounds, `pruning stopped after ${rounds} rounds`);
    if (Date.now() >= opts.deadlineMs) return rwClosed() ? out(true, rounds, null) : out(false, rounds, 'pruning stopped at the deadline', true);
    rounds++;

    const rw = collectIntoN(known, opts.level);
    let reach: Reach;
    try {
      if (table === null) {
        table = ReachTable.build(h, g, order, cellsMax, endpoints, opts.deadlineMs);
      } else {
        const grown = new Uint8Array(g.nodeCount);
        const { from, to, kind } = known.views();
        let grownCount = 0;
        const mark = (u: number): void => { if (grown[u] === 0) { grown[u] = 1; grownCount++; } };
        for (let i = tableKnown; i < known.length; i++) forEachSplitEdge(from[i]!, to[i]!, kind[i]!, opts.level, mark);
        const changedRows = table.update(g, order, grown, grownCount, opts.deadlineMs);
        recheck = changedRows === null ? null : affectedTxns(h.txnCount, changedRows, known, tableKnown, opts.level);
      }
      tableKnown = known.length;
      reach = table.reach(rw.from.length, rw.from, rw.to);
    } catch (err) {
      // What earlier rounds forced stays valid; the solver (or the caller's 'unknown') does the rest.
      if (err instanceof TimeLimitError) return out(false, rounds, 'pruning stopped at the deadline', true);
      throw err;
    }
    if (table.tracked < table.chains) {
      partial = `pruning tracked the ${table.tracked} longest of ${table.chains} transaction chains (reachability memory bound); the solver decides the rest`;
    }
    let changed = false;
    const reachKnown = known.length;
    for (let c = 0; c < pg.consCount; c++) {
      if ((c & DEADLINE_CHECK_MASK) === 0 && Date.now() >= opts.deadlineMs) {
        return out(false, rounds, 'pruning stopped at the deadline', true);
      }
      if (active[c] !== 1) continue;
      if (recheck !== null && !mayBeBlocked(pg, c, recheck)) continue;
      const eitherBlock = blockingEdge(pg, 2 * c, reach, opts.level);
      const orBlock = blockingEdge(pg, 2 * c + 1, reach, opts.level);
      const eitherImpossible = eitherBlock !== -1, orImpossible = orBlock !== -1;
      if (!eitherImpossible && !orImpossible) continue;
      // Force the possible side; when both are impossible, force "or" anyway: the known graph is
      // then cyclic and the next round reports it, with a cycle through the forced edges.
      const slot = eitherImpossible ? 2 * c + 1 : 2 * c;
      for (let e = pg.edgeStart[slot]!; e < pg.edgeStart[slot + 1]!; e++) provenance.forcedCe.push(e);
      provenance.blockingCe[c] = eitherImpossible ? eitherBlock : orBlock;
      provenance.reachKnown[c] = reachKnown;
      addSide(pg, slot, known);
      active[c] = 0;
      activeCount--;
      changed = true;
      if (eitherImpossible && orImpossible) break;
    }
    opts.onRound?.(rounds, activeCount);
    // Nothing forced: the table was brought up to date with this very graph at the round's start.
    if (!changed) return rwClosed() ? out(true, rounds, null) : out(false, rounds, partial, false, table.tracked < table.chains ? null : table, g);
  }
}

/**
 * Which txns' answers may have changed since the last round's table: bit 1 of `out[t]` when a
 * row of t.d or t.n changed (reachesD(2t | 2t+1, .) and reachesN(2t, .) read them), bit 2 when
 * t gained an RW predecessor (PC: or WW; reachesN(., t) reads the list of those).
 */
function affectedTxns(n: number, changedRows: Uint8Array, known: Polygraph['known'], since: number, level: Level): Uint8Array {
  const out = new Uint8Array(n);
  for (let t = 0; t < n; t++) if ((changedRows[2 * t]! | changedRows[2 * t + 1]!) !== 0) out[t] = 1;
  // Predecessors into t.n from a .d node (SI: RW; PC: RW and WW): reachesN(., t) reads them.
  const intoN = (k: number): boolean => splitPairs(k, level).some(([x, y]) => x === 0 && y === 1);
  const { to, kind } = known.views();
  for (let i = since; i < kind.length; i++) if (intoN(kind[i]!)) out[to[i]!]! |= 2;
  return out;
}

/**
 * Whether constraint c must be examined again. Every active constraint was examined against
 * the last round's table and found possible on both sides (a round that finds a constraint
 * impossible on both sides ends pruning, and the deadline ends it too); blockingEdge(a -> b)
 * reads only the rows of b.d / b.n and the RW predecessors of a, so if none of those changed
 * for any edge of either side, the answer is the same and the constraint can be skipped.
 */
function mayBeBlocked(pg: Polygraph, c: number, recheck: Uint8Array): boolean {
  for (let e = pg.edgeStart[2 * c]!; e < pg.edgeStart[2 * c + 2]!; e++) {
    if ((recheck[pg.ceTo[e]!]! & 1) !== 0 || (recheck[pg.ceFrom[e]!]! & 2) !== 0) return true;
  }
  return false;
}

/**
 * The known edges with a split edge from a .d node into a .n node (SI: RW; PC: RW and WW), as
 * two columns: reach.ts answers "does u reach t.n?" through them. Edges into t.n from a .n node
 * (PC's WW) are left out, which only under-approximates (safe for pruning).
 */
function collectIntoN(known: Polygraph['known'], level: Level): { from: Int32Array; to: Int32Array } {
  const { from, to, kind } = known.views();
  const intoN = (k: number): boolean => splitPairs(k, level).some(([x, y]) => x === 0 && y === 1);
  let count = 0;
  for (let i = 0; i < kind.length; i++) if (intoN(kind[i]!)) count++;
  const rwFrom = new Int32Array(count), rwTo = new Int32Array(count);
  let j = 0;
  for (let i = 0; i < kind.length; i++) {
    if (!intoN(kind[i]!)) continue;
    rwFrom[j] = from[i]!;
    rwTo[j++] = to[i]!;
  }
  return { from: rwFrom, to: rwTo };
}

/** PSI: does a known RW edge close a path of the (acyclic) known split graph? Exact. */
function knownRwClosed(g: SplitGraph, order: Int32Array, known: Polygraph['known']): boolean {
  const { from, to, kind } = known.views();
  return closingRw(g, order, from.length, from, to, kind) !== null;
}

/**
 * The first edge of this side (slot = 2c + side) that would close a forbidden cycle with the
 * known graph, or -1: edge a->b closes one when b's split node in the target layer reaches a's
 * split node in a source layer (split.ts); a PSI RW edge when b.d reaches a.d.
 */
function blockingEdge(pg: Polygraph, slot: number, reach: Reach, level: Level): number {
  for (let e = pg.edgeStart[slot]!; e < pg.edgeStart[slot + 1]!; e++) {
    const a = pg.ceFrom[e]!, b = pg.ceTo[e]!;
    const pairs = splitPairs(pg.ceKind[e]!, level);
    if (pairs.length === 0) {
      if (checksRwApart(level) && reach.reachesD(2 * b, a)) return e;
      continue;
    }
    const start = 2 * b + pairs[0]![1]!;
    for (let p = 0; p < pairs.length; p++) {
      if (pairs[p]![0] === 0 ? reach.reachesD(start, a) : reach.reachesN(start, a)) return e;
    }
  }
  return -1;
}

export function addSide(pg: Polygraph, slot: number, known: Polygraph['known']): void {
  for (let e = pg.edgeStart[slot]!; e < pg.edgeStart[slot + 1]!; e++) {
    known.push(pg.ceFrom[e]!, pg.ceTo[e]!, pg.ceKind[e]!, pg.ceKey[e]!);
  }
}
