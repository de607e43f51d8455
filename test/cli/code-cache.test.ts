/**
 * The CLI run from V8's code cache (bin/code-cache.cjs, made by scripts/build.mjs): it must be
 * the same program as dist/polysi.mjs (output, exit codes, standard input, worker threads,
 * internal errors), be refused when stale, foreign or damaged, and then fall back to
 * dist/polysi.mjs. Spawns bin/polysi.cjs (the package's "bin") and bin/polysi.mjs (its former
 * path) over the dist/ that `npm test` builds.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { needs } from '../support/requirements.ts';
import { scratchDir } from '../support/scratch.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const VIOLATION = join(ROOT, 'scripts', 'warm', 'violation.jsonl');
const VALID = join(ROOT, 'scripts', 'warm', 'valid.jsonl');
const LONG_FORK = join(ROOT, 'examples', 'long-fork.txt');
const CJS = join(ROOT, 'dist', 'polysi.cjs');
const built = (): string | false => needs(existsSync(CJS) && existsSync(join(ROOT, 'dist', 'polysi.mjs')), `no bundled CLI at ${CJS} (run node scripts/build.mjs)`);

interface Loader {
  loadCached(bundle?: string): { exports: { main: unknown }; used: boolean } | null;
  lazyTierUp(): void;
  BUNDLE: string;
}
const loader = async (root = ROOT): Promise<Loader> => (await import(join(root, 'bin', 'code-cache.cjs') as string)) as Loader;

function polysi(args: string[], opts: { root?: string; noCache?: boolean; input?: string; env?: NodeJS.ProcessEnv; bin?: string } = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, POLYSI_PROGRESS: '0', ...opts.env };
  delete env['POLYSI_FROM_SOURCE'];
  if (opts.noCache === true) env['POLYSI_NO_CODE_CACHE'] = '1';
  else delete env['POLYSI_NO_CODE_CACHE'];
  const r = spawnSync(process.execPath, [join(opts.root ?? ROOT, 'bin', opts.bin ?? 'polysi.cjs'), ...args], {
    encoding: 'utf8', env, timeout: 60_000, ...(opts.input === undefined ? {} : { input: opts.input }),
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Output without what varies from run to run: stage times, and the number of anomalies found within the time budget. */
function stable(s: string): string {
  return s.split('\n').filter((l) => !/^time \(ms\)|^\s*$/.test(l) && !/ms\)/.test(l)).join('\n').slice(0, 300);
}

test('the build leaves a code cache that V8 accepts, with the bytecode of a check in it', { skip: built() }, async () => {
  const { loadCached, lazyTierUp, BUNDLE } = await loader();
  // As bin/polysi.cjs does before loading: V8 takes a cache only under the flags it was made with.
  lazyTierUp();
  const got = loadCached();
  assert.ok(got !== null, `no usable code cache beside ${BUNDLE}: is dist/ built?`);
  assert.equal(got.used, true, 'V8 refused the code cache made by the build');
  assert.equal(typeof got.exports.main, 'function');
  // Made after running checks, the cache is far larger than that of the top level alone.
  assert.ok(readFileSync(`${BUNDLE}.cache`).length > 250_000);
});

test('polysi from the code cache prints and exits as polysi from dist/polysi.mjs', { skip: built() }, () => {
  // (--max-anomalies: how many anomalies are found within the default time budget varies.)
  const checks = [['check', VIOLATION], ['check', VALID], ['check', LONG_FORK, '--explain'], ['check', VALID, '--level', 'ser']].map((a) => [...a, '--max-anomalies', '5']);
  for (const args of [...checks, ['--version'], ['check', '--help'], ['stat', VALID], ['check', join(ROOT, 'no-such-file.jsonl')]]) {
    const a = polysi(args), b = polysi(args, { noCache: true });
    assert.equal(a.code, b.code, args.join(' '));
    assert.equal(stable(a.out), stable(b.out), args.join(' '));
    assert.equal(a.err, b.err, args.join(' '));
  }
  // The packages loaded on demand: Graphviz (--svg) and the workload runner on the embedded store.
  const dir = scratchDir('polysi-cc-');
  try {
    const svg = (name: string) => join(dir, `${name}.svg`);
    const a = polysi(['check', LONG_FORK, '--svg', svg('a')]), b = polysi(['check', LONG_FORK, '--svg', svg('b')], { noCache: true });
    assert.deepEqual([a.code, a.err], [1, ''], a.err);
    assert.deepEqual([b.code, b.err], [1, ''], b.err);
    assert.match(readFileSync(svg('a'), 'utf8'), /^<svg /);
    assert.equal(readFileSync(svg('a'), 'utf8'), readFileSync(svg('b'), 'utf8'));
    const run = polysi(['run', '--sessions', '2', '--txns', '3', '--out', join(dir, 'run.jsonl')]);
    assert.equal(run.code, 0, run.err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The former entry point is the same program.
  const old = polysi(checks[0]!, { bin: 'polysi.mjs' }), now = polysi(checks[0]!);
  assert.deepEqual([old.code, stable(old.out), old.err], [now.code, stable(now.out), now.err]);
  const json = polysi(['check', VIOLATION, '--json']);
  assert.equal(json.code, 1);
  const j = JSON.parse(json.out) as { verdict: string; file: string; format: string };
  assert.deepEqual([j.verdict, j.file, j.format], ['violation', VIOLATION, 'jsonl']);
  // Standard input.
  const stdin = polysi(['check', '-'], { input: readFileSync(LONG_FORK, 'utf8') });
  assert.equal(stdin.code, 1, stdin.err);
  assert.match(stdin.out, /SI: VIOLATION/);
  // analyze reads its program from standard input too, named <stdin> in the output and errors.
  const program = polysi(['analyze', '-', '--model', 'ec', '--bound', '2'], { input: readFileSync(join(ROOT, 'examples', 'anode', 'withdraw.anode'), 'utf8') });
  assert.equal(program.code, 1, program.err);
  assert.match(program.out, /^<stdin>: model ec, bound 2\nANOMALY \(lost update/);
  const bad = polysi(['analyze', '-', '--model', 'ec'], { input: 'TABLE A (x KEY);\nTRANSACTION t( {' });
  assert.equal(bad.code, 2);
  assert.match(bad.err, /<stdin> line 2: column 16: expected a parameter name/);
});

test('polysi from the code cache runs a batch on worker threads, and names dist/polysi.cjs in a --debug stack', { skip: built() }, () => {
  const dir = scratchDir('polysi-cc-');
  try {
    copyFileSync(VIOLATION, join(dir, 'a.jsonl'));
    copyFileSync(VALID, join(dir, 'b.jsonl'));
    const r = polysi(['check', dir, '--jobs', '2']);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /summary: 2 histories checked in [\d.]+ s on 2 worker threads/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // Which program ran shows in the stack of an internal error.
  const cached = polysi(['check', VALID, '--debug'], { env: { POLYSI_TEST_FAULT: 'internal' } });
  assert.equal(cached.code, 4);
  assert.match(cached.err, /dist[\\/]polysi\.cjs:/);
  const plain = polysi(['check', VALID, '--debug'], { noCache: true, env: { POLYSI_TEST_FAULT: 'internal' } });
  assert.equal(plain.code, 4);
  assert.doesNotMatch(plain.err, /dist[\\/]polysi\.cjs/);
  assert.match(plain.err, /dist[\\/]polysi\.mjs:/);
});

test('a stale, foreign, damaged or missing code cache is not used: polysi falls back to dist/polysi.mjs', { skip: built() }, async () => {
  // A copy of the installed layout (bin/, dist/, package.json), whose cache the test spoils.
  const root = scratchDir('polysi-cc-');
  try {
    for (const f of ['bin', 'dist']) cpSync(join(ROOT, f), join(root, f), { recursive: true });
    copyFileSync(join(ROOT, 'package.json'), join(root, 'package.json'));
    const { loadCached, BUNDLE } = await loader(root);
    assert.equal(BUNDLE, join(root, 'dist', 'polysi.cjs'));
    const cacheFile = `${BUNDLE}.cache`;
    const good = readFileSync(cacheFile);
    const nl = good.indexOf(10);
    const [magic, id, version, arch] = good.subarray(0, nl).toString('latin1').split(' ');
    assert.deepEqual([magic, version, arch], ['polysi-code-cache', process.version, process.arch]);
    const expect = polysi(['check', LONG_FORK, '--max-anomalies', '5'], { noCache: true });
    assert.equal(expect.code, 1);
    const spoil = (header: string, data: Uint8Array = good.subarray(nl + 1)) =>
      writeFileSync(cacheFile, Buffer.concat([Buffer.from(`${header}\n`, 'latin1'), data]));
    const cases: [string, () => void, boolean | null][] = [
      ['another bundle', () => spoil(`${magic} ${'0'.repeat(id!.length)} ${version} ${arch}`), null],
      ['another Node', () => spoil(`${magic} ${id} v0.0.1 ${arch}`), null],
      ['another architecture', () => spoil(`${magic} ${id} ${version} not-${arch}`), null],
      ['damaged bytes', () => spoil(`${magic} ${id} ${version} ${arch}`, Buffer.alloc(good.length - nl - 1, 7)), false],
      ['missing', () => rmSync(cacheFile), null],
    ];
    for (const [what, doSpoil, used] of cases) {
      doSpoil();
      const got = loadCached();
      assert.equal(got === null ? null : got.used, used, what);
      const r = polysi(['check', LONG_FORK, '--max-anomalies', '5'], { root });
      assert.equal(r.code, 1, `${what}: ${r.err}`);
      assert.equal(stable(r.out), stable(expect.out), what);
      writeFileSync(cacheFile, good);
    }
    // A bundle changed after the build no longer matches its stamp's cache.
    const src = readFileSync(BUNDLE, 'utf8');
    writeFileSync(BUNDLE, src.replace(/^\/\/polysi-cli \S+/, '//polysi-cli edited'));
    assert.equal(loadCached(), null, 'edited bundle');
    // No bundle at all.
    mkdirSync(join(root, 'gone'));
    rmSync(BUNDLE);
    assert.equal(loadCached(), null, 'no bundle');
    assert.equal(polysi(['check', LONG_FORK], { root }).code, 1);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('polysi --version answers from package.json without loading the CLI, as the CLI itself would', { skip: built() }, async () => {
  const { runCli } = await import('../support/run-cli.ts');
  const inProcess = await runCli('--version');
  for (const args of [['--version'], ['-V'], ['version'], ['--debug', '--version']]) {
    const r = polysi(args);
    assert.deepEqual([r.code, r.out, r.err], [0, `${inProcess.out.trim()}\n`, ''], args.join(' '));
  }
  // `--` ends the options: what follows is no command of ours.
  assert.equal(polysi(['--', '--version']).code, 2);
});

test('lazy tier-up is kept only for a single check of a small file; every longer run restores V8\'s default', async () => {
  const { runCli } = await import('../support/run-cli.ts');
  const { SMALL_INPUT_BYTES } = await import('../../src/cli/tiering.ts');
  const hook = Symbol.for('polysi.eagerTierUp');
  const g = globalThis as Record<symbol, unknown>;
  const saved = g[hook];
  let calls = 0;
  g[hook] = () => { calls++; };
  const dir = scratchDir('polysi-tier-');
  try {
    const big = join(dir, 'big.jsonl');
    const text = readFileSync(VALID, 'utf8');
    const header = text.slice(0, text.indexOf('\n') + 1);
    // The same history padded with blank lines past the threshold (blank lines are allowed).
    writeFileSync(big, header + '\n'.repeat(SMALL_INPUT_BYTES) + text.slice(header.length));
    const cases: [string[], number, boolean][] = [
      [['check', VALID], 0, false],
      [['check', VIOLATION, '--json'], 1, false],
      [['check', big], 0, true],
      [['check', VALID, '--levels'], 0, true],
      [['check', VALID, VIOLATION], 1, true],
      [['check', dir], 0, true],
      [['stat', VALID], 0, true],
    ];
    for (const [args, code, restored] of cases) {
      calls = 0;
      const r = await runCli(...args);
      assert.equal(r.code, code, `${args.join(' ')}: ${r.err}`);
      assert.equal(calls > 0, restored, args.join(' '));
    }
  } finally {
    if (saved === undefined) delete g[hook]; else g[hook] = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});
