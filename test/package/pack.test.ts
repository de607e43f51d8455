/**
 * The package as a user installs it: `npm pack` of a copy of the checkout (so the worktree's own
 * dist/ is never rebuilt under the other tests), installed into a scratch project, then
 *   - an ESM script that does `import { readHistory, checkHistory } from 'polysi'` and checks the
 *     shipped example, and gets TypeErrors for bad options; then every example of docs/api.md;
 *   - the installed `polysi` command (dist present, tsx absent) prints its version and checks;
 *   - tsc type-checks a consumer file against the shipped .d.ts, including lines that must NOT
 *     compile (`@ts-expect-error`), so types that degrade to `any` fail the test.
 * The package has no runtime dependencies: Graphviz, Z3 and the database drivers are optional peer
 * dependencies, not installed with it (a check needs none of them); the recording API
 * (`openHistory`) is exported from the root, and records a history that checks.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scratchDir } from '../support/scratch.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd: string, args: string[], cwd: string): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
  return r;
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

test('the packed tarball installs into a scratch project and works as a library, a command and a typed API', { timeout: 300_000 }, async (t) => {
  const tmp = scratchDir('polysi-pack-');
  t.after(() => rmSync(tmp, { recursive: true, force: true }));

  // 1. A copy of what `npm pack` needs, with the checkout's node_modules (esbuild, typescript)
  //    linked in; `npm pack` runs `prepare`, which builds dist/ (bundles and types) in the copy.
  const pkgDir = join(tmp, 'pkg');
  mkdirSync(pkgDir);
  for (const f of ['package.json', 'README.md', 'LICENSE', 'tsconfig.json', 'tsconfig.build.json', 'bin', 'src', 'scripts', 'schema', 'docs', 'examples']) {
    cpSync(join(ROOT, f), join(pkgDir, f), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(pkgDir, 'node_modules'), 'dir');
  const packed = JSON.parse(ok(run(NPM, ['pack', '--json', '--pack-destination', tmp], pkgDir), 'npm pack')) as { filename: string; files: { path: string }[] }[];
  const files = packed[0]!.files.map((f) => f.path);
  for (const f of ['LICENSE', 'package.json', 'bin/polysi.mjs', 'bin/polysi.cjs', 'bin/code-cache.cjs', 'dist/polysi.cjs', 'dist/polysi.cjs.cache', 'dist/index.mjs', 'dist/polysi.mjs', 'dist/types/index.d.ts', 'schema/check-result.schema.json', 'schema/stat-result.schema.json', 'examples/long-fork.txt']) {
    assert.ok(files.includes(f), `the tarball lacks ${f}`);
  }
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/')), 'the tarball ships sources or tests');
  const tarball = join(tmp, packed[0]!.filename);

  // 2. A scratch project that installs it (no tsx, no esbuild: they are dev dependencies).
  const app = join(tmp, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  ok(run(NPM, ['install', '--prefer-offline', '--no-save', tarball], app), 'npm install of the tarball');
  assert.ok(existsSync(join(app, 'node_modules', 'polysi', 'dist', 'index.mjs')));
  assert.ok(!existsSync(join(app, 'node_modules', 'tsx')), 'tsx was installed as a runtime dependency');
  assert.ok(!existsSync(join(app, 'node_modules', 'esbuild')), 'esbuild was installed as a runtime dependency');
  // No runtime dependencies: Graphviz as WebAssembly, the database clients (pg, mysql2, etcd3:
  // loaded only by `polysi run` against a database) and Z3 (loaded only by `polysi analyze`) are optional peers,
  // which npm does not install; nor any build or test tool.
  const deps = JSON.parse(readFileSync(join(app, 'node_modules', 'polysi', 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> };
  assert.deepEqual(Object.keys(deps.dependencies ?? {}), []);
  assert.deepEqual(Object.keys(deps.peerDependenciesMeta ?? {}).sort(), ['@viz-js/viz', 'etcd3', 'mysql2', 'pg', 'z3-solver']);
  for (const tool of ['typescript', 'playwright-core', 'ajv', '@viz-js/viz', 'pg', 'mysql2', 'etcd3', 'z3-solver']) {
    assert.ok(!existsSync(join(app, 'node_modules', tool)), `${tool} was installed as a runtime dependency`);
  }

  // 3. The library from plain JavaScript.
  writeFileSync(join(app, 'use.mjs'), `
import assert from 'node:assert/strict';
import { readHistory, checkHistory, resultJson, InputError, HistoryBuilder, SCHEMA_VERSION, renderExplanationText, checkLevels, levelsResultJson, implies, LEVEL_NAMES, IMPLEMENTED_LEVELS, parseLevelName, openHistory, renderSvg } from 'polysi';
const example = new URL('./node_modules/polysi/examples/long-fork.txt', import.meta.url).pathname;
const { history, format } = await readHistory(example);
assert.equal(format, 'text');
const r = checkHistory(history);
assert.equal(r.verdict, 'violation');
assert.equal(r.level, 'si');
assert.ok(r.anomalies[0].explanation, 'explained by default');
assert.match(renderExplanationText(r.anomalies[0].explanation), /long fork/);
assert.equal(resultJson(history, r).schemaVersion, SCHEMA_VERSION);
assert.equal(checkHistory(history, { level: 'ser', pruning: false }).verdict, 'violation');
assert.throws(() => checkHistory(history, { level: 'snapshot' }), TypeError);
const ladder = checkLevels(history);
assert.equal(ladder.rows.find((row) => row.level === 'si').status, 'violated');
assert.ok(implies('ser', 'si') && !implies('pc', 'psi') && LEVEL_NAMES.length === 17 && IMPLEMENTED_LEVELS.includes('si'));
assert.deepEqual(parseLevelName(':serializable'), { ok: true, level: 'pl-3' });
assert.equal(levelsResultJson(history, ladder).levels.length, 17);
assert.throws(() => checkHistory(history, { timeoutMs: -1 }), TypeError);
await assert.rejects(readHistory(example + '.missing'), InputError);
const b = new HistoryBuilder();
const t1 = b.beginTxn(b.session('a')); b.write(t1, 'x', 1);
const t2 = b.beginTxn(b.session('b')); b.read(t2, 'x', 1);
assert.equal(checkHistory(b.build(), { level: 'ser' }).verdict, 'valid');
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const schema = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('polysi/schema/check-result.schema.json'), 'utf8'));
assert.equal(schema.properties.schemaVersion.const, SCHEMA_VERSION);
const levelsSchema = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('polysi/schema/levels-result.schema.json'), 'utf8'));
assert.equal(levelsSchema.properties.schemaVersion.const, SCHEMA_VERSION);
// The recording API from the package root: a lost update recorded by hand is found.
const rec = openHistory('recorded.jsonl');
const ta = rec.session('alice').begin(), tb = rec.session('bob').begin();
ta.read('x', null); tb.read('x', null); ta.write('x', 1); tb.write('x', 2);
ta.commit(); tb.commit();
rec.close();
assert.equal(rec.count, 2);
const recorded = await readHistory('recorded.jsonl');
assert.equal(checkHistory(recorded.history).anomalies[0].explanation.class, 'lost update');
// Graphviz is not installed with the package: drawing SVG says what to install.
await assert.rejects(renderSvg(r.anomalies.map((x) => x.explanation)), (e) => e.message.endsWith('needs the npm package @viz-js/viz, which is not installed: run npm install @viz-js/viz'));
console.log('library ok');
`);
  assert.match(ok(run(process.execPath, ['use.mjs'], app), 'the ESM consumer'), /library ok/);

  // 3b. Every JavaScript example of docs/api.md, as a user would run it.
  const examples = [...readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.ok(examples.length >= 3, `found ${examples.length} examples in docs/api.md`);
  examples.forEach((code, i) => {
    writeFileSync(join(app, `doc-example-${i + 1}.mjs`), code);
    ok(run(process.execPath, [`doc-example-${i + 1}.mjs`], app), `docs/api.md example ${i + 1}`);
  });

  // 4. The command, from the installed package.
  const bin = join(app, 'node_modules', '.bin', 'polysi');
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  assert.equal(ok(run(bin, ['--version'], app), 'installed polysi --version').trim(), version);
  assert.equal(ok(run(process.execPath, [join(ROOT, 'bin', 'polysi.mjs'), '--version'], app), 'polysi --version in the checkout').trim(), version);
  const check = run(bin, ['check', 'node_modules/polysi/examples/long-fork.txt', '--json'], app);
  assert.equal(check.status, 1, check.stderr);
  assert.equal(JSON.parse(check.stdout).verdict, 'violation');
  // A command whose optional package is not installed: one line saying what to install.
  const analyze = run(bin, ['analyze', 'node_modules/polysi/examples/anode/withdraw.anode'], app);
  assert.equal(analyze.status, 2, analyze.stderr);
  assert.equal(analyze.stderr.trim(), 'polysi analyze: polysi analyze needs the npm package z3-solver, which is not installed: run npm install z3-solver');

  // 5. The shipped types: a consumer must compile, and misuse must not.
  writeFileSync(join(app, 'consumer.ts'), `
import { readHistory, checkHistory, checkLevels, openHistory, type RecordedHistory, type CheckResult, type CheckOptions, type Counterexample, type LevelName, type LevelsResult, InputError } from 'polysi';
const { history } = await readHistory('h.txt', 'auto');
const opts: CheckOptions = { level: 'ser', timeoutMs: 1000 };
const r: CheckResult = checkHistory(history, opts);
const v: 'valid' | 'violation' | 'unknown' = r.verdict;
const cx: Counterexample | undefined = r.anomalies[0]?.explanation;
export const out = [v, cx?.class, cx?.description, InputError.name];
// @ts-expect-error: not a level
checkHistory(history, { level: 'snapshot' });
const table: LevelsResult = checkLevels(history, { timeoutMs: 1000 });
export const strongest: LevelName[] = table.strongest;
// @ts-expect-error: verdicts are a closed set
export const bad: 'ok' = r.verdict;
const rec: RecordedHistory = openHistory('app.jsonl');
rec.session('w1').begin().read('x', 1).write('x', 2).commit();
// @ts-expect-error: a value is a string, a number or null
rec.session('w1').begin().write('x', { v: 1 });
`);
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: [], typeRoots: [join(ROOT, 'node_modules', '@types')] },
    files: ['consumer.ts'],
  }));
  ok(run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app), 'tsc on a consumer of the shipped types');
});
