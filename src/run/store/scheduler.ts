/**
 * A seeded scheduler: interleaves the embedded store's sessions one step at a time.
 *
 * Takes: steps (synchronous store actions) submitted by connected sessions. Gives: each step's
 * result, once the scheduler has chosen to run it.
 * Invariant: a step runs only when every live session has a step waiting, and the one to run is
 * the `pick`-th live session in session order, `pick` drawn from a seeded generator; so, as long
 * as each session's driver is itself deterministic, the whole interleaving (and therefore the
 * recorded history) is a function of the seed. The runner's synchronous driver makes the same
 * draws over the same live sessions, so both give the same history. Steps run one at a time,
 * so the store needs no locks.
 */

import { Random } from '../../util/random.ts';

interface Pending {
  run: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class Scheduler {
  private readonly rng: Random;
  /** Live sessions in increasing order; `pending[s]`: session s's waiting step. */
  private readonly live: number[] = [];
  private readonly pending: (Pending | null)[] = [];
  private waiting = 0;
  /** Steps run so far (for statistics and tests). */
  steps = 0;

  constructor(seed: number) {
    this.rng = new Random(seed);
  }

  /** The seeded choice among `n` live sessions (an index into them in session order). */
  pick(n: number): number {
    return n === 1 ? 0 : this.rng.int(n);
  }

  /** Session s joins: from now on no step runs until it, too, has one waiting. */
  join(s: number): void {
    let i = this.live.length;
    while (i > 0 && this.live[i - 1]! > s) i--;
    if (this.live[i - 1] === s) throw new Error(`internal error: session ${s} joined twice`);
    this.live.splice(i, 0, s);
    while (this.pending.length <= s) this.pending.push(null);
  }

  /** Session s leaves (its connection closed): steps may run without it. */
  leave(s: number): void {
    const i = this.live.indexOf(s);
    if (i < 0) return;
    this.live.splice(i, 1);
    if (this.pending[s] !== null) { this.pending[s] = null; this.waiting--; }
    this.dispatch();
  }

  /** Submits session s's next step; it runs when the scheduler picks it, and its result (or throw) settles the promise. */
  step<T>(s: number, run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.pending[s] !== null) throw new Error(`internal error: session ${s} has two steps waiting`);
      this.pending[s] = { run, resolve: resolve as (v: unknown) => void, reject };
      this.waiting++;
      this.dispatch();
    });
  }

  private dispatch(): void {
    const n = this.live.length;
    if (this.waiting === 0 || this.waiting < n) return;
    // Every live session has a step waiting: the same choice the synchronous driver makes.
    const s = this.live[this.pick(n)]!;
    const p = this.pending[s]!;
    this.pending[s] = null;
    this.waiting--;
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
