/**
 * Throughput benchmark of `polysi run` against real databases (issue 8): the default workload
 * (PolySI's: 20 sessions x 100 txns x 15 ops, 50 % reads, 10,000 uniform keys) on PostgreSQL
 * and MariaDB at each isolation level, through the CLI exactly as a user runs it (one process per
 * run, `--check none`), so that the numbers include the driver, the runner and the recorder.
 *
 * Prints per run: transactions per second, the abort and unknown rates with the error codes,
 * the wall time of the run, and the time spent recording (encoding and writing the history)
 * with its share of the run: the database, not the recorder, should be the bottleneck.
 *
 * Usage: npm run bench:db [-- EXTRA polysi run FLAGS]   e.g. -- --workload list-append --txns 50
 * PostgreSQL and MariaDB are measured when POLYSI_PG_URL / POLYSI_MYSQL_URL are set
 * (eval "$(scripts/test-databases.sh start)"). The embedded store: `npm run bench:run`.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve(import.meta.dirname, '..', 'bin', 'polysi.mjs');
const extra = process.argv.slice(2);

interface Config { db: string; label: string; isolation: string }

// The embedded store's own throughput (tens of thousands of txn/s) needs longer runs than the
// default workload's 2,000 transactions: `npm run bench:run` measures it.
const configs: Config[] = [];
const LEVELS = ['read-committed', 'repeatable-read', 'serializable'];
const pg = process.env['POLYSI_PG_URL'];
const my = process.env['POLYSI_MYSQL_URL'];
if (pg !== undefined && pg !== '') for (const isolation of LEVELS) configs.push({ db: pg, label: 'postgres', isolation });
else console.log('(POLYSI_PG_URL not set: PostgreSQL skipped)');
if (my !== undefined && my !== '') for (const isolation of LEVELS) configs.push({ db: my, label: 'mariadb', isolation });
else console.log('(POLYSI_MYSQL_URL not set: MariaDB skipped)');

interface RunJson {
  committed: number; aborted: number; unknown: number; elapsedMs: number; throughput: number;
  recordingMs?: number; errors: Record<string, number>;
}

const dir = mkdtempSync(join(tmpdir(), 'polysi-bench-db-'));
console.log(`workload: polysi run defaults${extra.length > 0 ? ` + ${extra.join(' ')}` : ''}`);
console.log('target    isolation        txn/s   aborted  unknown  run s  recording ms (share)  errors');
try {
  for (const c of configs) {
    const out = join(dir, 'h.jsonl');
    const stdout = execFileSync(process.execPath, [CLI, 'run', '--db', c.db, '--isolation', c.isolation, '--check', 'none', '--json', '--out', out, ...extra],
      { encoding: 'utf8', maxBuffer: 1 << 26 });
    const run = (JSON.parse(stdout) as { run: RunJson }).run;
    const total = run.committed + run.aborted + run.unknown;
    const pct = (n: number) => `${((100 * n) / Math.max(1, total)).toFixed(1)} %`;
    const rec = run.recordingMs ?? NaN;
    const errs = Object.entries(run.errors).map(([k, n]) => `${k}:${n}`).join(' ');
    console.log(`${c.label.padEnd(9)} ${c.isolation.padEnd(16)} ${Math.round(run.throughput).toString().padStart(6)}  ` +
      `${pct(run.aborted).padStart(7)}  ${pct(run.unknown).padStart(7)}  ${(run.elapsedMs / 1000).toFixed(2).padStart(5)}  ` +
      `${rec.toFixed(0).padStart(6)} (${((100 * rec) / run.elapsedMs).toFixed(1)} %)`.padEnd(22) + `  ${errs}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
