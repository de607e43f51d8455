#!/usr/bin/env node
// The `polysi` command. Runs the esbuild bundle (dist/, made by `npm ci` / `npm run build`, and
// shipped in the package) when it is there: dist/polysi.cjs from V8's code cache when the build
// made one for this Node (bin/code-cache.mjs: no compiling at start-up), else dist/polysi.mjs;
// otherwise, in a checkout, loads the TypeScript sources through tsx (a dev dependency).
// POLYSI_NO_CODE_CACHE=1 skips the code cache (to compare, or to rule it out).
// main() turns every exception into an exit code (4 for a bug); the handlers below do the same
// for what escapes it (an error thrown later from a callback, a failed load), so nothing ends
// with Node's exit code 1, which means "violation". A closed stdout (`polysi ... | head`) ends
// the process quietly with 2, an I/O error.
import { existsSync } from 'node:fs';

const debug = process.argv.includes('--debug');
let describe = (err) => `polysi: internal error: ${debug ? (err?.stack ?? String(err)) : String(err?.message ?? err).split('\n')[0]}`
  + (debug ? '' : ' (run with --debug for the stack; please report)');
function die(err) {
  process.stderr.write(`${describe(err)}\n`);
  process.exit(4);
}
process.on('uncaughtException', die);
process.on('unhandledRejection', die);
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(2);
  die(err);
});

const bundle = new URL('../dist/polysi.mjs', import.meta.url);
let mod = null;
if (!process.env.POLYSI_FROM_SOURCE && !process.env.POLYSI_NO_CODE_CACHE) {
  try {
    mod = (await import('./code-cache.mjs')).loadCached()?.exports ?? null;
  } catch {
    mod = null; // a damaged dist/polysi.cjs: the ESM bundle below is the fallback
  }
}
if (mod !== null) {
  // dist/polysi.cjs, run from its code cache
} else if (existsSync(bundle) && !process.env.POLYSI_FROM_SOURCE) {
  mod = await import(bundle.href);
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    console.error('polysi: dist/polysi.mjs is missing and tsx is not installed: run `npm run build` (or `npm ci`) in the checkout');
    process.exit(4);
  }
  register();
  mod = await import('../src/cli/main.ts');
}
describe = (err) => mod.internalErrorMessage(err, debug);
process.exitCode = await mod.main(process.argv.slice(2));
