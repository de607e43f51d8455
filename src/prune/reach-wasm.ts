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
import { assembleModule, type WatFunc } from '../util/wasm-asm.ts';
import { base64Bytes, freshMemory, lazyModule, WASM_PAGE, wasmWanted } from '../util/wasm.ts';
import { KERNEL_BASE64 } from './reach-wasm-bytes.ts';

const INF = 0x7fffffff;
/** Nodes handled by one call into the kernel between deadline checks (as reach.ts's BLOCK). */
const BLOCK = DEADLINE_CHECK_MASK + 1;
/** WebAssembly (32-bit) memories end at 4 GiB; past a bit less, the JS passes run instead. */
export const WASM_BYTES_MAX = 4 * 2 ** 30 - 64 * WASM_PAGE;

// Reading `base[idx]` of an Int32 array at byte address `base` is written out as
// `local.get $idx i32.const 2 i32.shl local.get $base i32.add i32.load` below.

/** row(dst) = min(row(dst), row(src)), cell by cell; rows of S cells at byte addresses. */
const MERGE: WatFunc = {
  name: 'merge', params: ['dst', 'src', 'S'], result: null, locals: ['end', 'tail', 'd', 's', 'x'],
  body: `
    local.get $S i32.const 4 i32.lt_u
    if ;; fewer than 4 cells: one at a time
      local.get $S i32.const 2 i32.shl local.get $dst i32.add local.set $end
      block $done
        loop $cell
          local.get $dst local.get $end i32.ge_u br_if $done
          local.get $src i32.load local.tee $x
          local.get $dst i32.load i32.lt_s
          if local.get $dst local.get $x i32.store end
          local.get $dst i32.const 4 i32.add local.set $dst
          local.get $src i32.const 4 i32.add local.set $src
          br $cell
        end
      end
      return
    end
    ;; tail: byte offset of the last whole vector of the row
    local.get $S i32.const 2 i32.shl i32.const 16 i32.sub local.tee $tail
    local.get $dst i32.add local.set $end
    local.get $dst local.set $d
    local.get $src local.set $s
    loop $vec
      local.get $d
      local.get $d v128.load local.get $s v128.load i32x4.min_s
      v128.store
      local.get $s i32.const 16 i32.add local.set $s
      local.get $d i32.const 16 i32.add local.tee $d
      local.get $end i32.le_u br_if $vec
    end
    local.get $S i32.const 3 i32.and
    if ;; the last S mod 4 cells, by the vector ending at the row's end
      local.get $end
      local.get $end v128.load local.get $src local.get $tail i32.add v128.load i32x4.min_s
      v128.store
    end`,
};

/** As merge; returns 1 if some cell of row(dst) decreased, else 0. */
const MERGE_ANY: WatFunc = {
  name: 'mergeAny', params: ['dst', 'src', 'S'], result: 'i32', locals: ['end', 'tail', 'd', 's', 'x', 'any', 'a:v128', 'b:v128', 'acc:v128'],
  body: `
    local.get $S i32.const 4 i32.lt_u
    if
      local.get $S i32.const 2 i32.shl local.get $dst i32.add local.set $end
      block $done
        loop $cell
          local.get $dst local.get $end i32.ge_u br_if $done
          local.get $src i32.load local.tee $x
          local.get $dst i32.load i32.lt_s
          if
            local.get $dst local.get $x i32.store
            i32.const 1 local.set $any
          end
          local.get $dst i32.const 4 i32.add local.set $dst
          local.get $src i32.const 4 i32.add local.set $src
          br $cell
        end
      end
      local.get $any return
    end
    local.get $S i32.const 2 i32.shl i32.const 16 i32.sub local.tee $tail
    local.get $dst i32.add local.set $end
    local.get $dst local.set $d
    local.get $src local.set $s
    loop $vec
      local.get $d v128.load local.set $a
      local.get $s v128.load local.set $b
      local.get $acc local.get $b local.get $a i32x4.lt_s v128.or local.set $acc
      local.get $d local.get $a local.get $b i32x4.min_s v128.store
      local.get $s i32.const 16 i32.add local.set $s
      local.get $d i32.const 16 i32.add local.tee $d
      local.get $end i32.le_u br_if $vec
    end
    local.get $S i32.const 3 i32.and
    if
      local.get $end v128.load local.set $a
      local.get $src local.get $tail i32.add v128.load local.set $b
      local.get $acc local.get $b local.get $a i32x4.lt_s v128.or local.set $acc
      local.get $end local.get $a local.get $b i32x4.min_s v128.store
    end
    local.get $acc v128.any_true`,
};

/**
 * reach.ts's rowsOfBlock: the rows of order[lo .. hi-1], in reverse (every later node's row is
 * final). Arrays are byte addresses; `done` is one byte per node, the rest Int32.
 */
const ROWS: WatFunc = {
  name: 'rows',
  params: ['lo', 'hi', 'S', 'order', 'outStart', 'outTo', 'sess', 'pos', 'tab', 'done', 'earliest', 'stamp'],
  result: null,
  locals: ['i', 'u', 'n', 'nRow', 'first', 'last', 'e', 'v', 'c', 't', 'p', 'row', 'rb'],
  body: `
    local.get $S i32.const 2 i32.shl local.set $rb
    local.get $hi local.set $i
    block $exit
    loop $node
      local.get $i local.get $lo i32.le_s br_if $exit
      local.get $i i32.const 1 i32.sub local.tee $i
      i32.const 2 i32.shl local.get $order i32.add i32.load local.set $u
      block $next
        local.get $done local.get $u i32.add i32.load8_u br_if $next
        local.get $u i32.const 1 i32.or local.set $n
        local.get $n local.get $rb i32.mul local.get $tab i32.add local.set $nRow
        local.get $done local.get $n i32.add i32.load8_u i32.eqz
        if ;; t.n: its successors are final whichever of t.d, t.n comes first
          local.get $n i32.const 2 i32.shl local.get $outStart i32.add local.tee $e
          i32.load offset=4 local.set $last
          local.get $e i32.load local.tee $first local.set $e
          ;; the earliest successor x.d of each tracked chain: stamp[c] = n, earliest[c] = pos(x)
          block $scanned
          loop $scan
            local.get $e local.get $last i32.ge_s br_if $scanned
            local.get $e i32.const 2 i32.shl local.get $outTo i32.add i32.load local.tee $v
            i32.const 1 i32.and i32.eqz
            if
              local.get $v i32.const 1 i32.shr_u i32.const 2 i32.shl local.tee $t
              local.get $sess i32.add i32.load local.tee $c
              i32.const 0 i32.ge_s
              if
                local.get $t local.get $pos i32.add i32.load local.set $p
                local.get $c i32.const 2 i32.shl local.set $c
                local.get $stamp local.get $c i32.add i32.load local.get $n i32.ne
                local.get $p local.get $earliest local.get $c i32.add i32.load i32.lt_s
                i32.or
                if
                  local.get $stamp local.get $c i32.add local.get $n i32.store
                  local.get $earliest local.get $c i32.add local.get $p i32.store
                end
              end
            end
            local.get $e i32.const 1 i32.add local.set $e
            br $scan
          end
          end
          ;; merge .n successors, untracked ones, and the earliest of each tracked chain once
          local.get $first local.set $e
          block $merged
          loop $merge
            local.get $e local.get $last i32.ge_s br_if $merged
            block $skip
              local.get $e i32.const 2 i32.shl local.get $outTo i32.add i32.load local.tee $v
              i32.const 1 i32.and i32.eqz
              if
                local.get $v i32.const 1 i32.shr_u i32.const 2 i32.shl local.tee $t
                local.get $sess i32.add i32.load local.tee $c
                i32.const 0 i32.ge_s
                if
                  local.get $c i32.const 2 i32.shl local.set $c
                  local.get $stamp local.get $c i32.add i32.load local.get $n i32.ne
                  local.get $t local.get $pos i32.add i32.load local.get $earliest local.get $c i32.add i32.load i32.ne
                  i32.or
                  br_if $skip
                  local.get $stamp local.get $c i32.add i32.const -2 i32.store
                  ;; already reached through a successor merged before: nothing to add
                  local.get $nRow local.get $c i32.add i32.load
                  local.get $t local.get $pos i32.add i32.load
                  i32.le_s
                  br_if $skip
                end
              end
              local.get $nRow
              local.get $v local.get $rb i32.mul local.get $tab i32.add
              local.get $S
              call $merge
            end
            local.get $e i32.const 1 i32.add local.set $e
            br $merge
          end
          end
          local.get $done local.get $n i32.add i32.const 1 i32.store8
        end
        local.get $u local.get $n i32.eq br_if $next
        ;; t.d = t.n's row, the rows of its RW successors (.n nodes), then t's own position
        local.get $u local.get $rb i32.mul local.get $tab i32.add local.tee $row
        local.get $nRow local.get $rb memory.copy
        local.get $u i32.const 2 i32.shl local.get $outStart i32.add local.tee $e
        i32.load offset=4 local.set $last
        local.get $e i32.load local.set $e
        block $rwDone
        loop $rw
          local.get $e local.get $last i32.ge_s br_if $rwDone
          local.get $e i32.const 2 i32.shl local.get $outTo i32.add i32.load local.tee $v
          i32.const 1 i32.and
          if
            block $rwSkip
              ;; x.n when the row already reaches x.d: nothing to add
              local.get $v i32.const 1 i32.shr_u i32.const 2 i32.shl local.tee $t
              local.get $sess i32.add i32.load local.tee $c
              i32.const 0 i32.ge_s
              if
                local.get $c i32.const 2 i32.shl local.get $row i32.add i32.load
                local.get $t local.get $pos i32.add i32.load
                i32.le_s
                br_if $rwSkip
              end
              local.get $row
              local.get $v local.get $rb i32.mul local.get $tab i32.add
              local.get $S
              call $merge
            end
          end
          local.get $e i32.const 1 i32.add local.set $e
          br $rw
        end
        end
        local.get $u i32.const 1 i32.shr_u i32.const 2 i32.shl local.tee $t
        local.get $sess i32.add i32.load local.tee $c
        i32.const 0 i32.ge_s
        if
          local.get $t local.get $pos i32.add i32.load local.set $p
          local.get $c i32.const 2 i32.shl local.get $row i32.add local.set $c
          local.get $p local.get $c i32.load i32.lt_s
          if local.get $c local.get $p i32.store end
        end
        local.get $done local.get $u i32.add i32.const 1 i32.store8
      end
      br $node
    end
    end`,
};

/**
 * reach.ts's incremental update over order[lo .. hi-1], in reverse: visit[u] 1 (its out-edges
 * grew) merges every successor, 0 only the successors whose row changed (`changed`, final for
 * every later node), found by scanning u's out-edges. `visit` and `changed` are one byte per node.
 */
const UPDATE: WatFunc = {
  name: 'update',
  params: ['lo', 'hi', 'S', 'order', 'outStart', 'outTo', 'tab', 'visit', 'changed'],
  result: null,
  locals: ['i', 'u', 'how', 'row', 'e', 'last', 'v', 'any', 'rb'],
  body: `
    local.get $S i32.const 2 i32.shl local.set $rb
    local.get $hi local.set $i
    block $exit
    loop $node
      local.get $i local.get $lo i32.le_s br_if $exit
      local.get $i i32.const 1 i32.sub local.tee $i
      i32.const 2 i32.shl local.get $order i32.add i32.load local.set $u
      block $next
        local.get $visit local.get $u i32.add i32.load8_u local.set $how
        local.get $u local.get $rb i32.mul local.get $tab i32.add local.set $row
        i32.const 0 local.set $any
        local.get $u i32.const 2 i32.shl local.get $outStart i32.add local.tee $e
        i32.load offset=4 local.set $last
        local.get $e i32.load local.set $e
        block $edgesDone
        loop $edge
          local.get $e local.get $last i32.ge_s br_if $edgesDone
          block $skip
            local.get $e i32.const 2 i32.shl local.get $outTo i32.add i32.load local.set $v
            local.get $how i32.eqz
            local.get $changed local.get $v i32.add i32.load8_u i32.eqz
            i32.and br_if $skip
            local.get $row
            local.get $v local.get $rb i32.mul local.get $tab i32.add
            local.get $S
            call $mergeAny
            local.get $any i32.or local.set $any
          end
          local.get $e i32.const 1 i32.add local.set $e
          br $edge
        end
        end
        local.get $any i32.eqz br_if $next
        local.get $changed local.get $u i32.add i32.const 1 i32.store8
      end
      br $node
    end
    end`,
};

/** reach.ts's reachesD: does split node u reach t.d? */
const REACHES_D: WatFunc = {
  name: 'reachesD', params: ['u', 't', 'S', 'tab', 'sess', 'pos'], result: 'i32', locals: ['c'],
  body: `
    local.get $t i32.const 2 i32.shl local.get $sess i32.add i32.load local.tee $c
    i32.const 0 i32.lt_s
    if i32.const 0 return end
    local.get $u local.get $S i32.mul local.get $c i32.add i32.const 2 i32.shl local.get $tab i32.add i32.load
    local.get $t i32.const 2 i32.shl local.get $pos i32.add i32.load
    i32.le_s`,
};

/** reach.ts's reachesN: does split node u reach t.n? (through t's RW predecessors, CSR by t) */
const REACHES_N: WatFunc = {
  name: 'reachesN', params: ['u', 't', 'S', 'tab', 'rwStart', 'rwSess', 'rwPos'], result: 'i32', locals: ['j', 'last', 'row'],
  body: `
    local.get $u local.get $S i32.mul i32.const 2 i32.shl local.get $tab i32.add local.set $row
    local.get $t i32.const 2 i32.shl local.get $rwStart i32.add local.tee $j
    i32.load offset=4 local.set $last
    local.get $j i32.load local.set $j
    block $none
    loop $pred
      local.get $j local.get $last i32.ge_s br_if $none
      local.get $j i32.const 2 i32.shl local.tee $u ;; reused: byte offset of j
      local.get $rwSess i32.add i32.load i32.const 2 i32.shl local.get $row i32.add i32.load
      local.get $u local.get $rwPos i32.add i32.load
      i32.le_s
      if i32.const 1 return end
      local.get $j i32.const 1 i32.add local.set $j
      br $pred
    end
    end
    i32.const 0`,
};

/**
 * prune.ts's blockingEdge: the first edge of constraint side `slot` that would close a
 * forbidden cycle with the known graph, or -1. `count`, `x`, `y` are the level's split table
 * (Int32 here), `kRW` the RW kind (checked apart for PSI when `psi` is 1).
 */
const BLOCKING: WatFunc = {
  name: 'blocking',
  params: ['slot', 'edgeStart', 'ceFrom', 'ceTo', 'ceKind', 'count', 'x', 'y', 'psi', 'kRW', 'S', 'tab', 'sess', 'pos', 'rwStart', 'rwSess', 'rwPos'],
  result: 'i32',
  locals: ['e', 'last', 'a', 'b', 'k', 'cnt', 'start', 'p', 'r'],
  body: `
    local.get $slot i32.const 2 i32.shl local.get $edgeStart i32.add local.tee $e
    i32.load offset=4 local.set $last
    local.get $e i32.load local.set $e
    block $none
    loop $edge
      local.get $e local.get $last i32.ge_s br_if $none
      local.get $e i32.const 2 i32.shl local.tee $p
      local.get $ceFrom i32.add i32.load local.set $a
      local.get $p local.get $ceTo i32.add i32.load local.set $b
      local.get $p local.get $ceKind i32.add i32.load local.tee $k
      i32.const 2 i32.shl local.get $count i32.add i32.load local.tee $cnt
      i32.eqz
      if ;; no split edge: PSI checks its RW edges apart (b.d reaches a.d)
        local.get $psi local.get $k local.get $kRW i32.eq i32.and
        if
          local.get $b i32.const 1 i32.shl local.get $a local.get $S local.get $tab local.get $sess local.get $pos call $reachesD
          if local.get $e return end
        end
      else
        ;; every pair of a kind has the same target layer: one start serves them all
        local.get $b i32.const 1 i32.shl
        local.get $k i32.const 3 i32.shl local.get $y i32.add i32.load
        i32.add local.set $start
        i32.const 0 local.set $p
        block $pairsDone
        loop $pair
          local.get $p local.get $cnt i32.ge_s br_if $pairsDone
          local.get $k i32.const 1 i32.shl local.get $p i32.add i32.const 2 i32.shl local.get $x i32.add i32.load
          i32.eqz
          if
            local.get $start local.get $a local.get $S local.get $tab local.get $sess local.get $pos call $reachesD local.set $r
          else
            local.get $start local.get $a local.get $S local.get $tab local.get $rwStart local.get $rwSess local.get $rwPos call $reachesN local.set $r
          end
          local.get $r if local.get $e return end
          local.get $p i32.const 1 i32.add local.set $p
          br $pair
        end
        end
      end
      local.get $e i32.const 1 i32.add local.set $e
      br $edge
    end
    end
    i32.const -1`,
};

/**
 * prune.ts's decideRound over constraints lo .. hi-1, without its side effects: for every
 * active constraint that may be blocked (`recheck` 0: all of them) and has an impossible side,
 * one record of four Int32 at `out`: c, the slot of the side to force, the blocking edge, and
 * 1 if both sides are impossible (then the scan stops there, as decideRound does). Returns the
 * number of records. The caller applies them in order (addSide, provenance).
 */
const DECIDE: WatFunc = {
  name: 'decide',
  params: ['lo', 'hi', 'active', 'recheck', 'edgeStart', 'ceFrom', 'ceTo', 'ceKind', 'count', 'x', 'y', 'psi', 'kRW',
    'S', 'tab', 'sess', 'pos', 'rwStart', 'rwSess', 'rwPos', 'out'],
  result: 'i32',
  locals: ['c', 'n', 'e', 'last', 'eb', 'ob', 'both', 'rec'],
  body: `
    local.get $lo local.set $c
    block $exit
    loop $cons
      local.get $c local.get $hi i32.ge_s br_if $exit
      block $next
        local.get $active local.get $c i32.add i32.load8_u i32.eqz br_if $next
        local.get $recheck
        if ;; mayBeBlocked: an edge's target row or its source's RW predecessors changed
          local.get $c i32.const 3 i32.shl local.get $edgeStart i32.add local.tee $e
          i32.load offset=8 local.set $last
          local.get $e i32.load local.set $e
          block $may
            loop $edge
              local.get $e local.get $last i32.ge_s br_if $next
              local.get $recheck local.get $e i32.const 2 i32.shl local.get $ceTo i32.add i32.load i32.add i32.load8_u i32.const 1 i32.and
              local.get $recheck local.get $e i32.const 2 i32.shl local.get $ceFrom i32.add i32.load i32.add i32.load8_u i32.const 2 i32.and
              i32.or br_if $may
              local.get $e i32.const 1 i32.add local.set $e
              br $edge
            end
          end
        end
        local.get $c i32.const 1 i32.shl
        local.get $edgeStart local.get $ceFrom local.get $ceTo local.get $ceKind local.get $count local.get $x local.get $y local.get $psi local.get $kRW
        local.get $S local.get $tab local.get $sess local.get $pos local.get $rwStart local.get $rwSess local.get $rwPos
        call $blocking local.set $eb
        local.get $c i32.const 1 i32.shl i32.const 1 i32.add
        local.get $edgeStart local.get $ceFrom local.get $ceTo local.get $ceKind local.get $count local.get $x local.get $y local.get $psi local.get $kRW
        local.get $S local.get $tab local.get $sess local.get $pos local.get $rwStart local.get $rwSess local.get $rwPos
        call $blocking local.set $ob
        local.get $eb i32.const -1 i32.eq local.get $ob i32.const -1 i32.eq i32.and br_if $next
        local.get $n i32.const 4 i32.shl local.get $out i32.add local.tee $rec
        local.get $c i32.store
        local.get $eb i32.const -1 i32.ne local.get $ob i32.const -1 i32.ne i32.and local.set $both
        local.get $eb i32.const -1 i32.ne
        if ;; "either" impossible: force "or" (also when both are: the next round reports the cycle)
          local.get $rec local.get $c i32.const 1 i32.shl i32.const 1 i32.add i32.store offset=4
          local.get $rec local.get $eb i32.store offset=8
        else
          local.get $rec local.get $c i32.const 1 i32.shl i32.store offset=4
          local.get $rec local.get $ob i32.store offset=8
        end
        local.get $rec local.get $both i32.store offset=12
        local.get $n i32.const 1 i32.add local.set $n
        local.get $both br_if $exit
      end
      local.get $c i32.const 1 i32.add local.set $c
      br $cons
    end
    end
    local.get $n`,
};

/**
 * The edges of the sides `decide` found to force (records at `recs`, `n` of them), in order:
 * their ids and their from / to / kind / key columns, gathered for bulk appends. Returns how
 * many edges.
 */
const GATHER: WatFunc = {
  name: 'gather',
  params: ['recs', 'n', 'edgeStart', 'ceFrom', 'ceTo', 'ceKind', 'ceKey', 'outE', 'outFrom', 'outTo', 'outKind', 'outKey'],
  result: 'i32',
  locals: ['i', 'm', 'e', 'last', 'o', 'b'],
  body: `
    block $exit
    loop $rec
      local.get $i local.get $n i32.ge_s br_if $exit
      local.get $i i32.const 4 i32.shl local.get $recs i32.add i32.load offset=4
      i32.const 2 i32.shl local.get $edgeStart i32.add local.tee $e
      i32.load offset=4 local.set $last
      local.get $e i32.load local.set $e
      block $edgesDone
      loop $edge
        local.get $e local.get $last i32.ge_s br_if $edgesDone
        local.get $m i32.const 2 i32.shl local.set $o
        local.get $e i32.const 2 i32.shl local.set $b
        local.get $outE local.get $o i32.add local.get $e i32.store
        local.get $outFrom local.get $o i32.add local.get $ceFrom local.get $b i32.add i32.load i32.store
        local.get $outTo local.get $o i32.add local.get $ceTo local.get $b i32.add i32.load i32.store
        local.get $outKind local.get $o i32.add local.get $ceKind local.get $b i32.add i32.load i32.store
        local.get $outKey local.get $o i32.add local.get $ceKey local.get $b i32.add i32.load i32.store
        local.get $m i32.const 1 i32.add local.set $m
        local.get $e i32.const 1 i32.add local.set $e
        br $edge
      end
      end
      local.get $i i32.const 1 i32.add local.set $i
      br $rec
    end
    end
    local.get $m`,
};

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

const KERNEL = [MERGE, MERGE_ANY, ROWS, UPDATE, REACHES_D, REACHES_N, BLOCKING, DECIDE, GATHER];

/**
 * The kernel's module, compiled on first use from the bytes assembled ahead of time
 * (reach-wasm-bytes.ts: the tests check they are KERNEL's); null where WebAssembly SIMD is missing
 * (a very old engine or one with it disabled): the JS passes do the work.
 */
const kernelModule = lazyModule(embeddedKernelBytes);

/** The kernel's bytes as reach-wasm-bytes.ts holds them (what runs; the tests compare them with kernelBytes). */
export function embeddedKernelBytes(): Uint8Array<ArrayBuffer> {
  return base64Bytes(KERNEL_BASE64);
}

/** The kernel's bytes, assembled from KERNEL (tests validate them). */
export function kernelBytes(): Uint8Array<ArrayBuffer> {
  return assembleModule(KERNEL);
}

/**
 * Tables of fewer cells keep the JS passes (POLYSI_WASM_MIN_CELLS overrides; the tests set 0).
 * Why: setting the kernel up (compiling its bytes, its memory, copying the graph and the
 * constraint columns in) costs more than it saves on a small history (the 360-txn valid one:
 * 720 rows x 13 chains = 9,360 cells; with the kernel its pruning took 6.98 ms against 5.32,
 * best of 11 fresh processes each, even with the bytes assembled ahead of time); fig8 has
 * 500,000 cells.
 */
export const KERNEL_MIN_CELLS = 1 << 15;

/** Whether a table of `cells` cells should use the kernel (ReachTable.build asks). */
export function kernelWanted(cells: number): boolean {
  const v = typeof process === 'object' ? process.env['POLYSI_WASM_MIN_CELLS'] : undefined;
  const min = v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Number(v) : KERNEL_MIN_CELLS;
  return cells >= min && wasmAvailable();
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
