/**
 * Loads Z3 (the `z3-solver` package, WebAssembly) once per process, on first use only, so that
 * commands other than `polysi analyze` never pay for it (about 0.5 s and 35 MB).
 *
 * Takes: nothing. Gives: the high-level Z3 context `Z` shared by every query of the process.
 * Invariant: one query at a time (the WebAssembly build is single-threaded).
 */

import type { Context } from 'z3-solver';

export type Z3 = Context<'main'>;

let loading: Promise<Z3> | null = null;

export function loadZ3(): Promise<Z3> {
  loading ??= (async () => {
    const { init } = await import('z3-solver');
    const { Context: Ctx } = await init();
    return Ctx('main');
  })();
  return loading;
}
