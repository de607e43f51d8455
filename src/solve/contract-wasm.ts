/**
 * contract.ts's edge pass (H's edges (a) less (b), plus (c)) as WebAssembly.
 *
 * Takes: the contraction's inputs at the edge pass: E' by number (`splitOf`, `nodeOf`),
 * pruning's table (S, pos, minPos), the next txn of D on each chain (`at`, `base`, `len`) and
 * the (c) lists (`into`), as contract.ts's `contractedEdges` takes them.
 * Gives: the same edges in the same order (`EdgeKernel.edges`), or null when WebAssembly is
 * off (POLYSI_NO_WASM=1), missing, or the arrays pass 64 MB (KERNEL_COPY_BYTES_MAX): the JS pass
 * then runs.
 * Why: the pass reads the reach table ~3 million times (fig8 30 %: 16,665 nodes x 25 chains,
 * and the kept targets' rows), once per solve; in a fresh process its JS loop ran mostly
 * unoptimised until V8's on-stack replacement caught up (~25-30 ms). V8 compiles WebAssembly
 * before it runs (Liftoff, at once).
 * Invariant: node for node the kernel does what `contractedEdges` does (test/solve/
 * contract-wasm.test.ts compares them edge for edge); the caller checks the deadline between
 * blocks of nodes.
 */

import { assembleModule, type WatFunc } from '../util/wasm-asm.ts';
import { base64Bytes, freshMemory, KERNEL_COPY_BYTES_MAX, lazyModule, wasmWanted } from '../util/wasm.ts';
import { EDGES_BASE64 } from './contract-wasm-bytes.ts';

/** Header slots (byte offsets) holding the arrays' byte addresses; the kernel loads them first. */
const H = {
  S: 0, minPos: 4, pos: 8, at: 12, base: 16, len: 20, splitOf: 24, nodeOf: 28, intoStart: 32, intoEnd: 36, intoPred: 40,
  keptKey: 44, keptCol: 48, keptPos: 52, keptRow: 56, outFrom: 60, outTo: 64,
} as const;
const HEADER_BYTES = 128;

/** edges(lo, hi, m): the edges of H nodes lo .. hi-1, written from entry m of outFrom/outTo; returns the new m. */
const EDGES: WatFunc = {
  name: 'edges', params: ['lo', 'hi', 'm'], result: 'i32',
  locals: ['S', 'minPos', 'pos', 'at', 'base', 'len', 'splitOf', 'nodeOf', 'intoStart', 'intoEnd', 'intoPred',
    'keptKey', 'keptCol', 'keptPos', 'keptRow', 'outFrom', 'outTo',
    'i', 'u', 'row', 'kc', 's', 'p', 'l', 'ab', 'w', 'pw', 'q', 'q2', 'qa', 'qb', 'wRow', 'j', 'key', 'prev'],
  body: `
    i32.const 0 i32.load offset=${H.S} local.set $S
    i32.const 0 i32.load offset=${H.minPos} local.set $minPos
    i32.const 0 i32.load offset=${H.pos} local.set $pos
    i32.const 0 i32.load offset=${H.at} local.set $at
    i32.const 0 i32.load offset=${H.base} local.set $base
    i32.const 0 i32.load offset=${H.len} local.set $len
    i32.const 0 i32.load offset=${H.splitOf} local.set $splitOf
    i32.const 0 i32.load offset=${H.nodeOf} local.set $nodeOf
    i32.const 0 i32.load offset=${H.intoStart} local.set $intoStart
    i32.const 0 i32.load offset=${H.intoEnd} local.set $intoEnd
    i32.const 0 i32.load offset=${H.intoPred} local.set $intoPred
    i32.const 0 i32.load offset=${H.keptKey} local.set $keptKey
    i32.const 0 i32.load offset=${H.keptCol} local.set $keptCol
    i32.const 0 i32.load offset=${H.keptPos} local.set $keptPos
    i32.const 0 i32.load offset=${H.keptRow} local.set $keptRow
    i32.const 0 i32.load offset=${H.outFrom} local.set $outFrom
    i32.const 0 i32.load offset=${H.outTo} local.set $outTo
    local.get $lo local.set $i
    block $done loop $node
      local.get $i local.get $hi i32.ge_s br_if $done
      ;; u = splitOf[i], its row u * S; no kept target yet
      local.get $i i32.const 2 i32.shl local.get $splitOf i32.add i32.load local.tee $u
      local.get $S i32.mul local.set $row
      i32.const 0 local.set $kc
      i32.const 0 local.set $s
      block $chainsDone loop $chain
        local.get $s local.get $S i32.ge_s br_if $chainsDone
        block $skip
          ;; p = minPos[row + s], past the chain's end (INF included): nothing
          local.get $row local.get $s i32.add i32.const 2 i32.shl local.get $minPos i32.add i32.load local.set $p
          local.get $s i32.const 2 i32.shl local.get $len i32.add i32.load local.set $l
          local.get $p local.get $l i32.ge_s br_if $skip
          ;; w = at[base[s] + p]; u = w.d itself: the next txn of D on the chain
          local.get $s i32.const 2 i32.shl local.get $base i32.add i32.load local.get $p i32.add local.set $ab
          local.get $ab i32.const 2 i32.shl local.get $at i32.add i32.load local.set $w
          local.get $w i32.const 0 i32.ge_s
          if
            local.get $w i32.const 1 i32.shl local.get $u i32.eq
            if
              i32.const -1 local.set $w
              local.get $p i32.const 1 i32.add local.get $l i32.lt_s
              if
                local.get $ab i32.const 2 i32.shl local.get $at i32.add i32.load offset=4 local.set $w
              end
            end
          end
          local.get $w i32.const 0 i32.lt_s br_if $skip
          local.get $w i32.const 2 i32.shl local.get $pos i32.add i32.load local.set $pw
          ;; (b): implied by a kept target (it reaches position pw of chain s)?
          i32.const 0 local.set $q
          block $notImplied loop $implied
            local.get $q local.get $kc i32.ge_s br_if $notImplied
            local.get $q i32.const 2 i32.shl local.get $keptRow i32.add i32.load local.get $s i32.add
            i32.const 2 i32.shl local.get $minPos i32.add i32.load
            local.get $pw i32.le_s br_if $skip
            local.get $q i32.const 1 i32.add local.set $q
            br $implied
          end end
          ;; drop the kept targets w reaches, in place
          local.get $w i32.const 1 i32.shl local.get $S i32.mul local.set $wRow
          i32.const 0 local.set $q
          i32.const 0 local.set $q2
          block $dropDone loop $drop
            local.get $q local.get $kc i32.ge_s br_if $dropDone
            local.get $q i32.const 2 i32.shl local.set $qa
            block $dropped
              local.get $wRow local.get $qa local.get $keptCol i32.add i32.load i32.add
              i32.const 2 i32.shl local.get $minPos i32.add i32.load
              local.get $qa local.get $keptPos i32.add i32.load
              i32.le_s br_if $dropped
              local.get $q2 i32.const 2 i32.shl local.set $qb
              local.get $qb local.get $keptKey i32.add local.get $qa local.get $keptKey i32.add i32.load i32.store
              local.get $qb local.get $keptCol i32.add local.get $qa local.get $keptCol i32.add i32.load i32.store
              local.get $qb local.get $keptPos i32.add local.get $qa local.get $keptPos i32.add i32.load i32.store
              local.get $qb local.get $keptRow i32.add local.get $qa local.get $keptRow i32.add i32.load i32.store
              local.get $q2 i32.const 1 i32.add local.set $q2
            end
            local.get $q i32.const 1 i32.add local.set $q
            br $drop
          end end
          ;; keep w: its H number nodeOf[2w], chain, position and row
          local.get $q2 i32.const 2 i32.shl local.set $qb
          local.get $qb local.get $keptKey i32.add local.get $w i32.const 3 i32.shl local.get $nodeOf i32.add i32.load i32.store
          local.get $qb local.get $keptCol i32.add local.get $s i32.store
          local.get $qb local.get $keptPos i32.add local.get $pw i32.store
          local.get $qb local.get $keptRow i32.add local.get $wRow i32.store
          local.get $q2 i32.const 1 i32.add local.set $kc
        end
        local.get $s i32.const 1 i32.add local.set $s
        br $chain
      end end
      ;; the kept targets by H number (insertion sort: a handful)
      i32.const 1 local.set $j
      block $sortDone loop $sort
        local.get $j local.get $kc i32.ge_s br_if $sortDone
        local.get $j i32.const 2 i32.shl local.get $keptKey i32.add i32.load local.set $key
        local.get $j local.set $q
        block $placed loop $shiftUp
          local.get $q i32.eqz br_if $placed
          local.get $q i32.const 2 i32.shl local.get $keptKey i32.add local.tee $qa
          i32.const 4 i32.sub i32.load local.tee $prev
          local.get $key i32.le_s br_if $placed
          local.get $qa local.get $prev i32.store
          local.get $q i32.const 1 i32.sub local.set $q
          br $shiftUp
        end end
        local.get $q i32.const 2 i32.shl local.get $keptKey i32.add local.get $key i32.store
        local.get $j i32.const 1 i32.add local.set $j
        br $sort
      end end
      ;; (a): i -> each kept target
      i32.const 0 local.set $j
      block $emitDone loop $emit
        local.get $j local.get $kc i32.ge_s br_if $emitDone
        local.get $m i32.const 2 i32.shl local.tee $qa local.get $outFrom i32.add local.get $i i32.store
        local.get $qa local.get $outTo i32.add local.get $j i32.const 2 i32.shl local.get $keptKey i32.add i32.load i32.store
        local.get $m i32.const 1 i32.add local.set $m
        local.get $j i32.const 1 i32.add local.set $j
        br $emit
      end end
      ;; (c): u = t.n: c_s(t).d -> i for each chain's last predecessor
      local.get $u i32.const 1 i32.and
      if
        local.get $u i32.const 1 i32.shr_u i32.const 2 i32.shl local.set $qa
        local.get $qa local.get $intoStart i32.add i32.load local.set $j
        local.get $qa local.get $intoEnd i32.add i32.load local.set $l
        block $cDone loop $cEdges
          local.get $j local.get $l i32.ge_s br_if $cDone
          local.get $m i32.const 2 i32.shl local.tee $qa local.get $outFrom i32.add
          local.get $j i32.const 2 i32.shl local.get $intoPred i32.add i32.load i32.const 3 i32.shl local.get $nodeOf i32.add i32.load
          i32.store
          local.get $qa local.get $outTo i32.add local.get $i i32.store
          local.get $m i32.const 1 i32.add local.set $m
          local.get $j i32.const 1 i32.add local.set $j
          br $cEdges
        end end
      end
      local.get $i i32.const 1 i32.add local.set $i
      br $node
    end end
    local.get $m
  `,
};

/** From the bytes assembled ahead of time (contract-wasm-bytes.ts: the tests check they are EDGES's). */
const edgesModule = lazyModule(embeddedContractKernelBytes);

/** The module's bytes, assembled from EDGES (tests validate them and compare them with the embedded ones). */
export function contractKernelBytes(): Uint8Array<ArrayBuffer> {
  return assembleModule([EDGES]);
}

/** The module's bytes as contract-wasm-bytes.ts holds them (what runs). */
export function embeddedContractKernelBytes(): Uint8Array<ArrayBuffer> {
  return base64Bytes(EDGES_BASE64);
}

/** The edge pass's inputs (contract.ts's names). */
export interface EdgeInputs {
  splitOf: Int32Array;
  nodeOf: Int32Array;
  S: number;
  pos: Int32Array;
  minPos: Int32Array;
  at: Int32Array;
  base: Int32Array;
  len: Int32Array;
  into: { start: Int32Array; end: Int32Array; pred: Int32Array };
}

/** The edge pass in a memory of its own: `edges(lo, hi)` adds H nodes lo .. hi-1's edges; `result()` gives them all. */
export interface EdgeKernel {
  edges(lo: number, hi: number): void;
  result(): { from: Int32Array; to: Int32Array };
}

/**
 * Tables of fewer cells keep the JS pass (as pruning's kernel, reach-wasm.ts): assembling and
 * compiling the kernel costs 1-2 ms once per process. The checker contracts only histories of
 * 512 txns or more (CONTRACT_MIN_TXNS), where the table has 1,024 rows.
 */
export const EDGE_KERNEL_MIN_CELLS = 1 << 15;

/**
 * The kernel loaded with `x`, or null where the JS pass should run (see the header); `always`
 * takes it whatever the table's size (tests).
 */
export function edgeKernel(x: EdgeInputs, always = false): EdgeKernel | null {
  if (!wasmWanted() || (!always && x.minPos.length < EDGE_KERNEL_MIN_CELLS)) return null;
  const { S } = x;
  // Each node keeps at most one target per chain, and (c) adds each predecessor once.
  const cap = x.splitOf.length * S + x.into.pred.length;
  const arrays = [x.minPos, x.pos, x.at, x.base, x.len, x.splitOf, x.nodeOf, x.into.start, x.into.end, x.into.pred];
  let bytes = HEADER_BYTES + 4 * (4 * S + 2 * cap);
  for (const a of arrays) bytes += 4 * a.length;
  if (bytes > KERNEL_COPY_BYTES_MAX) return null;
  const module = edgesModule();
  if (module === null) return null;
  const memory = freshMemory(bytes);
  if (memory === null) return null;
  const { edges } = new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as { edges(lo: number, hi: number, m: number): number };
  const buf = memory.buffer;
  const header = new Int32Array(buf, 0, HEADER_BYTES / 4);
  let at = HEADER_BYTES;
  const put = (slot: number, a: Int32Array): void => { new Int32Array(buf, at, a.length).set(a); header[slot / 4] = at; at += 4 * a.length; };
  const room = (slot: number, n: number): number => { header[slot / 4] = at; const where = at; at += 4 * n; return where; };
  header[H.S / 4] = S;
  put(H.minPos, x.minPos); put(H.pos, x.pos); put(H.at, x.at); put(H.base, x.base); put(H.len, x.len);
  put(H.splitOf, x.splitOf); put(H.nodeOf, x.nodeOf); put(H.intoStart, x.into.start); put(H.intoEnd, x.into.end); put(H.intoPred, x.into.pred);
  room(H.keptKey, S); room(H.keptCol, S); room(H.keptPos, S); room(H.keptRow, S);
  const outFrom = room(H.outFrom, cap), outTo = room(H.outTo, cap);
  let m = 0;
  return {
    edges(lo, hi) {
      m = edges(lo, hi, m);
      if (m > cap) throw new Error('internal error: the contraction kernel wrote past its edge room');
    },
    result() {
      return { from: new Int32Array(buf, outFrom, m).slice(), to: new Int32Array(buf, outTo, m).slice() };
    },
  };
}
