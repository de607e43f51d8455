/**
 * `npm run bench`: the entry point of the benchmarks.
 *
 *   npm run bench -- paper [--quick | --smoke] [...]   the PolySI paper's experiments on generated
 *                                                       histories (bench/paper/, docs/performance.md)
 *   npm run bench -- real [SUITE ...] [--json]          the real histories of ../shared/data (bench/real.ts)
 *
 * Without `paper` or `real` the arguments go to the real-data mode, as they did before the paper
 * suite existed (`npm run bench -- fig8`).
 */

import { paperMain } from './paper/main.ts';
import { realMain } from './real.ts';

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'paper') process.exitCode = await paperMain(rest);
else if (mode === 'real') realMain(rest);
else realMain(process.argv.slice(2));
