#!/usr/bin/env node
// Builds what the package ships (dist/), from the TypeScript sources:
//   dist/polysi.mjs  the CLI (bin/polysi.cjs loads it), so `polysi` starts in ~0.1 s instead of
//                    paying tsx's on-the-fly compilation on every run;
//   dist/index.mjs   the library entry (`import ... from 'polysi'`, src/index.ts);
//   dist/batch-worker.mjs  a worker thread of `polysi check PATH PATH...` (src/cli/batch.ts);
//   dist/chunks/     code the two share, and the lazily loaded parts (convert, stat, drawings);
//   dist/polysi.cjs  the CLI again, as one CommonJS script, and dist/polysi.cjs.cache, V8's code
//                    cache of it made after checking small histories (scripts/code-cache.mjs):
//                    bin/polysi.cjs runs that when both are there and match this Node, which
//                    saves compiling the CLI on every run (see bin/code-cache.cjs); --no-cache
//                    skips them (bin/polysi.cjs then loads dist/polysi.mjs);
//   dist/types/      the .d.ts declarations of src/index.ts and what it imports (tsc), unless
//                    --no-types (the test run skips them: ~5 s, and only the package needs them).
// esbuild (~100 ms) and tsc are dev dependencies: the published tarball carries dist/ built by
// `npm pack` (prepare), so installing it needs neither. Runs on `npm ci` (prepare) and before
// `npm test`, so the bundles never lag behind the sources in normal use.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const withTypes = !process.argv.includes('--no-types');
const withCache = !process.argv.includes('--no-cache');

rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: { polysi: 'src/cli/main.ts', index: 'src/index.ts', 'batch-worker': 'src/cli/batch-worker.ts' },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});

if (withCache) {
  // The CLI as one script (no chunks: the code cache covers one script), with `import.meta`
  // given by the loader (bin/code-cache.cjs); packages stay external, loaded by require().
  await build({
    absWorkingDir: root,
    entryPoints: { polysi: 'src/cli/main.ts' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outdir: 'dist',
    outExtension: { '.js': '.cjs' },
    packages: 'external',
    define: { 'import.meta': '__polysi_import_meta' },
    // import() of the packages loaded on demand (Graphviz, Z3, the database drivers) becomes
    // require(): a function restored from V8's code cache has no dynamic-import callback (the
    // script's host options are not in the cache). Each of them has a CommonJS entry.
    supported: { 'dynamic-import': false },
    // No comments or indentation: 780 -> 550 KB to read at every start, and only ASCII (esbuild
    // escapes other characters in strings; a comment could hold any), so V8 keeps the source as
    // a one-byte string instead of a two-byte one. Names are kept: stacks still name functions.
    minifyWhitespace: true,
    logLevel: 'warning',
  });
  const cjs = new URL('../dist/polysi.cjs', import.meta.url);
  const body = readFileSync(cjs, 'utf8');
  if (!/^[\x00-\x7f]*$/.test(body)) console.error('build: dist/polysi.cjs is not ASCII: V8 will hold it as a two-byte string');
  const id = createHash('sha256').update(body).update(process.version).digest('hex').slice(0, 24);
  writeFileSync(cjs, `//polysi-cli ${id}\n${body}`);
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const r = spawnSync(process.execPath, [fileURLToPath(new URL('./code-cache.mjs', import.meta.url))], { cwd: root, stdio: 'inherit', env });
  if (r.status !== 0) {
    // No cache is no failure: bin/polysi.cjs then loads dist/polysi.mjs, only slower to start.
    rmSync(new URL('../dist/polysi.cjs.cache', import.meta.url), { force: true });
    console.error('build: the code cache (scripts/code-cache.mjs) could not be made; polysi will start without it');
  }
}

if (withTypes) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('build: declaration emit (tsc -p tsconfig.build.json) failed');
    process.exit(r.status ?? 1);
  }
}
