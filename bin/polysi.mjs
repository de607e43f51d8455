#!/usr/bin/env node
// The `polysi` command. Runs the esbuild bundle (dist/, made by `npm ci` / `npm run build`, and
// shipped in the package) when it is there; otherwise, in a checkout, loads the TypeScript
// sources through tsx (a dev dependency).
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/polysi.mjs', import.meta.url);
let main;
if (existsSync(bundle) && !process.env.POLYSI_FROM_SOURCE) {
  ({ main } = await import(bundle.href));
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    console.error('polysi: dist/polysi.mjs is missing and tsx is not installed: run `npm run build` (or `npm ci`) in the checkout');
    process.exit(4);
  }
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
