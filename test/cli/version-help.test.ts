/**
 * `polysi --version` prints the package's version, and `polysi COMMAND --help` prints that
 * command's usage on stdout with exit 0 (help that was asked for is not an error), both in
 * process and through the package's "bin" (bin/polysi.cjs over the bundle in dist/, as users run
 * it) and its former path bin/polysi.mjs.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCli as run } from '../support/run-cli.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

test('--version prints the version in package.json and exits 0', async () => {
  assert.match(VERSION, /^\d+\.\d+\.\d+/);
  for (const flag of ['--version', '-V']) {
    const r = await run(flag);
    assert.deepEqual([r.code, r.out.trim(), r.err], [0, VERSION, ''], flag);
  }
});

test('COMMAND --help prints that command\'s usage on stdout and exits 0', async () => {
  for (const [cmd, usage] of [['check', /polysi check PATH/], ['convert', /polysi convert IN OUT --to FORMAT/], ['stat', /polysi stat PATH/], ['analyze', /polysi analyze PROGRAM \[--model/], ['run', /polysi run /]] as const) {
    for (const flag of ['--help', '-h']) {
      const r = await run(cmd, flag);
      assert.equal(r.code, 0, `${cmd} ${flag}`);
      assert.match(r.out, usage, `${cmd} ${flag}`);
      assert.equal(r.err, '', `${cmd} ${flag}`);
    }
  }
  // Help wins over everything else on the line, even what would be a usage error.
  assert.equal((await run('check', 'a', 'b', '--bogus', '--help')).code, 0);
  // A bare `polysi` is still a usage error (exit 2) with the usage.
  assert.equal((await run()).code, 2);
});

test('the installed entry point (package.json "bin" over dist/) answers --version and check --help', () => {
  const pkgBin = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { polysi: string } }).bin.polysi;
  assert.equal(pkgBin, 'bin/polysi.cjs');
  for (const bin of [join(ROOT, pkgBin), join(ROOT, 'bin', 'polysi.mjs')]) {
    const v = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    assert.deepEqual([v.status, v.stdout.trim()], [0, VERSION], v.stderr);
    const h = spawnSync(process.execPath, [bin, 'check', '--help'], { encoding: 'utf8' });
    assert.equal(h.status, 0, h.stderr);
    assert.match(h.stdout, /polysi check PATH/);
  }
});
