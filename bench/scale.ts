/**
 * Scaling benchmark: what a user gets from `polysi check FILE` on SI-valid histories of growing
 * size (simulated snapshot-isolation store, the same generator the tests use).
 *
 * Usage: npm run bench:scale [-- [--stages] [--keep DIR] TXNS ...]   (default 10000 50000 100000)
 * Each size: 25 sessions, 8 ops per txn, 50% reads, keys = txns (the fig8 shape). Per size:
 *  1. a child process generates the history and writes it as dbcop bincode into a temporary
 *     directory (or DIR with --keep, where an existing file of that size is reused);
 *  2. a fresh child runs the bundled CLI, `node bin/polysi.cjs check FILE --json`, under
 *     `/usr/bin/time`: wall, CPU and peak RSS are the user's, the generator's memory is not in
 *     them; parse and checking (validate + construct + prune + solve) are reported apart, from
 *     the JSON's timesMs. The CLI runs dist/: run `node scripts/build.mjs` after editing src/.
 *  3. with --stages, one more fresh child parses the file and checks it in-process (the sources,
 *     through tsx), printing after parsing and at each stage boundary the RSS, the peak RSS so
 *     far and the CPU time: where the peak is reached and what each stage costs.
 */

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

async function generate(txns: number, file: string): Promise<void> {
  const { mulberry32, simulatedSiHistory } = await import('../test/support/gen.ts');
  const { writeDbcopBincode } = await import('../src/formats/dbcop-bincode.ts');
  const sessions = 25;
  const t0 = performance.now();
  const h = simulatedSiHistory(mulberry32(txns), {
    sessions, txnsPerSession: Math.ceil(txns / sessions), keys: txns, opsPerTxnMin: 8, opsPerTxnMax: 8,
    pRead: 0.5, pVoluntaryAbort: 0, pUnknown: 0, bug: 'none',
  });
  const bytes = writeDbcopBincode(h);
  writeFileSync(file, bytes);
  console.log(`  generated ${h.txnCount} txns ${h.opCount} ops in ${(performance.now() - t0).toFixed(0)} ms: ` +
    `${(bytes.length / 2 ** 20).toFixed(1)} MB bincode (generator peak RSS ${mb(process.resourceUsage().maxRSS * 1024)})`);
}

/** In-process parse + check, sampling memory and CPU at each stage boundary. */
async function stages(file: string): Promise<void> {
  const { readHistory } = await import('../src/formats/index.ts');
  const { checkHistory } = await import('../src/check/index.ts');
  const cpu = (): number => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
  const marks: string[] = [];
  let lastCpu = cpu();
  let lastName = 'start';
  const mark = (name: string): void => {
    const now = cpu();
    marks.push(`${lastName} ${(now - lastCpu).toFixed(0)} ms CPU, then rss ${mb(process.memoryUsage().rss)} peak ${mb(process.resourceUsage().maxRSS * 1024)}`);
    lastCpu = now;
    lastName = name;
  };
  mark('parse');
  const { history } = await readHistory(file);
  mark('validate');
  const r = checkHistory(history, {
    level: 'si', pruning: true,
    onProgress: (p) => {
      if (p.stage === 'construct' && p.keysDone === undefined) mark('construct');
      else if (p.stage === 'prune' && p.round === 0) mark('prune');
      else if (p.stage === 'solve') mark('solve');
    },
  });
  mark('end');
  console.log(`  stages (in-process, ${r.verdict}): ${marks.slice(1).join('; ')}`);
}

function mb(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(2)} GB` : `${(bytes / 2 ** 20).toFixed(0)} MB`;
}

function run(args: string[]): boolean {
  const r = spawnSync(process.execPath, [...process.execArgv, SELF, ...args], { stdio: 'inherit', cwd: ROOT });
  if (r.status === 0) return true;
  console.log(`  failed: ${args.join(' ')} (exit ${r.status ?? r.signal})`);
  return false;
}

/** `polysi check FILE --json` in a fresh process under /usr/bin/time. */
function checkCli(file: string): void {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, join(ROOT, 'bin/polysi.cjs'), 'check', file, '--json'], {
    cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26,
  });
  const timeLine = r.stderr.trim().split('\n').at(-1) ?? '';
  const [wall, user, sys, maxKb] = timeLine.split(' ').map(Number);
  let out: { verdict?: string; timesMs?: Record<string, number>; constraints?: { before: number; after: number; pruneRounds: number } };
  try {
    out = JSON.parse(r.stdout) as typeof out;
  } catch {
    console.log(`  polysi check failed (exit ${r.status}): ${r.stderr.slice(0, 500)}`);
    return;
  }
  const t = out.timesMs ?? {};
  const f = (x: number | undefined): string => ((x ?? 0) / 1000).toFixed(1);
  const checking = (t.validate ?? 0) + (t.construct ?? 0) + (t.prune ?? 0) + (t.solve ?? 0);
  const c = out.constraints;
  console.log(`  polysi check: ${out.verdict}; ${wall!.toFixed(1)} s wall, ${(user! + sys!).toFixed(1)} s CPU, peak RSS ${mb(maxKb! * 1024)}; ` +
    `parse ${f(t.parse)} s, checking ${f(checking)} s (validate ${f(t.validate)}, construct ${f(t.construct)}, prune ${f(t.prune)}, solve ${f(t.solve)}); ` +
    `constraints ${c?.before} -> ${c?.after} (${c?.pruneRounds} rounds)`);
}

const argv = process.argv.slice(2);
if (argv[0] === '--child-gen') {
  await generate(Number(argv[1]), argv[2]!);
} else if (argv[0] === '--child-stages') {
  await stages(argv[1]!);
} else {
  const withStages = argv.includes('--stages');
  const keepAt = argv.indexOf('--keep');
  const keep = keepAt >= 0 ? argv[keepAt + 1]! : null;
  const sizes = argv.filter((a, i) => /^\d+$/.test(a) && i !== keepAt + 1).map(Number).filter((n) => n > 0);
  if (!existsSync(join(ROOT, 'dist/polysi.cjs'))) throw new Error('dist/ is missing: run node scripts/build.mjs first');
  // --keep DIR: made if missing (with its parents), so a first run with a new DIR works.
  if (keep !== null) mkdirSync(keep, { recursive: true });
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'polysi-scale-'));
  try {
    for (const txns of sizes.length > 0 ? sizes : [10_000, 50_000, 100_000]) {
      console.log(`${txns} txns:`);
      const file = join(dir, `scale-${txns}.bincode`);
      if (!(keep !== null && existsSync(file) && statSync(file).size > 0) && !run(['--child-gen', String(txns), file])) continue;
      checkCli(file);
      if (withStages) run(['--child-stages', file]);
      if (keep === null) rmSync(file, { force: true });
    }
  } finally {
    if (keep === null) rmSync(dir, { recursive: true, force: true });
  }
}
