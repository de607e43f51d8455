/**
 * The child process that checks one benchmark history, so that each check's peak memory is its
 * own: reads the file with the library, checks it (no explanation: the paper times the verdict),
 * and prints one JSON object on stdout.
 *
 * Takes: argv [path, level], or [--baseline] (prints only maxRssKb, nothing checked). Gives: { verdict, decidedBy, counts, timesMs, constraints, solver,
 * wallMs, maxRssKb, cpuMs } where wallMs runs from before reading to after checking, maxRssKb is
 * the process's peak resident set and cpuMs its user + system CPU time, start-up included
 * (process.resourceUsage): on a shared machine CPU time says more than wall time. Exit 0 whatever the verdict; non-zero
 * only when the check itself failed (bad input, internal error).
 * The parent bundles this file with esbuild (harness.ts), so it starts in a tenth of a second
 * instead of paying tsx's compilation on every point.
 */

import { checkHistory, type Level } from '../../src/check/index.ts';
import { readHistory } from '../../src/formats/index.ts';

const [path, level] = process.argv.slice(2);
if (path === '--baseline') {
  // Node with the checker loaded and nothing checked: the floor under every peak RSS.
  process.stdout.write(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS }) + '\n');
  process.exit(0);
}
if (path === undefined || (level !== 'si' && level !== 'ser')) {
  process.stderr.write('usage: check-one PATH si|ser\n');
  process.exit(2);
}
const t0 = performance.now();
const { history } = await readHistory(path, 'jsonl');
const parseMs = performance.now() - t0;
const r = checkHistory(history, { level: level as Level, pruning: true, explain: false }, parseMs);
const wallMs = performance.now() - t0;
const usage = process.resourceUsage();
process.stdout.write(JSON.stringify({
  verdict: r.verdict, decidedBy: r.decidedBy, counts: r.counts, timesMs: r.timesMs,
  constraints: r.constraints, solver: r.solver, wallMs, maxRssKb: usage.maxRSS,
  cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
}) + '\n');
