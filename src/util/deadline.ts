/**
 * Wall-clock deadlines shared by every stage (parse, validate, construct, prune, solve).
 *
 * Takes: an absolute deadline in epoch milliseconds (Infinity for none) and the stage's name.
 * Gives: `TimeLimitError` thrown from inside a long loop once the deadline has passed, so the
 * caller (checkHistory, the CLI) can answer `unknown` naming the stage instead of running on.
 * A leaf module (imports nothing). Loops call `checkDeadline` every few thousand iterations:
 * Date.now() costs ~20 ns, so checking every iteration of a hot loop would be measurable.
 */

export type DeadlineStage = 'parse' | 'validate' | 'construct' | 'prune' | 'solve' | 'explain';

/** What the pipeline is doing during each stage, for messages ("... while validating"). */
export const STAGE_DOING: Record<DeadlineStage, string> = {
  parse: 'parsing the input',
  validate: 'validating',
  construct: 'building the polygraph',
  prune: 'pruning',
  solve: 'solving',
  explain: 'explaining',
};

/** The deadline passed during `stage`. Not an InputError: the input may be fine, the time is not. */
export class TimeLimitError extends Error {
  constructor(readonly stage: DeadlineStage) {
    super(`the time limit was reached while ${STAGE_DOING[stage]}`);
    this.name = 'TimeLimitError';
  }
}

/** How many loop iterations between two looks at the clock (a power of two, for `(i & mask)`). */
export const DEADLINE_CHECK_MASK = 4095;

/** Throws TimeLimitError(stage) if `deadlineMs` (epoch ms) has passed. */
export function checkDeadline(deadlineMs: number, stage: DeadlineStage): void {
  if (deadlineMs !== Number.POSITIVE_INFINITY && Date.now() > deadlineMs) throw new TimeLimitError(stage);
}
