/**
 * Runs the checker on one recorded history in a fresh process, and describes the machine.
 *
 * Takes: a history path and a level. Gives: the child's measurement (check-one.ts) plus the
 * process's wall time from spawn to exit. `bundleChecker()` compiles check-one.ts with esbuild
 * once per run into node_modules/.cache (beside node_modules, so the bundle's external imports
 * resolve), always from the current sources.
 * Invariant: a child that fails (exit ≠ 0 or no JSON) is an error naming the file and stderr,
 * never a row of zeros.
 */

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface Measured {
  verdict: string;
  decidedBy: string;
  counts: { sessions: number; transactions: number; checkedTransactions: number; operations: number; keys: number };
  timesMs: Record<string, number>;
  constraints: { before: number; after: number; pruneRounds: number };
  solver: { variables: number; conflicts: number } | null;
  /** From reading the file to the verdict, inside the child. */
  wallMs: number;
  maxRssKb: number;
  /** User + system CPU time of the child, Node's start-up included. */
  cpuMs: number;
  /** Process start to exit, as seen by the parent (includes Node's start-up). */
  processMs: number;
}

export async function bundleChecker(): Promise<string> {
  const dir = join(ROOT, 'node_modules', '.cache', 'polysi-bench');
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `check-one-${process.pid}.mjs`);
  await build({
    absWorkingDir: ROOT, entryPoints: [join(import.meta.dirname, 'check-one.ts')], outfile: out,
    bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning',
  });
  return out;
}

export async function checkInChild(bundle: string, path: string, level: 'si' | 'ser'): Promise<Measured> {
  const t0 = performance.now();
  const m = await runChild<Omit<Measured, 'processMs'>>(bundle, [path, level], `checking ${path}`);
  return { ...m, processMs: performance.now() - t0 };
}

/** Peak RSS (KB) of a child that loads the checker and checks nothing: Node's own share of every peak. */
export async function baselineRssKb(bundle: string): Promise<number> {
  return (await runChild<{ maxRssKb: number }>(bundle, ['--baseline'], 'the baseline process')).maxRssKb;
}

function runChild<T>(bundle: string, args: string[], what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => { out += s; });
    child.stderr.setEncoding('utf8').on('data', (s: string) => { err += s; });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) { reject(new Error(`${what} failed (exit ${code}): ${err.trim()}`)); return; }
      try {
        resolve(JSON.parse(out) as T);
      } catch {
        reject(new Error(`${what} printed no JSON: ${out.slice(0, 200)} ${err.trim()}`));
      }
    });
  });
}

export interface Machine {
  date: string;
  cores: number;
  cpuModel: string;
  memoryGb: number;
  loadAverage: number[];
  node: string;
  platform: string;
  commit: string;
  /** True when the worktree had uncommitted changes: the commit alone does not say what ran. */
  dirty: boolean;
}

export function describeMachine(): Machine {
  const git = (...args: string[]): string => {
    try { return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { return ''; }
  };
  const c = cpus();
  return {
    date: new Date().toISOString(),
    cores: c.length,
    cpuModel: c[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    commit: git('rev-parse', 'HEAD') || 'unknown',
    dirty: git('status', '--porcelain') !== '',
  };
}
