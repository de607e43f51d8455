/**
 * End-to-end benchmark on the real histories of ../shared/data: each file is checked by the
 * `polysi` command in a fresh child process (so startup, parsing and peak memory count), and
 * the per-stage times come from its --json output.
 *
 * Usage: npm run bench -- real [SUITE ...] [--json]   SUITE: fig8 | fig7 | dgraph | cobra | all (default)
 * Output: one line per file and a summary per suite; `--json` prints the rows as JSON instead.
 * (bench/run.ts dispatches here; `npm run bench -- fig8` still works, as before the paper mode.)
 */

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_DIR } from '../test/support/requirements.ts';

const ROOT = join(import.meta.dirname, '..');
const DATA = DATA_DIR; // ../shared/data, or POLYSI_SHARED_DATA
const BIN = join(ROOT, 'bin', 'polysi.mjs');

interface Row {
  suite: string;
  file: string;
  verdict: string;
  wallMs: number;
  maxRssMb: number;
  timesMs: Record<string, number>;
  constraintsBefore: number;
  constraintsAfter: number;
}

function listFiles(dir: string, ext: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith(ext)).sort().map((f) => join(dir, f));
}

const SUITES: Record<string, () => { files: string[]; args: string[] }> = {
  fig8: () => ({ files: listFiles(join(DATA, 'polysi/valid/fig8'), '.bincode'), args: [] }),
  fig7: () => ({ files: listFiles(join(DATA, 'polysi/valid/fig7'), '.bincode'), args: [] }),
  dgraph: () => ({ files: [join(DATA, 'polysi/violations/dgraph-causality.bincode')], args: [] }),
  cobra: () => ({
    files: ['rubis-10000', 'tpcc-10000', 'twitter-10000'].map((d) => join(DATA, 'polysi/valid/cobra', d)),
    args: [],
  }),
};

function runOne(suite: string, file: string, args: string[]): Row {
  // /usr/bin/time reports the child's peak RSS; fall back to no memory figure if absent.
  const useTime = existsSync('/usr/bin/time');
  const cmd = useTime ? '/usr/bin/time' : process.execPath;
  const cmdArgs = useTime
    ? ['-f', '__MAXRSS_KB=%M', process.execPath, BIN, 'check', file, '--json', ...args]
    : [BIN, 'check', file, '--json', ...args];
  const t0 = performance.now();
  const r = spawnSync(cmd, cmdArgs, { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wallMs = performance.now() - t0;
  const rss = /__MAXRSS_KB=(\d+)/.exec(r.stderr ?? '');
  let out: { verdict?: string; timesMs?: Record<string, number>; constraints?: { before: number; after: number } } = {};
  try {
    out = JSON.parse(r.stdout);
  } catch {
    throw new Error(`polysi check ${file} printed no JSON (exit ${r.status}): ${r.stderr}`);
  }
  return {
    suite,
    file: file.slice(DATA.length + 1),
    verdict: out.verdict ?? '?',
    wallMs,
    maxRssMb: rss ? Number(rss[1]) / 1024 : Number.NaN,
    timesMs: out.timesMs ?? {},
    constraintsBefore: out.constraints?.before ?? 0,
    constraintsAfter: out.constraints?.after ?? 0,
  };
}

export function realMain(argv: string[]): void {
  const json = argv.includes('--json');
  let suites = argv.filter((a) => !a.startsWith('--'));
  if (suites.length === 0 || suites.includes('all')) suites = Object.keys(SUITES);
  const rows: Row[] = [];
  for (const s of suites) {
    const def = SUITES[s];
    if (def === undefined) throw new Error(`unknown suite "${s}"; expected one of ${Object.keys(SUITES).join(', ')}, all`);
    const { files, args } = def();
    let total = 0, peak = 0;
    for (const f of files) {
      const row = runOne(s, f, args);
      rows.push(row);
      total += row.wallMs;
      peak = Math.max(peak, row.maxRssMb);
      if (!json) {
        const t = row.timesMs;
        const stages = ['parse', 'validate', 'construct', 'prune', 'solve'].map((k) => `${k} ${(t[k] ?? 0).toFixed(0)}`).join(', ');
        console.log(`${s.padEnd(6)} ${row.file.padEnd(58)} ${row.verdict.padEnd(9)} ${(row.wallMs / 1000).toFixed(2)} s  ${row.maxRssMb.toFixed(0)} MB  constraints ${row.constraintsBefore} -> ${row.constraintsAfter}  (${stages} ms)`);
      }
    }
    if (!json) console.log(`${s}: ${files.length} files, ${(total / 1000).toFixed(2)} s total wall, peak ${peak.toFixed(0)} MB\n`);
  }
  if (json) console.log(JSON.stringify(rows, null, 2));
}

