/**
 * A memory budget for one check (`--max-memory MB`, CheckOptions.maxMemoryMb).
 *
 * Takes: the budget in MiB (undefined: none) and, at each stage boundary, either nothing (a look
 * at the process's resident set) or an estimate of what the next stage will allocate.
 * Gives: `MemoryLimitError` naming the stage, which checkHistory turns into the verdict
 * 'unknown', instead of V8 dying with "heap out of memory" (which no caller can catch).
 * Why both: the resident set catches what earlier stages (parsing included) left behind; the
 * estimates stop a stage before it allocates its big tables, since once V8 is out of heap it is
 * too late. Estimates are deliberately on the generous side of the typed arrays a stage builds.
 * A leaf module (imports nothing but the stage names).
 */

import type { DeadlineStage } from './deadline.ts';

const DOING: Record<DeadlineStage, string> = {
  parse: 'parsing the input',
  validate: 'validating',
  construct: 'building the polygraph',
  prune: 'pruning',
  solve: 'solving',
  explain: 'explaining',
};

const MB = 2 ** 20;

/** The budget would be exceeded by (or before) `stage`. */
export class MemoryLimitError extends Error {
  constructor(readonly stage: DeadlineStage, readonly budgetMb: number, readonly neededMb: number) {
    super(`the memory budget (${budgetMb} MB) would be exceeded ${stage === 'parse' ? 'after' : 'by'} ${DOING[stage]} ` +
      `(about ${Math.ceil(neededMb)} MB needed)`);
    this.name = 'MemoryLimitError';
  }
}

export class MemoryBudget {
  constructor(readonly budgetMb: number, private readonly rss: () => number = () => process.memoryUsage().rss) {
    if (!(Number.isFinite(budgetMb) && budgetMb > 0)) throw new RangeError(`maxMemoryMb must be a positive number, got ${budgetMb}`);
  }

  /** Bytes left under the budget now (negative when already over). */
  leftBytes(): number {
    return this.budgetMb * MB - this.rss();
  }

  /** Throws MemoryLimitError(stage) unless `bytes` more fit under the budget. */
  reserve(stage: DeadlineStage, bytes: number): void {
    const used = this.rss();
    if (used + bytes > this.budgetMb * MB) throw new MemoryLimitError(stage, this.budgetMb, (used + bytes) / MB);
  }
}

/**
 * Bytes the next stage allocates, from counts known before it starts (generous: a growable
 * column may hold twice its length, and a stage's input and output coexist for a moment).
 */
export const STAGE_BYTES = {
  /** Per-op and per-txn columns of the validated history (read table, writer index). */
  validate: (ops: number, txns: number): number => ops * 48 + txns * 64,
  /** Constraint records (grown, then sorted into columns) and the known edges. */
  construct: (pairs: number, edges: number, txns: number): number => edges * 48 + pairs * 32 + txns * 64,
  /** One round's split graph, order and reverse adjacency, the provenance columns, and the growth of the known edges. */
  prune: (knownEdges: number, constraintEdges: number, constraints: number, txns: number): number =>
    (knownEdges + constraintEdges) * 64 + constraints * 16 + txns * 96,
  /** Reachability table bytes per Int32 cell. */
  reachCell: 4,
  /** The acyclicity theory's adjacency (split edges, twice: forward and backward) and the solver's clauses. */
  solve: (knownEdges: number, activeEdges: number, active: number, txns: number): number =>
    (knownEdges + activeEdges) * 96 + active * 128 + txns * 64,
};
