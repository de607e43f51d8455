/**
 * Loads Z3 (the `z3-solver` package, WebAssembly) once per process, on first use only, so that
 * commands other than `polysi analyze` never pay for it (about 0.5 s and 35 MB).
 *
 * Takes: nothing. Gives: the high-level Z3 context `Z` shared by every query of the process.
 * Invariant: one query at a time (the WebAssembly build is single-threaded).
 *
 * Why the finalizers are deferred: z3-solver frees every Z3 object it wraps from a
 * FinalizationRegistry callback (a reference-count decrement, run on the main thread whenever
 * V8's GC gets to it), while `solver.check()` runs on a WebAssembly pthread over the same
 * context. A decrement that lands during a check frees AST nodes the check is rewriting: seen
 * in CI as "RuntimeError: memory access out of bounds" in ast_manager::delete_node under
 * th_rewriter, after which the check's promise never settled and the process hung. Here the
 * package's registry (made inside `init()`) only queues those callbacks, and `z3Idle()`, called
 * when no check is running, runs them.
 */

import type { Context } from 'z3-solver';

export type Z3 = Context<'main'>;

let loading: Promise<Z3> | null = null;

/** Finalizer callbacks held back until no check runs (see the header). */
const deferred: (() => void)[] = [];

/** A FinalizationRegistry whose callbacks are queued for `z3Idle()` instead of run by the GC. */
class DeferringRegistry<T> {
  private readonly inner: FinalizationRegistry<T>;
  constructor(callback: (held: T) => void) {
    this.inner = new RealRegistry<T>((held) => { deferred.push(() => callback(held)); });
  }
  register(target: object, held: T, token?: object): void { this.inner.register(target, held, token); }
  unregister(token: object): boolean { return this.inner.unregister(token); }
}
const RealRegistry = globalThis.FinalizationRegistry;

/** How many Z3 finalizers wait for `z3Idle()` (for tests). */
export function z3DeferredCount(): number {
  return deferred.length;
}

/** Runs the Z3 finalizers queued so far. Call only when no `solver.check()` is in flight. */
export function z3Idle(): void {
  while (deferred.length > 0) deferred.pop()!();
}

export function loadZ3(): Promise<Z3> {
  loading ??= (async () => {
    const { init } = await import('z3-solver');
    // z3-solver makes its registry inside init(): give it the deferring one, for that call only.
    (globalThis as { FinalizationRegistry: unknown }).FinalizationRegistry = DeferringRegistry;
    let api: Awaited<ReturnType<typeof init>>;
    try {
      api = await init();
    } finally {
      globalThis.FinalizationRegistry = RealRegistry;
    }
    return api.Context('main');
  })();
  return loading;
}
