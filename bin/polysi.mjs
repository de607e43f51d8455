#!/usr/bin/env node
// The `polysi` command. Runs the esbuild bundle (dist/, made by `npm ci` / `npm run build`)
// when it is there; otherwise loads the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/polysi.mjs', import.meta.url);
let main;
if (existsSync(bundle) && !process.env.POLYSI_FROM_SOURCE) {
  ({ main } = await import(bundle.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
