/**
 * The readable source of the contraction's edge-pass kernel (src/solve/contract-wasm.ts runs
 * it; what it computes: src/solve/contract.ts's contractedEdges), in the flat form of the
 * WebAssembly text format, for the assembler beside this file (asm.ts).
 *
 * Takes: the header layout the runtime writes (CONTRACT_HEADER). Gives: `CONTRACT_KERNEL`, the
 * module's one function.
 * Not part of the runtime: scripts/build-kernels.ts assembles it into
 * src/solve/contract-wasm-bytes.ts, and test/prune/kernel-bytes.test.ts checks that file is fresh.
 */

import type { WatFunc } from './asm.ts';
import { CONTRACT_HEADER as H } from '../../src/solve/contract-wasm.ts';

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

/** The kernel's functions, in the order the module exports them. */
export const CONTRACT_KERNEL: WatFunc[] = [EDGES];
