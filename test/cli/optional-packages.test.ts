/**
 * Z3, Graphviz and the database drivers are optional peer dependencies (package.json): installing
 * polysi does not pull them. Each is loaded when its job needs it, and when it is not installed
 * the command says in one line what to install (exit 2), instead of a stack or a raw
 * ERR_MODULE_NOT_FOUND. A missing package is simulated by a resolve hook (the sources, through
 * tsx) and by a CommonJS resolver patch (the bundled CLI, bin/polysi.cjs, as users run it).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { importOptional, MissingPackageError, OPTIONAL_PACKAGES } from '../../src/util/optional.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DIR = scratchDir('polysi-optional-');

function notFound(message: string, code = 'ERR_MODULE_NOT_FOUND'): Error {
  return Object.assign(new Error(message), { code });
}

test('package.json: the four are optional peers (and dev dependencies of the checkout), not dependencies', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies?: object; peerDependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }>; devDependencies: Record<string, string>;
  };
  assert.equal(pkg.dependencies, undefined);
  for (const name of Object.keys(OPTIONAL_PACKAGES)) {
    assert.ok(pkg.peerDependencies[name] !== undefined, name);
    assert.equal(pkg.peerDependenciesMeta[name]?.optional, true, name);
    assert.ok(pkg.devDependencies[name] !== undefined, `${name}: npm ci in a clone installs it`);
  }
});

test('importOptional: "not installed" becomes one line saying what to install; other failures pass as they are', async () => {
  await assert.rejects(importOptional('pg', () => Promise.reject(notFound("Cannot find package 'pg' imported from /x/y.mjs"))),
    (e: unknown) => e instanceof MissingPackageError && e.message === `${OPTIONAL_PACKAGES['pg']} needs the npm package pg, which is not installed: run npm install pg`);
  await assert.rejects(importOptional('mysql2', () => Promise.reject(notFound("Cannot find module 'mysql2/promise'", 'MODULE_NOT_FOUND'))), MissingPackageError);
  // A module missing inside the package is a broken install, not this.
  const inner = notFound("Cannot find module 'pg-types' imported from /n/pg/lib/index.js");
  await assert.rejects(importOptional('pg', () => Promise.reject(inner)), (e: unknown) => e === inner);
  const other = new Error('boom');
  await assert.rejects(importOptional('z3-solver', () => Promise.reject(other)), (e: unknown) => e === other);
  assert.equal(await importOptional('pg', () => Promise.resolve(7)), 7);
});

/** The commands that need each package, and the line each must print. */
const CASES: [string, string[]][] = [
  ['pg', ['run', '--db', 'postgres://u:p@127.0.0.1:1/db', '--sessions', '1', '--txns', '1', '--out', join(DIR, 'pg.jsonl')]],
  ['mysql2', ['run', '--db', 'mysql://u:p@127.0.0.1:1/db', '--sessions', '1', '--txns', '1', '--out', join(DIR, 'my.jsonl')]],
  ['z3-solver', ['analyze', join(ROOT, 'examples', 'anode', 'withdraw.anode')]],
  ['@viz-js/viz', ['check', join(ROOT, 'examples', 'long-fork.txt'), '--svg', join(DIR, 'x.svg')]],
];

function assertOneLine(r: { status: number | null; stderr: string }, pkg: string, what: string): void {
  assert.equal(r.status, 2, `${what}: ${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `${what}: ${r.stderr}`);
  assert.match(lines[0]!, new RegExp(`^polysi \\w+: .* needs the npm package ${pkg.replace('/', '\\/')}, which is not installed: run npm install ${pkg.replace('/', '\\/')}$`), what);
}

test('the sources: each command whose package is missing says what to install, in one line (exit 2)', { timeout: 120_000 }, () => {
  const hook = join(DIR, 'hide-hook.mjs');
  writeFileSync(hook, `
let hidden = [];
export function initialize(data) { hidden = data.hidden; }
export async function resolve(specifier, context, next) {
  if (hidden.some((p) => specifier === p || specifier.startsWith(p + '/'))) {
    throw Object.assign(new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  return next(specifier, context);
}`);
  const entry = join(DIR, 'entry.mjs');
  writeFileSync(entry, `
import { register } from 'node:module';
const [hidden, ...argv] = process.argv.slice(2);
register(${JSON.stringify(pathToFileURL(hook).href)}, { data: { hidden: hidden.split(',') } });
const { main } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src', 'cli', 'main.ts')).href)});
process.exitCode = await main(argv);
`);
  for (const [pkg, argv] of CASES) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', entry, pkg, ...argv], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, POLYSI_PROGRESS: '0' } });
    assertOneLine(r, pkg, `${pkg}: ${argv.join(' ')}`);
  }
});

test('the bundled CLI (bin/polysi.cjs, as installed): the same line when a package is missing', { timeout: 120_000 }, () => {
  const preload = join(DIR, 'hide.cjs');
  writeFileSync(preload, `
const Module = require('node:module');
const hidden = process.env.HIDE_PACKAGES.split(',');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (hidden.some((p) => request === p || request.startsWith(p + '/'))) {
    throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
  }
  return resolveFilename.call(this, request, ...rest);
};`);
  for (const [pkg, argv] of CASES) {
    const r = spawnSync(process.execPath, ['--require', preload, join(ROOT, 'bin', 'polysi.cjs'), ...argv], {
      cwd: ROOT, encoding: 'utf8', env: { ...process.env, POLYSI_PROGRESS: '0', HIDE_PACKAGES: pkg },
    });
    assertOneLine(r, pkg, `bundled ${pkg}: ${argv.join(' ')}`);
  }
});
