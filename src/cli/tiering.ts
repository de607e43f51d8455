/**
 * When to give V8's optimizing compiler its usual eagerness back.
 *
 * Takes: nothing but what the launcher left (bin/code-cache.cjs: `lazyTierUp` makes TurboFan
 * lazier for a run that is likely short, and leaves a hook under Symbol.for('polysi.eagerTierUp')
 * that restores V8's default). Gives: `eagerTierUp()`, called by the commands as soon as they know
 * the run is not a small single check (a big input, standard input, a batch, the ladder, any
 * other command), and `SMALL_INPUT_BYTES`, the size below which a single check stays lazy.
 * Invariant: a no-op without the launcher (tests in-process, the library): the library never
 * touches V8 flags.
 */

/** A single history file up to this size is checked with lazy tier-up (the 360-txn JSONL is 128 KB; fig8's bincode 1.5 MB). */
export const SMALL_INPUT_BYTES = 512 * 1024;

export function eagerTierUp(): void {
  const hook = (globalThis as Record<symbol, unknown>)[Symbol.for('polysi.eagerTierUp')];
  if (typeof hook === 'function') (hook as () => void)();
}
