/**
 * The acyclicity theory: "the graph of fixed edges plus the conditional edges whose literal is
 * true has no cycle", checked incrementally for the CDCL solver (`Theory` in cdcl.ts).
 *
 * Takes: a node count, fixed edges, conditional edges guarded by literals (many edges may share
 * one literal), then the solver's onAssign/onUnassign calls.
 * Gives: on a cycle, a conflict clause (the negations of the literals of the conditional edges
 * on the cycle, deduplicated) and the cycle's edge ids (`lastCycle`); `findCycle` for reporting.
 *
 * Invariant (between calls): `ord` is a topological order of the fixed edges plus the active
 * conditional edges; `nodeAt` is its inverse. An edge u->v is "active" while its literal is
 * true and it was inserted; active conditional edges sit on per-node intrusive linked stacks.
 *
 * Algorithm: Pearce & Kelly 2006, "A dynamic topological sort algorithm for directed acyclic
 * graphs". Inserting x->y with ord[y] < ord[x]: a forward search from y over nodes with
 * ord < ord[x] (reaching x means a cycle), a backward search from x over nodes with
 * ord > ord[y], then the union of the two sets' positions is reassigned, backward set first.
 * The backward search runs under a budget of (ord[x] - ord[y]) / 64 nodes: past it (a wide region
 * with many predecessors of x in it), the forward set is moved instead to just after x and the
 * other nodes of the region move down, keeping their order (Marchetti-Spaccamela et al.'s
 * shift): one sequential pass over the region, cheaper than a search through every in-edge of
 * a large backward set (fig8 30 %: 168,000 backward nodes visited by 357 insertions, 300,000
 * positions shifted). Both leave a topological order: nothing outside the forward set reachable
 * from it lies in the region (such a node would be in the forward set, or be x: a cycle).
 * Removing an edge never invalidates a topological order, so unassign only deactivates.
 * On a cycle, a 0-1 BFS (fixed edges cost 0, conditional edges 1) over the affected region
 * picks a cycle with the fewest conditional edges, which gives the shortest conflict clause.
 * No recursion; scratch buffers are allocated once in `initialize`.
 */

import { negate, type Lit, type Theory } from './cdcl.ts';
import { IntMinHeap } from './heap.ts';
import { GrowableInt32 as IntBuffer } from '../util/growable.ts';
import { adjacency } from './csr-wasm.ts';

/** Parent-edge codes in the cycle search: fixed CSR slot f >= 0, conditional edge c as -(c+1). */
function condCode(c: number): number {
  return -(c + 1);
}

/** The backward search may visit 1/2^this of the region before the shift is used instead (see insert). */
const SHIFT_RATIO_LOG2 = 6;

/**
 * The initial value of every per-node and per-edge array field (replaced in initialize): one
 * shared empty array, never written, instead of ~20 allocations per theory (cold, per solve).
 */
const EMPTY: Int32Array = new Int32Array(0);

/** Below this budget, a theory whose in-edges are not built yet shifts instead of building them (see insert). */
const LAZY_IN_EDGES_MIN_BUDGET = 2;

export class AcyclicityTheory implements Theory {
  private readonly n: number;
  private initialized = false;
  /** Set when the fixed edges alone are cyclic: every onAssign then reports the empty clause. */
  private fixedCyclic = false;

  // Build-phase edge lists of edges added one by one, made on the first (dropped by initialize;
  // the solver adds in bulk, and seven empty buffers were seven allocations per solve).
  private fixFromB: IntBuffer | null = null;
  private fixToB: IntBuffer | null = null;
  private fixIdB: IntBuffer | null = null;
  private condFromB: IntBuffer | null = null;
  private condToB: IntBuffer | null = null;
  private condLitB: IntBuffer | null = null;
  private condIdB: IntBuffer | null = null;
  /** The conditional edges as `setConditionalGraph` gave them (dropped by initialize). */
  private conditionalGraph: { litStart: Int32Array; from: Int32Array; to: Int32Array; id: Int32Array } | null = null;
  /** Whether the conditional edges' literals, in the order added, never decrease, and their largest. */
  private condSorted = true;
  private condMaxLit = -1;
  /** Edges added in bulk (typed arrays, kept without copying): [from, to, id] and [from, to, lit, id]. */
  private fixChunks: Int32Array[][] | null = [];
  private condChunks: Int32Array[][] | null = [];

  /** Fixed edges, CSR by tail: node u's out-edges are slots `outStart[u] .. outStart[u+1]-1`. */
  private outStart: Int32Array = EMPTY;
  /** `outTo[f]`: head of the fixed edge in CSR slot f. */
  private outTo: Int32Array = EMPTY;
  /** `outId[f]`: caller's id of the fixed edge in CSR slot f. */
  private outId = EMPTY;
  /**
   * Fixed edges, CSR by head: node v's in-edges are `inStart[v] .. inStart[v+1]-1`. With a fixed
   * graph given as a CSR (`setFixedGraph`) they are built on the first backward search that reads
   * them (`inBuilt`): a small history's searches mostly shift without reading any (see insert).
   */
  private inStart = EMPTY;
  private inBuilt = true;
  /** The fixed graph and its order as `setFixedGraph` gave them (dropped by initialize). */
  private fixedGraph: { outStart: Int32Array; outTo: Int32Array; order: Int32Array } | null = null;
  /** `inFrom[k]`: tail of the k-th fixed in-edge slot. */
  private inFrom: Int32Array = EMPTY;

  /** Conditional edges, CSR by literal: literal l guards edges `litStart[l] .. litStart[l+1]-1`. */
  private litStart = EMPTY;
  /** `condFrom[c]`, `condTo[c]`, `condLit[c]`, `condId[c]`: conditional edge c (numbered in literal order). */
  private condFrom: Int32Array = EMPTY;
  private condTo: Int32Array = EMPTY;
  private condLit: Int32Array = EMPTY;
  private condId: Int32Array = EMPTY;
  /** `activeCount[l]`: how many of literal l's edges are active (a prefix of its range). */
  private activeCount = EMPTY;
  /** `actOutHead[u]`: newest active conditional edge out of u, or -1; `actOutNext[c]`: the one before c. */
  private actOutHead = EMPTY;
  private actOutNext = EMPTY;
  /** `actInHead[v]`: newest active conditional edge into v, or -1; `actInNext[c]`: the one before c. */
  private actInHead = EMPTY;
  private actInNext = EMPTY;

  /** `ord[u]`: position of node u in the topological order. */
  private ord = EMPTY;
  /** `nodeAt[i]`: the node at position i (inverse of ord). */
  private nodeAt = EMPTY;

  // Scratch (size n each), reused by every insertion.
  /** `mark[u]`: epoch stamp: visited by the current search iff equal to that search's epoch. */
  private mark = EMPTY;
  private epoch = 0;
  /** Forward-search node list (BFS queue), later sorted by ord. */
  private listF = EMPTY;
  /** Backward-search node list, later sorted by ord. */
  private listB = EMPTY;
  /** Positions of the forward/backward nodes (sorted); on a cycle, reused as parent node/edge. */
  private ordsF = EMPTY;
  private ordsB = EMPTY;
  /** `litStamp[l]`: epoch stamp used to deduplicate literals in a conflict clause. */
  private litStamp = EMPTY;
  private litEpoch = 0;
  /** 0-1 BFS deque for cycle extraction: triples (node, parent node, parent edge code). */
  private readonly dequeFront: number[] = [];
  private readonly dequeBack: number[] = [];

  /** Edge codes of the last cycle found, new edge first (see `condCode`). */
  private readonly cycleCodes: number[] = [];
  /** Caller ids of the fixed cycle found by initialize, if any (else ids come from cycleCodes). */
  private fixedCycle: number[] | null = null;

  /**
   * How an insertion against the order reorders: 'auto' (Pearce-Kelly unless the backward search
   * outgrows the region, then the shift), or always one of them ('pk', 'shift': for tests).
   */
  private readonly reorder: 'auto' | 'pk' | 'shift';

  constructor(nodeCount: number, opts: { reorder?: 'auto' | 'pk' | 'shift' } = {}) {
    if (!Number.isInteger(nodeCount) || nodeCount < 0) throw new RangeError(`bad node count ${nodeCount}`);
    this.n = nodeCount;
    this.reorder = opts.reorder ?? 'auto';
  }

  addFixedEdge(from: number, to: number, id: number): void {
    this.checkBuilding(from, to);
    this.checkNoFixedGraph();
    (this.fixFromB ??= new IntBuffer()).push(from);
    (this.fixToB ??= new IntBuffer()).push(to);
    (this.fixIdB ??= new IntBuffer()).push(id);
  }

  addConditionalEdge(from: number, to: number, lit: Lit, id: number): void {
    this.checkBuilding(from, to);
    this.checkNoConditionalGraph();
    if (!Number.isInteger(lit) || lit < 0) throw new RangeError(`bad literal ${lit}`);
    (this.condFromB ??= new IntBuffer()).push(from);
    (this.condToB ??= new IntBuffer()).push(to);
    (this.condLitB ??= new IntBuffer()).push(lit);
    (this.condIdB ??= new IntBuffer()).push(id);
    this.noteLiterals(lit, lit);
  }

  /**
   * Fixed edges in bulk: edge i is from[i] -> to[i] with id[i]. The arrays are kept, not
   * copied, and must not change before `initialize`. Why: one call per edge (a closure, three
   * buffer pushes) cost 80 ms of a 240 ms solve on fig8 30 % (200,000 fixed edges).
   */
  addFixedEdges(from: Int32Array, to: Int32Array, id: Int32Array): void {
    this.checkBulk([from, to, id]);
    this.checkNoFixedGraph();
    this.fixChunks!.push([from, to, id]);
  }

  /**
   * All the fixed edges at once, as a CSR over the theory's nodes (node u's heads are
   * `outTo[outStart[u] .. outStart[u+1]-1]`), with `order`, a topological order of them
   * (`order[i]` = the node at position i): the theory starts from that order. The CSR is kept,
   * not copied, and must not change; the order is copied. Instead of addFixedEdge(s), not with
   * them. Fixed edges have no ids then (`lastCycle` reports them as -1).
   * The order is the caller's word: checking it would cost a pass over every edge, cold. A wrong
   * one can only hide a cycle, never make one up (cycles are found by following edges), and
   * solve.ts proves every model acyclic on its own (the model check), so a wrong order is an
   * internal error there, never a wrong verdict.
   * Why: the uncontracted solve (small histories) used to renumber every known split edge,
   * then count and scatter them into out- and in-CSRs, copies of pruning's graph (360 txns:
   * ~3 ms of a ~7 ms solve, all cold code).
   */
  setFixedGraph(outStart: Int32Array, outTo: Int32Array, order: Int32Array): void {
    if (this.initialized) throw new Error('AcyclicityTheory: edges must be added before initialize()');
    this.checkNoFixedGraph();
    if (this.fixedEdgeCount() > 0) throw new Error('AcyclicityTheory.setFixedGraph: fixed edges were added one by one');
    const n = this.n;
    if (outStart.length !== n + 1 || outStart[0] !== 0 || outStart[n] !== outTo.length) throw new RangeError(`a fixed graph's starts must span 0 .. ${outTo.length} over ${n} nodes`);
    if (order.length !== n) throw new RangeError(`an order of ${order.length} nodes for ${n}`);
    this.fixedGraph = { outStart, outTo, order };
  }

  /**
   * All the conditional edges at once, as a CSR by literal: literal l guards edges
   * `litStart[l] .. litStart[l+1]-1` of from/to/id (edge i is from[i] -> to[i] with id[i]). Kept,
   * not copied, and must not change. Instead of addConditionalEdge(s), not with them.
   * Why: the solve makes its edges variable by variable, literal by literal, so it has this CSR
   * for free; the bulk add's literal scan, count and prefix sums were three more passes over
   * them, cold (360 txns: ~550 edges, ~0.1-0.2 ms in all).
   */
  setConditionalGraph(litStart: Int32Array, from: Int32Array, to: Int32Array, id: Int32Array): void {
    this.checkBulk([from, to, id]);
    if (this.condChunks!.length > 0 || this.condFromB !== null || this.conditionalGraph !== null) {
      throw new Error('AcyclicityTheory.setConditionalGraph: conditional edges were added otherwise');
    }
    if (litStart.length === 0 || litStart[0] !== 0 || litStart[litStart.length - 1] !== from.length) {
      throw new RangeError(`a conditional graph's starts must span 0 .. ${from.length}`);
    }
    this.conditionalGraph = { litStart, from, to, id };
  }

  /** Conditional edges in bulk: edge i is from[i] -> to[i], guarded by lit[i], with id[i]. */
  addConditionalEdges(from: Int32Array, to: Int32Array, lit: Int32Array, id: Int32Array): void {
    this.checkBulk([from, to, lit, id]);
    this.checkNoConditionalGraph();
    // One pass: the literals' range, order and largest (initialize skips its sort when sorted).
    let sorted = true, min = lit.length > 0 ? lit[0]! : 0, max = min;
    for (let i = 1; i < lit.length; i++) {
      const l = lit[i]!;
      if (l < max) { sorted = false; if (l < min) min = l; } else max = l;
    }
    if (min < 0) throw new RangeError(`bad literal ${min}`);
    this.condChunks!.push([from, to, lit, id]);
    if (lit.length > 0) this.noteLiterals(lit[0]!, max);
    if (!sorted) this.condSorted = false;
  }

  /** Literals first .. last (in the order added, last the largest) follow those added before. */
  private noteLiterals(first: number, last: number): void {
    if (first < this.condMaxLit) this.condSorted = false;
    if (last > this.condMaxLit) this.condMaxLit = last;
  }

  /** How many fixed edges have been added (before initialize) or were added (after). */
  fixedEdgeCount(): number {
    if (this.initialized) return this.outTo.length;
    if (this.fixedGraph !== null) return this.fixedGraph.outTo.length;
    let m = this.fixFromB?.length ?? 0;
    for (const c of this.fixChunks!) m += c[0]!.length;
    return m;
  }

  /**
   * Builds the CSR arrays and an initial topological order of the fixed edges.
   * Returns null if the fixed edges are acyclic, else the ids of the fixed edges of one cycle,
   * in order (the caller should then not solve: every assignment would be reported inconsistent).
   */
  initialize(): number[] | null {
    if (this.initialized) throw new Error('AcyclicityTheory.initialize called twice');
    this.initialized = true;
    if (this.fixedGraph !== null) {
      this.initializeFromGraph(this.fixedGraph);
      return null;
    }
    const n = this.n;
    const fixFrom = gather(this.fixFromB, this.fixChunks!, 0);
    const fixTo = gather(this.fixToB, this.fixChunks!, 1);
    const fixId = gather(this.fixIdB, this.fixChunks!, 2);

    // Fixed out-CSR and in-CSR by counting sort (csr-wasm.ts: as WebAssembly for many edges, as
    // this runs once per solve, mostly before V8 would optimise its JS loops).
    const { outStart, inStart, outTo, outId, inFrom } = adjacency(n, fixFrom, fixTo, fixId);
    this.outStart = outStart;
    this.outTo = outTo;
    this.outId = outId;
    this.inStart = inStart;
    this.inFrom = inFrom;

    this.initializeConditional();
    this.initializeScratch();

    // Initial order: the caller's numbering if it is already topological (common: nodes numbered
    // in time or session order), else the lexicographically smallest topological order (Kahn
    // with a min-heap), which keeps nodes near their numbers. Why: Pearce–Kelly's searches are
    // bounded by position gaps, so an order that scatters nearby nodes makes every search long.
    let placed = 0;
    if (allForwards(fixFrom, fixTo)) {
      identityOrder(this.ord, this.nodeAt);
      placed = n;
    } else {
      const indeg = this.ordsF; // scratch: remaining in-degrees
      for (let v = 0; v < n; v++) indeg[v] = inStart[v + 1]! - inStart[v]!;
      const ready = new IntMinHeap(n);
      for (let v = 0; v < n; v++) if (indeg[v] === 0) ready.push(v);
      while (ready.length > 0) {
        const u = ready.pop();
        this.ord[u] = placed;
        this.nodeAt[placed++] = u;
        for (let f = outStart[u]!; f < outStart[u + 1]!; f++) {
          const v = outTo[f]!;
          if (--indeg[v] === 0) ready.push(v);
        }
      }
    }
    if (placed < n) {
      this.fixedCyclic = true;
      const idx = findCycle(n, fixFrom, fixTo)!;
      const ids = idx.map((e) => fixId[e]!);
      this.fixedCycle = ids;
      return ids.slice();
    }
    return null;
  }

  /** initialize for `setFixedGraph`: the CSR as given, the order copied, no in-CSR yet. */
  private initializeFromGraph(g: { outStart: Int32Array; outTo: Int32Array; order: Int32Array }): void {
    this.outStart = g.outStart;
    this.outTo = g.outTo;
    this.outId = EMPTY;
    this.inBuilt = false;
    this.initializeConditional();
    this.initializeScratch();
    const { ord, nodeAt } = this;
    nodeAt.set(g.order);
    for (let i = 0; i < nodeAt.length; i++) ord[nodeAt[i]!] = i;
    this.fixedGraph = null;
  }

  /**
   * The in-CSR of the fixed out-CSR (for `setFixedGraph`), on first need: in-degrees, prefix
   * sums, then the tails in node order. An end outside 0 .. n-1 is an error.
   */
  private buildInEdges(): void {
    const n = this.n, outStart = this.outStart, outTo = this.outTo;
    const inStart = new Int32Array(n + 1);
    if (!countHeads(inStart, outTo)) throw new RangeError(`a fixed edge's head is outside 0..${n - 1}`);
    for (let v = 0; v < n; v++) inStart[v + 1] += inStart[v]!;
    this.inFrom = fillTails(n, outStart, outTo, inStart);
    this.inStart = inStart;
    this.inBuilt = true;
  }

  /** The conditional edges as CSR by literal, and the per-node active lists (empty). */
  private initializeConditional(): void {
    const n = this.n;
    const given = this.conditionalGraph;
    if (given !== null) {
      // As given (setConditionalGraph); the literal per edge (conflict clauses) when first needed.
      this.condFrom = given.from;
      this.condTo = given.to;
      this.condId = given.id;
      this.litStart = given.litStart;
      this.conditionalGraph = null;
      this.initializeActive(n, given.litStart.length - 1, given.from.length);
      return;
    }
    // Conditional edges, CSR by literal.
    const cFrom = gather(this.condFromB, this.condChunks!, 0);
    const cTo = gather(this.condToB, this.condChunks!, 1);
    const cLit = gather(this.condLitB, this.condChunks!, 2);
    const cId = gather(this.condIdB, this.condChunks!, 3);
    const cn = cFrom.length;
    const maxLit = this.condMaxLit;
    // Sorted by literal already (the solver adds its edges variable by variable): no copy.
    const sorted = this.condSorted && (this.condFromB === null || this.condChunks!.length === 0);
    const { litStart, condFrom, condTo, condLit, condId } = sorted ? litStarts(maxLit, cFrom, cTo, cLit, cId) : byLiteral(maxLit, cFrom, cTo, cLit, cId);
    this.condFrom = condFrom;
    this.condTo = condTo;
    this.condLit = condLit;
    this.condId = condId;
    this.litStart = litStart;
    this.initializeActive(n, maxLit + 1, cn);
  }

  /** The per-literal counts and the per-node active lists (empty) for `lits` literals and `cn` conditional edges; drops the build buffers. */
  private initializeActive(n: number, lits: number, cn: number): void {
    this.activeCount = new Int32Array(lits);
    this.litStamp = new Int32Array(lits);
    this.actOutHead = new Int32Array(n).fill(-1);
    this.actInHead = new Int32Array(n).fill(-1);
    this.actOutNext = new Int32Array(cn);
    this.actInNext = new Int32Array(cn);
    this.fixFromB = this.fixToB = this.fixIdB = null;
    this.condFromB = this.condToB = this.condLitB = this.condIdB = null;
    this.fixChunks = this.condChunks = null;
  }

  /** The order and the searches' scratch, n entries each. */
  private initializeScratch(): void {
    const n = this.n;
    this.ord = new Int32Array(n);
    this.nodeAt = new Int32Array(n);
    this.mark = new Int32Array(n);
    this.listF = new Int32Array(n);
    this.listB = new Int32Array(n);
    this.ordsF = new Int32Array(n);
    this.ordsB = new Int32Array(n);
  }

  onAssign(lit: Lit): Lit[] | null {
    if (!this.initialized) throw new Error('AcyclicityTheory used before initialize()');
    if (this.fixedCyclic) return [];
    const c = this.assign(lit);
    if (c < 0) return null;
    this.extractCycle(c);
    return this.conflictClause();
  }

  /**
   * onAssign without the conflict clause: true when lit's edges are all inserted, false when
   * one closes a cycle (the edges before it stay inserted: onUnassign(lit) must follow, as after
   * a conflicting onAssign). `lastCycle` does not describe that cycle.
   * Why: the greedy descent (src/solve/descent.ts) only asks whether a literal fits; a cycle
   * search for the shortest conflict clause is wasted there.
   */
  tryAssign(lit: Lit): boolean {
    if (!this.initialized) throw new Error('AcyclicityTheory used before initialize()');
    return !this.fixedCyclic && this.assign(lit) < 0;
  }

  /** Inserts lit's edges in turn: -1 when all went in, else the edge that closes a cycle (activeCount counts those before it). */
  private assign(lit: Lit): number {
    if (lit + 1 >= this.litStart.length) return -1;
    const start = this.litStart[lit]!;
    const end = this.litStart[lit + 1]!;
    for (let c = start; c < end; c++) {
      if (!this.insert(c)) {
        this.activeCount[lit] = c - start;
        return c;
      }
    }
    this.activeCount[lit] = end - start;
    return -1;
  }

  onUnassign(lit: Lit): void {
    if (lit + 1 >= this.litStart.length) return;
    const start = this.litStart[lit]!;
    // LIFO: this literal's edges are the newest on every list they joined.
    for (let c = start + this.activeCount[lit]! - 1; c >= start; c--) {
      const u = this.condFrom[c]!;
      const v = this.condTo[c]!;
      if (this.actOutHead[u] !== c || this.actInHead[v] !== c) {
        throw new Error('AcyclicityTheory.onUnassign: calls are not in reverse order of onAssign');
      }
      this.actOutHead[u] = this.actOutNext[c]!;
      this.actInHead[v] = this.actInNext[c]!;
    }
    this.activeCount[lit] = 0;
  }

  /** Ids of the edges (fixed and conditional) of the cycle found by the last conflict, in order. */
  lastCycle(): number[] {
    if (this.fixedCycle !== null) return this.fixedCycle.slice();
    // Built on demand from edge codes: conflicts are frequent, cycle reports are rare.
    // Fixed edges given as a graph (setFixedGraph) have no ids: -1.
    return this.cycleCodes.map((code) => (code >= 0 ? this.outId[code] ?? -1 : this.condId[-code - 1]!));
  }

  /** How many conditional edges are active (their literal assigned true): 0 once every literal is unassigned. */
  activeEdgeCount(): number {
    let m = 0;
    for (let l = 0; l < this.activeCount.length; l++) m += this.activeCount[l]!;
    return m;
  }

  /** A copy of the current topological order: `result[u]` is u's position. */
  topologicalOrder(): Int32Array {
    return this.ord.slice();
  }

  // ---------------------------------------------------------------- internals

  private checkBuilding(from: number, to: number): void {
    if (this.initialized) throw new Error('AcyclicityTheory: edges must be added before initialize()');
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < 0 || from >= this.n || to >= this.n) {
      throw new RangeError(`edge ${from}->${to} outside 0..${this.n - 1}`);
    }
  }

  private checkNoConditionalGraph(): void {
    if (this.conditionalGraph !== null) throw new Error('AcyclicityTheory: conditional edges were given as a graph (setConditionalGraph)');
  }

  private checkNoFixedGraph(): void {
    if (this.fixedGraph !== null) throw new Error('AcyclicityTheory: fixed edges were given as a graph (setFixedGraph)');
  }

  private checkBulk(cols: Int32Array[]): void {
    if (this.initialized) throw new Error('AcyclicityTheory: edges must be added before initialize()');
    const m = cols[0]!.length;
    if (cols.some((c) => c.length !== m)) throw new RangeError('bulk edge columns differ in length');
    const bad = outsideAt(cols[0]!, cols[1]!, this.n);
    if (bad >= 0) throw new RangeError(`edge ${cols[0]![bad]}->${cols[1]![bad]} outside 0..${this.n - 1}`);
  }

  private nextEpoch(): number {
    if (this.epoch >= 0x3fffffff) {
      this.mark.fill(0);
      this.epoch = 0;
    }
    return ++this.epoch;
  }

  private activate(c: number): void {
    const u = this.condFrom[c]!;
    const v = this.condTo[c]!;
    this.actOutNext[c] = this.actOutHead[u]!;
    this.actOutHead[u] = c;
    this.actInNext[c] = this.actInHead[v]!;
    this.actInHead[v] = c;
  }

  /**
   * Inserts conditional edge c (x->y) keeping `ord` topological (Pearce–Kelly).
   * Returns false, leaving the graph and order unchanged, if the edge closes a cycle (the caller
   * may then find it with extractCycle).
   * One step per method (forward search, reordering, backward search): the theory runs cold on
   * small histories, where a function is baseline-compiled whole once it has run a while, and
   * most insertions need only the first test or the forward search and the shift.
   */
  private insert(c: number): boolean {
    const x = this.condFrom[c]!;
    const y = this.condTo[c]!;
    if (x === y) return false;
    const ub = this.ord[x]!;
    const lb = this.ord[y]!;
    if (lb > ub) {
      this.activate(c);
      return true;
    }
    const nF = this.forwardSet(x, y, ub);
    if (nF < 0) return false;
    if (this.reorder === 'shift') return this.shift(c, lb, ub, nF);
    // Backward search from x over positions > lb (cannot meet the forward set: no cycle), with
    // a budget of 1/64 of the region's width (unbounded for 'pk'): a backward node costs a scan
    // of its in-edges and a place in a sort, a shifted position four array accesses, and a
    // search that runs out of budget is wasted (fig8 30 %, search CPU in a fresh process: budget
    // 1/8 47-75 ms, 1/64 21-40 ms, always shifting 21-35 ms, never 94-108 ms).
    const budget = this.reorder === 'pk' ? 0x7fffffff : (ub - lb) >> SHIFT_RATIO_LOG2;
    // Without in-edges yet (setFixedGraph), a budget of 1 shifts at once: the search would read
    // x's in-edges only to shift anyway unless none lies in the region, and building them is a
    // pass over every fixed edge (360 txns: ~0.3-1 ms of cold code, on 8 of 30 valid histories,
    // for one such insertion each). Any topological order is as good for the search: conflicts
    // and their clauses do not depend on which one the theory keeps (test/sat/acyclicity.test.ts).
    if (!this.inBuilt && budget < LAZY_IN_EDGES_MIN_BUDGET) return this.shift(c, lb, ub, nF);
    return this.backwardAndReorder(c, x, lb, ub, nF, budget);
  }

  /**
   * The forward search of inserting x->y against the order: the nodes reachable from y at
   * positions < ub = ord[x], into `listF` (returns their count), or -1 when x is reachable (a
   * cycle). Marks them with a fresh epoch.
   */
  private forwardSet(x: number, y: number, ub: number): number {
    const ord = this.ord;
    const mark = this.mark;
    const outStart = this.outStart;
    const outTo = this.outTo;
    const epochF = this.nextEpoch();
    const listF = this.listF;
    let nF = 0;
    listF[nF++] = y;
    mark[y] = epochF;
    for (let i = 0; i < nF; i++) {
      const u = listF[i]!;
      for (let f = outStart[u]!, end = outStart[u + 1]!; f < end; f++) {
        const w = outTo[f]!;
        if (w === x) return -1;
        if (mark[w] !== epochF && ord[w]! < ub) {
          mark[w] = epochF;
          listF[nF++] = w;
        }
      }
      for (let k = this.actOutHead[u]!; k >= 0; k = this.actOutNext[k]!) {
        const w = this.condTo[k]!;
        if (w === x) return -1;
        if (mark[w] !== epochF && ord[w]! < ub) {
          mark[w] = epochF;
          listF[nF++] = w;
        }
      }
    }
    return nF;
  }

  /**
   * Pearce-Kelly's second half for c = x->y (forward set in `listF[0 .. nF-1]`): the backward
   * search from x within `budget` nodes (past it, the shift instead), then the backward set
   * (sorted) and the forward set (sorted) take the merged pool of their positions.
   */
  private backwardAndReorder(c: number, x: number, lb: number, ub: number, nF: number, budget: number): boolean {
    if (budget > 0 && !this.inBuilt) this.buildInEdges();
    const ord = this.ord;
    const mark = this.mark;
    const listF = this.listF;
    const inStart = this.inStart;
    const inFrom = this.inFrom;
    const epochB = this.nextEpoch();
    const listB = this.listB;
    let nB = 0;
    listB[nB++] = x;
    mark[x] = epochB;
    for (let i = 0; i < nB; i++) {
      if (nB > budget) return this.shift(c, lb, ub, nF);
      const u = listB[i]!;
      for (let k = inStart[u]!, end = inStart[u + 1]!; k < end; k++) {
        const w = inFrom[k]!;
        if (mark[w] !== epochB && ord[w]! > lb) {
          mark[w] = epochB;
          listB[nB++] = w;
        }
      }
      for (let k = this.actInHead[u]!; k >= 0; k = this.actInNext[k]!) {
        const w = this.condFrom[k]!;
        if (mark[w] !== epochB && ord[w]! > lb) {
          mark[w] = epochB;
          listB[nB++] = w;
        }
      }
    }

    // Reorder: backward set (sorted) then forward set (sorted) take the merged pool of positions.
    const ordsF = this.ordsF;
    const ordsB = this.ordsB;
    const nodeAt = this.nodeAt;
    for (let i = 0; i < nF; i++) ordsF[i] = ord[listF[i]!]!;
    for (let i = 0; i < nB; i++) ordsB[i] = ord[listB[i]!]!;
    if (nF > 1) ordsF.subarray(0, nF).sort();
    if (nB > 1) ordsB.subarray(0, nB).sort();
    for (let i = 0; i < nF; i++) listF[i] = nodeAt[ordsF[i]!]!;
    for (let i = 0; i < nB; i++) listB[i] = nodeAt[ordsB[i]!]!;
    let iF = 0;
    let iB = 0;
    for (let k = 0; k < nB + nF; k++) {
      let pos: number;
      if (iB < nB && (iF >= nF || ordsB[iB]! < ordsF[iF]!)) pos = ordsB[iB++]!;
      else pos = ordsF[iF++]!;
      const node = k < nB ? listB[k]! : listF[k - nB]!;
      ord[node] = pos;
      nodeAt[pos] = node;
    }
    this.activate(c);
    return true;
  }

  /**
   * The other reordering for inserting c = x->y against the order (no cycle, the forward set in
   * `listF[0 .. nF-1]`): over positions lb = ord[y] .. ub = ord[x], the nodes not in the forward set move
   * down in their order (x last of them), then the forward set follows in its order.
   */
  private shift(c: number, lb: number, ub: number, nF: number): boolean {
    const ord = this.ord;
    const nodeAt = this.nodeAt;
    const mark = this.mark;
    const listF = this.listF;
    // A fresh stamp (the backward search, if any, may have reset the marks).
    const epochF = this.nextEpoch();
    for (let i = 0; i < nF; i++) mark[listF[i]!] = epochF;
    const moved = this.listB;
    let w = lb;
    let m = 0;
    for (let p = lb; p <= ub; p++) {
      const v = nodeAt[p]!;
      if (mark[v] === epochF) {
        moved[m++] = v;
      } else {
        nodeAt[w] = v;
        ord[v] = w++;
      }
    }
    for (let i = 0; i < m; i++) {
      const v = moved[i]!;
      nodeAt[w] = v;
      ord[v] = w++;
    }
    this.activate(c);
    return true;
  }

  /**
   * Finds the cycle through the new edge c = x->y with the fewest conditional edges: a 0-1 BFS
   * from y to x over nodes with position < ord[x] (every y->x path lies there), Dijkstra-style
   * with lazy deletion. Leaves the edge codes, c first, in `cycleCodes`.
   */
  private extractCycle(c: number): void {
    const x = this.condFrom[c]!;
    const y = this.condTo[c]!;
    const codes = this.cycleCodes;
    codes.length = 0;
    if (x === y) {
      codes.push(condCode(c));
      return;
    }
    const ord = this.ord;
    const ub = ord[x]!;
    const mark = this.mark;
    const parentNode = this.ordsF;
    const parentEdge = this.ordsB;
    const front = this.dequeFront;
    const back = this.dequeBack;
    front.length = 0;
    back.length = 0;
    let backHead = 0;
    const epoch = this.nextEpoch();
    back.push(y, x, condCode(c));
    for (;;) {
      let u: number;
      let pu: number;
      let pe: number;
      if (front.length > 0) {
        pe = front.pop()!;
        pu = front.pop()!;
        u = front.pop()!;
      } else {
        // x is reachable from y, so the deque cannot run dry before x is settled.
        u = back[backHead]!;
        pu = back[backHead + 1]!;
        pe = back[backHead + 2]!;
        backHead += 3;
      }
      if (mark[u] === epoch) continue;
      mark[u] = epoch;
      parentNode[u] = pu;
      parentEdge[u] = pe;
      if (u === x) break;
      for (let f = this.outStart[u]!, end = this.outStart[u + 1]!; f < end; f++) {
        const w = this.outTo[f]!;
        if (mark[w] !== epoch && (ord[w]! < ub || w === x)) front.push(w, u, f);
      }
      for (let k = this.actOutHead[u]!; k >= 0; k = this.actOutNext[k]!) {
        const w = this.condTo[k]!;
        if (mark[w] !== epoch && (ord[w]! < ub || w === x)) back.push(w, u, condCode(k));
      }
    }
    // Walk parents from x back to y (whose parent edge is c), then reverse: c, y->..., ...->x.
    let u = x;
    do {
      codes.push(parentEdge[u]!);
      u = parentNode[u]!;
    } while (u !== x);
    codes.reverse();
  }

  /** The deduplicated conflict clause of the cycle in `cycleCodes`. */
  private conflictClause(): Lit[] {
    const codes = this.cycleCodes;
    const clause: Lit[] = [];
    if (this.condLit.length !== this.condFrom.length) this.condLit = literalsOf(this.litStart);
    const condLit = this.condLit;
    if (this.litEpoch >= 0x3fffffff) {
      this.litStamp.fill(0);
      this.litEpoch = 0;
    }
    const epoch = ++this.litEpoch;
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i]!;
      if (code >= 0) continue;
      const l = condLit[-code - 1]!;
      if (this.litStamp[l] !== epoch) {
        this.litStamp[l] = epoch;
        clause.push(negate(l));
      }
    }
    return clause;
  }
}

/**
 * The first edge with an end outside 0 .. n-1, or -1. Both ends in one loop, one unsigned
 * comparison each (a negative end is a large unsigned one): it runs once per bulk add, cold
 * (fig8 30 %: ~100,000 edges).
 */
function outsideAt(from: Int32Array, to: Int32Array, n: number): number {
  for (let i = 0; i < from.length; i++) if (from[i]! >>> 0 >= n || to[i]! >>> 0 >= n) return i;
  return -1;
}

/** `inStart[v + 1]` += the number of edges into v; false when a head is outside 0 .. n-1. */
function countHeads(inStart: Int32Array, outTo: Int32Array): boolean {
  const n = inStart.length - 1;
  for (let f = 0; f < outTo.length; f++) {
    const v = outTo[f]!;
    if (v >>> 0 >= n) return false;
    inStart[v + 1]++;
  }
  return true;
}

/** The tails by head (in-CSR with starts `inStart`) of the out-CSR `outStart`/`outTo`, in tail order. */
function fillTails(n: number, outStart: Int32Array, outTo: Int32Array, inStart: Int32Array): Int32Array {
  const inFrom = new Int32Array(outTo.length), fill = inStart.slice(0, n);
  for (let u = 0; u < n; u++) for (let f = outStart[u]!; f < outStart[u + 1]!; f++) inFrom[fill[outTo[f]!]!++] = u;
  return inFrom;
}

/** Conditional edges renumbered in literal order, with `litStart` (CSR by literal). */
function byLiteral(maxLit: number, cFrom: Int32Array, cTo: Int32Array, cLit: Int32Array, cId: Int32Array) {
  const cn = cFrom.length;
  const litStart = new Int32Array(maxLit + 2);
  countLits(litStart, cLit);
  for (let l = 0; l <= maxLit; l++) litStart[l + 1] += litStart[l]!;
  const litFill = litStart.slice(0, maxLit + 1);
  const condFrom = new Int32Array(cn), condTo = new Int32Array(cn), condLit = new Int32Array(cn), condId = new Int32Array(cn);
  for (let i = 0; i < cn; i++) {
    const l = cLit[i]!;
    const c = litFill[l]++;
    condFrom[c] = cFrom[i]!;
    condTo[c] = cTo[i]!;
    condLit[c] = l;
    condId[c] = cId[i]!;
  }
  return { litStart, condFrom, condTo, condLit, condId };
}

/** `lit[c]`: the literal guarding conditional edge c of the CSR by literal `litStart`. */
function literalsOf(litStart: Int32Array): Int32Array {
  const lit = new Int32Array(litStart[litStart.length - 1]!);
  for (let l = 0; l + 1 < litStart.length; l++) lit.fill(l, litStart[l]!, litStart[l + 1]!);
  return lit;
}

/** byLiteral for edges already in literal order: the starts only, the columns as they are. */
function litStarts(maxLit: number, cFrom: Int32Array, cTo: Int32Array, cLit: Int32Array, cId: Int32Array) {
  const litStart = new Int32Array(maxLit + 2);
  countLits(litStart, cLit);
  for (let l = 0; l <= maxLit; l++) litStart[l + 1] += litStart[l]!;
  return { litStart, condFrom: cFrom, condTo: cTo, condLit: cLit, condId: cId };
}

function countLits(litStart: Int32Array, lit: Int32Array): void {
  for (let i = 0; i < lit.length; i++) litStart[lit[i]! + 1]++;
}

function allForwards(from: Int32Array, to: Int32Array): boolean {
  for (let e = 0; e < from.length; e++) if (from[e]! >= to[e]!) return false;
  return true;
}

function identityOrder(ord: Int32Array, nodeAt: Int32Array): void {
  for (let v = 0; v < ord.length; v++) {
    ord[v] = v;
    nodeAt[v] = v;
  }
}

/** Column k of the edges pushed one by one followed by those added in bulk (no copy if only one chunk). */
function gather(buf: IntBuffer | null, chunks: Int32Array[][], k: number): Int32Array {
  if (buf === null && chunks.length === 1) return chunks[0]![k]!;
  let m = buf?.length ?? 0;
  for (const c of chunks) m += c[k]!.length;
  const out = new Int32Array(m);
  if (buf !== null) out.set(buf.view());
  let at = buf?.length ?? 0;
  for (const c of chunks) { out.set(c[k]!, at); at += c[k]!.length; }
  return out;
}

/**
 * One cycle of a directed graph, as edge indices in order (edge i is edgesFrom[i]->edgesTo[i];
 * consecutive edges meet, the last ends where the first starts), or null if it is acyclic.
 * Iterative DFS with white/grey/black colours: O(nodes + edges) time and memory.
 */
export function findCycle(nodeCount: number, edgesFrom: Int32Array, edgesTo: Int32Array): number[] | null {
  const n = nodeCount;
  const m = edgesFrom.length;
  if (edgesTo.length !== m) throw new RangeError('edgesFrom and edgesTo differ in length');
  const start = new Int32Array(n + 1);
  for (let e = 0; e < m; e++) {
    const u = edgesFrom[e]!;
    const v = edgesTo[e]!;
    if (u < 0 || u >= n || v < 0 || v >= n) throw new RangeError(`edge ${e} (${u}->${v}) outside 0..${n - 1}`);
    start[u + 1]++;
  }
  for (let u = 0; u < n; u++) start[u + 1] += start[u]!;
  const adj = new Int32Array(m);
  const fill = start.slice(0, n);
  for (let e = 0; e < m; e++) adj[fill[edgesFrom[e]!]!++] = e;

  const WHITE = 0;
  const GREY = 1;
  const BLACK = 2;
  const color = new Uint8Array(n);
  /** DFS stack: node, next adjacency slot to try, and the edge by which the node was entered. */
  const stackNode = new Int32Array(n);
  const stackNext = new Int32Array(n);
  const stackEdge = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    if (color[s] !== WHITE) continue;
    let sp = 0;
    stackNode[0] = s;
    stackNext[0] = start[s]!;
    stackEdge[0] = -1;
    sp = 1;
    color[s] = GREY;
    while (sp > 0) {
      const u = stackNode[sp - 1]!;
      const it = stackNext[sp - 1]!;
      if (it < start[u + 1]!) {
        stackNext[sp - 1] = it + 1;
        const e = adj[it]!;
        const w = edgesTo[e]!;
        if (color[w] === WHITE) {
          color[w] = GREY;
          stackNode[sp] = w;
          stackNext[sp] = start[w]!;
          stackEdge[sp] = e;
          sp++;
        } else if (color[w] === GREY) {
          // w is on the stack: the stack edges above w, then e, close the cycle.
          let pos = sp - 1;
          while (stackNode[pos] !== w) pos--;
          const cycle: number[] = [];
          for (let k = pos + 1; k < sp; k++) cycle.push(stackEdge[k]!);
          cycle.push(e);
          return cycle;
        }
      } else {
        color[u] = BLACK;
        sp--;
      }
    }
  }
  return null;
}
