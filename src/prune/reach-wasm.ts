/**
 * Pruning's reachability passes (reach.ts) as a WebAssembly SIMD kernel, and the round's
 * constraint scan (prune.ts's decideRound) over the table it holds.
 *
 * Takes: the split graph (CSR), its topological order, and the chain columns (`sess`, `pos`) of
 * a ReachTable. Gives: `WasmReach`, which keeps the table `minPos` in its own linear memory
 * (an Int32Array view over it: `table`) and fills or updates it exactly as reach.ts's JS passes
 * do: same rows, cell for cell (test/prune/reach-wasm.test.ts compares them on random graphs).
 * Why: a row merge is an element-wise minimum of S Int32 cells, four per `i32x4.min_s`; and V8
 * compiles WebAssembly before running it (Liftoff at once, TurboFan in the background), so a
 * fresh process does not spend the first passes in the interpreter as it does with JS.
 * Memory layout: the table at byte 0 (so its view only changes when the memory grows), then
 * `sess` and `pos` (fixed for the table's life), then per pass the order, the CSR adjacency
 * and the pass's scratch, copied in before the pass. The memory grows to what a pass needs and
 * is reused by the next one (WebAssembly memory never shrinks; it is freed with the table).
 * A row of S cells: S >= 4 is merged four cells at a time, the last S mod 4 cells by one more
 * (overlapping) vector at S - 4, which is harmless since min is idempotent; S < 4 cell by cell.
 * The scan (`beginScan`, `scanBlock`, `gather`) finds, block by block, the constraints with an
 * impossible side and gathers the edges of the sides to force; prune.ts applies them in order.
 * Invariant: the kernel's rows equal the JS passes' rows (reach.ts states why those are exact),
 * and its scan finds what decideRound would decide, in the same order.
 */

import { checkDeadline, DEADLINE_CHECK_MASK } from '../util/deadline.ts';
import type { SplitGraph } from '../graph/split.ts';
import { base64Bytes, freshMemory, kernelRuns, lazyModule, WASM_PAGE, wasmWanted, type KernelChoice } from '../util/wasm.ts';
import { KERNEL_BASE64 } from './reach-wasm-bytes.ts';

const INF = 0x7fffffff;
/** Nodes handled by one call into the kernel between deadline checks (as reach.ts's BLOCK). */
const BLOCK = DEADLINE_CHECK_MASK + 1;
/** WebAssembly (32-bit) memories end at 4 GiB; past a bit less, the JS passes run instead. */
export const WASM_BYTES_MAX = 4 * 2 ** 30 - 64 * WASM_PAGE;

/** The kernel's exports (their source: scripts/wasm/reach-kernel.ts); arrays are byte addresses. */
interface Kernel {
  rows(lo: number, hi: number, S: number, order: number, outStart: number, outTo: number, sess: number, pos: number, tab: number,
    done: number, earliest: number, stamp: number): void;
  update(lo: number, hi: number, S: number, order: number, outStart: number, outTo: number, tab: number, visit: number, changed: number): void;
  decide(lo: number, hi: number, active: number, recheck: number, edgeStart: number, ceFrom: number, ceTo: number, ceKind: number,
    count: number, x: number, y: number, psi: number, kRW: number, S: number, tab: number, sess: number, pos: number,
    rwStart: number, rwSess: number, rwPos: number, out: number): number;
  gather(recs: number, n: number, edgeStart: number, ceFrom: number, ceTo: number, ceKind: number, ceKey: number,
    outE: number, outFrom: number, outTo: number, outKind: number, outKey: number): number;
}


/**
 * The kernel's module, compiled on first use from the bytes that scripts/build-kernels.ts
 * assembled from scripts/wasm/reach-kernel.ts (test/prune/kernel-bytes.test.ts checks they are
 * fresh); null where WebAssembly SIMD is missing (a very old engine or one with it disabled):
 * the JS passes do the work.
 */
const kernelModule = lazyModule(embeddedKernelBytes);

/** The kernel's bytes as reach-wasm-bytes.ts holds them (what runs). */
export function embeddedKernelBytes(): Uint8Array<ArrayBuffer> {
  return base64Bytes(KERNEL_BASE64);
}

/** Whether a table of `cells` cells should use the kernel under `choice` (ReachTable.build asks; util/wasm.ts's policy). */
export function kernelWanted(cells: number, choice: KernelChoice = 'auto'): boolean {
  return kernelRuns(choice, cells) && wasmAvailable();
}

/** Whether the WebAssembly kernel is wanted (POLYSI_NO_WASM=1 selects the JS passes) and usable here. */
export function wasmAvailable(): boolean {
  return wasmWanted() && kernelModule() !== null;
}

const align16 = (x: number): number => Math.ceil(x / 16) * 16;

/** Constraints handled by one call of the scan between deadline checks. */
export const SCAN_BLOCK = DEADLINE_CHECK_MASK + 1;
/** At most this many forced edges are gathered per scan block (scanBlock's callers size blocks to it). */
export const GATHER_EDGES = 1 << 16;
/** Split-table columns reserved per kind (the edge kinds are a handful). */
const KINDS_MAX = 16;

/** What the round's scan needs room for: the polygraph's constraint columns, and RW predecessor lists. */
export interface ScanSize {
  constraints: number;
  constraintEdges: number;
  /** At most this many RW predecessor entries (reach.ts's rwPredecessors) in any round. */
  rwMax: number;
}

/** The constraint columns of a Polygraph the scan reads (prune.ts's decideRound). */
export interface ConstraintColumns {
  consCount: number;
  edgeStart: Int32Array;
  ceFrom: Int32Array;
  ceTo: Int32Array;
  ceKind: Uint8Array;
  ceKey: Int32Array;
}

/** Byte addresses of the scan's arrays (the scan area, after pos). */
interface ScanArea {
  edgeStart: number; ceFrom: number; ceTo: number; ceKind: number; ceKey: number; count: number; x: number; y: number;
  active: number; recheck: number; rwStart: number; rwSess: number; rwPos: number; out: number;
  outE: number; outFrom: number; outTo: number; outKind: number; outKey: number;
  rwMax: number; end: number; loaded: boolean;
}

function scanArea(at: number, size: ScanSize, n: number): ScanArea {
  const C = size.constraints, E = size.constraintEdges;
  const next = (bytes: number): number => { const x = at; at = align16(at + bytes); return x; };
  const a = {
    edgeStart: next(4 * (2 * C + 1)), ceFrom: next(4 * E), ceTo: next(4 * E), ceKind: next(4 * E), ceKey: next(4 * E),
    count: next(4 * KINDS_MAX), x: next(8 * KINDS_MAX), y: next(8 * KINDS_MAX),
    active: next(C), recheck: next(n), rwStart: next(4 * (n + 1)), rwSess: next(4 * size.rwMax), rwPos: next(4 * size.rwMax),
    out: next(16 * SCAN_BLOCK),
    outE: next(4 * GATHER_EDGES), outFrom: next(4 * GATHER_EDGES), outTo: next(4 * GATHER_EDGES), outKind: next(4 * GATHER_EDGES), outKey: next(4 * GATHER_EDGES),
    rwMax: size.rwMax, end: 0, loaded: false,
  };
  a.end = at;
  return a;
}

/**
 * A reachability table of `cells` Int32 cells (row stride S) in WebAssembly memory, with the
 * passes of reach.ts. `create` returns null when the memory cannot be had (then the caller
 * keeps the table in a JS Int32Array and runs the JS passes).
 */
export class WasmReach {
  private view: Int32Array;
  /** Byte addresses of sess and pos (n Int32 each), and of the per-pass area after them. */
  private readonly sessAt: number;
  private readonly posAt: number;
  private readonly scratchAt: number;
  /** The scan's arrays, or null when no room was reserved for it. */
  private readonly scan: ScanArea | null;

  private constructor(private readonly memory: WebAssembly.Memory, private readonly k: Kernel, readonly S: number, readonly cells: number,
    sess: Int32Array, pos: Int32Array, scan: ScanSize | null) {
    this.sessAt = align16(cells * 4);
    this.posAt = align16(this.sessAt + 4 * sess.length);
    const scanAt = align16(this.posAt + 4 * pos.length);
    this.scan = scan === null ? null : scanArea(scanAt, scan, sess.length);
    this.scratchAt = this.scan === null ? scanAt : this.scan.end;
    this.reserve(this.scratchAt);
    this.view = new Int32Array(memory.buffer, 0, cells);
    new Int32Array(memory.buffer, this.sessAt, sess.length).set(sess);
    new Int32Array(memory.buffer, this.posAt, pos.length).set(pos);
  }

  /**
   * A table of S columns for the nodes of `g`, with room for passes over graphs of up to
   * `splitEdgesMax` edges (at least `g`'s), or null when WebAssembly is off or unavailable, or
   * when that would not fit a 32-bit memory.
   * The memory is allocated at once at its final size, never grown in the usual case: growing
   * detaches the old ArrayBuffer, and the first detach in a process invalidates V8's
   * "array buffer detaching" protector, which deoptimizes every optimized function that reads a
   * typed array (measured on fig8: the split graph, topological sort and round bookkeeping of
   * the next round took 2-3x as long). Untouched pages cost address space, not memory.
   */
  static create(S: number, sess: Int32Array, pos: Int32Array, g: SplitGraph, splitEdgesMax: number, scan: ScanSize | null = null): WasmReach | null {
    const module = wasmAvailable() ? kernelModule() : null;
    if (module === null) return null;
    const cells = g.nodeCount * S;
    const scanBytes = scan === null ? 0 : scanArea(0, scan, sess.length).end;
    const bytes = align16(cells * 4) + 8 * sess.length + 32 + scanBytes + passBytes(g.nodeCount, Math.max(splitEdgesMax, g.outTo.length), S);
    if (bytes > WASM_BYTES_MAX) return null;
    const memory = freshMemory(bytes);
    if (memory === null) return null;
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    return new WasmReach(memory, instance.exports as unknown as Kernel, S, cells, sess, pos, scan);
  }

  /** The table (minPos), a view of the memory; valid until the next pass. */
  get table(): Int32Array {
    if (this.view.buffer !== this.memory.buffer) this.view = new Int32Array(this.memory.buffer, 0, this.cells);
    return this.view;
  }

  /** Grows the memory to at least `bytes` (RangeError when it cannot); see `create` on why it rarely should. */
  private reserve(bytes: number): void {
    const have = this.memory.buffer.byteLength;
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / WASM_PAGE));
  }

  /** Copies `a` to the next free place at or after `at`; returns its byte address. */
  private put(a: Int32Array, at: number): number {
    new Int32Array(this.memory.buffer, at, a.length).set(a);
    return at;
  }

  /** Fills the table with the rows of `g` (reach.ts's minReachablePositions). */
  full(g: SplitGraph, order: Int32Array, deadlineMs: number): void {
    const { S } = this;
    const N = g.nodeCount;
    this.reserve(this.scratchAt + passBytes(N, g.outTo.length, S));
    this.table.fill(INF);
    const orderAt = this.put(order, this.scratchAt);
    const startAt = this.put(g.outStart, align16(orderAt + 4 * N));
    const toAt = this.put(g.outTo, align16(startAt + 4 * (N + 1)));
    const earliestAt = align16(toAt + 4 * g.outTo.length);
    const stampAt = align16(earliestAt + 4 * S);
    const doneAt = align16(stampAt + 4 * S);
    const buf = this.memory.buffer;
    new Int32Array(buf, stampAt, S).fill(-1);
    new Uint8Array(buf, doneAt, N).fill(0);
    for (let hi = N; hi > 0; hi -= BLOCK) {
      checkDeadline(deadlineMs, 'prune');
      this.k.rows(Math.max(0, hi - BLOCK), hi, S, orderAt, startAt, toAt, this.sessAt, this.posAt, 0, doneAt, earliestAt, stampAt);
    }
  }

  /**
   * Prepares a round's scan (prune.ts's decideRound): the constraint columns and the level's
   * split table (copied on the first round only: they never change), `active`, `recheck` (null:
   * every active constraint is examined) and the RW predecessor lists (reach.ts's
   * rwPredecessors). Returns false when no room was reserved for the scan or the lists do not
   * fit it (then the JS scan runs).
   */
  beginScan(pg: ConstraintColumns, tbl: { count: Int8Array; x: Int8Array; y: Int8Array }, active: Uint8Array, recheck: Uint8Array | null,
    rw: { start: Int32Array; sess: Int32Array; pos: Int32Array }): boolean {
    const a = this.scan;
    if (a === null || rw.sess.length > a.rwMax || tbl.count.length > KINDS_MAX) return false;
    const buf = this.memory.buffer;
    if (!a.loaded) {
      new Int32Array(buf, a.edgeStart, pg.edgeStart.length).set(pg.edgeStart);
      new Int32Array(buf, a.ceFrom, pg.ceFrom.length).set(pg.ceFrom);
      new Int32Array(buf, a.ceTo, pg.ceTo.length).set(pg.ceTo);
      new Int32Array(buf, a.ceKind, pg.ceKind.length).set(pg.ceKind);
      new Int32Array(buf, a.ceKey, pg.ceKey.length).set(pg.ceKey);
      new Int32Array(buf, a.count, tbl.count.length).set(tbl.count);
      new Int32Array(buf, a.x, tbl.x.length).set(tbl.x);
      new Int32Array(buf, a.y, tbl.y.length).set(tbl.y);
      a.loaded = true;
    }
    new Uint8Array(buf, a.active, active.length).set(active);
    if (recheck !== null) new Uint8Array(buf, a.recheck, recheck.length).set(recheck);
    this.recheckOn = recheck !== null;
    new Int32Array(buf, a.rwStart, rw.start.length).set(rw.start);
    new Int32Array(buf, a.rwSess, rw.sess.length).set(rw.sess);
    new Int32Array(buf, a.rwPos, rw.pos.length).set(rw.pos);
    return true;
  }

  private recheckOn = false;

  /**
   * The scan of constraints lo .. hi-1 (at most SCAN_BLOCK of them) after `beginScan`: records
   * of four Int32 (c, slot to force, blocking edge, 1 if both sides are impossible), a view
   * valid until the next call.
   */
  scanBlock(lo: number, hi: number, psi: boolean, kRW: number): Int32Array {
    const a = this.scan!;
    const n = this.k.decide(lo, hi, a.active, this.recheckOn ? a.recheck : 0, a.edgeStart, a.ceFrom, a.ceTo, a.ceKind, a.count, a.x, a.y,
      psi ? 1 : 0, kRW, this.S, 0, this.sessAt, this.posAt, a.rwStart, a.rwSess, a.rwPos, a.out);
    return new Int32Array(this.memory.buffer, a.out, 4 * n);
  }

  /**
   * The edges of the sides the last scanBlock found to force (its `n` records), gathered:
   * ids and columns, views valid until the next call. The caller keeps the block's constraint
   * edges within GATHER_EDGES.
   */
  gather(n: number): { e: Int32Array; from: Int32Array; to: Int32Array; kind: Int32Array; key: Int32Array } {
    const a = this.scan!;
    const m = this.k.gather(a.out, n, a.edgeStart, a.ceFrom, a.ceTo, a.ceKind, a.ceKey, a.outE, a.outFrom, a.outTo, a.outKind, a.outKey);
    const buf = this.memory.buffer;
    return {
      e: new Int32Array(buf, a.outE, m), from: new Int32Array(buf, a.outFrom, m), to: new Int32Array(buf, a.outTo, m),
      kind: new Int32Array(buf, a.outKind, m), key: new Int32Array(buf, a.outKey, m),
    };
  }

  /**
   * reach.ts's incremental update: the nodes marked in `grown` merge every successor, others
   * only changed ones. Returns the changed rows (1 = changed), a copy.
   */
  update(g: SplitGraph, order: Int32Array, grown: Uint8Array, deadlineMs: number): Uint8Array {
    const { S } = this;
    const N = g.nodeCount, E = g.outTo.length;
    this.reserve(this.scratchAt + passBytes(N, E, S));
    const buf = this.memory.buffer;
    const orderAt = this.put(order, this.scratchAt);
    const startAt = this.put(g.outStart, align16(orderAt + 4 * N));
    const toAt = this.put(g.outTo, align16(startAt + 4 * (N + 1)));
    const visitAt = align16(toAt + 4 * E);
    const changedAt = align16(visitAt + N);
    new Uint8Array(buf, visitAt, N).set(grown.subarray(0, N));
    const changed = new Uint8Array(buf, changedAt, N).fill(0);
    for (let hi = N; hi > 0; hi -= BLOCK) {
      checkDeadline(deadlineMs, 'prune');
      this.k.update(Math.max(0, hi - BLOCK), hi, S, orderAt, startAt, toAt, 0, visitAt, changedAt);
    }
    return changed.slice();
  }
}

/** Bytes of a pass's area (order, CSR, and the larger scratch: the full pass's or the update's), padded. */
function passBytes(N: number, E: number, S: number): number {
  return 4 * N + 4 * (N + 1) + 4 * E + 2 * N + 8 * S + 9 * 16;
}
