/**
 * A graph's out- and in-adjacency (CSR, by counting sort) as WebAssembly, for the solver's
 * set-up: the theory's fixed edges (acyclicity.ts) and the phase-consistent renumbering's graph
 * (solve.ts).
 *
 * Takes: N nodes and m edges `from[i]` -> `to[i]` with ids `id[i]`.
 * Gives: `outStart` (N + 1), `outTo` and `outId` (edges by tail, in edge order within a tail;
 * `outId` holds the heads again when no ids are given),
 * `inStart` (N + 1) and `inFrom` (edges by head, in edge order within a head): exactly what the
 * JS counting sort gives (`csrJs`; test/sat/csr-wasm.test.ts compares them); or null where
 * the JS should run: POLYSI_NO_WASM=1, no WebAssembly, fewer than CSR_KERNEL_MIN edges, or more
 * than 64 MB of kernel memory (KERNEL_COPY_BYTES_MAX).
 * Why: the passes run once per solve over ~100,000 edges (fig8 30 %: the contracted graph's
 * 72,514 fixed edges, twice), mostly before V8 optimises them; V8 compiles WebAssembly before
 * it runs (Liftoff). An end outside 0 .. N-1 is an error, never a stray write.
 */

import { assembleModule, type WatFunc } from '../util/wasm-asm.ts';
import { base64Bytes, freshMemory, KERNEL_COPY_BYTES_MAX, lazyModule, wasmWanted } from '../util/wasm.ts';
import { CSR_BASE64 } from './csr-wasm-bytes.ts';

/** csr(m, N, from, to, id, outStart, outTo, outId, inStart, inFrom, fillOut, fillIn): 0, or -1 for an end out of range. */
const CSR: WatFunc = {
  name: 'csr', params: ['m', 'N', 'from', 'to', 'id', 'outStart', 'outTo', 'outId', 'inStart', 'inFrom', 'fillOut', 'fillIn'], result: 'i32',
  locals: ['i', 'a', 'u', 'v', 'p', 'f'],
  body: `
    ;; counts: outStart[u + 1]++, inStart[v + 1]++
    block $counted loop $count
      local.get $i local.get $m i32.ge_u br_if $counted
      local.get $i i32.const 2 i32.shl local.tee $a local.get $from i32.add i32.load local.tee $u
      local.get $N i32.ge_u if i32.const -1 return end
      local.get $a local.get $to i32.add i32.load local.tee $v
      local.get $N i32.ge_u if i32.const -1 return end
      local.get $u i32.const 2 i32.shl local.get $outStart i32.add local.tee $p
      local.get $p i32.load offset=4 i32.const 1 i32.add i32.store offset=4
      local.get $v i32.const 2 i32.shl local.get $inStart i32.add local.tee $p
      local.get $p i32.load offset=4 i32.const 1 i32.add i32.store offset=4
      local.get $i i32.const 1 i32.add local.set $i
      br $count
    end end
    ;; prefix sums
    i32.const 0 local.set $u
    block $summed loop $sum
      local.get $u local.get $N i32.ge_u br_if $summed
      local.get $u i32.const 2 i32.shl local.tee $a local.get $outStart i32.add local.tee $p
      local.get $p i32.load offset=4 local.get $p i32.load i32.add i32.store offset=4
      local.get $a local.get $inStart i32.add local.tee $p
      local.get $p i32.load offset=4 local.get $p i32.load i32.add i32.store offset=4
      local.get $u i32.const 1 i32.add local.set $u
      br $sum
    end end
    ;; fill cursors: copies of the starts
    local.get $fillOut local.get $outStart local.get $N i32.const 2 i32.shl memory.copy
    local.get $fillIn local.get $inStart local.get $N i32.const 2 i32.shl memory.copy
    ;; fill, in edge order
    i32.const 0 local.set $i
    block $filled loop $fill
      local.get $i local.get $m i32.ge_u br_if $filled
      local.get $i i32.const 2 i32.shl local.tee $a local.get $from i32.add i32.load local.set $u
      local.get $a local.get $to i32.add i32.load local.set $v
      ;; out: f = fillOut[u]++; outTo[f] = v; outId[f] = id[i]
      local.get $u i32.const 2 i32.shl local.get $fillOut i32.add local.tee $p i32.load local.set $f
      local.get $p local.get $f i32.const 1 i32.add i32.store
      local.get $f i32.const 2 i32.shl local.tee $f local.get $outTo i32.add local.get $v i32.store
      local.get $f local.get $outId i32.add local.get $a local.get $id i32.add i32.load i32.store
      ;; in: f = fillIn[v]++; inFrom[f] = u
      local.get $v i32.const 2 i32.shl local.get $fillIn i32.add local.tee $p i32.load local.set $f
      local.get $p local.get $f i32.const 1 i32.add i32.store
      local.get $f i32.const 2 i32.shl local.get $inFrom i32.add local.get $u i32.store
      local.get $i i32.const 1 i32.add local.set $i
      br $fill
    end end
    i32.const 0
  `,
};

export interface Adjacency {
  outStart: Int32Array<ArrayBuffer>;
  outTo: Int32Array<ArrayBuffer>;
  outId: Int32Array<ArrayBuffer>;
  inStart: Int32Array<ArrayBuffer>;
  inFrom: Int32Array<ArrayBuffer>;
}

/** Fewer edges keep the JS: assembling and compiling the kernel costs ~1 ms once per process. */
export const CSR_KERNEL_MIN = 1 << 14;

/** From the bytes assembled ahead of time (csr-wasm-bytes.ts: the tests check they are CSR's). */
const csrModule = lazyModule(embeddedCsrKernelBytes);

/** The module's bytes, assembled from CSR (tests validate them and compare them with the embedded ones). */
export function csrKernelBytes(): Uint8Array<ArrayBuffer> {
  return assembleModule([CSR]);
}

/** The module's bytes as csr-wasm-bytes.ts holds them (what runs). */
export function embeddedCsrKernelBytes(): Uint8Array<ArrayBuffer> {
  return base64Bytes(CSR_BASE64);
}

/**
 * The adjacency of N nodes and the edges `from`/`to`/`id` (see the header). `kernel` 'always'
 * takes the kernel whatever the size (tests), 'never' the JS.
 */
export function adjacency(N: number, from: Int32Array, to: Int32Array, ids: Int32Array | null, kernel: 'auto' | 'always' | 'never' = 'auto'): Adjacency {
  const m = from.length;
  // Without ids, `outId` is the heads again (the caller ignores it).
  const id = ids ?? to;
  if (to.length !== m || id.length !== m) throw new RangeError('edge columns differ in length');
  const bytes = 4 * (6 * m + 4 * (N + 1));
  const wanted = kernel === 'always' || (kernel === 'auto' && m >= CSR_KERNEL_MIN);
  const module = wanted && wasmWanted() && bytes <= KERNEL_COPY_BYTES_MAX ? csrModule() : null;
  if (module === null) return csrJs(N, from, to, id);
  const memory = freshMemory(bytes);
  if (memory === null) return csrJs(N, from, to, id);
  const { csr } = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as {
    csr(m: number, N: number, from: number, to: number, id: number, outStart: number, outTo: number, outId: number,
      inStart: number, inFrom: number, fillOut: number, fillIn: number): number;
  };
  const buf = memory.buffer;
  let at = 0;
  const room = (n: number): number => { const where = at; at += 4 * n; return where; };
  const aFrom = room(m), aTo = room(m), aId = room(m), outStart = room(N + 1), outTo = room(m), outId = room(m);
  const inStart = room(N + 1), inFrom = room(m), fillOut = room(N + 1), fillIn = room(N + 1);
  new Int32Array(buf, aFrom, m).set(from);
  new Int32Array(buf, aTo, m).set(to);
  new Int32Array(buf, aId, m).set(id);
  if (csr(m, N, aFrom, aTo, aId, outStart, outTo, outId, inStart, inFrom, fillOut, fillIn) !== 0) {
    throw new RangeError(`an edge outside 0..${N - 1}`);
  }
  const copy = (where: number, n: number): Int32Array<ArrayBuffer> => new Int32Array(buf, where, n).slice();
  return { outStart: copy(outStart, N + 1), outTo: copy(outTo, m), outId: copy(outId, m), inStart: copy(inStart, N + 1), inFrom: copy(inFrom, m) };
}

/** The same in JS (one loop per helper: this runs once per solve, mostly before V8 optimises it). */
export function csrJs(n: number, from: Int32Array, to: Int32Array, id: Int32Array): Adjacency {
  const m = from.length;
  const outStart = new Int32Array(n + 1);
  const inStart = new Int32Array(n + 1);
  if (!countEnds(outStart, inStart, from, to, n)) throw new RangeError(`an edge outside 0..${n - 1}`);
  prefixSums2(outStart, inStart, n);
  const outTo = new Int32Array(m);
  const outId = new Int32Array(m);
  const inFrom = new Int32Array(m);
  fillCsr(outStart.slice(0, n), inStart.slice(0, n), from, to, id, outTo, outId, inFrom);
  return { outStart, inStart, outTo, outId, inFrom };
}

function countEnds(outStart: Int32Array, inStart: Int32Array, from: Int32Array, to: Int32Array, n: number): boolean {
  for (let e = 0; e < from.length; e++) {
    const u = from[e]!, v = to[e]!;
    if (u >>> 0 >= n || v >>> 0 >= n) return false;
    outStart[u + 1]++;
    inStart[v + 1]++;
  }
  return true;
}

function prefixSums2(a: Int32Array, b: Int32Array, n: number): void {
  for (let u = 0; u < n; u++) {
    a[u + 1] += a[u]!;
    b[u + 1] += b[u]!;
  }
}

function fillCsr(
  outFill: Int32Array, inFill: Int32Array, from: Int32Array, to: Int32Array, id: Int32Array, outTo: Int32Array, outId: Int32Array, inFrom: Int32Array,
): void {
  for (let e = 0; e < from.length; e++) {
    const u = from[e]!;
    const v = to[e]!;
    const f = outFill[u]++;
    outTo[f] = v;
    outId[f] = id[e]!;
    inFrom[inFill[v]++] = u;
  }
}
