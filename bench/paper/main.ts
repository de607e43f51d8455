/**
 * `npm run bench -- paper [--quick | --smoke] [--reps N] [--out DIR] [--seed N] [--distribution D]`: the PolySI
 * paper's experiments (suite.ts) from the command line.
 *
 * Takes: arguments after `paper`. Gives: the output folder (default bench/results/latest-MODE,
 * ignored by git) and its file names on stdout; exit 2 on a usage error.
 * Histories come from the embedded store in snapshot mode, or from the database named by
 * POLYSI_PG_URL (PostgreSQL at REPEATABLE READ) when it is set.
 */

import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Mode } from './configs.ts';
import { ROOT } from './harness.ts';
import { runPaperSuite } from './suite.ts';
import { TargetSpecError } from '../../src/run/targets.ts';

export const PAPER_USAGE = 'usage: npm run bench -- paper [--quick | --smoke] [--reps N] [--out DIR] [--seed N] [--distribution D]\n' +
  '  full (default): the paper\'s sizes, 3 repetitions; --quick: about a minute, 1 repetition; --smoke: the smallest points\n' +
  '  --distribution uniform|zipfian|hotspot: the base points\' key distribution (default zipfian, as in the paper)';

export async function paperMain(args: string[]): Promise<number> {
  let v;
  try {
    v = parseArgs({
      args, allowPositionals: false, options: {
        quick: { type: 'boolean', default: false }, smoke: { type: 'boolean', default: false },
        reps: { type: 'string' }, distribution: { type: 'string' }, out: { type: 'string' }, seed: { type: 'string', default: '1' },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (err) {
    process.stderr.write(`bench paper: ${(err as Error).message}\n${PAPER_USAGE}\n`);
    return 2;
  }
  if (v.help) { process.stdout.write(PAPER_USAGE + '\n'); return 0; }
  const mode: Mode = v.smoke ? 'smoke' : v.quick ? 'quick' : 'full';
  const reps = Number(v.reps ?? (mode === 'full' ? 3 : 1));
  const seed = Number(v.seed);
  if (!Number.isInteger(reps) || reps < 1 || !Number.isInteger(seed) || seed < 0) {
    process.stderr.write(`bench paper: --reps takes a positive integer and --seed an integer ≥ 0\n${PAPER_USAGE}\n`);
    return 2;
  }
  const distribution = v.distribution;
  if (distribution !== undefined && distribution !== 'uniform' && distribution !== 'zipfian' && distribution !== 'hotspot') {
    process.stderr.write(`bench paper: --distribution takes uniform, zipfian or hotspot, got "${distribution}"\n${PAPER_USAGE}\n`);
    return 2;
  }
  const outDir = v.out ?? join(ROOT, 'bench', 'results', `latest-${mode}`);
  const target = process.env['POLYSI_PG_URL'] || 'memory:snapshot';
  const t0 = performance.now();
  let files: string[];
  try {
    ({ files } = await runPaperSuite({ mode, outDir, reps, target, seed, ...(distribution === undefined ? {} : { distribution }), log: (s) => process.stderr.write(s + '\n') }));
  } catch (err) {
    // A bad or unsupported POLYSI_PG_URL is the user's to fix, not a crash.
    if (!(err instanceof TargetSpecError)) throw err;
    process.stderr.write(`bench paper: POLYSI_PG_URL: ${err.message}\n`);
    return 2;
  }
  process.stdout.write(`bench paper (${mode}): ${((performance.now() - t0) / 1000).toFixed(1)} s; wrote\n${files.map((f) => `  ${f}`).join('\n')}\n`);
  return 0;
}
