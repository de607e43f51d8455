/**
 * Binary heaps for the solver package: `VarHeap` (indexed max-heap of variables by VSIDS
 * activity) and `IntMinHeap` (plain min-heap of ints).
 *
 * VarHeap:
 *
 * Takes: variable ids (dense, 0-based) and their activities, which this heap owns in
 * `activity` so that bumps and comparisons touch one array.
 * Gives: O(log n) insert, removeMax and increase-key; O(1) membership.
 * Invariant: `heap[0..size)` is a max-heap by `activity`; `indices[heap[i]] === i` for every
 * i < size; `indices[v] === -1` exactly when v is not in the heap.
 */

export class VarHeap {
  /** `activity[v]`: VSIDS score of variable v (larger = decided earlier). */
  activity = new Float64Array(0);
  /** `heap[i]`: the variable at heap slot i (valid for i < size). */
  private heap = new Int32Array(0);
  /** `indices[v]`: heap slot of v, or -1 if v is not in the heap. */
  private indices = new Int32Array(0);
  private size = 0;

  /** Makes room for variables `0 .. capacity-1`; new variables start outside the heap with activity 0. */
  grow(capacity: number): void {
    if (capacity <= this.indices.length) return;
    const activity = new Float64Array(capacity);
    activity.set(this.activity);
    const heap = new Int32Array(capacity);
    heap.set(this.heap);
    const indices = new Int32Array(capacity).fill(-1);
    indices.set(this.indices);
    this.activity = activity;
    this.heap = heap;
    this.indices = indices;
  }

  get length(): number {
    return this.size;
  }

  contains(v: number): boolean {
    return this.indices[v]! >= 0;
  }

  insert(v: number): void {
    if (this.indices[v]! >= 0) return;
    const i = this.size++;
    this.heap[i] = v;
    this.indices[v] = i;
    this.up(i);
  }

  /** The variable of highest activity, without removing it. Pre: the heap is not empty. */
  top(): number {
    return this.heap[0]!;
  }

  /** Removes and returns the variable of highest activity. Pre: the heap is not empty. */
  removeMax(): number {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap[--this.size]!;
    this.indices[top] = -1;
    if (this.size > 0) {
      heap[0] = last;
      this.indices[last] = 0;
      this.down(0);
    }
    return top;
  }

  /** Restores the heap after `activity[v]` grew (activities only ever grow, or all shrink together). */
  increased(v: number): void {
    const i = this.indices[v]!;
    if (i >= 0) this.up(i);
  }

  private up(i: number): void {
    const heap = this.heap;
    const act = this.activity;
    const indices = this.indices;
    const v = heap[i]!;
    const a = act[v]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pv = heap[parent]!;
      if (act[pv]! >= a) break;
      heap[i] = pv;
      indices[pv] = i;
      i = parent;
    }
    heap[i] = v;
    indices[v] = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const act = this.activity;
    const indices = this.indices;
    const size = this.size;
    const v = heap[i]!;
    const a = act[v]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && act[heap[right]!]! > act[heap[left]!]! ? right : left;
      const cv = heap[child]!;
      if (act[cv]! <= a) break;
      heap[i] = cv;
      indices[cv] = i;
      i = child;
    }
    heap[i] = v;
    indices[v] = i;
  }
}

/**
 * Plain binary min-heap of non-negative int32 keys (no index), for the lexicographically
 * smallest topological order in `AcyclicityTheory.initialize`.
 * Invariant: `keys[0..size)` is a min-heap.
 */
export class IntMinHeap {
  private keys: Int32Array;
  private size = 0;

  constructor(capacity: number) {
    this.keys = new Int32Array(Math.max(1, capacity));
  }

  get length(): number {
    return this.size;
  }

  /** Pre: fewer than `capacity` keys are in the heap. */
  push(key: number): void {
    const keys = this.keys;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pk = keys[parent]!;
      if (pk <= key) break;
      keys[i] = pk;
      i = parent;
    }
    keys[i] = key;
  }

  /** Pre: not empty. */
  pop(): number {
    const keys = this.keys;
    const top = keys[0]!;
    const last = keys[--this.size]!;
    const size = this.size;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && keys[right]! < keys[left]! ? right : left;
      if (keys[child]! >= last) break;
      keys[i] = keys[child]!;
      i = child;
    }
    if (size > 0) keys[i] = last;
    return top;
  }
}
