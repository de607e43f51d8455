/**
 * `polysi run` as a user meets it: verdicts and exit codes, the recorded file, usage errors,
 * an unreachable target (exit 2, no file), and Ctrl-C on a spawned run (a valid file, checked).
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonl } from '../../src/formats/jsonl.ts';
import { MEMORY_MODES } from '../../src/run/store/modes.ts';
import { runCli as run } from '../support/run-cli.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const DIR = scratchDir('polysi-run-test-');
const SMALL = ['--sessions', '4', '--txns', '20', '--ops', '6', '--keys', '8'];

test('run on memory:snapshot: records every txn, checks SI, exit 0', async () => {
  const out = join(DIR, 'snap.jsonl');
  const r = await run('run', '--db', 'memory:snapshot', ...SMALL, '--out', out);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /SI: VALID/);
  assert.match(r.err, /80 transactions in .* committed, \d+ aborted, 0 unknown/);
  const h = parseJsonl(readFileSync(out, 'utf8'), out);
  assert.equal(h.txnCount, 80);
  assert.equal(h.sessionCount, 4);
});

test('run on memory:serializable checks SER by default; --check si overrides', async () => {
  const out = join(DIR, 'ser.jsonl');
  const r = await run('run', '--db', 'memory:serializable', ...SMALL, '--out', out);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /SER: VALID/);
  const j = JSON.parse((await run('run', '--db', 'memory', '--isolation', 'serializable', ...SMALL, '--out', out, '--force', '--check', 'si', '--json')).out);
  assert.equal(j.level, 'si');
  assert.equal(j.run.target, 'memory:serializable');
  assert.equal(j.run.committed + j.run.aborted + j.run.unknown, 80);
  assert.ok(j.run.throughput > 0);
});

test('run on memory:lost-update: violation (exit 1), explained as check does', async () => {
  const out = join(DIR, 'lost.jsonl');
  // --max-anomalies: without it both explain the first anomaly plus what fits a time budget,
  // which need not be the same count in two runs.
  const r = await run('run', '--db', 'memory:lost-update', ...SMALL, '--keys', '3', '--out', out, '--explain', '--max-anomalies', '10');
  assert.equal(r.code, 1, r.err);
  assert.match(r.out, /SI: VIOLATION/);
  // The store loses updates, but a counterexample is called a lost update only when every
  // alternative of its argument is one (docs/explain.md, "Names"); the others are G-singles.
  assert.match(r.out, /^ {2}(lost update|G-single)[ (]/m);
  // Same rendering as `polysi check` of the recorded file.
  const c = await run('check', out, '--explain', '--max-anomalies', '10');
  assert.equal(c.code, 1);
  assert.equal(c.out.replace(/time \(ms\).*\n/, ''), r.out.replace(/time \(ms\).*\n/, ''));
});

test('usage errors exit 2 with the reason; --help lists every memory mode', async () => {
  for (const [args, re] of [
    [['--workload', 'bank'], /--workload must be/],
    [['--db', 'memory:nope'], /unknown memory mode "nope"; modes: serializable/],
    [['--db', 'oracle://x'], /--db: expected memory/],
    [['--sessions', 'x'], /--sessions takes an integer/],
    [['--reads', '2'], /read fraction must be within/],
    [['--isolation', 'chaos'], /--isolation must be one of/],
  ] as [string[], RegExp][]) {
    const r = await run('run', ...args, '--out', join(DIR, 'never.jsonl'));
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.err, re);
  }
  assert.ok(!existsSync(join(DIR, 'never.jsonl')));
  const unwritable = await run('run', ...SMALL, '--out', join(DIR, 'no-such-dir', 'x.jsonl'));
  assert.equal(unwritable.code, 2);
  assert.match(unwritable.err, /no-such-dir\/x\.jsonl: cannot create the recording: no such file or directory/);
  assert.doesNotMatch(unwritable.err, /ENOENT/);
  const help = await run('run', '--help');
  assert.equal(help.code, 0);
  for (const m of MEMORY_MODES) assert.ok(help.out.includes(m.name), m.name);
});

function spawnPolysi(args: string[]) {
  return spawn(process.execPath, [join(ROOT, 'bin', 'polysi.mjs'), ...args], {
    env: { ...process.env, POLYSI_FROM_SOURCE: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function collect(child: ReturnType<typeof spawnPolysi>): Promise<{ code: number | null; out: string; err: string }> {
  let out = '', err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

test('unreachable database at start: exit 2, the URL named without its password, no file', async () => {
  const out = join(DIR, 'unreachable.jsonl');
  const r = await collect(spawnPolysi(['run', '--db', 'postgres://tester:s3cret@127.0.0.1:1/none', '--out', out]));
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /postgres/);
  assert.doesNotMatch(r.err, /s3cret/);
  assert.ok(!existsSync(out), 'no file left behind');
});

test('Ctrl-C (SIGINT) on a spawned run: stops cleanly, leaves a valid file, checks what was recorded', async () => {
  const out = join(DIR, 'sigint.jsonl');
  const child = spawnPolysi(['run', '--db', 'memory:snapshot', '--sessions', '4', '--txns', '1000000', '--ops', '4', '--keys', '1000', '--out', out]);
  const done = collect(child);
  // Wait until some transactions are on disk, then interrupt.
  for (let i = 0; i < 600 && !(existsSync(out) && statSync(out).size > 50_000); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(existsSync(out) && statSync(out).size > 50_000, 'the run started writing');
  child.kill('SIGINT');
  const r = await done;
  assert.match(r.err, /stopping/);
  assert.match(r.err, /not run \(interrupted\)/);
  // What ran is valid, but the run did not run what it planned: unknown (exit 3), said so.
  assert.match(r.err, /INCOMPLETE: interrupted, \d+ planned transactions were not run/);
  assert.equal(r.code, 3, r.err);
  assert.match(r.out, /SI: VALID/);
  const h = parseJsonl(readFileSync(out, 'utf8'), out);
  assert.ok(h.txnCount > 0 && h.txnCount < 4_000_000, `${h.txnCount} txns recorded`);
});

test('npm start (scripts/demo.mjs): the snapshot store is valid, the faulty one shows an explained violation', () => {
  // The demo keeps its two histories for the user in a directory under $TMPDIR: a scratch one here.
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'demo.mjs')], { env: { ...process.env, POLYSI_FROM_SOURCE: '1', TMPDIR: scratchDir('polysi-demo-test-') }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /SI: VALID/);
  assert.match(r.stdout, /SI: VIOLATION/);
  assert.match(r.stdout, /session guarantee violation/);
  assert.match(r.stdout, /Argument:/);
});
