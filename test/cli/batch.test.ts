/**
 * `polysi check PATH PATH...` and `polysi check DIR`: every history gets one line (JSON Lines with
 * --json, the same object as `check --json` on that file alone), directories are walked, a Cobra
 * log directory is one history, files that are not histories are listed as skipped, and the exit
 * code is the worst outcome (internal 4 > invalid 2 > violation 1 > unknown 3 > valid 0).
 * Runs `main` in-process; the histories are checked on real worker threads.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { join } from 'node:path';
import { main } from '../../src/cli/main.ts';
import { SEVERITY, summaryTable, worstExit } from '../../src/cli/batch.ts';
import type { Outcome, OutcomeStatus } from '../../src/cli/check-one.ts';
import { SCHEMA_VERSION } from '../../src/render/json.ts';
import { DATA_DIR, needsData } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const LONG_FORK = join(ROOT, 'examples/long-fork.txt');
const BANK = join(ROOT, 'examples/bank-valid.jsonl');

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const code = await main(argv, { stdout: (s) => { out += s.endsWith('\n') ? s : `${s}\n`; }, stderr: (s) => { err += s.endsWith('\n') ? s : `${s}\n`; } });
  return { code, out, err };
}

/** A Cobra log directory with one session: txn 1 writes key 5. */
function cobraDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const rec = (tag: string, ...xs: bigint[]) => {
    const b = Buffer.alloc(1 + 8 * xs.length);
    b.write(tag, 0, 'latin1');
    xs.forEach((x, i) => b.writeBigInt64BE(x, 1 + 8 * i));
    return b;
  };
  writeFileSync(join(dir, 'T1.log'), Buffer.concat([rec('S', 1n), rec('W', 1n, 5n, 7n), rec('C', 1n)]));
}

/** A tree: two histories at the top, one in a subdirectory, a Cobra directory, a README, a hidden file. */
function corpus(): string {
  const dir = scratchDir('polysi-batch-');
  copyFileSync(LONG_FORK, join(dir, 'a-long-fork.txt'));
  copyFileSync(BANK, join(dir, 'b-bank.jsonl'));
  mkdirSync(join(dir, 'sub'));
  copyFileSync(BANK, join(dir, 'sub', 'c-bank.jsonl'));
  cobraDir(join(dir, 'sub', 'cobra-run'));
  writeFileSync(join(dir, 'README.md'), '# not a history\n');
  writeFileSync(join(dir, '.hidden'), 'x');
  return dir;
}

test('a directory: one line per history, Cobra logs as one history, non-histories skipped, a summary, the worst exit code', async () => {
  const dir = corpus();
  const r = await run('check', dir, '--jobs', '2');
  assert.equal(r.code, 1, r.out + r.err);
  const lines = r.out.split('\n');
  const first = lines.findIndex((l) => l.startsWith('summary:'));
  const perHistory = lines.slice(0, first).sort();
  assert.deepEqual(perHistory.map((l) => l.split(/\s+/)[0] + ' ' + l.split(/\s+/)[1]!.replace(/:$/, '')), [
    `VIOLATION ${join(dir, 'a-long-fork.txt')}`,
    `skipped ${join(dir, '.hidden')}`,
    `skipped ${join(dir, 'README.md')}`,
    `valid ${join(dir, 'b-bank.jsonl')}`,
    `valid ${join(dir, 'sub', 'c-bank.jsonl')}`,
    `valid ${join(dir, 'sub', 'cobra-run')}`,
  ].sort());
  assert.match(r.out, /VIOLATION {2}\S+a-long-fork\.txt \(text, 6 transactions, \d+ ms\): G-nonadjacent \(long fork\) \(more not searched for: --max-anomalies N\)\n/);
  assert.match(r.out, /valid {6}\S+cobra-run \(cobra, 1 transactions/);
  assert.match(r.out, /summary: 4 histories checked in [\d.]+ s on 2 worker threads\n {2}valid +3\n {2}violation +1\n {2}unknown +0\n {2}invalid input +0\n {2}internal error +0\n {2}skipped +2\nexit code 1 \(the worst outcome: violation\)/);
});

test('--json: one JSON line per history, the same object as check --json on that file alone', async () => {
  const dir = corpus();
  // --max-anomalies: the full search, so that how many anomalies are shown does not depend on
  // how fast each run was (the default budget for more than the first is wall-clock).
  const r = await run('check', dir, join(dir, 'missing.txt'), '--json', '--jobs', '2', '--max-anomalies', '10');
  assert.equal(r.code, 2, 'a missing file is invalid input, worse than a violation');
  const objs = r.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(objs.length, 7);
  // Every line follows one of the two schemas: a result, or an outcome without one.
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  const result = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schema', 'check-result.schema.json'), 'utf8')) as object);
  const outcome = ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schema', 'check-outcome.schema.json'), 'utf8')) as object);
  for (const o of objs) assert.ok('verdict' in o ? result(o) : outcome(o), `${JSON.stringify(o).slice(0, 200)}: ${ajv.errorsText(result.errors ?? outcome.errors)}`);
  assert.equal(objs.filter((o) => 'outcome' in o).length, 3);
  const byFile = new Map(objs.map((o) => [o['file'] as string, o]));
  for (const f of [join(dir, 'a-long-fork.txt'), join(dir, 'b-bank.jsonl'), join(dir, 'sub', 'cobra-run')]) {
    const single = JSON.parse((await run('check', f, '--json', '--max-anomalies', '10')).out) as Record<string, unknown>;
    const batch = byFile.get(f)!;
    // Times differ from run to run; everything else is the same.
    delete single['timesMs'];
    delete batch['timesMs'];
    assert.deepEqual(batch, single, f);
  }
  assert.deepEqual(byFile.get(join(dir, 'README.md')), { schemaVersion: SCHEMA_VERSION, file: join(dir, 'README.md'), outcome: 'skipped', message: 'not a history (its format could not be told)' });
  const missing = byFile.get(join(dir, 'missing.txt'))!;
  assert.equal(missing['outcome'], 'invalid');
  assert.match(missing['message'] as string, /missing\.txt: cannot open the input: no such file or directory/);
  // The summary is for people: on stderr, so stdout stays JSON Lines.
  assert.match(r.err, /summary: 5 histories checked/);
  assert.match(r.err, /exit code 2 \(the worst outcome: invalid input\)/);
});

test('with --format, files found in a directory that do not look like histories are still skipped', async () => {
  const dir = corpus();
  const r = await run('check', dir, '--format', 'jsonl', '--jobs', '2');
  assert.equal(r.code, 2, 'long-fork.txt read as JSON Lines is invalid input');
  assert.match(r.out, /skipped {4}\S+README\.md: not a history/);
  assert.match(r.out, /invalid {4}\S+a-long-fork\.txt/);
  assert.match(r.out, /valid {6}\S+b-bank\.jsonl/);
});

test('several files on the command line; a file named there is never skipped, even if its format cannot be told', async () => {
  const dir = scratchDir('polysi-batch-');
  const notes = join(dir, 'notes.md');
  writeFileSync(notes, 'not a history\n');
  const r = await run('check', BANK, notes, '--jobs', '1');
  assert.equal(r.code, 2);
  assert.match(r.out, new RegExp(`invalid {4}${notes.replace(/[.]/g, '\\.')}.*could not tell the format`));
  assert.match(r.out, /valid {6}\S+bank-valid\.jsonl/);
  assert.match(r.out, /on 1 worker thread\n/);
});

test('one path keeps the single report; a Cobra directory alone is one history, not a batch', async () => {
  const one = await run('check', BANK);
  assert.equal(one.code, 0);
  assert.match(one.out, /^\S+bank-valid\.jsonl \(jsonl\): /);
  assert.doesNotMatch(one.out, /summary:/);
  const dir = scratchDir('polysi-batch-');
  cobraDir(dir);
  const c = await run('check', dir);
  assert.equal(c.code, 0);
  assert.match(c.out, /\(cobra\): 1 sessions, 1 transactions/);
  assert.doesNotMatch(c.out, /summary:/);
});

test('an empty directory checks nothing and exits 2; --jobs and drawings are checked', async () => {
  const empty = scratchDir('polysi-batch-');
  const r = await run('check', empty);
  assert.equal(r.code, 2);
  assert.match(r.err, /no histories found/);
  const j = await run('check', BANK, LONG_FORK, '--jobs', '0');
  assert.equal(j.code, 2);
  assert.match(j.err, /--jobs takes a positive integer, got "0"/);
  const d = await run('check', BANK, LONG_FORK, '--svg', join(empty, 'x.svg'));
  assert.equal(d.code, 2);
  assert.match(d.err, /give a single history path/);
});

test('the exit code is the worst outcome: internal 4 > invalid 2 > violation 1 > unknown 3 > valid 0; skipped counts for nothing', () => {
  assert.deepEqual(SEVERITY, ['internal', 'invalid', 'violation', 'unknown', 'valid']);
  const cases: [OutcomeStatus[], number][] = [
    [['valid', 'valid'], 0],
    [['valid', 'unknown'], 3],
    [['unknown', 'violation', 'valid'], 1],
    [['violation', 'invalid'], 2],
    [['invalid', 'internal', 'violation'], 4],
    [['skipped', 'valid'], 0],
    [['skipped'], 2],
    [[], 2],
  ];
  for (const [statuses, code] of cases) assert.equal(worstExit(statuses), code, statuses.join(','));
  const o = (status: OutcomeStatus): Outcome => ({ path: 'p', status, exit: 0, line: '', ms: 0 });
  assert.match(summaryTable([o('valid'), o('unknown'), o('skipped')], 1.25, 2), /summary: 2 histories checked in 1\.3 s on 2 worker threads[\s\S]*exit code 3 \(the worst outcome: unknown\)/);
});

test('the built CLI (dist/batch-worker.mjs) checks a directory, with progress on stderr when forced', () => {
  // Spawns bin/polysi.mjs: the bundle's worker entry, not the sources' (`npm test` builds dist/).
  const dir = corpus();
  const env: NodeJS.ProcessEnv = { ...process.env, POLYSI_PROGRESS: '1' };
  delete env['POLYSI_FROM_SOURCE'];
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'polysi.mjs'), 'check', dir, '--jobs', '2'], { encoding: 'utf8', env, timeout: 60_000 });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /summary: 4 histories checked in [\d.]+ s on 2 worker threads/);
  const err = r.stderr.split('\n').map((l) => l.replace(/^polysi: \[\d+\.\d s\] /, ''));
  assert.equal(err[0], 'checking 5 paths on 2 worker threads');
  assert.ok(err.includes('5 of 5 done (1 with a violation)'), r.stderr);
});

test('a worker thread that dies costs only the histories it held (internal error, exit 4) and is replaced', async () => {
  const dir = scratchDir('polysi-batch-');
  for (let i = 0; i < 6; i++) copyFileSync(BANK, join(dir, `h${i}.jsonl`));
  copyFileSync(BANK, join(dir, 'crash.jsonl'));
  const saved = process.env['POLYSI_TEST_FAULT'];
  process.env['POLYSI_TEST_FAULT'] = 'worker-exit';
  try {
    const r = await run('check', dir, '--jobs', '1');
    assert.equal(r.code, 4, r.out + r.err);
    assert.match(r.out, /ERROR {6}\S+crash\.jsonl: internal error: the worker checking it died \(exit code 70\)/);
    // Everything else is still checked, on the thread started in its place.
    for (let i = 0; i < 6; i++) assert.match(r.out, new RegExp(`valid {6}\\S+h${i}\\.jsonl`));
    assert.match(r.out, /internal error +1\n/);
  } finally {
    if (saved === undefined) delete process.env['POLYSI_TEST_FAULT'];
    else process.env['POLYSI_TEST_FAULT'] = saved;
  }
});

test('with --max-anomalies the batch line says how many more were found', { skip: needsData() }, async () => {
  const yugabyte = join(DATA_DIR, 'polysi/violations/yugabyte-causality.txt');
  const r = await run('check', yugabyte, LONG_FORK, '--max-anomalies', '1', '--jobs', '2');
  assert.equal(r.code, 1);
  assert.match(r.out, /VIOLATION {2}\S+yugabyte-causality\.txt \(text, 20 transactions, \d+ ms\): G-single-process \(session guarantee violation\) \(4 more not shown\)\n/);
  const all = await run('check', yugabyte, LONG_FORK, '--max-anomalies', '10', '--jobs', '2');
  const line = all.out.split('\n').find((l) => l.includes('yugabyte-causality.txt'))!;
  assert.match(line, /\(text, 20 transactions, \d+ ms\): G-single-process/);
  assert.doesNotMatch(line, /more not shown|more not searched/, 'all five found: nothing left out');
});
