/**
 * Loads Z3 (the `z3-solver` package, WebAssembly) once per process, on first use only, so that
 * commands other than `polysi analyze` never pay for it (about 0.5 s and 35 MB).
 *
 * Takes: nothing. Gives: a fresh high-level Z3 context `Z` per call (one per analysis).
 * Invariant: one analysis at a time, one query at a time (the WebAssembly build is
 * single-threaded); a context is deleted only after a newer one was handed out (the next
 * analysis), once all its objects have been released.
 *
 * Why a fresh context per analysis: Z3 numbers its terms in creation order within a context
 * (reusing the numbers of freed terms) and its rewriters and SAT solver order them by those
 * numbers, so a context that already holds (or has freed) another analysis's terms can give the
 * same query a different model: the same program analysed twice in one process gave different
 * witnesses and numbers of queries (a2-findings.md F2). A new context, in which nothing is freed
 * while it is handed out (the GC's timing would decide which numbers are reused), answers the
 * same sequence of queries the same way: the objects of a context are released when a newer
 * one is handed out (the next analysis), and the context deleted once they all are.
 *
 * Why the finalizers are deferred: z3-solver frees every Z3 object it wraps from a
 * FinalizationRegistry callback (a reference-count decrement, run on the main thread whenever
 * V8's GC gets to it), while `solver.check()` runs on a WebAssembly pthread over the same
 * context. A decrement that lands during a check frees AST nodes the check is rewriting: seen
 * in CI as "RuntimeError: memory access out of bounds" in ast_manager::delete_node under
 * th_rewriter, after which the check's promise never settled and the process hung. Here the
 * package's registry (made inside `init()`) only queues those callbacks, and `z3Idle()`, called
 * when no check is running, runs those of retired contexts, then deletes the retired contexts
 * left without objects.
 */

import type { Context } from 'z3-solver';
import { importOptional } from '../../util/optional.ts';

export type Z3 = Context<'main'>;

type Api = Awaited<ReturnType<typeof import('z3-solver')['init']>>;
let loading: Promise<Api> | null = null;

/** Finalizer callbacks held back until no check runs (see the header). */
const deferred: (() => void)[] = [];
/** The context of each deferred callback (same order). */
const deferredOf: number[] = [];
/** Per context (numbered on first sight): how many of its objects' finalizers are still to run. */
const contextIds = new WeakMap<object, number>();
const live = new Map<number, number>();
/** Each context's deletion (z3-solver's own finalizer of the context object). */
const deletion = new Map<number, () => void>();
/** Contexts no longer handed out: deleted once none of their objects is left. */
const retired = new Set<number>();
let nextContext = 0;

function contextId(ctx: object | undefined): number {
  // Not expected (every wrapper has its context): such objects count against a context never deleted.
  if (typeof ctx !== 'object' || ctx === null) { if (!live.has(-1)) live.set(-1, 0); return -1; }
  let id = contextIds.get(ctx);
  if (id === undefined) { id = nextContext++; contextIds.set(ctx, id); live.set(id, 0); }
  return id;
}

interface Held { id: number; context: boolean; held: unknown }

/**
 * A FinalizationRegistry whose callbacks are queued for `z3Idle()` instead of run by the GC,
 * counting each context's objects. z3-solver's finalizer of a context never fires in practice
 * (the closures it registers keep the context reachable), so a context is deleted here instead,
 * once retired (loadZ3 made a newer one) and without objects.
 */
class DeferringRegistry<T> {
  private readonly inner: FinalizationRegistry<Held>;
  constructor(private readonly callback: (held: T) => void) {
    this.inner = new RealRegistry<Held>((h) => {
      if (h.context) deferred.push(() => { retired.add(h.id); });
      else deferred.push(() => { live.set(h.id, live.get(h.id)! - 1); callback(h.held as T); });
      deferredOf.push(h.context ? -1 : h.id);
    });
  }
  register(target: object, held: T, token?: object): void {
    // z3-solver registers its wrappers with themselves as token (each has .ctx), the context without.
    const context = token === undefined;
    const id = contextId(context ? target : (target as { ctx?: object }).ctx);
    if (context) deletion.set(id, () => this.callback(held));
    else live.set(id, live.get(id)! + 1);
    this.inner.register(target, { id, context, held }, token);
  }
  unregister(token: object): boolean {
    const done = this.inner.unregister(token);
    if (done) { const id = contextId((token as { ctx?: object }).ctx); live.set(id, live.get(id)! - 1); }
    return done;
  }
}
const RealRegistry = globalThis.FinalizationRegistry;

/** How many Z3 finalizers wait for `z3Idle()`, for a context in use or not (for tests). */
export function z3DeferredCount(): number {
  return deferred.length;
}

/** Runs the Z3 finalizers queued so far. Call only when no `solver.check()` is in flight. */
export function z3Idle(): void {
  // Only retired contexts' objects are released: freeing a term of a context in use lets Z3
  // reuse its number for a later term, and when that happens depends on the GC (header).
  let kept = 0;
  for (let k = 0; k < deferred.length; k++) {
    const id = deferredOf[k]!;
    if (id >= 0 && !retired.has(id) && live.has(id)) { deferred[kept] = deferred[k]!; deferredOf[kept] = id; kept++; continue; }
    deferred[k]!();
  }
  deferred.length = kept;
  deferredOf.length = kept;
  for (const id of retired) {
    if (live.get(id)! > 0) continue;
    retired.delete(id);
    live.delete(id);
    const del = deletion.get(id);
    deletion.delete(id);
    del?.();
  }
}

/** How many contexts are not deleted yet (for tests). */
export function z3Contexts(): number {
  return [...live.keys()].filter((id) => id >= 0).length;
}

export async function loadZ3(): Promise<Z3> {
  loading ??= (async () => {
    const { init } = await importOptional('z3-solver', () => import('z3-solver'));
    // z3-solver makes its registry inside init(): give it the deferring one, for that call only.
    (globalThis as { FinalizationRegistry: unknown }).FinalizationRegistry = DeferringRegistry;
    let api: Awaited<ReturnType<typeof init>>;
    try {
      api = await init();
    } finally {
      globalThis.FinalizationRegistry = RealRegistry;
    }
    return api;
  })();
  const Z = (await loading).Context('main');
  // The contexts handed out before are retired: deleted by z3Idle() once their objects are gone.
  const id = contextId(Z);
  for (const other of live.keys()) if (other !== id && other >= 0) retired.add(other);
  return Z;
}
