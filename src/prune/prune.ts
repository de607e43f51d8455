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

import { TXN_COMMITTED, type History } from '../history/model.ts';
import type { Level } from '../result/types.ts';
import type { Polygraph } from '../graph/polygraph.ts';
import { closingRw } from '../graph/forbidden.ts';
import { backwardSpansOrResort, buildSplitGraph, checksRwApart, entersNFromDOnly, extendSplitGraph, repairTopoOrder, splitTable, topoOrderSplit, type SplitGraph, type SplitTable } from '../graph/split.ts';
import { GrowableInt32 } from '../util/growable.ts';
import { K_RW } from '../graph/edges.ts';
import { DEADLINE_CHECK_MASK, TimeLimitError } from '../util/deadline.ts';
import { fullPassGrown, REACH_CELLS_MAX, ReachTable, type ReachColumns } from './reach.ts';
import { GATHER_EDGES, SCAN_BLOCK, type ScanSize, type WasmReach } from './reach-wasm.ts';
import type { KernelChoice } from '../util/wasm.ts';

export interface PruneOptions {
  level: Level;
  roundsMax: number;
  deadlineMs: number;
  /** Bound on the reachability table (Int32 cells); see reach.ts. Default REACH_CELLS_MAX. */
  reachCellsMax?: number;
  /** Called after each round with the constraints still undecided. */
  onRound?: (round: number, activeCount: number) => void;
  /**
   * Stop (without a note) after a round that decided fewer than this fraction of the
   * constraints active at its start, leaving the rest to the solver. 0 (the default) prunes to
   * the fixpoint. Sound for any value: stopping early only leaves more constraints undecided.
   * Why: late rounds cost a reachability update, a scan and a sort each for a handful of
   * constraints (fig8 30 %: rounds 3-5 decide 153, 5 and 0 of ~6,900 and cost ~40 % of pruning),
   * which the solver decides for far less.
   */
  stopBelowFraction?: number;
  /**
   * Stop (without a note) after a round that leaves at most this many constraints active, as
   * for stopBelowFraction. 0 (the default) never stops for this. Sound for any value, likewise.
   */
  stopAtActive?: number;
  /**
   * After an early stop, histories of fewer transactions get no table for the solver (see
   * CONTRACT_MIN_TXNS). 0 (the default) always hands it over when it is exact.
   */
  contractMinTxns?: number;
  /**
   * From this many transactions on, rounds after the first build the RW predecessor lists only
   * for the txns that active constraints' edges leave (edgeSources). Default
   * RW_LISTS_FILTER_MIN_TXNS. Either way the scan decides the same: it reads no other list.
   */
  rwListsFilterMinTxns?: number;
  /** Whether the WebAssembly kernel keeps the reachability table: util/wasm.ts's policy ('auto', the default); tests ask for 'always' or 'never'. */
  kernel?: KernelChoice;
}

/**
 * Below this many transactions a later round's RW predecessor lists are built for every txn,
 * as in the first round. Why: the filter (edgeSources, then the lists restricted to the txns it
 * marks) saves memory at 10^6 txns (peak 1,912 -> 1,867 MB), but in a fresh process on a
 * history of fig8's size it costs more than it saves: edgeSources' pass over every constraint
 * and the filtered count and fill are cold code, while the unfiltered ones were compiled in the
 * first round (fig8 30 %, round 2's lists and the scan's preparation, load 7-10: best/median
 * 28.4/46.0 ms filtered, 14.7/17.5 ms not).
 */
export const RW_LISTS_FILTER_MIN_TXNS = 1 << 16;

/**
 * The early stop the checker uses (check/index.ts): a round deciding less than half of what was
 * active ends pruning. Measured rounds (constraints active after each round, pruning to the fixpoint):
 * fig8 30 % 157,073 -> 10,655 -> 6,929 -> 6,776 -> 6,771; fig8 50 % 80,059 -> 3,763 -> 2,533
 * -> 2,488; fig7 zipf 31,574 -> 1,834 -> 1,058 -> 1,003 -> 999 -> 998; C-Twitter 53,828 -> 270
 * -> 219; 125k generated 999,117 -> 13,274 -> 9,074 -> 9,050. The first round decides 93-99 %
 * (5 % on write-only fig7, whose second round decides nothing), the second 19-56 %, the third
 * 0.3-5 % at the cost of a reachability update, a rescan, a sort and (in a fresh process) the
 * compilation of the update code; the solver takes those few constraints for far less.
 */
export const PRUNE_STOP_BELOW_FRACTION = 0.5;

/**
 * The checker's other early stop: a round leaving at most this many constraints ends pruning.
 * The solver decides a few hundred for about a millisecond, while one more round costs a
 * reachability update, a rescan and a sort, all cold code in a fresh process (issue 10, small
 * histories): the 360-transaction valid history had round 1 leave 134 of 1,434 constraints and
 * round 2 decide 46 of them for 3.0 ms CPU, against +1.2 ms for the solver to take 134 instead
 * of 88 (+0.5 ms for the last table update). Large histories never get this low after round 1
 * (fig8 30 %: 10,655).
 */
export const PRUNE_STOP_AT_ACTIVE = 256;

/**
 * The checker applies PRUNE_STOP_AT_ACTIVE only to polygraphs of at least this many constraints:
 * below, a round costs microseconds, and pruning on keeps the violations it decides (and their
 * explanations, e.g. the paper's Galera lost update, docs/explain.md) as they were.
 */
export const PRUNE_STOP_AT_MIN_CONSTRAINTS = 1024;

/**
 * The checker's contractMinTxns: below this many transactions an early stop hands the solver no
 * reachability table (so it solves on the known graph uncontracted): bringing the table to the
 * final graph cost the 360-transaction valid history 2.6 ms CPU in a fresh process, against
 * 1.1 ms for the sort alone, and its solver took 5.6-6.4 ms uncontracted against 5.8-5.9
 * contracted; on a 1,320-transaction one (500 KB) the table paid: solve 20 ms contracted,
 * 24-34 ms not. Hence a bound well below the latter.
 */
export const CONTRACT_MIN_TXNS = 512;

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
  /**
   * The final known split graph (`order`'s graph) whenever `reach` is set, and after an early
   * stop without a table (a history below `contractMinTxns`: the solver's phase shortcut checks
   * its model on it instead of building it again); else null.
   */
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
    ({ active, activeCount, rounds, cyclic, note: note ?? partial, timedOut, provenance, order, reach, graph });

  const cellsMax = opts.reachCellsMax ?? REACH_CELLS_MAX;
  // Constraint endpoints get a chain even if no known edge touches them yet (see ReachTable);
  // asked for only when some txn has no known edge (fig8 30 %: none, 2.5 ms saved), and then
  // only when one of those is committed (untouchedEndpointsPossible says why; the 360-txn
  // histories: their ~105 untouched txns are aborted or of unknown outcome, 0.27 ms saved).
  // Skipped, they are checked where the table must be exact (handedOver).
  let endpointsSkipped = false;
  const endpoints = (touched: Uint8Array): Uint8Array | null => {
    if (untouchedEndpointsPossible(h, touched)) return constraintEndpoints(h.txnCount, pg);
    endpointsSkipped = true;
    return null;
  };
  // The table for the solver, if it is exact for the final graph `g0`: every chain tracked and,
  // when the endpoints were skipped, every txn `g0` touches on a chain.
  const handedOver = (t: ReachTable, g0: SplitGraph): ReachTable | null =>
    t.tracked < t.chains || (endpointsSkipped && !everyTouchedChained(t.sess, g0)) ? null : t;
  let table: ReachTable | null = null;
  // Known edges 0 .. tableKnown-1 are those the table reflects.
  let tableKnown = 0;
  // Txns whose reachability answers may differ from the last round (null: all of them).
  let recheck: Uint8Array | null = null;
  const tbl = splitTable(opts.level);
  let rounds = 0;
  const stopBelow = opts.stopBelowFraction ?? 0;
  const stopAt = opts.stopAtActive ?? 0;
  let stopNow = false;
  // Known edges 0 .. orderKnown-1 are those `order` sorts.
  let orderKnown = 0;
  // The last split graph built and how many known edges it holds: a later round's graph extends
  // it with the edges forced since (extendSplitGraph: the same graph, without scattering every
  // edge again).
  let lastG: SplitGraph | null = null;
  let lastGKnown = 0;
  // Room for the split edges of every later graph (splitEdgesBound; 0 until the first round):
  // the first extension reserves it and later ones extend that graph in place, so that two
  // graphs are never alive at once (nothing else keeps an old one).
  let splitCap = 0;
  // The first graph's in-degrees, from its sort, for the chain cover.
  let firstInDegrees: Int32Array | null = null;
  for (;;) {
    let g: SplitGraph | null = null;
    // Without edge ids (reachability never reads them) except for PSI, whose closing check names the edges.
    const graph = (): SplitGraph => {
      if (g !== null) return g;
      const count = known.length, withEdges = checksRwApart(opts.level);
      g = lastG === null
        ? buildSplitGraph(pg.nodeCount, count, known.from.view(), known.to.view(), known.kind.view(), opts.level, withEdges)
        : count === lastGKnown ? lastG
        : extendSplitGraph(lastG, lastGKnown, count, known.from.view(), known.to.view(), known.kind.view(), opts.level, withEdges, splitCap);
      lastG = g; lastGKnown = count;
      return g;
    };
    // The first graph is sorted; a grown one repairs the last order where new split edges go
    // backward in it (none: the order still sorts it, and no cycle can have formed), or is
    // sorted again when they span most of it (as repairTopoOrder would). After an early stop
    // below contractMinTxns (the order goes to the solver alone, no table update reads it) the
    // grown graph is sorted again at once: there round 1's forced edges span most of the order
    // anyway (20 of the 30 valid 360-txn corpus histories), and finding the spans and the
    // repair's own functions cost more, cold, than the sort (prune 4.9 -> 4.5 ms, see the commit).
    if (order === null || (stopNow && orderKnown < known.length && h.txnCount < (opts.contractMinTxns ?? 0))) {
      order = topoOrderSplit(graph(), order === null ? (firstInDegrees = new Int32Array(2 * pg.nodeCount)) : null);
      if (order === null) return out(true, rounds, null);
    } else if (orderKnown < known.length) {
      const spans = backwardSpansOrResort(order, orderKnown, known.length, known.from.view(), known.to.view(), known.kind.view(), tbl);
      if (spans !== null) {
        order = spans === 'resort' ? topoOrderSplit(graph()) : repairTopoOrder(graph(), order, spans);
        if (order === null) return out(true, rounds, null);
      }
    }
    orderKnown = known.length;
    // Brings `t` from the known edges 0 .. tableKnown-1 to all of them (rows that can change only).
    const updateTable = (t: ReachTable, g0: SplitGraph): Uint8Array | null => {
      const grown = new Uint8Array(g0.nodeCount);
      return t.update(g0, order!, grown, markGrown(known, tableKnown, tbl, grown, fullPassGrown(g0.nodeCount)), opts.deadlineMs);
    };
    // PSI: the known graph also violates when one of its RW edges closes a Dep path.
    const rwClosed = (): boolean => checksRwApart(opts.level) && knownRwClosed(graph(), order!, known);
    if (activeCount === 0) return rwClosed() ? out(true, rounds, null) : out(false, rounds, partial);
    if (stopNow) {
      if (rwClosed()) return out(true, rounds, null);
      // An early stop leaves constraints to the solver, which contracts the known graph with an
      // exact table (src/solve/contract.ts): one more reachability update (no scan) brings the
      // table to this final graph. It costs less than the solver saves on large graphs (125k:
      // a pass ~0.3 s against a solve of 2.3 s uncontracted, 0.9 s contracted). Not on a small
      // history: there the update is cold code that costs more than contracting saves.
      if (table === null || table.tracked < table.chains) return out(false, rounds, partial);
      if (h.txnCount < (opts.contractMinTxns ?? 0)) return out(false, rounds, partial, false, null, graph());
      try {
        updateTable(table, graph());
        tableKnown = known.length;
        const exact = handedOver(table, graph());
        return out(false, rounds, partial, false, exact, exact === null ? null : graph());
      } catch (err) {
        if (err instanceof TimeLimitError) return out(false, rounds, 'pruning stopped at the deadline', true);
        throw err;
      }
    }
    if (rounds >= opts.roundsMax) return rwClosed() ? out(true, rounds, null) : out(false, rounds, `pruning stopped after ${rounds} rounds`);
    if (Date.now() >= opts.deadlineMs) return rwClosed() ? out(true, rounds, null) : out(false, rounds, 'pruning stopped at the deadline', true);
    rounds++;
    const g1 = graph();

    let reach: ReachColumns | null, kernel: WasmReach | null;
    try {
      if (table === null) {
        const room = () => {
          splitCap = pg.consCount <= SCAN_CONSTRAINTS_MAX ? splitEdgesCoarseBound(pg, g1.outTo.length, tbl) : splitEdgesBound(pg, g1.outTo.length, tbl);
          return { splitEdgesMax: splitCap, scan: scanSize(pg, splitCap) };
        };
        table = ReachTable.build(h, g1, order, cellsMax, endpoints, opts.deadlineMs, room, lastGKnown === known.length ? firstInDegrees : null, opts.kernel);
        // Without the kernel the bound serves the in-place extensions alone: on a small graph
        // a copy costs less than computing it.
        if (splitCap === 0 && g1.outTo.length >= IN_PLACE_MIN_SPLIT_EDGES) splitCap = splitEdgesBound(pg, g1.outTo.length, tbl);
      } else {
        const changedRows = updateTable(table, g1);
        recheck = changedRows === null ? null : affectedTxns(h.txnCount, changedRows, known, tableKnown, tbl);
      }
      tableKnown = known.length;
      // The known edges with a split edge from a .d node into a .n node (SI: RW; PC: RW and
      // WW), read in place from the known columns: "does u reach t.n?" goes through them. Edges
      // into t.n from a .n node (PC's WW) are left out, which only under-approximates (safe).
      // After the first round, on large histories, only the lists of txns that active
      // constraints' edges leave (RW_LISTS_FILTER_MIN_TXNS says why not on smaller ones).
      const filter = rounds > 1 && h.txnCount >= (opts.rwListsFilterMinTxns ?? RW_LISTS_FILTER_MIN_TXNS);
      const rwOnly = { kind: known.kind.view(), intoN: tbl.intoN, wanted: filter ? edgeSources(h.txnCount, pg, active) : null };
      kernel = table.kernelScan(pg, tbl, active, recheck, known.length, known.from.view(), known.to.view(), rwOnly);
      // Round 1's lists can take their lengths from the first sort's in-degrees of the .n nodes.
      const listLengths = rounds === 1 && lastGKnown === known.length && firstInDegrees !== null && entersNFromDOnly(tbl) ? firstInDegrees : null;
      reach = kernel === null ? table.columns(known.length, known.from.view(), known.to.view(), rwOnly, listLengths) : null;
      // Read in round 1 only: not kept through later rounds (8 MB at 10^6 txns).
      firstInDegrees = null;
    } catch (err) {
      // What earlier rounds forced stays valid; the solver (or the caller's 'unknown') does the rest.
      if (err instanceof TimeLimitError) return out(false, rounds, 'pruning stopped at the deadline', true);
      throw err;
    }
    if (table.tracked < table.chains) {
      partial = `pruning tracked the ${table.tracked} longest of ${table.chains} transaction chains (reachability memory bound); the solver decides the rest`;
    }
    const activeAtStart = activeCount;
    const decided = kernel !== null
      ? decideRoundInKernel(pg, active, kernel, checksRwApart(opts.level), provenance, opts.deadlineMs)
      : decideRound(pg, active, recheck, reach!, tbl, checksRwApart(opts.level), provenance, opts.deadlineMs);
    if (decided < 0) return out(false, rounds, 'pruning stopped at the deadline', true);
    const changed = decided > 0;
    activeCount -= decided;
    opts.onRound?.(rounds, activeCount);
    // The next iteration still sorts the grown known graph (a forced side may close a cycle).
    if (activeAtStart - activeCount < stopBelow * activeAtStart || activeCount <= stopAt) stopNow = true;
    // Nothing forced: the table was brought up to date with this very graph at the round's start.
    if (!changed) {
      if (rwClosed()) return out(true, rounds, null);
      const exact = handedOver(table, g!);
      return exact === null ? out(false, rounds, partial) : out(false, rounds, partial, false, exact, g);
    }
  }
}

/**
 * At most how many split edges a later round's graph can have: the first graph's, plus the
 * split edges of the larger side of every constraint (a constraint forces one side). The
 * WebAssembly kernel reserves its memory for that at once (reach-wasm.ts says why).
 */
export function splitEdgesBound(pg: Polygraph, firstSplitEdges: number, tbl: SplitTable): number {
  const { consCount, edgeStart, ceKind } = pg;
  const count = tbl.count;
  let bound = firstSplitEdges;
  for (let c = 0; c < consCount; c++) {
    const mid = edgeStart[2 * c + 1]!, end = edgeStart[2 * c + 2]!;
    let either = 0, or = 0;
    for (let e = edgeStart[2 * c]!; e < mid; e++) either += count[ceKind[e]!]!;
    for (let e = mid; e < end; e++) or += count[ceKind[e]!]!;
    bound += either > or ? either : or;
  }
  return bound;
}

/**
 * splitEdgesBound without its pass over the constraint edges: every constraint edge counted
 * with the most split edges any kind has (at least each side's, so at least the larger side's).
 * Used where the kernel scans (at most SCAN_CONSTRAINTS_MAX constraints): there the room it
 * over-reserves is a few MB of memory and of extension buffers that are never touched (fig8
 * 30 %: 409k constraint edges, 2 split edges at most per edge at SI), while the exact pass was
 * cold code over every constraint edge in a fresh process (2.6 ms). Larger polygraphs keep the
 * exact bound: at 10^6 txns the excess would be tens of MB.
 */
export function splitEdgesCoarseBound(pg: Polygraph, firstSplitEdges: number, tbl: SplitTable): number {
  let most = 0;
  for (let k = 0; k < tbl.count.length; k++) if (tbl.count[k]! > most) most = tbl.count[k]!;
  return firstSplitEdges + most * pg.ceFrom.length;
}

/**
 * Below this many split edges in the first graph, and without the kernel, pruning's later
 * graphs are copies, not extensions in place (no splitEdgesBound pass): the copy is small, and
 * so is the memory it costs (the 360-txn histories: 3,735 split edges, bound pass 0.37 ms in a
 * fresh process).
 */
const IN_PLACE_MIN_SPLIT_EDGES = 1 << 16;

/**
 * Whether a txn the first graph leaves untouched can be a constraint endpoint: only if it is
 * committed. Constraints are over included txns (validate.ts): an aborted txn never is, and an
 * unknown-outcome one is included only when an included txn read from it, which gives it a WR
 * edge. Were that ever not so, a skipped endpoint would have no chain: reachability to it
 * under-approximates (sound for pruning), and handedOver keeps such a table from the solver.
 */
function untouchedEndpointsPossible(h: History, touched: Uint8Array): boolean {
  const status = h.txnStatus;
  for (let t = 0; t < touched.length; t++) if (touched[t] === 0 && status[t] === TXN_COMMITTED) return true;
  return false;
}

/** Whether every txn with a split edge of `g` (in or out) has a column in the table (`sess`). */
function everyTouchedChained(sess: Int32Array, g: SplitGraph): boolean {
  const { outStart, outTo, nodeCount } = g;
  for (let u = 0; u < nodeCount; u++) if (outStart[u + 1]! > outStart[u]! && sess[u >> 1]! < 0) return false;
  const m = outStart[nodeCount]!;
  for (let e = 0; e < m; e++) if (sess[outTo[e]! >> 1]! < 0) return false;
  return true;
}

function constraintEndpoints(n: number, pg: Polygraph): Uint8Array {
  const endpoints = new Uint8Array(n);
  for (let e = 0; e < pg.ceFrom.length; e++) { endpoints[pg.ceFrom[e]!] = 1; endpoints[pg.ceTo[e]!] = 1; }
  return endpoints;
}

/**
 * One round's scan: every active constraint that may have changed is examined against `reach`;
 * a side that would close a cycle forces the other side into the known graph. Returns how many
 * constraints were decided, or -1 at the deadline (what was forced stays valid).
 * The JS scan (small polygraphs, POLYSI_NO_WASM=1, or above SCAN_CONSTRAINTS_MAX). It reads the
 * table in place, its columns held in locals, with no call per edge or per forced edge: in a
 * fresh process this code runs in V8's interpreter, where a call or a property load costs more
 * than a query (the 360-txn valid history, 1,434 constraints: 2.2 ms with a closure per query
 * and calls per forced edge).
 */
function decideRound(
  pg: Polygraph, active: Uint8Array, recheck: Uint8Array | null, reach: ReachColumns, tbl: SplitTable, psi: boolean,
  provenance: PruneProvenance, deadlineMs: number,
): number {
  const reachKnown = pg.known.length;
  const { consCount, edgeStart, ceFrom, ceTo, ceKind } = pg;
  const { blockingCe } = provenance;
  const { S, sess, pos, minPos, rwStart, rwSess, rwPos } = reach;
  // Per kind, what its edges ask, in one byte (one load per edge instead of four).
  const query = scanQueries(tbl, psi);
  // The sides to force, in scan order; their edges are appended in batches (appendSides), since
  // the scan reads only the table, never the known edges. Batches keep the scratch small (at
  // 10^6 txns round 1 forces about 8 M sides).
  const slots = new Int32Array(Math.min(consCount, SIDES_BATCH));
  let decided = 0, pending = 0;
  for (let c = 0; c < consCount; c++) {
    if ((c & DEADLINE_CHECK_MASK) === 0 && Date.now() >= deadlineMs) {
      appendSides(pg, slots, pending, provenance, reachKnown);
      return -1;
    }
    if (active[c] !== 1) continue;
    if (recheck !== null && !mayBeBlocked(pg, c, recheck)) continue;
    // The first edge of each side that would close a forbidden cycle with the known graph, or
    // -1: edge a->b closes one when b's split node in the target layer reaches a's split node in
    // a source layer (split.ts); a PSI RW edge when b.d reaches a.d. The queries are
    // ReachTable.reach's (reachesD, reachesN), written out over its columns.
    const mid = edgeStart[2 * c + 1]!, end = edgeStart[2 * c + 2]!;
    let eitherBlock = -1, orBlock = -1;
    for (let e = edgeStart[2 * c]!; e < end; e++) {
      const q = query[ceKind[e]!]!;
      if (q === 0) continue;
      const a = ceFrom[e]!, b = ceTo[e]!, sa = sess[a]!;
      let closes = false;
      if ((q & Q_PSI_RW) !== 0) {
        // reachesD(b.d, a)
        closes = sa >= 0 && minPos[2 * b * S + sa]! <= pos[a]!;
      } else {
        // Every pair of a kind has the same target layer (split.ts), so one start serves them all;
        // its pairs leave a.d and/or a.n, asked in turn, without a loop over them.
        const row = (2 * b + (q & Q_INTO_N)) * S;
        if ((q & Q_FROM_D) !== 0 && sa >= 0 && minPos[row + sa]! <= pos[a]!) closes = true; // reachesD(start, a)
        else if ((q & Q_FROM_N) !== 0) {
          // reachesN(start, a): through the chains of a's RW predecessors.
          for (let j = rwStart[a]!, last = rwStart[a + 1]!; j < last; j++) if (minPos[row + rwSess[j]!]! <= rwPos[j]!) { closes = true; break; }
        }
      }
      if (!closes) continue;
      if (e >= mid) { orBlock = e; break; }
      eitherBlock = e;
      e = mid - 1; // on to the "or" side
    }
    if (eitherBlock === -1 && orBlock === -1) continue;
    // Force the possible side; when both are impossible, force "or" anyway: the known graph is
    // then cyclic and the next round reports it, with a cycle through the forced edges.
    const slot = eitherBlock !== -1 ? 2 * c + 1 : 2 * c;
    decided++;
    blockingCe[c] = eitherBlock !== -1 ? eitherBlock : orBlock;
    active[c] = 0;
    slots[pending++] = slot;
    if (eitherBlock !== -1 && orBlock !== -1) break;
    if (pending === slots.length) { appendSides(pg, slots, pending, provenance, reachKnown); pending = 0; }
  }
  appendSides(pg, slots, pending, provenance, reachKnown);
  return decided;
}

/** scanQueries' bits: the kind's split edges enter the target's .n node (else its .d node); leave the source's .d node; leave its .n node; PSI's RW edge (no split edge: b.d reaching a.d closes it). */
const Q_INTO_N = 1, Q_FROM_D = 2, Q_FROM_N = 4, Q_PSI_RW = 8;

/** Per kind, what decideRound asks of its edges (Q_* bits; 0: nothing, the edge never closes a cycle). */
function scanQueries(tbl: SplitTable, psi: boolean): Uint8Array {
  const { count, x, y } = tbl;
  const query = new Uint8Array(count.length);
  for (let k = 0; k < count.length; k++) {
    if (count[k] === 0) { if (psi && k === K_RW) query[k] = Q_PSI_RW; continue; }
    query[k] = y[2 * k] === 1 ? Q_INTO_N : 0;
    for (let p = 0; p < count[k]!; p++) query[k]! |= x[2 * k + p] === 0 ? Q_FROM_D : Q_FROM_N;
  }
  return query;
}

/** How many forced sides decideRound gathers before appending their edges. */
const SIDES_BATCH = 1 << 12;

/**
 * Forces the sides `slots[0 .. m-1]` (slot = 2c + side) in that order: their edges are
 * appended to the known edges and to `forcedCe` (exactly what addSide and a push per edge
 * would append, with one copy per column instead of a call per value), and each constraint's
 * `reachKnown` is set.
 */
function appendSides(pg: Polygraph, slots: Int32Array, m: number, provenance: PruneProvenance, reachKnown: number): void {
  const { edgeStart, ceFrom, ceTo, ceKind, ceKey, known } = pg;
  let total = 0;
  for (let i = 0; i < m; i++) total += edgeStart[slots[i]! + 1]! - edgeStart[slots[i]!]!;
  // Written straight into the columns' spare room (no scratch arrays to copy from).
  const base = known.length, forcedBase = provenance.forcedCe.length;
  const e = provenance.forcedCe.spare(total), c = known.spare(total), from = c.from, to = c.to, kind = c.kind, key = c.key;
  for (let i = 0, at = base, fe = forcedBase; i < m; i++) {
    const slot = slots[i]!;
    provenance.reachKnown[slot >> 1] = reachKnown;
    for (let x = edgeStart[slot]!; x < edgeStart[slot + 1]!; x++, at++, fe++) {
      e[fe] = x; from[at] = ceFrom[x]!; to[at] = ceTo[x]!; kind[at] = ceKind[x]!; key[at] = ceKey[x]!;
    }
  }
  provenance.forcedCe.length = forcedBase + total;
  known.added(total);
}

/**
 * decideRound with the scan in the WebAssembly kernel (reach-wasm.ts, prepared by
 * ReachTable.kernelScan): the kernel finds the constraints to decide, block by block, and
 * they are applied here in the same order with the same effects. Within a round the scan reads
 * only the table and the active flags as they were at its start, and a constraint is examined
 * once, so finding them first and applying them after each block decides exactly what
 * decideRound decides.
 */
function decideRoundInKernel(pg: Polygraph, active: Uint8Array, kernel: WasmReach, psi: boolean, provenance: PruneProvenance, deadlineMs: number): number {
  const known = pg.known;
  const reachKnown = known.length;
  const { edgeStart, consCount } = pg;
  let decided = 0;
  for (let lo = 0, hi = 0; lo < consCount; lo = hi) {
    if (Date.now() >= deadlineMs) return -1;
    // A block whose constraints have at most GATHER_EDGES edges (or a single constraint).
    hi = Math.min(consCount, lo + SCAN_BLOCK);
    while (hi > lo + 1 && edgeStart[2 * hi]! - edgeStart[2 * lo]! > GATHER_EDGES) hi = lo + ((hi - lo) >> 1);
    const found = kernel.scanBlock(lo, hi, psi, K_RW);
    const records = found.length >> 2;
    const last = records > 0 && found[found.length - 1] === 1;
    if (edgeStart[2 * hi]! - edgeStart[2 * lo]! <= GATHER_EDGES) {
      // The forced sides' edges in bulk: what addSide and the forcedCe pushes append, in the same order.
      const forced = kernel.gather(records);
      provenance.forcedCe.pushAll(forced.e);
      known.from.pushAll(forced.from);
      known.to.pushAll(forced.to);
      known.kind.pushAll(forced.kind);
      known.key.pushAll(forced.key);
    } else {
      for (let i = 0; i < found.length; i += 4) {
        const slot = found[i + 1]!;
        for (let e = edgeStart[slot]!; e < edgeStart[slot + 1]!; e++) provenance.forcedCe.push(e);
        addSide(pg, slot, known);
      }
    }
    markDecided(found, provenance.blockingCe, provenance.reachKnown, reachKnown, active);
    decided += records;
    if (last) return decided;
  }
  return decided;
}

/**
 * Records the scan's decisions `found` (records of four: c, slot, blocking edge, both): c is
 * no longer active. Its own function, called once per block, so that V8 optimises it as a
 * whole instead of through decideRoundInKernel's loop (fig8 30 %, fresh process: 5-6 ms for
 * 146k records inline, 1.0-1.9 ms here).
 */
function markDecided(found: Int32Array, blockingCe: Int32Array, reachKnownOf: Int32Array, reachKnown: number, active: Uint8Array): void {
  for (let i = 0; i < found.length; i += 4) {
    const c = found[i]!;
    blockingCe[c] = found[i + 2]!;
    reachKnownOf[c] = reachKnown;
    active[c] = 0;
  }
}

/**
 * The kernel scans the constraints of polygraphs up to this size; larger ones are scanned in JS.
 * Why: the kernel's gain is largest in a fresh process (fig8 30 %, 157,073 constraints: the JS
 * scan runs mostly unoptimized; with the kernel the first round's scan and its bookkeeping take
 * 26 ms CPU instead of 45), while on large polygraphs the JS scan is optimized after its first
 * few thousand constraints and the copy of the constraint columns into the kernel's memory
 * costs about 40 bytes per constraint. Measured at 250k txns (2 M constraints), kernel scan:
 * prune CPU 5.6 s against 6.8 s with the JS passes, but peak RSS 869 MB against 691 MB, about
 * half of it the copied columns.
 */
export const SCAN_CONSTRAINTS_MAX = 1 << 19;

/** Room for the kernel's scan (reach-wasm.ts): the constraint columns, and RW predecessor lists of at most one entry per split edge; null above SCAN_CONSTRAINTS_MAX. */
function scanSize(pg: Polygraph, splitEdgesMax: number): ScanSize | null {
  if (pg.consCount > SCAN_CONSTRAINTS_MAX) return null;
  return { constraints: pg.consCount, constraintEdges: pg.ceFrom.length, rwMax: splitEdgesMax };
}

/**
 * Marks the split nodes the known edges `since ..` leave; returns how many were newly marked.
 * Stops at `enough` marked (then not every grown node is marked): from there ReachTable.update
 * recomputes every row and never reads the marks (fullPassGrown). Why: after round 1 nearly
 * every node grew (fig8 30 %: 18,821 of 20,000), and marking them read all 194k new edges
 * (4-6 ms in a fresh process) where 2,501 marks decide.
 */
function markGrown(known: Polygraph['known'], since: number, tbl: SplitTable, grown: Uint8Array, enough: number): number {
  const { from, kind } = known.views();
  let grownCount = 0;
  for (let i = since; i < kind.length && grownCount < enough; i++) {
    const k = kind[i]!;
    for (let p = 0; p < tbl.count[k]!; p++) {
      const u = 2 * from[i]! + tbl.x[2 * k + p]!;
      if (grown[u] === 0) { grown[u] = 1; grownCount++; }
    }
  }
  return grownCount;
}

/**
 * Which txns' answers may have changed since the last round's table: bit 1 of `out[t]` when a
 * row of t.d or t.n changed (reachesD(2t | 2t+1, .) and reachesN(2t, .) read them), bit 2 when
 * t gained an RW predecessor (PC: or WW; reachesN(., t) reads the list of those).
 */
function affectedTxns(n: number, changedRows: Uint8Array, known: Polygraph['known'], since: number, tbl: SplitTable): Uint8Array {
  const out = new Uint8Array(n);
  for (let t = 0; t < n; t++) if ((changedRows[2 * t]! | changedRows[2 * t + 1]!) !== 0) out[t] = 1;
  // Predecessors into t.n from a .d node (SI: RW; PC: RW and WW): reachesN(., t) reads them.
  const { to, kind } = known.views();
  for (let i = since; i < kind.length; i++) if (tbl.intoN[kind[i]!] === 1) out[to[i]!]! |= 2;
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

/** wanted[a] = 1 for every source a of an edge of an active constraint (reachesN(., a) is asked only for those). */
function edgeSources(n: number, pg: Polygraph, active: Uint8Array): Uint8Array {
  const wanted = new Uint8Array(n);
  for (let c = 0; c < pg.consCount; c++) {
    if (active[c] !== 1) continue;
    for (let e = pg.edgeStart[2 * c]!; e < pg.edgeStart[2 * c + 2]!; e++) wanted[pg.ceFrom[e]!] = 1;
  }
  return wanted;
}

/** PSI: does a known RW edge close a path of the (acyclic) known split graph? Exact. */
function knownRwClosed(g: SplitGraph, order: Int32Array, known: Polygraph['known']): boolean {
  const { from, to, kind } = known.views();
  return closingRw(g, order, from.length, from, to, kind) !== null;
}

export function addSide(pg: Polygraph, slot: number, known: Polygraph['known']): void {
  for (let e = pg.edgeStart[slot]!; e < pg.edgeStart[slot + 1]!; e++) {
    known.push(pg.ceFrom[e]!, pg.ceTo[e]!, pg.ceKind[e]!, pg.ceKey[e]!);
  }
}
