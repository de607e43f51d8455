/**
 * Kahn's algorithm over the union of two graphs on the same nodes: the solver's model check
 * (solve.ts: the known split graph plus the chosen sides' split edges).
 *
 * Takes: a node count N, a graph as CSR (`start` of N + 1 entries, `to` the heads) and one as an
 * edge list (`from[i]` -> `to[i]`: the chosen edges, listed in one pass without a CSR's two).
 * Gives: how many nodes Kahn's algorithm sorts: N exactly when the union is acyclic.
 * Why WebAssembly: the check runs once per solve over the whole known graph (fig8 30 %: 20,000
 * nodes, ~430,000 split edges), so in a fresh process its JS loops ran mostly unoptimised until
 * V8's on-stack replacement caught up (~25-35 ms of a ~170 ms solve). V8 compiles WebAssembly
 * before it runs (Liftoff, at once), so the same two passes cost a few milliseconds.
 * The JS passes (`kahnCountJs`) stay for engines without WebAssembly, for POLYSI_NO_WASM=1, for
 * small graphs and for graphs past 64 MB of kernel memory (at scale the copy would raise the peak),
 * and test/solve/kahn.test.ts compares the two.
 * The list's edges go into per-node linked lists inside the kernel (heads stored + 1, so the
 * fresh memory's zeros mean empty).
 * Invariant: both return the same count for the same graphs; neither changes its inputs.
 */

import { assembleModule, type WatFunc } from '../util/wasm-asm.ts';
import { base64Bytes, freshMemory, KERNEL_COPY_BYTES_MAX, lazyModule, wasmWanted } from '../util/wasm.ts';
import { KAHN_BASE64 } from './kahn-bytes.ts';

/** One CSR graph: node u's heads are `to[start[u] .. start[u+1]-1]`. */
export interface Csr { start: Int32Array; to: Int32Array }

/** One graph as an edge list: `from[i]` -> `to[i]`. */
export interface EdgeList { from: Int32Array; to: Int32Array }

/**
 * kahn(N, aS, aT, bF, bT, deg, q, bHead, bNext) with byte addresses of aStart, aTo (which ends
 * at bF), b's tails and heads (bTo ends at deg), and zeroed arrays: in-degrees, queue, b's list
 * heads (N entries each) and links (one per b edge). Returns the count, or -1 for a malformed
 * graph (a node outside 0 .. N-1, or a start of a that decreases).
 */
const KAHN: WatFunc = {
  name: 'kahn', params: ['N', 'aS', 'aT', 'bF', 'bT', 'deg', 'q', 'bHead', 'bNext'], result: 'i32',
  locals: ['i', 'u', 'e', 'end', 'v', 'head', 'tail', 'p', 'd', 'j'],
  body: `
    ;; in-degrees over a's heads (aTo .. bF)
    local.get $aT local.set $i
    local.get $bF local.set $end
    block $doneA loop $inA
      local.get $i local.get $end i32.ge_u br_if $doneA
      local.get $i i32.load local.tee $v local.get $N i32.ge_u if i32.const -1 return end
      local.get $v i32.const 2 i32.shl local.get $deg i32.add local.tee $p
      local.get $p i32.load i32.const 1 i32.add i32.store
      local.get $i i32.const 4 i32.add local.set $i
      br $inA
    end end
    ;; b's edges j = 0, 1, ...: in-degree of the head, and onto the tail's list (bHead[u] = j + 1)
    i32.const 0 local.set $j
    block $doneB loop $inB
      local.get $j i32.const 2 i32.shl local.tee $i local.get $bF i32.add local.get $bT i32.ge_u br_if $doneB
      local.get $i local.get $bT i32.add i32.load local.tee $v local.get $N i32.ge_u if i32.const -1 return end
      local.get $i local.get $bF i32.add i32.load local.tee $u local.get $N i32.ge_u if i32.const -1 return end
      local.get $v i32.const 2 i32.shl local.get $deg i32.add local.tee $p
      local.get $p i32.load i32.const 1 i32.add i32.store
      local.get $i local.get $bNext i32.add
      local.get $u i32.const 2 i32.shl local.get $bHead i32.add local.tee $p i32.load
      i32.store
      local.get $p local.get $j i32.const 1 i32.add i32.store
      local.get $j i32.const 1 i32.add local.set $j
      br $inB
    end end
    i32.const 0 local.set $u
    ;; the sources, in node order; and a's starts never decrease (with start[0] = 0 and
    ;; start[N] = the edge count, checked by the caller, every edge read below is in a)
    block $doneS loop $sources
      local.get $u local.get $N i32.ge_u br_if $doneS
      local.get $u i32.const 2 i32.shl local.get $aS i32.add local.tee $p i32.load
      local.get $p i32.load offset=4 i32.gt_s if i32.const -1 return end
      local.get $u i32.const 2 i32.shl local.get $deg i32.add i32.load i32.eqz
      if
        local.get $tail i32.const 2 i32.shl local.get $q i32.add local.get $u i32.store
        local.get $tail i32.const 1 i32.add local.set $tail
      end
      local.get $u i32.const 1 i32.add local.set $u
      br $sources
    end end
    ;; take the queue's head; its out-edges in graph a, then its list in b, lower in-degrees
    block $done loop $next
      local.get $head local.get $tail i32.ge_u br_if $done
      local.get $head i32.const 2 i32.shl local.get $q i32.add i32.load local.set $u
      local.get $head i32.const 1 i32.add local.set $head
      local.get $u i32.const 2 i32.shl local.get $aS i32.add local.tee $p
      i32.load i32.const 2 i32.shl local.get $aT i32.add local.set $e
      local.get $p i32.load offset=4 i32.const 2 i32.shl local.get $aT i32.add local.set $end
      block $doneOutA loop $outA
        local.get $e local.get $end i32.ge_u br_if $doneOutA
        local.get $e i32.load local.tee $v i32.const 2 i32.shl local.get $deg i32.add local.tee $p
        local.get $p i32.load i32.const 1 i32.sub local.tee $d i32.store
        local.get $d i32.eqz
        if
          local.get $tail i32.const 2 i32.shl local.get $q i32.add local.get $v i32.store
          local.get $tail i32.const 1 i32.add local.set $tail
        end
        local.get $e i32.const 4 i32.add local.set $e
        br $outA
      end end
      local.get $u i32.const 2 i32.shl local.get $bHead i32.add i32.load local.set $j
      block $doneOutB loop $outB
        local.get $j i32.eqz br_if $doneOutB
        local.get $j i32.const 1 i32.sub i32.const 2 i32.shl local.tee $e
        local.get $bT i32.add i32.load local.tee $v i32.const 2 i32.shl local.get $deg i32.add local.tee $p
        local.get $p i32.load i32.const 1 i32.sub local.tee $d i32.store
        local.get $d i32.eqz
        if
          local.get $tail i32.const 2 i32.shl local.get $q i32.add local.get $v i32.store
          local.get $tail i32.const 1 i32.add local.set $tail
        end
        local.get $e local.get $bNext i32.add i32.load local.set $j
        br $outB
      end end
      br $next
    end end
    local.get $tail
  `,
};

/** From the bytes assembled ahead of time (kahn-bytes.ts: the tests check they are KAHN's). */
const kahnModule = lazyModule(embeddedKahnBytes);

/** The module's bytes, assembled from KAHN (tests validate them and compare them with the embedded ones). */
export function kahnBytes(): Uint8Array<ArrayBuffer> {
  return assembleModule([KAHN]);
}

/** The module's bytes as kahn-bytes.ts holds them (what runs). */
export function embeddedKahnBytes(): Uint8Array<ArrayBuffer> {
  return base64Bytes(KAHN_BASE64);
}

/**
 * Graphs of fewer nodes plus edges keep the JS passes: assembling and compiling the kernel costs
 * 1-2 ms once per process, more than the JS passes take on a small history's graph (360 txns:
 * 720 nodes, a few thousand edges; the phase shortcut's check there went 2.0 -> 3.2 ms with the
 * kernel). fig8 30 % has ~450,000.
 */
export const KAHN_KERNEL_MIN = 1 << 16;

/**
 * How many nodes Kahn's algorithm sorts in the union of `a` and `b` (N: acyclic). `kernel`
 * 'always' takes the kernel whatever the size (tests), where it can.
 */
export function kahnCount(N: number, a: Csr, b: EdgeList, kernel: 'auto' | 'always' = 'auto'): number {
  assertCsr(N, a);
  if (b.from.length !== b.to.length) malformed();
  const bytes = 4 * ((N + 1) + a.to.length + 3 * b.to.length + 3 * N);
  const small = kernel === 'auto' && N + a.to.length + b.to.length < KAHN_KERNEL_MIN;
  if (small || !wasmWanted() || bytes > KERNEL_COPY_BYTES_MAX) return kahnCountJs(N, a, b);
  const module = kahnModule();
  if (module === null) return kahnCountJs(N, a, b);
  // A fresh memory per check: zeroed pages are the in-degree array's initial value, and it is
  // freed with the check (the model check runs once per solve).
  const memory = freshMemory(bytes);
  if (memory === null) return kahnCountJs(N, a, b);
  const { kahn } = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as {
    kahn(N: number, aS: number, aT: number, bF: number, bT: number, deg: number, q: number, bHead: number, bNext: number): number;
  };
  const buf = memory.buffer;
  let at = 0;
  const put = (x: Int32Array): number => { new Int32Array(buf, at, x.length).set(x); const where = at; at += 4 * x.length; return where; };
  const aS = put(a.start), aT = put(a.to), bF = put(b.from), bT = put(b.to);
  const deg = at, q = deg + 4 * N, bHead = q + 4 * N, bNext = bHead + 4 * N;
  const sorted = kahn(N, aS, aT, bF, bT, deg, q, bHead, bNext);
  if (sorted < 0) malformed();
  return sorted;
}

/** Stage-boundary check of a's ends (the kernel checks the rest: nodes, starts' order). */
function assertCsr(N: number, g: Csr): void {
  if (g.start.length !== N + 1 || g.start[0] !== 0 || g.start[N] !== g.to.length) malformed();
}

function malformed(): never {
  throw new Error('internal error: the model check got a malformed CSR graph');
}

/** The same in JS (one loop per function: this runs once, mostly before V8 optimises it). */
export function kahnCountJs(N: number, a: Csr, b: EdgeList): number {
  const bc = listCsr(N, b);
  const indeg = new Int32Array(N);
  addInDegrees(indeg, a.to);
  addInDegrees(indeg, bc.to);
  return kahnBoth(N, a.start, a.to, bc.start, bc.to, indeg);
}

/** An edge list as CSR. */
function listCsr(N: number, b: EdgeList): Csr {
  const start = new Int32Array(N + 1);
  countTails(start, b.from);
  for (let u = 0; u < N; u++) start[u + 1]! += start[u]!;
  const to = new Int32Array(b.to.length);
  fillHeads(start.slice(0, N), b, to);
  return { start, to };
}

function countTails(start: Int32Array, from: Int32Array): void {
  for (let i = 0; i < from.length; i++) start[from[i]! + 1]!++;
}

function fillHeads(fill: Int32Array, b: EdgeList, to: Int32Array): void {
  for (let i = 0; i < b.from.length; i++) to[fill[b.from[i]!]!++] = b.to[i]!;
}

function addInDegrees(indeg: Int32Array, to: Int32Array): void {
  for (let i = 0; i < to.length; i++) indeg[to[i]!]!++;
}

function kahnBoth(N: number, aStart: Int32Array, aTo: Int32Array, bStart: Int32Array, bTo: Int32Array, indeg: Int32Array): number {
  const queue = new Int32Array(N);
  let tail = 0;
  for (let u = 0; u < N; u++) if (indeg[u] === 0) queue[tail++] = u;
  for (let head = 0; head < tail; head++) {
    const u = queue[head]!;
    for (let e = aStart[u]!; e < aStart[u + 1]!; e++) if (--indeg[aTo[e]!]! === 0) queue[tail++] = aTo[e]!;
    for (let e = bStart[u]!; e < bStart[u + 1]!; e++) if (--indeg[bTo[e]!]! === 0) queue[tail++] = bTo[e]!;
  }
  return tail;
}
