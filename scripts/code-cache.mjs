#!/usr/bin/env node
// Makes dist/polysi.cjs.cache (see bin/code-cache.cjs): compiles the CLI bundle, runs it on the
// small histories in scripts/warm/ the way `polysi check` runs (text and --json, a violation
// decided by pruning and explained, a valid history decided by the solver, SI and SER), then
// saves V8's code cache, which now holds the bytecode of every function those checks ran.
// Run by scripts/build.mjs in a child process with no Node options, so that the cache matches
// the V8 flags of a plain `polysi` (V8 refuses a cache made under other flags).
// Takes: dist/polysi.cjs. Gives: dist/polysi.cjs.cache, or exit 1 with why.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import codeCache from '../bin/code-cache.cjs';

const { BUNDLE, CACHE, bundleId, cacheHeader, readSource, runBundle, lazyTierUp } = codeCache;

const warm = (name) => fileURLToPath(new URL(`./warm/${name}`, import.meta.url));
const src = readSource(BUNDLE);
const id = bundleId(src);
if (id === null) {
  console.error(`code-cache: ${BUNDLE} has no build stamp`);
  process.exit(1);
}
// The V8 flags of bin/polysi.cjs when it compiles the bundle: V8 refuses a cache made under others.
lazyTierUp();
const { exports, script } = runBundle(src);
const sink = { stdout() {}, stderr() {} };
const runs = [
  [['check', warm('violation.jsonl')], 1],
  [['check', warm('violation.jsonl'), '--json', '--explain'], 1],
  [['check', warm('valid.jsonl')], 0],
  [['check', warm('valid.jsonl'), '--json'], 0],
  [['check', warm('valid.jsonl'), '--level', 'ser'], 1],
];
for (const [argv, want] of runs) {
  const code = await exports.main(argv, sink);
  if (code !== want) {
    console.error(`code-cache: polysi ${argv.join(' ')} exited ${code}, expected ${want}`);
    process.exit(1);
  }
}
const data = script.createCachedData();
writeFileSync(CACHE, Buffer.concat([Buffer.from(cacheHeader(id), 'latin1'), data]));
