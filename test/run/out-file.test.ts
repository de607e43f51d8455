/**
 * `polysi run --out`: a recording is never replaced silently (a database cannot reproduce it).
 * An existing file is refused unless --force, a symbolic link always (even with --force: the
 * CLI never writes through links), and the default name is new for each run and said in the
 * summary.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultOutName } from '../../src/cli/run-out.ts';
import { runCli as run } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const SMALL = ['--sessions', '2', '--txns', '5', '--ops', '4', '--keys', '8'];

test('an existing --out file is refused (exit 2, left as it was) unless --force replaces it', async () => {
  const dir = scratchDir('polysi-out-');
  const out = join(dir, 'h.jsonl');
  writeFileSync(out, 'the previous recording\n');
  const r = await run('run', ...SMALL, '--out', out);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /h\.jsonl: the file exists .*--force to replace it/);
  assert.equal(r.err.trim().split('\n').length, 1, 'one line, not the usage');
  assert.equal(readFileSync(out, 'utf8'), 'the previous recording\n');
  const forced = await run('run', ...SMALL, '--out', out, '--force');
  assert.equal(forced.code, 0, forced.err);
  assert.match(readFileSync(out, 'utf8'), /^\{/);
});

test('a symbolic link as --out is refused, with or without --force, and its target is untouched', async () => {
  const dir = scratchDir('polysi-out-');
  const target = join(dir, 'precious.txt');
  writeFileSync(target, 'keep me\n');
  const link = join(dir, 'link.jsonl');
  symlinkSync(target, link);
  for (const force of [[], ['--force']]) {
    const r = await run('run', ...SMALL, '--out', link, ...force);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /link\.jsonl: is a symbolic link/);
  }
  const dangling = join(dir, 'dangling.jsonl');
  symlinkSync(join(dir, 'nowhere.jsonl'), dangling);
  assert.equal((await run('run', ...SMALL, '--out', dangling)).code, 2);
  assert.equal(existsSync(join(dir, 'nowhere.jsonl')), false, 'nothing was written through the dangling link');
  assert.equal(readFileSync(target, 'utf8'), 'keep me\n');
});

test('without --out each run records to a new timestamped file, named in the summary', async () => {
  assert.equal(defaultOutName(new Date(2026, 10, 27, 9, 5, 3)), 'polysi-run-20261127-090503.jsonl');
  const dir = scratchDir('polysi-out-');
  // The default name is relative to the working directory (this file's own process).
  const home = process.cwd();
  process.chdir(dir);
  let a, b;
  try {
    a = await run('run', ...SMALL);
    b = await run('run', ...SMALL);
  } finally {
    process.chdir(home);
  }
  assert.equal(a.code, 0, a.err);
  assert.equal(b.code, 0, b.err);
  const files = readdirSync(dir).sort();
  assert.equal(files.length, 2, files.join());
  for (const f of files) assert.match(f, /^polysi-run-\d{8}-\d{6}(-\d+)?\.jsonl$/);
  const named = (err: string) => /recorded in (\S+?\.jsonl)/.exec(err)?.[1];
  assert.deepEqual([named(a.err), named(b.err)].sort(), files);
});
