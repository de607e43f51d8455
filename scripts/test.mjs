#!/usr/bin/env node
// Runs every test file under test/ with Node's built-in runner (Node 20 cannot glob .ts itself).
// Extra arguments are passed to `node --test` (e.g. --test-name-pattern=...).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...find(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const files = find('test');
if (files.length === 0) {
  console.error('no test files found under test/');
  process.exit(1);
}
const args = ['--import', 'tsx', '--test', '--test-reporter=spec', ...process.argv.slice(2), ...files];
const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(r.status ?? 1);
