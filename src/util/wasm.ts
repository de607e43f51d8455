/**
 * What every WebAssembly kernel shares at run time (prune/reach-wasm.ts, solve/kahn.ts,
 * solve/contract-wasm.ts, sat/csr-wasm.ts); their bytes come from wasm-asm.ts, stored ahead of
 * time as base64 in a `*-bytes.ts` file beside each.
 *
 * Takes: nothing but the environment (POLYSI_NO_WASM) and sizes. Gives: whether kernels may run,
 * the stored bytes decoded, a lazily compiled module, a fresh memory or null.
 * Invariant: a kernel that cannot be had (switched off, no WebAssembly, no SIMD, no memory) is
 * null here, never an exception: the caller's JS passes then do the same work.
 * A leaf module (imports nothing).
 */

/** WebAssembly's page size in bytes. */
export const WASM_PAGE = 65536;

/**
 * The kernels of the solve stage run only up to this much memory, the JS beyond, in place: they
 * copy their inputs, and at scale the copy would add to the check's peak (10^6 txns: the known
 * split graph alone is ~160 MB, the reach table ~200 MB; the target there is 2 GB). fig8 30 %
 * needs 2-7 MB per kernel.
 */
export const KERNEL_COPY_BYTES_MAX = 64 << 20;

/** False under POLYSI_NO_WASM=1 (any value but '' and '0': the JS passes run) or without WebAssembly. */
export function wasmWanted(): boolean {
  const off = typeof process === 'object' ? process.env['POLYSI_NO_WASM'] : undefined;
  return !(off !== undefined && off !== '' && off !== '0') && typeof WebAssembly === 'object';
}

/** The bytes of a base64 text (a kernel as its `*-bytes.ts` file stores it). */
export function base64Bytes(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/**
 * A getter of the module compiled from `bytes()` on first use, then kept; null without
 * WebAssembly or when the engine cannot compile it (no SIMD: a CompileError).
 */
export function lazyModule(bytes: () => Uint8Array<ArrayBuffer>): () => WebAssembly.Module | null {
  let compiled: WebAssembly.Module | null | undefined;
  return () => {
    if (compiled !== undefined) return compiled;
    try {
      compiled = typeof WebAssembly === 'object' ? new WebAssembly.Module(bytes()) : null;
    } catch (err) {
      if (err instanceof WebAssembly.CompileError) compiled = null;
      else throw err;
    }
    return compiled;
  };
}

/** A fresh memory of at least `bytes` (one page at least), or null when it cannot be had (RangeError). */
export function freshMemory(bytes: number): WebAssembly.Memory | null {
  try {
    return new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / WASM_PAGE)) });
  } catch (err) {
    if (err instanceof RangeError) return null;
    throw err;
  }
}
