/**
 * Progress on long runs: the library's hooks (readHistory's onProgress, checkHistory's construct
 * key counts) and the lines the real CLI prints for check, stat and convert when progress is
 * forced with POLYSI_PROGRESS=1 (a terminal is what turns it on for users; captured stderr is
 * not one, so without the knob nothing is printed). Spawns bin/polysi.mjs (the dist/ bundle:
 * `npm test` builds it; run `node scripts/build.mjs` before running this file alone).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readHistory } from '../../src/formats/index.ts';
import { checkHistory, type ProgressEvent } from '../../src/check/index.ts';
import { formatBytes, Progress } from '../../src/cli/progress.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'polysi.mjs');
const LONG_FORK = join(ROOT, 'examples', 'long-fork.txt');
const SIZE = statSync(LONG_FORK).size;

function cli(args: string[], progress: string | undefined): { code: number | null; err: string } {
  const env = { ...process.env };
  delete env['POLYSI_PROGRESS'];
  if (progress !== undefined) env['POLYSI_PROGRESS'] = progress;
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: r.status, err: String(r.stderr) };
}

/** stderr lines with the elapsed time replaced by T. */
function lines(err: string): string[] {
  return err.trimEnd().split('\n').map((l) => l.replace(/^polysi: \[\d+\.\d s\] /, 'polysi: [T] '));
}

test('readHistory reports 0 and the size of a regular file, and an unknown size for a directory', async () => {
  const calls: [number, number | null][] = [];
  const r = await readHistory(LONG_FORK, 'auto', { onProgress: (read, total) => calls.push([read, total]) });
  assert.equal(r.history.txnCount, 6);
  assert.deepEqual(calls, [[0, SIZE], [SIZE, SIZE]]);
  // A directory (Cobra) has no single size: one call, total unknown.
  const dirCalls: [number, number | null][] = [];
  await assert.rejects(readHistory(ROOT, 'auto', { onProgress: (read, total) => dirCalls.push([read, total]) }));
  assert.deepEqual(dirCalls, [[0, null]]);
});

test('checkHistory reports construct progress as keys done of all keys, ending with all of them', async () => {
  const { history } = await readHistory(LONG_FORK);
  const events: ProgressEvent[] = [];
  checkHistory(history, { level: 'si', pruning: true, onProgress: (e) => events.push(e) });
  const keys = events.filter((e) => e.stage === 'construct' && e.keysDone !== undefined);
  assert.deepEqual(keys.map((e) => [e.keysDone, e.keysTotal]), [[0, 2], [2, 2]]);
});

test('formatBytes: bytes, then one decimal in powers of 1024', () => {
  const cases: [number, string][] = [[0, '0 B'], [1023, '1023 B'], [1024, '1.0 KB'], [1536, '1.5 KB'],
    [500 * 1024 * 1024, '500.0 MB'], [3 * 1024 ** 3, '3.0 GB']];
  for (const [n, s] of cases) assert.equal(formatBytes(n), s);
});

test('check, stat and convert print progress when forced, and none on captured stderr', () => {
  const reading = [
    `polysi: [T] reading ${LONG_FORK}: 0 B of ${SIZE} B (0%)`,
    `polysi: [T] reading ${LONG_FORK}: ${SIZE} B of ${SIZE} B (100%)`,
  ];
  const check = cli(['check', LONG_FORK], '1');
  assert.equal(check.code, 1);
  assert.deepEqual(lines(check.err), [
    ...reading,
    `polysi: [T] read ${LONG_FORK} (text): 6 transactions, 9 operations`,
    'polysi: [T] validating',
    'polysi: [T] building the polygraph: 0 of 2 keys',
    'polysi: [T] building the polygraph: 2 of 2 keys; indexing the constraints',
    'polysi: [T] pruning, 4 constraints undecided',
    'polysi: [T] pruning round 1 done, 1 constraints undecided',
    'polysi: [T] explaining the violation',
  ]);
  const stat = cli(['stat', LONG_FORK], '1');
  assert.equal(stat.code, 0);
  assert.deepEqual(lines(stat.err), [...reading, `polysi: [T] read ${LONG_FORK} (text): 6 transactions, 9 operations; counting`]);
  const dir = scratchDir('polysi-progress-');
  try {
    const out = join(dir, 'out.jsonl');
    const conv = cli(['convert', LONG_FORK, out, '--to', 'jsonl'], '1');
    assert.equal(conv.code, 0, conv.err);
    assert.deepEqual(lines(conv.err), [
      ...reading,
      `polysi: [T] read ${LONG_FORK} (text): 6 transactions, 9 operations; converting to jsonl`,
      `polysi: [T] writing ${statSync(out).size} B to a temporary file beside ${out}`,
      'polysi: [T] verifying: reading it back as jsonl',
    ]);
  } finally {
    rmSync(dir, { recursive: true });
  }
  // Not a terminal, not forced, or forced off: silent.
  for (const knob of [undefined, '0']) {
    assert.equal(cli(['check', LONG_FORK], knob).err, '', `POLYSI_PROGRESS=${knob}`);
    assert.equal(cli(['stat', LONG_FORK], knob).err, '', `POLYSI_PROGRESS=${knob}`);
  }
});

test('a repeated counter prints its first and last values and at most one line a second between', () => {
  const printed: string[] = [];
  let clock = 0;
  const pr = new Progress({ stderr: (s) => printed.push(s) }, () => clock);
  const onProgress = pr.reading('h.edn');
  const MB = 1024 * 1024;
  // 100 reports of 5 MB, 100 ms apart: 10 s in all.
  for (let i = 0; i <= 100; i++) {
    onProgress(5 * MB * i, 500 * MB);
    clock += 100;
  }
  assert.equal(printed[0], 'polysi: [0.0 s] reading h.edn: 0 B of 500.0 MB (0%)');
  assert.equal(printed[1], 'polysi: [1.0 s] reading h.edn: 50.0 MB of 500.0 MB (10%)');
  assert.equal(printed.at(-1), 'polysi: [10.0 s] reading h.edn: 500.0 MB of 500.0 MB (100%)');
  assert.equal(printed.length, 11);
  // Unknown size (a pipe): no percentage.
  const pipe: string[] = [];
  new Progress({ stderr: (s) => pipe.push(s) }, () => 0).reading('-')(2048, null);
  assert.deepEqual(pipe, ['polysi: [0.0 s] reading -: 2.0 KB']);
});
