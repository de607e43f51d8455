// The CLI bundle with V8's code cache (issue 10, small-history latency). Node 20 has no
// module.enableCompileCache (22.1+), so the cache is kept by hand:
//   dist/polysi.cjs        the whole CLI as one CommonJS script (scripts/build.mjs); its first line
//                          is `//polysi-cli <id>`, <id> a hash of the rest;
//   dist/polysi.cjs.cache  one header line `polysi-code-cache <id> <node version> <arch>`, then the
//                          bytes of V8's code cache, made at build time (scripts/code-cache.mjs)
//                          after checking small histories, so that it holds the bytecode of every
//                          function a check runs, not only of the top level.
// Takes: nothing (it reads dist/). Gives: the bundle's exports (main, internalErrorMessage), or
// null when the bundle or its cache is missing, stale (another bundle, Node version or
// architecture) or refused by V8 (other V8 flags): the caller then loads dist/polysi.mjs as before.
// Invariant: the script is compiled from the same wrapped text at build time and at run time (V8
// matches the cache to its source), and it sees the `import.meta` of a module at dist/polysi.cjs
// (version.ts finds package.json from it, batch.ts the worker dist/batch-worker.mjs).
// CommonJS, like bin/polysi.cjs: a plain `polysi` never starts Node's ESM loader.
'use strict';
const { isAscii } = require('node:buffer');
const { readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const { Script } = require('node:vm');

const BUNDLE = join(__dirname, '..', 'dist', 'polysi.cjs');

/**
 * Lazier tier-up to V8's optimizing compiler for a run that is likely short (a small history):
 * TurboFan is triggered after 32 times more executed bytecode than V8's default (66 KiB in
 * Node 20), so functions hot only for a few milliseconds stay in the interpreter and baseline
 * code instead of being compiled, deoptimized and recompiled. On the 360-transaction histories
 * this cuts the CPU of a check by a quarter (x16 did; x32 saves another 3-5 ms there, most of it
 * while parsing, and 7 % on a 500 KB history); on fig8 x16 cost ~18 % when measured, so the CLI
 * restores the default as soon as it knows the input is not small (src/cli/tiering.ts calls the
 * hook below).
 * V8 matches a code cache to its flags: the cache is made under the same flag (scripts/code-cache.mjs).
 * A user's own --interrupt-budget (node option or NODE_OPTIONS) is left alone.
 */
const LAZY_TIER_UP = '--interrupt-budget=2162688';
const DEFAULT_TIER_UP = '--interrupt-budget=67584';
const TIER_UP_HOOK = Symbol.for('polysi.eagerTierUp');

function lazyTierUp() {
  if (process.execArgv.some((a) => a.includes('interrupt-budget')) || (process.env.NODE_OPTIONS ?? '').includes('interrupt-budget')) return;
  const v8 = require('node:v8');
  v8.setFlagsFromString(LAZY_TIER_UP);
  let restored = false;
  globalThis[TIER_UP_HOOK] = () => {
    if (!restored) v8.setFlagsFromString(DEFAULT_TIER_UP);
    restored = true;
  };
}
const CACHE = `${BUNDLE}.cache`;
const STAMP = '//polysi-cli ';
const CACHE_MAGIC = 'polysi-code-cache';

/** The header line of a cache for the bundle stamped `id`, made by this Node. */
function cacheHeader(id) {
  return `${CACHE_MAGIC} ${id} ${process.version} ${process.arch}\n`;
}

/** The id on the bundle's first line, or null. */
function bundleId(src) {
  const nl = src.indexOf('\n');
  return src.startsWith(STAMP) && nl > 0 ? src.slice(STAMP.length, nl) : null;
}

/** Compiles (with `cachedData` when given) and runs the bundle; its exports and the Script. */
function runBundle(src, cachedData, bundle = BUNDLE) {
  // One line of wrapper, so line numbers in stack traces are the bundle's own.
  const script = new Script(`(function (exports, require, module, __filename, __dirname, __polysi_import_meta) {${src}\n})`, {
    filename: bundle,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const url = pathToFileURL(bundle).href;
  const req = createRequire(bundle);
  const importMeta = { url, resolve: (spec) => pathToFileURL(req.resolve(spec)).href };
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, req, mod, bundle, dirname(bundle), importMeta);
  return { exports: mod.exports, script };
}

/**
 * The bundle's text. The build makes it ASCII (scripts/build.mjs), which read as latin1 is the
 * same string as read as UTF-8 without the decoding: ~0.5 ms less CPU at every start (1.0 against
 * 1.5 ms for 550 KB in a fresh process). Any other byte is decoded as UTF-8, as before.
 */
function readSource(bundle) {
  const bytes = readFileSync(bundle);
  return isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.utf8Slice(0, bytes.length);
}

/**
 * The bundle run from its code cache, or null when there is no usable cache (see above).
 * `used` tells whether V8 took the cache (false: it was refused and the bundle compiled anyway).
 */
function loadCached(bundle = BUNDLE) {
  let src, cache;
  try {
    src = readSource(bundle);
    cache = readFileSync(`${bundle}.cache`);
  } catch {
    return null; // not built (a checkout before `npm run build`, or a build without it)
  }
  const id = bundleId(src);
  if (id === null) return null;
  const header = cacheHeader(id);
  if (cache.length <= header.length || cache.toString('latin1', 0, header.length) !== header) return null;
  // A cache that V8 refuses (other V8 flags, e.g. --jitless) costs nothing but the compile it
  // would have saved: the bundle is then compiled from source, and works the same.
  const { exports, script } = runBundle(src, cache.subarray(header.length), bundle);
  return { exports, used: script.cachedDataRejected !== true };
}

module.exports = { BUNDLE, CACHE, STAMP, CACHE_MAGIC, cacheHeader, bundleId, readSource, runBundle, loadCached, lazyTierUp, LAZY_TIER_UP, TIER_UP_HOOK };
