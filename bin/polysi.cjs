#!/usr/bin/env node
// The `polysi` command (package.json "bin"). Runs the esbuild bundle (dist/, made by `npm ci` /
// `npm run build`, and shipped in the package) when it is there: dist/polysi.cjs from V8's code
// cache when the build made one for this Node (bin/code-cache.cjs: nothing to compile at
// start-up), else dist/polysi.mjs; otherwise, in a checkout, the TypeScript sources through tsx
// (a dev dependency). POLYSI_NO_CODE_CACHE=1 skips the code cache (to compare, or to rule it out).
// CommonJS on purpose: an ES module entry costs every run Node's ESM loader (~5 ms), which the
// cached path never needs. bin/polysi.mjs is the same command for those who run that path.
// main() turns every exception into an exit code (4 for a bug); the handlers below do the same
// for what escapes it (an error thrown later from a callback, a failed load), so nothing ends
// with Node's exit code 1, which means "violation". A closed stdout (`polysi ... | head`) ends
// the process quietly with 2, an I/O error.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const debug = process.argv.includes('--debug');
let describe = (err) => `polysi: internal error: ${debug ? (err?.stack ?? String(err)) : String(err?.message ?? err).split('\n')[0]}`
  + (debug ? '' : ' (run with --debug for the stack; please report)');
function die(err) {
  process.stderr.write(`${describe(err)}\n`);
  process.exit(4);
}
process.on('uncaughtException', die);
process.on('unhandledRejection', die);
function onStdoutError(err) {
  if (err.code === 'EPIPE') process.exit(2);
  die(err);
}
// process.stdout is a stream built on first use, which loads Node's stream and net modules (2-4 ms
// of a small check): the CLI writes with fs.writeSync (src/cli/stdio.ts), so the handler is
// attached when something first asks for the stream, not here.
const stdoutGetter = Object.getOwnPropertyDescriptor(process, 'stdout');
Object.defineProperty(process, 'stdout', {
  configurable: true,
  enumerable: true,
  get() {
    Object.defineProperty(process, 'stdout', stdoutGetter);
    const stdout = process.stdout;
    stdout.on('error', onStdoutError);
    return stdout;
  },
});

/**
 * `polysi --version` without loading the CLI: the version in the package.json beside bin/ (as
 * src/cli/version.ts finds it). Null when that is not our package.json: the CLI then answers.
 */
function quickVersion() {
  const args = process.argv.slice(2);
  const end = args.indexOf('--');
  const cmd = (end < 0 ? args : args.slice(0, end)).filter((a) => a !== '--debug')[0];
  if (cmd !== '--version' && cmd !== '-V' && cmd !== 'version') return null;
  try {
    const pkg = JSON.parse(require('node:fs').readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
    return pkg.name === 'polysi' && typeof pkg.version === 'string' ? pkg.version : null;
  } catch {
    return null;
  }
}

/** The CLI module: { main, internalErrorMessage }. */
async function load() {
  const fromSource = Boolean(process.env.POLYSI_FROM_SOURCE);
  const codeCache = require('./code-cache.cjs');
  // Before any of the CLI is compiled (the code cache was made under the same V8 flag).
  codeCache.lazyTierUp();
  if (!fromSource && !process.env.POLYSI_NO_CODE_CACHE) {
    try {
      const cached = codeCache.loadCached();
      if (cached !== null) return cached.exports;
    } catch {
      // A damaged dist/polysi.cjs: the ES module bundle below is the fallback.
    }
  }
  const bundle = join(__dirname, '..', 'dist', 'polysi.mjs');
  if (!fromSource && existsSync(bundle)) return import(pathToFileURL(bundle).href);
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    console.error('polysi: dist/polysi.mjs is missing and tsx is not installed: run `npm run build` (or `npm ci`) in the checkout');
    process.exit(4);
  }
  register();
  return import('../src/cli/main.ts');
}

const version = quickVersion();
if (version !== null) process.stdout.write(`${version}\n`);
else load().then(async (mod) => {
  describe = (err) => mod.internalErrorMessage(err, debug);
  process.exitCode = await mod.main(process.argv.slice(2));
}, die);
