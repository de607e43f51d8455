/**
 * The readable source of pruning's WebAssembly kernel (src/prune/reach-wasm.ts runs it): its
 * functions in the flat form of the WebAssembly text format, for the assembler beside this file
 * (asm.ts).
 *
 * Takes: nothing. Gives: `REACH_KERNEL`, the functions in export order (reach-wasm.ts's `Kernel`
 * interface names each with its parameters).
 * Not part of the runtime: scripts/build-kernels.ts assembles these into
 * src/prune/reach-wasm-bytes.ts, and test/prune/kernel-bytes.test.ts checks that file is fresh.
 */

import type { WatFunc } from './asm.ts';

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

/** The kernel's functions, in the order the module exports them. */
export const REACH_KERNEL: WatFunc[] = [MERGE, MERGE_ANY, ROWS, UPDATE, REACHES_D, REACHES_N, BLOCKING, DECIDE, GATHER];
