/**
 * The readable source of the model check's Kahn kernel (src/solve/kahn.ts runs it): Kahn's
 * algorithm over a CSR graph plus an edge list on the same nodes, in the flat form of the
 * WebAssembly text format, for the assembler beside this file (asm.ts).
 *
 * Takes: nothing. Gives: `KAHN_KERNEL`, the module's one function.
 * Not part of the runtime: scripts/build-kernels.ts assembles it into src/solve/kahn-bytes.ts,
 * and test/prune/kernel-bytes.test.ts checks that file is fresh.
 * The list's edges go into per-node linked lists inside the kernel (heads stored + 1, so the
 * fresh memory's zeros mean empty).
 */

import type { WatFunc } from './asm.ts';

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

/** The kernel's functions, in the order the module exports them. */
export const KAHN_KERNEL: WatFunc[] = [KAHN];
