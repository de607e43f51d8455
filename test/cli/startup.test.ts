/**
 * What a single small check loads and how it writes (issue 10, start-up): the CLI writes stdout
 * with fs.writeSync (src/cli/stdio.ts) and reads a regular file synchronously
 * (src/formats/io-read.ts) and times stages with process.hrtime (src/util/clock.ts), so Node's
 * net, tty, fs/promises and perf_hooks modules are never loaded by
 * `polysi check FILE`; the output must still be complete and in order when the descriptor is
 * non-blocking (EAGAIN) or closed (EPIPE). Spawns bin/polysi.cjs over the built dist/.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { needs } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'polysi.cjs');
const VIOLATION = join(ROOT, 'scripts', 'warm', 'violation.jsonl');
const built = (): string | false => needs(existsSync(join(ROOT, 'dist', 'polysi.cjs')), 'no bundled CLI in dist/ (run node scripts/build.mjs)');
const ENV = { ...process.env, POLYSI_PROGRESS: '0' };

/** Node's built-in modules loaded by `node PRELOAD? BIN args` beyond those of an empty script. */
function modulesLoaded(args: string[], env: NodeJS.ProcessEnv = ENV): { code: number | null; out: string; loaded: string[] } {
  const dir = scratchDir('polysi-startup-');
  try {
    const list = join(dir, 'modules.txt');
    const pre = join(dir, 'pre.cjs');
    writeFileSync(pre, `const base = new Set(process.moduleLoadList);
process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.filter((m) => !base.has(m)).join('\\n')));`);
    const r = spawnSync(process.execPath, ['-r', pre, BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
    return { code: r.status, out: r.stdout, loaded: readFileSync(list, 'utf8').split('\n') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a single check of a small file loads neither net, tty nor fs/promises, and prints the same report', { skip: built() }, () => {
  const r = modulesLoaded(['check', VIOLATION]);
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /VIOLATION/);
  for (const m of ['NativeModule net', 'NativeModule tty', 'NativeModule fs/promises', 'NativeModule perf_hooks']) assert.ok(!r.loaded.includes(m), `${m} was loaded`);
  // The same check with progress forced on writes stderr through the same path.
  const p = spawnSync(process.execPath, [BIN, 'check', VIOLATION], { encoding: 'utf8', env: { ...ENV, POLYSI_PROGRESS: '1' } });
  assert.equal(p.status, 1);
  assert.equal(p.stdout.replace(/^time \(ms\).*$/m, ''), r.out.replace(/^time \(ms\).*$/m, ''));
  assert.match(p.stderr, /^polysi: \[\d+\.\d s\] read .*violation\.jsonl \(jsonl\): 72 transactions/m);
});

test('the CLI bundle is ASCII (V8 holds it as a one-byte string) and has no comments', { skip: built() }, () => {
  const src = readFileSync(join(ROOT, 'dist', 'polysi.cjs'), 'latin1');
  assert.match(src, /^[\x00-\x7f]*$/);
  // The stamp line is the bundle's only comment line (whitespace minified).
  assert.equal(src.split('\n').filter((l) => l.startsWith('//')).length, 1);
});

test('the loader reads the ASCII bundle as latin1, and any other text as UTF-8, to the same string', async () => {
  const { readSource } = (await import(join(ROOT, 'bin', 'code-cache.cjs') as string)) as { readSource(path: string): string };
  const dir = scratchDir('polysi-startup-');
  try {
    for (const text of ['//polysi-cli x\nconst a = "plain";\n', '//polysi-cli x\nconst a = "\u2014 caf\u00e9 \u{1f600}";\n']) {
      const f = join(dir, 'bundle.cjs');
      writeFileSync(f, text, 'utf8');
      assert.equal(readSource(f), readFileSync(f, 'utf8'));
      assert.equal(readSource(f), text);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('output to a non-blocking stdout that fills up is complete and in order (EAGAIN)', { skip: built() }, async () => {
  const dir = scratchDir('polysi-startup-');
  try {
    // ~2 MB of JSON Lines written to stdout by `convert IN -`: far more than a pipe holds.
    // (PolySI text: op(key, value, session, txn), one write and one read per transaction.)
    const input = join(dir, 'big.txt');
    const lines: string[] = [];
    for (let t = 1; t <= 20_000; t++) lines.push(`w(${t},${t},${t % 40},${t})`, `r(${t},${t},${t % 40},${t})`);
    writeFileSync(input, `${lines.join('\n')}\n`);
    const expected = spawnSync(process.execPath, [BIN, 'convert', input, '-', '--to', 'jsonl'], { env: ENV, maxBuffer: 1 << 28 });
    assert.equal(expected.status, 0, String(expected.stderr));
    assert.ok(expected.stdout.length > 1 << 20);
    // A parent that touched process.stdout first made fd 1 non-blocking (libuv does, for a pipe);
    // the CLI then runs in the same process, and the reader waits before it reads anything.
    const code = `process.stdout; process.argv = [process.argv[0], ${JSON.stringify(BIN)}, 'convert', ${JSON.stringify(input)}, '-', '--to', 'jsonl']; require(${JSON.stringify(BIN)});`;
    const child = spawn(process.execPath, ['-e', code], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pause();
    const chunks: Buffer[] = [];
    let err = '';
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    await new Promise((r) => setTimeout(r, 300));
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stdout.resume();
    const status = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
    assert.equal(status, 0, err);
    assert.equal(err, '');
    assert.ok(Buffer.concat(chunks).equals(expected.stdout), 'the output differs from that of a blocking pipe');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
