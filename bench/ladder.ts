/**
 * `polysi check --levels` on the fig8 histories of ../shared/data (25 sessions x 400 txns x 8
 * ops, PostgreSQL REPEATABLE READ): each file in a fresh `polysi` process, as a user runs it.
 * Issue 9's budget: the three files under 5 s in total (wall time, startup and parsing
 * included). Prints one line per file (wall time, the levels checked in order with their
 * times, the strongest levels satisfied) and the total; exits 1 when the total is over budget.
 *
 * Usage: npm run bench:ladder [-- FILE ...]   (default: the fig8 histories)
 *        npm run bench:ladder -- --table [SECONDS]   every shared history: a Markdown table of
 *                                              which levels each satisfies and violates (the README's);
 *                                              SECONDS bounds each history's ladder (--timeout)
 */

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { DATA_DIR } from '../test/support/requirements.ts';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'polysi.mjs');
const BUDGET_MS = 5000;

interface Row { level: string; status: string; basis: string; result: { timesMs: Record<string, number> } | null }

function fig8(): string[] {
  const dir = join(DATA_DIR, 'polysi/valid/fig8');
  return readdirSync(dir).filter((f) => f.endsWith('.bincode')).sort().map((f) => join(dir, f));
}

/** Every history under DATA_DIR (a directory of Cobra logs is one history), in path order. */
function allHistories(d = DATA_DIR): string[] {
  const out: string[] = [];
  for (const n of readdirSync(d).sort()) {
    const p = join(d, n);
    if (statSync(p).isDirectory()) {
      if (readdirSync(p).some((x) => x.endsWith('.log'))) out.push(p); else out.push(...allHistories(p));
    } else if (!n.endsWith('.md')) out.push(p);
  }
  return out;
}

interface Table { levels: (Row & { counterexample: { level: string; name: string } | null })[]; checked: string[]; strongest: string[]; timesMs: { total: number } }

/** One Markdown row: the history, the strongest levels satisfied, and each violated level checked with its counterexample. */
function tableRow(file: string, timeout: string[]): string {
  const r = spawnSync(process.execPath, [BIN, 'check', file, '--levels', '--json', ...timeout], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0 && r.status !== 3) return `| ${relative(DATA_DIR, file)} | exit ${r.status}: ${r.stderr.split('\n')[0]} | | |`;
  const j = JSON.parse(r.stdout) as Table;
  const violated = j.levels.filter((row) => row.status === 'violated' && row.basis === 'checked')
    .map((row) => `${row.level}: ${row.counterexample!.name}`);
  const unknown = j.levels.filter((row) => row.status === 'unknown').map((row) => row.level);
  return `| ${relative(DATA_DIR, file)} | ${j.strongest.join(', ') || 'none'} | ${violated.join('; ') || '-'}${unknown.length > 0 ? ` (unknown: ${unknown.join(', ')})` : ''} | ${(j.timesMs.total / 1000).toFixed(1)} s |`;
}

if (process.argv[2] === '--table') {
  console.log('| history | strongest satisfied | violated (own counterexample) | time |');
  console.log('| --- | --- | --- | --- |');
  const timeout = process.argv[3] === undefined ? [] : ['--timeout', process.argv[3]];
  for (const f of allHistories()) console.log(tableRow(f, timeout));
  process.exit(0);
}

const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : fig8();
// /usr/bin/time gives the child's CPU time (user + sys): on a machine shared with other jobs the
// wall time measures the load as much as the checker, the CPU time does not.
const useTime = existsSync('/usr/bin/time');
let totalMs = 0, totalCpuMs = 0;
for (const file of files) {
  const t0 = performance.now();
  const args = [BIN, 'check', file, '--levels', '--json'];
  const r = useTime
    ? spawnSync('/usr/bin/time', ['-f', '__CPU_S=%U %S', process.execPath, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 })
    : spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wallMs = performance.now() - t0;
  totalMs += wallMs;
  const cpu = /__CPU_S=([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
  const cpuMs = cpu === null ? Number.NaN : (Number(cpu[1]) + Number(cpu[2])) * 1000;
  totalCpuMs += cpuMs;
  if (r.status !== 0) throw new Error(`polysi check ${file} --levels exited ${r.status}: ${r.stderr}`);
  const j = JSON.parse(r.stdout) as { levels: Row[]; checked: string[]; strongest: string[]; timesMs: { parse: number; total: number } };
  const byLevel = new Map(j.levels.map((row) => [row.level, row]));
  const checked = j.checked.map((l) => {
    const t = byLevel.get(l)!.result!.timesMs;
    const ms = Object.entries(t).filter(([k]) => k !== 'parse').reduce((s, [, v]) => s + v, 0);
    return `${l} ${byLevel.get(l)!.status} ${ms.toFixed(0)} ms`;
  });
  const implied = j.levels.filter((row) => row.basis === 'implied').length;
  console.log(`${file.split('/').pop()}: wall ${wallMs.toFixed(0)} ms, cpu ${cpuMs.toFixed(0)} ms (parse ${j.timesMs.parse.toFixed(0)}); checked: ${checked.join(', ')}; ` +
    `${implied} implied; strongest: ${j.strongest.join(', ') || 'none'}`);
}
const over = totalMs > BUDGET_MS;
console.log(`total ${totalMs.toFixed(0)} ms wall, ${totalCpuMs.toFixed(0)} ms cpu, for ${files.length} histories (budget ${BUDGET_MS} ms wall): ${over ? 'OVER' : 'ok'}` +
  ` (load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`);
process.exitCode = over ? 1 : 0;
