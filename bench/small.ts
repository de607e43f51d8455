/**
 * Small-history latency and corpus throughput (issue 10, items 1 and 2): `npm run bench:small`.
 *
 * Inputs (bench/small-gen.ts, deterministic, cached in $POLYSI_BENCH_DIR or the temp dir): a
 * 360-transaction history with a violation (12 sessions, ~7,100 operations), a valid one of
 * the same shape, and a corpus of N such histories (default 3,302, every fourth with a bug).
 * Measures, each several times (the machine is shared: best and median are reported):
 *   node -e 0                         Node's own start-up;
 *   polysi --version                  start-up of the command (answered without loading the CLI);
 *   polysi check --help               start-up of the CLI bundle (no checker run);
 *   polysi check violation / valid    end to end, default text output, plus the stage times
 *                                     the check reports (parse .. explain) from --json; the
 *                                     violation also without the code cache (POLYSI_NO_CODE_CACHE=1:
 *                                     dist/polysi.mjs, as before the cache), to compare;
 *   polysi check SAMPLE               the first --sample histories of the corpus one by one, each
 *                                     in fresh processes: the median per verdict (one history is
 *                                     one draw; see below);
 *   polysi check CORPUS_DIR           the whole corpus in one command on every core.
 * `polysi` is the package's "bin" (bin/polysi.cjs), run as `node BIN ...`.
 * Usage: npm run bench:small [-- --runs 7] [-- --corpus 3302] [-- --corpus-runs 1] [-- --sample 40]
 */

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureSmallInputs } from './small-gen.ts';

const { values } = parseArgs({ options: {
  runs: { type: 'string', default: '7' }, corpus: { type: 'string', default: '3302' }, 'corpus-runs': { type: 'string', default: '1' },
  sample: { type: 'string', default: '40' },
} });
const runs = Number(values.runs), corpusSize = Number(values.corpus), corpusRuns = Number(values['corpus-runs']), sampleSize = Number(values.sample);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { bin: { polysi: string } };
const bin = fileURLToPath(new URL(`../${pkg.bin.polysi}`, import.meta.url));
const dir = process.env['POLYSI_BENCH_DIR'] ?? join(tmpdir(), 'polysi-bench-small');

const tg = performance.now();
const inputs = ensureSmallInputs(dir, corpusSize);
console.log(`node ${process.version}, ${availableParallelism()} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (a shared machine: wall times vary, cpu times less)`);
console.log(`inputs in ${dir} (${((performance.now() - tg) / 1000).toFixed(1)} s to make or find)`);

interface Run { ms: number; cpuMs: number | null; code: number | null; out: string }
// CPU time (user + sys) of the child, through GNU time when present: on a machine shared with
// other builds it varies far less than the wall clock, and says what an idle machine would see.
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
function run(args: string[], env: Record<string, string> = {}): Run {
  const t = performance.now();
  const [cmd, argv] = GNU_TIME === null ? [process.execPath, args] : [GNU_TIME, ['-f', 'cpu %U %S', process.execPath, ...args]];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, POLYSI_PROGRESS: '0', ...env } });
  const ms = performance.now() - t;
  const m = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr ?? '');
  return { ms, cpuMs: m === null ? null : (Number(m[1]) + Number(m[2])) * 1000, code: r.status, out: r.stdout };
}
function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const med = s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  return `best ${s[0]!.toFixed(0)} ms, median ${med.toFixed(0)} ms (${s.length} runs)`;
}
function measure(name: string, args: string[], expectCode: number, n = runs, env: Record<string, string> = {}): Run[] {
  const rs: Run[] = [];
  for (let i = 0; i < n; i++) {
    const r = run(args, env);
    if (r.code !== expectCode) throw new Error(`${name}: expected exit ${expectCode}, got ${r.code}\n${r.out.slice(0, 2000)}`);
    rs.push(r);
  }
  const cpu = rs.every((r) => r.cpuMs !== null) ? `; cpu ${stats(rs.map((r) => r.cpuMs!))}` : '';
  console.log(`${name.padEnd(44)} wall ${stats(rs.map((r) => r.ms))}${cpu}`);
  return rs;
}

measure('node -e 0', ['-e', '0'], 0);
measure('polysi --version (start-up)', [bin, '--version'], 0);
measure('polysi check --help (CLI loaded)', [bin, 'check', '--help'], 0);
for (const [name, path, code] of [['violation', inputs.violation, 1], ['valid', inputs.valid, 0]] as const) {
  measure(`polysi check ${name}.jsonl (end to end)`, [bin, 'check', path], code);
  if (name === 'violation') measure(`  the same without the code cache`, [bin, 'check', path], code, runs, { POLYSI_NO_CODE_CACHE: '1' });
  // The stages as the check itself times them (in the process, after start-up).
  const js = measure(`polysi check ${name}.jsonl --json`, [bin, 'check', path, '--json'], code).map((r) => JSON.parse(r.out) as {
    timesMs: Record<string, number>; anomalies: unknown[]; truncated: boolean;
  });
  const stage = (k: string) => stats(js.map((j) => j.timesMs[k] ?? 0));
  const check = stats(js.map((j) => ['validate', 'construct', 'prune', 'solve'].reduce((a, k) => a + (j.timesMs[k] ?? 0), 0)));
  console.log(`  parse: ${stage('parse')}\n  check (validate..solve): ${check}${name === 'violation' ? `\n  explain: ${stage('explain')}; anomalies shown ${js.map((j) => j.anomalies.length).join(',')}` : ''}`);
}
// One history is one draw: the valid.jsonl above happens to need no solver search, while most
// valid histories of that shape leave pruning with constraints whose phases close a cycle (the
// solver then backtracks). So the same comparison over a sample of the corpus, each history in a
// fresh process `runs` times (best of those per history), then the median over the histories of
// each verdict: what a user checking many such histories one by one sees.
const sampleFiles = readdirSync(inputs.corpus).filter((f) => f.endsWith('.jsonl')).sort().slice(0, sampleSize);
if (sampleFiles.length > 0) {
  interface Best { wall: number; check: number; explain: number; prune: number; solve: number }
  const byVerdict = new Map<string, Best[]>();
  for (const f of sampleFiles) {
    const path = join(inputs.corpus, f);
    const best: Best = { wall: Infinity, check: Infinity, explain: Infinity, prune: Infinity, solve: Infinity };
    let verdict = '';
    for (let i = 0; i < Math.max(1, Math.min(runs, 5)); i++) {
      best.wall = Math.min(best.wall, run([bin, 'check', path]).ms);
      const j = JSON.parse(run([bin, 'check', path, '--json']).out) as { verdict: string; timesMs: Record<string, number> };
      verdict = j.verdict;
      const t = (k: string) => j.timesMs[k] ?? 0;
      best.check = Math.min(best.check, t('validate') + t('construct') + t('prune') + t('solve'));
      best.explain = Math.min(best.explain, t('explain'));
      best.prune = Math.min(best.prune, t('prune'));
      best.solve = Math.min(best.solve, t('solve'));
    }
    byVerdict.set(verdict, [...(byVerdict.get(verdict) ?? []), best]);
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  console.log(`sample of ${sampleFiles.length} corpus histories, each best of ${Math.max(1, Math.min(runs, 5))} fresh processes, median over the histories of each verdict:`);
  for (const [verdict, bs] of [...byVerdict].sort()) {
    const m = (k: keyof Best) => median(bs.map((b) => b[k])).toFixed(1);
    console.log(`  ${verdict.padEnd(10)} ${String(bs.length).padStart(4)} histories: end to end ${m('wall')} ms; check (validate..solve) ${m('check')} ms ` +
      `(prune ${m('prune')}, solve ${m('solve')}), explain ${m('explain')} ms`);
  }
}

for (let i = 0; i < corpusRuns; i++) {
  const r = run([bin, 'check', inputs.corpus]);
  const summary = r.out.slice(r.out.lastIndexOf('summary:'));
  const cpu = r.cpuMs === null ? '' : `, cpu ${(r.cpuMs / 1000).toFixed(1)} s (user + sys, all threads)`;
  console.log(`polysi check corpus of ${corpusSize}: ${(r.ms / 1000).toFixed(1)} s end to end${cpu}, exit ${r.code}, load average ${loadavg()[0]!.toFixed(1)}\n${summary}`);
}
