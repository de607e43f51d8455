/**
 * A monotonic clock in milliseconds, for durations (the stage times of a check, progress lines).
 *
 * Takes: nothing. Gives: `now()`, milliseconds from an arbitrary origin, like performance.now().
 * Why not performance.now(): the first use of Node's global `performance` loads perf_hooks (nine
 * internal modules, 1-2 ms of CPU), a measurable part of a small check's ~40 ms (issue 10);
 * process.hrtime() is already loaded. A leaf module (imports nothing).
 */

export function now(): number {
  const t = process.hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
}
