/**
 * Typed edge lists: the currency between the graph, prune and solve stages.
 *
 * Takes: pushes of (from, to, kind, key). Gives: columnar arrays.
 * Invariant: node ids are txn ids of the History (0 .. txnCount-1); the initial transaction is
 * never a node (nothing can reach it, so no cycle passes through it) and INIT_TXN edges are only
 * kept for reporting. Kinds are the numeric codes below; `key` is -1 for SO and RT.
 */

import { GrowableInt32 } from '../util/growable.ts';
import type { EdgeKind } from '../result/types.ts';

export const K_SO = 0;
export const K_WR = 1;
export const K_WW = 2;
export const K_RW = 3;
/** Real-time order: a completed before b was invoked (strict levels; docs/levels.md). */
export const K_RT = 4;
export const KIND_NAMES: readonly EdgeKind[] = ['SO', 'WR', 'WW', 'RW', 'RT'];

export class EdgeList {
  readonly from: GrowableInt32;
  readonly to: GrowableInt32;
  readonly kind: GrowableInt32;
  readonly key: GrowableInt32;

  /** `capacity`: the edges expected (more may be pushed); sizing it right saves the doublings' copies and slack. */
  constructor(capacity = 1024) {
    this.from = new GrowableInt32(capacity);
    this.to = new GrowableInt32(capacity);
    this.kind = new GrowableInt32(capacity);
    this.key = new GrowableInt32(capacity);
  }

  get length(): number {
    return this.from.length;
  }

  /** Typed views of the columns without copying; valid only until the next push. */
  views(): { from: Int32Array; to: Int32Array; kind: Int32Array; key: Int32Array } {
    return { from: this.from.view(), to: this.to.view(), kind: this.kind.view(), key: this.key.view() };
  }

  /**
   * Room for `n` more edges: the four columns' buffers, to be written at `length ..` and then
   * taken in with `added`. For loops that add many edges (construction's WR and SO edges): no
   * call per edge. The buffers are valid until the next push or spare.
   */
  spare(n: number): { from: Int32Array; to: Int32Array; kind: Int32Array; key: Int32Array } {
    return { from: this.from.spare(n), to: this.to.spare(n), kind: this.kind.spare(n), key: this.key.spare(n) };
  }

  /** Takes in `count` edges written past `length` into the buffers `spare` gave (at most its n). */
  added(count: number): void {
    const len = this.from.length + count;
    this.from.length = len; this.to.length = len; this.kind.length = len; this.key.length = len;
  }

  push(from: number, to: number, kind: number, key: number): void {
    this.from.push(from);
    this.to.push(to);
    this.kind.push(kind);
    this.key.push(key);
  }
}
