/**
 * A seeded scheduler: interleaves the embedded store's sessions one step at a time.
 *
 * Takes: steps (synchronous store actions) submitted by connected sessions. Gives: each step's
 * result, once the scheduler has chosen to run it.
 * Invariant: a step runs only when every live session has a step waiting, and the one to run is
 * drawn from a seeded generator; so, as long as each session's driver is itself deterministic,
 * the whole interleaving (and therefore the recorded history) is a function of the seed. Steps
 * run one at a time, so the store needs no locks.
 */

import { Random } from '../util/random.ts';

interface Pending {
  run: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class Scheduler {
  private readonly rng: Random;
  private live = 0;
  private readonly waiting: Pending[] = [];
  /** Steps run so far (for statistics and tests). */
  steps = 0;

  constructor(seed: number) {
    this.rng = new Random(seed);
  }

  /** A session joins: from now on no step runs until it, too, has one waiting. */
  join(): void {
    this.live++;
  }

  /** A session leaves (its connection closed): steps may run without it. */
  leave(): void {
    this.live--;
    this.dispatch();
  }

  /** Submits a step; it runs when the scheduler picks it, and its result (or throw) settles the promise. */
  step<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ run, resolve: resolve as (v: unknown) => void, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    if (this.waiting.length === 0 || this.waiting.length < this.live) return;
    const i = this.waiting.length === 1 ? 0 : this.rng.int(this.waiting.length);
    const p = this.waiting[i]!;
    // Swap-remove keeps dispatch O(1); the order of `waiting` stays a function of the seed.
    this.waiting[i] = this.waiting[this.waiting.length - 1]!;
    this.waiting.pop();
    this.steps++;
    let v: unknown;
    try {
      v = p.run();
    } catch (e) {
      p.reject(e);
      return;
    }
    p.resolve(v);
  }
}
