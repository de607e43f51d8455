/**
 * The differential-testing harness: runs a checker against the brute-force oracle (tiny
 * histories) and against itself with pruning on and off (bigger simulated histories).
 *
 * Takes: a check function with `checkHistory`'s signature and run parameters. Gives: a report
 * with the failures as self-contained messages (seed, generator, verdicts, the history in
 * PolySI-like text) plus tallies (verdicts, and which stage decided each run: `decisionPath`)
 * and timings. It lives apart from the test file so the harness
 * itself can be tested with a fake checker (see test/oracle/differential-harness.test.ts).
 */

import type { History } from '../../src/history/model.ts';
import type { CheckOptions, CheckResult } from '../../src/result/types.ts';
/** The levels the polygraph pipeline decides, which these oracles check (the weak levels have their own tests). */
type Level = 'si' | 'ser';
import { bruteForceCheck } from '../oracle/brute-force.ts';
import {
  caseSeed,
  mulberry32,
  simulatedSerialHistory,
  simulatedSiHistory,
  tinyMixedHistory,
  type Rng,
  type SimParams,
  type StoreBug,
} from './gen.ts';
import { renderHistory } from './history-text.ts';
import { renderCycle, verifyResult } from './verify-result.ts';

export type CheckFn = (h: History, opts: CheckOptions) => CheckResult;

const LEVELS: readonly Level[] = ['si', 'ser'];

export interface DiffReport {
  cases: number;
  /** Failure messages, at most `failuresMax` (further failures are only counted). */
  failures: string[];
  failureCount: number;
  /** Oracle (or expected) verdicts per level. */
  tally: Record<Level, { valid: number; violation: number }>;
  /**
   * How each run was decided, counted per variant and path: `on:solver-unsat` = pruning on, the
   * solver proved the violation (see `decisionPath`; variants `on`, `off`, `capped`).
   */
  decided: Record<string, number>;
  pipelineMs: number;
  pipelineCalls: number;
  oracleMs: number;
}

function emptyReport(): DiffReport {
  return {
    cases: 0,
    failures: [],
    failureCount: 0,
    tally: { si: { valid: 0, violation: 0 }, ser: { valid: 0, violation: 0 } },
    decided: {},
    pipelineMs: 0,
    pipelineCalls: 0,
    oracleMs: 0,
  };
}

/**
 * The path by which a run was decided: 'validation', 'pruning-cycle' (pruning's known graph
 * closed a cycle), 'pruning-valid' (pruning decided every constraint), 'solver-unsat',
 * 'solver-sat' (no conflict), 'solver-sat-conflicts' (SAT only after backtracking), 'limit'.
 */
export function decisionPath(r: CheckResult): string {
  switch (r.decidedBy) {
    // A non-cycle anomaly no longer stops the search (issue 23): runs that also found a cycle count apart.
    case 'validation': return r.anomalies.some((a) => a.type === 'cycle') ? 'validation+cycle' : 'validation';
    case 'pruning': return r.verdict === 'violation' ? 'pruning-cycle' : 'pruning-valid';
    case 'solver-sat': return (r.solver?.conflicts ?? 0) > 0 ? 'solver-sat-conflicts' : 'solver-sat';
    default: return r.decidedBy;
  }
}

/** The variants of a run: pruning on (to its fixpoint), off, and on but capped to a few rounds. */
type Variant = 'on' | 'off' | 'capped';
const VARIANT_NAMES: Record<Variant, string> = { on: 'pruning on', off: 'pruning off', capped: 'pruning capped' };

/**
 * Runs the checker; an exception becomes a failure description instead of aborting the run.
 * `cappedRounds` is the pruning round bound of the 'capped' variant.
 */
function runCheck(check: CheckFn, h: History, level: Level, variant: Variant, report: DiffReport, cappedRounds = 1): CheckResult | string {
  const started = performance.now();
  try {
    const opts: CheckOptions = variant === 'capped' ? { level, pruning: true, pruneRoundsMax: cappedRounds } : { level, pruning: variant === 'on' };
    const r = check(h, opts);
    const key = `${variant}:${decisionPath(r)}`;
    report.decided[key] = (report.decided[key] ?? 0) + 1;
    return r;
  } catch (e) {
    return `threw ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
  } finally {
    report.pipelineMs += performance.now() - started;
    report.pipelineCalls++;
  }
}

/**
 * Compares the variants' results with each other and (if given) the expected verdict for one
 * history and level; returns problem lines, empty if all agree and every result holds up.
 */
function compare(h: History, level: Level, runs: readonly (readonly [Variant, CheckResult | string])[], expected: string | null): string[] {
  const verdict = (r: CheckResult | string): string => (typeof r === 'string' ? r : r.verdict);
  const problems: string[] = [];
  const verdicts = runs.map(([v, r]) => `${VARIANT_NAMES[v]} ${verdict(r)}`).join(', ');
  if (expected !== null && runs.some(([, r]) => verdict(r) !== expected)) {
    problems.push(`verdicts: expected ${expected}, ${verdicts}`);
  } else if (expected === null && runs.some(([, r]) => verdict(r) !== verdict(runs[0]![1]))) {
    problems.push(`verdicts: ${verdicts}`);
  }
  for (const [variant, r] of runs) {
    const name = VARIANT_NAMES[variant];
    if (typeof r === 'string') continue;
    if (r.verdict === 'unknown') problems.push(`${name}: verdict unknown (${r.unknownReason ?? 'no reason'})`);
    const bad = verifyResult(h, level, r);
    if (bad.length > 0) {
      problems.push(`${name}: ${bad.join('; ')}`);
      for (const a of r.anomalies) if (a.type === 'cycle') problems.push(`  reported cycle: ${renderCycle(h, a)}`);
    }
  }
  return problems;
}

function recordFailure(report: DiffReport, failuresMax: number, header: string, replay: string, h: History, problems: string[]): void {
  report.failureCount++;
  if (report.failures.length >= failuresMax) return;
  report.failures.push([header, ...problems.map((p) => `  ${p}`), `  replay: ${replay}`, renderHistory(h)].join('\n'));
}

export interface TinyDiffParams {
  cases: number;
  seed: number;
  /** Transactions per history; the oracle's cost grows steeply with it. */
  txnsMax: number;
  failuresMax: number;
  /**
   * If given, a third run per level with pruning stopped after this many rounds, so that the
   * solver gets constraints pruning would have decided; it must agree with the oracle too.
   */
  cappedPruneRounds?: number;
  /**
   * Where the histories come from (default: `tinyMixedHistory(rng, txnsMax)`); `name` is the
   * function to call in the replay line, `name(mulberry32(seed))`.
   */
  source?: { name: string; make: (rng: Rng) => History };
}

/**
 * For each case, a tiny history from `tinyMixedHistory(mulberry32(caseSeed(seed, i)))` (or the
 * given source), checked at both levels with pruning on and off (and capped, if asked); every
 * verdict must equal the oracle's exactly ('unknown' is a failure).
 */
export function runTinyDifferential(check: CheckFn, p: TinyDiffParams): DiffReport {
  const report = emptyReport();
  for (let i = 0; i < p.cases; i++) {
    const seed = caseSeed(p.seed, i);
    const { history: h, generator } = p.source === undefined
      ? tinyMixedHistory(mulberry32(seed), p.txnsMax)
      : { history: p.source.make(mulberry32(seed)), generator: p.source.name };
    const replay = p.source === undefined ? `tinyMixedHistory(mulberry32(${seed}), ${p.txnsMax}).history` : `${p.source.name}(mulberry32(${seed}))`;
    report.cases++;
    for (const level of LEVELS) {
      const started = performance.now();
      const expected = bruteForceCheck(h, level);
      report.oracleMs += performance.now() - started;
      report.tally[level][expected]++;
      const runs: [Variant, CheckResult | string][] = [['on', runCheck(check, h, level, 'on', report)], ['off', runCheck(check, h, level, 'off', report)]];
      if (p.cappedPruneRounds !== undefined) runs.push(['capped', runCheck(check, h, level, 'capped', report, p.cappedPruneRounds)]);
      const problems = compare(h, level, runs, expected);
      if (problems.length > 0) {
        recordFailure(report, p.failuresMax, `case ${i} (seed ${seed}, generator ${generator}), level ${level}: brute force says ${expected}`,
          replay, h, problems);
      }
    }
  }
  return report;
}

export type SimKind = 'si-store' | 'serial-store' | 'buggy-store';

export interface SimDiffParams {
  kind: SimKind;
  cases: number;
  seed: number;
  sim: Partial<SimParams>;
  failuresMax: number;
}

const BUGS: readonly StoreBug[] = ['lost-update', 'stale-snapshot', 'fractured', 'mixed'];
/**
 * Every txn buggy (blatant), or a few (subtle: one bad txn among many). Even the subtle ones are
 * all decided by pruning (measured: 0 of 480 runs reach a solver UNSAT); gen-solver.ts has
 * shapes that do.
 */
const BUG_RATES: readonly number[] = [1, 0.2, 0.05];

/** The store parameters of the i-th buggy case: every bug at every rate, in turn. */
export function buggyParams(sim: Partial<SimParams>, i: number): Partial<SimParams> {
  return { ...sim, bug: BUGS[i % BUGS.length]!, pBug: BUG_RATES[Math.floor(i / BUGS.length) % BUG_RATES.length]! };
}

/**
 * Bigger simulated histories, beyond the oracle. SI-store histories must be SI-valid, serial
 * ones SER-valid (and so SI-valid); buggy-store histories (see `buggyParams`) have no known
 * verdict, so pruning on and off must agree. Every result is checked with `verifyResult`.
 */
export function runSimDifferential(check: CheckFn, p: SimDiffParams): DiffReport {
  const report = emptyReport();
  const levels: readonly Level[] = p.kind === 'si-store' ? ['si'] : LEVELS;
  for (let i = 0; i < p.cases; i++) {
    const seed = caseSeed(p.seed, i);
    const rng = mulberry32(seed);
    const sim = p.kind === 'buggy-store' ? buggyParams(p.sim, i) : p.sim;
    const h = p.kind === 'serial-store' ? simulatedSerialHistory(rng, sim) : simulatedSiHistory(rng, sim);
    report.cases++;
    for (const level of levels) {
      const expected = p.kind === 'buggy-store' ? null : 'valid';
      const on = runCheck(check, h, level, 'on', report);
      const off = runCheck(check, h, level, 'off', report);
      const verdict = typeof on === 'string' ? null : on.verdict;
      if (verdict === 'valid' || verdict === 'violation') report.tally[level][verdict]++;
      const problems = compare(h, level, [['on', on], ['off', off]], expected);
      if (problems.length > 0) {
        const generator = p.kind === 'serial-store' ? 'simulatedSerialHistory' : 'simulatedSiHistory';
        recordFailure(report, p.failuresMax, `${p.kind} case ${i} (seed ${seed}), level ${level}`,
          `${generator}(mulberry32(${seed}), ${JSON.stringify(sim)})`, h, problems);
      }
    }
  }
  return report;
}

/**
 * Fixed histories (regressions): pruning on and off must agree with each other and with
 * `expected` when given, without exceptions, and their results must hold up.
 */
export function runFixedDifferential(
  check: CheckFn,
  cases: readonly { name: string; history: History; expected?: Partial<Record<Level, 'valid' | 'violation'>> }[],
): DiffReport {
  const report = emptyReport();
  for (const c of cases) {
    report.cases++;
    for (const level of LEVELS) {
      const on = runCheck(check, c.history, level, 'on', report);
      const off = runCheck(check, c.history, level, 'off', report);
      const problems = compare(c.history, level, [['on', on], ['off', off]], c.expected?.[level] ?? null);
      if (problems.length > 0) recordFailure(report, Number.POSITIVE_INFINITY, `${c.name}, level ${level}`, c.name, c.history, problems);
    }
  }
  return report;
}

/** One line of timings for test diagnostics, so the lead can size the runs. */
export function describeTimings(r: DiffReport): string {
  const perCall = r.pipelineCalls === 0 ? 0 : (r.pipelineMs / r.pipelineCalls) * 1000;
  const perOracle = r.cases === 0 ? 0 : (r.oracleMs / r.cases) * 1000;
  return `${r.cases} histories; pipeline ${r.pipelineMs.toFixed(0)} ms total, ${perCall.toFixed(0)} µs/call; ` +
    `oracle ${r.oracleMs.toFixed(0)} ms total, ${perOracle.toFixed(0)} µs/history (both levels); ` +
    `verdicts ${JSON.stringify(r.tally)}`;
}

/** How the runs were decided, as one line: `on: validation 3120, pruning-cycle 512, ...; off: ...`. */
export function describeDecisions(r: DiffReport): string {
  const byVariant = new Map<string, string[]>();
  for (const key of Object.keys(r.decided).sort()) {
    const [variant, path] = key.split(':') as [string, string];
    const list = byVariant.get(variant) ?? [];
    list.push(`${path} ${r.decided[key]}`);
    byVariant.set(variant, list);
  }
  return `decided by: ${[...byVariant].map(([v, list]) => `${v}: ${list.join(', ')}`).join('; ')}`;
}

/** The failure message of a run: the count and the first failures in full. */
export function describeFailures(r: DiffReport): string {
  return `${r.failureCount} failure(s) in ${r.cases} histories; the first ${r.failures.length}:\n\n${r.failures.join('\n\n')}`;
}
