/**
 * Differential tests of the pipeline on list-append histories (with register keys beside).
 *
 * - Tiny histories (test/support/gen-lists.ts): pruning on, pruning off and the list oracle
 *   (test/oracle/brute-force-lists.ts, operational, sharing no code with src/) must give the
 *   same verdict at SI and SER, over committed, aborted and unknown-outcome transactions. Every
 *   result is re-checked (`verifyResult`: each cycle edge re-derived from the raw history), and
 *   every violation is explained and named, as the CLI does.
 * - Bigger simulated list stores, beyond the oracle: a correct SI store passes SI, a serial one
 *   SER; on a buggy store's histories pruning on and off agree.
 *
 * Sizes scale with POLYSI_FUZZ_SCALE (default 1). Seeds are fixed; a failure prints the seed, a
 * replay expression and the history.
 */

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { checkHistory } from '../../src/check/index.ts';
import type { CheckOptions, CheckResult } from '../../src/result/types.ts';
/** The levels the polygraph pipeline decides, which these oracles check (the weak levels have their own tests). */
type Level = 'si' | 'ser';
import type { History } from '../../src/history/model.ts';
import { bruteForceListCheck } from '../oracle/brute-force-lists.ts';
import { caseSeed, mulberry32 } from '../support/gen.ts';
import { simulatedListHistory, tinyMixedListHistory, type ListSimParams } from '../support/gen-lists.ts';
import { renderHistory } from '../support/history-text.ts';
import { renderCycle, verifyResult } from '../support/verify-result.ts';

const SCALE = Number(process.env['POLYSI_FUZZ_SCALE'] ?? '1');
if (!(SCALE > 0)) throw new Error(`POLYSI_FUZZ_SCALE must be a positive number, got ${process.env['POLYSI_FUZZ_SCALE']}`);
const scaled = (n: number): number => Math.max(1, Math.round(n * SCALE));

const LEVELS: readonly Level[] = ['si', 'ser'];
const FAILURES_MAX = 5;

interface Run {
  cases: number;
  failures: string[];
  failureCount: number;
  tally: Record<Level, { valid: number; violation: number }>;
  /** How often each anomaly name (non-cycle names, and explained cycle names) was reported. */
  names: Map<string, number>;
  pipelineMs: number;
  oracleMs: number;
  /** Options added to every check (e.g. a reachability bound). */
  extra: Partial<CheckOptions>;
}

function newRun(extra: Partial<CheckOptions> = {}): Run {
  return { extra, cases: 0, failures: [], failureCount: 0, tally: { si: { valid: 0, violation: 0 }, ser: { valid: 0, violation: 0 } }, names: new Map(), pipelineMs: 0, oracleMs: 0 };
}

function check(run: Run, h: History, level: Level, pruning: boolean): CheckResult | string {
  const t = performance.now();
  try {
    // The CLI always explains, so the differential does too (with pruning on): every anomaly
    // must come out named.
    return checkHistory(h, { ...run.extra, level, pruning, explain: pruning });
  } catch (e) {
    return `threw ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
  } finally {
    run.pipelineMs += performance.now() - t;
  }
}

/**
 * Problems with one history at one level: verdicts against `expected` (or each other), results.
 * Without an expected verdict, the pipeline's (pruning on) is tallied.
 */
function problems(run: Run, h: History, level: Level, expected: 'valid' | 'violation' | null): string[] {
  const on = check(run, h, level, true), off = check(run, h, level, false);
  if (expected === null && typeof on !== 'string' && on.verdict !== 'unknown') run.tally[level][on.verdict]++;
  const verdict = (r: CheckResult | string): string => (typeof r === 'string' ? r : r.verdict);
  const out: string[] = [];
  if (expected !== null ? verdict(on) !== expected || verdict(off) !== expected : verdict(on) !== verdict(off)) {
    out.push(`verdicts: expected ${expected ?? 'agreement'}, pruning on ${verdict(on)}, pruning off ${verdict(off)}`);
  }
  for (const [name, r] of [['pruning on', on], ['pruning off', off]] as const) {
    if (typeof r === 'string') continue;
    if (r.verdict === 'unknown') out.push(`${name}: verdict unknown (${r.unknownReason ?? 'no reason'})`);
    const bad = verifyResult(h, level, r);
    if (bad.length > 0) out.push(`${name}: ${bad.join('; ')}`);
    for (const a of r.anomalies) {
      if (a.type === 'cycle' && bad.length > 0) out.push(`  reported cycle: ${renderCycle(h, a)}`);
      if (name !== 'pruning on') continue;
      const named = a.type === 'non-cycle' ? a.name : a.explanation?.class;
      if (named === undefined || a.explanation === undefined) out.push(`${name}: an anomaly without an explanation or name`);
      else run.names.set(named, (run.names.get(named) ?? 0) + 1);
    }
  }
  return out;
}

function fail(run: Run, header: string, replay: string, h: History, found: string[]): void {
  run.failureCount++;
  if (run.failures.length < FAILURES_MAX) run.failures.push([header, ...found.map((p) => `  ${p}`), `  replay: ${replay}`, renderHistory(h)].join('\n'));
}

function assertClean(run: Run): void {
  assert.equal(run.failureCount, 0, `${run.failureCount} failure(s) in ${run.cases} histories; the first ${run.failures.length}:\n\n${run.failures.join('\n\n')}`);
}

function describe(run: Run): string {
  return `${run.cases} histories; pipeline ${run.pipelineMs.toFixed(0)} ms, oracle ${run.oracleMs.toFixed(0)} ms; ` +
    `verdicts ${JSON.stringify(run.tally)}; anomalies ${JSON.stringify(Object.fromEntries([...run.names].sort()))}`;
}

const TINY_CASES = scaled(5000);

/** Tiny list histories against the list oracle; returns the run for further assertions. */
function tinyRun(t: { diagnostic: (s: string) => void }, cases: number, seed0: number, extra: Partial<CheckOptions> = {}): Run {
  const run = newRun(extra);
  const generators = new Map<string, number>();
  const outcomes = { aborted: 0, unknown: 0 };
  for (let i = 0; i < cases; i++) {
    const seed = caseSeed(seed0, i);
    const { history: h, generator } = tinyMixedListHistory(mulberry32(seed), 6);
    run.cases++;
    generators.set(generator, (generators.get(generator) ?? 0) + 1);
    for (let x = 0; x < h.txnCount; x++) {
      if (h.txnStatus[x] === 1) outcomes.aborted++;
      if (h.txnStatus[x] === 2) outcomes.unknown++;
    }
    for (const level of LEVELS) {
      const started = performance.now();
      const expected = bruteForceListCheck(h, level);
      run.oracleMs += performance.now() - started;
      run.tally[level][expected]++;
      const found = problems(run, h, level, expected);
      if (found.length > 0) {
        fail(run, `case ${i} (seed ${seed}, generator ${generator}), level ${level}: the list oracle says ${expected}`,
          `tinyMixedListHistory(mulberry32(${seed}), 6).history`, h, found);
      }
    }
  }
  t.diagnostic(describe(run));
  t.diagnostic(`generators ${JSON.stringify(Object.fromEntries(generators))}; txn outcomes ${JSON.stringify(outcomes)}`);
  assertClean(run);
  assert.ok(outcomes.aborted > 0 && outcomes.unknown > 0, JSON.stringify(outcomes));
  return run;
}

test(`tiny list histories: pipeline (pruning on and off) agrees with the list oracle on ${TINY_CASES} cases`, (t) => {
  const run = tinyRun(t, TINY_CASES, 0x1157);
  // Guards against the generators drifting: both verdicts at both levels, SI-valid but not
  // serializable histories, and every list anomaly the pipeline can name.
  for (const level of LEVELS) {
    assert.ok(run.tally[level].valid >= run.cases * 0.15, `${level}: too few valid ${JSON.stringify(run.tally)}`);
    assert.ok(run.tally[level].violation >= run.cases * 0.15, `${level}: too few violations ${JSON.stringify(run.tally)}`);
  }
  assert.ok(run.tally.si.valid - run.tally.ser.valid >= run.cases * 0.01, `too few SI-valid, SER-violating histories ${JSON.stringify(run.tally)}`);
  for (const name of ['incompatible-order', 'duplicate-elements', 'G1a', 'G1b', 'INT', 'garbage-read', 'future-read']) {
    assert.ok((run.names.get(name) ?? 0) > 0, `no ${name} among ${JSON.stringify(Object.fromEntries(run.names))}`);
  }
});

// Partial pruning (the reachability table bounded to one chain) must stay sound on lists too.
test(`tiny list histories with reachability bounded to one chain still agree with the list oracle (${scaled(1500)} cases)`, (t) => {
  const run = tinyRun(t, scaled(1500), 0xb0d1, { reachCellsMax: 1 });
  assert.ok(run.tally.si.valid > 0 && run.tally.si.violation > 0, JSON.stringify(run.tally));
});

const SIM: Partial<ListSimParams> = { sessions: 5, txnsPerSession: 20, keys: 8, opsPerTxnMax: 6 };

test('simulated list stores: bigger SI histories are SI-valid, serial ones SER-valid, buggy ones agree with pruning off', (t) => {
  const run = newRun();
  const bugs = ['lost-update', 'stale-snapshot', 'fractured', 'reorder', 'mixed'] as const;
  const kinds = [
    { name: 'si-store', cases: scaled(100), levels: ['si'] as Level[], expected: 'valid' as const, params: (_: number) => SIM },
    { name: 'serial-store', cases: scaled(60), levels: LEVELS, expected: 'valid' as const, params: (_: number) => ({ ...SIM, serial: true }) },
    { name: 'buggy-store', cases: scaled(150), levels: LEVELS, expected: null, params: (i: number) => ({ ...SIM, bug: bugs[i % bugs.length]!, pBug: [1, 0.2, 0.05][Math.floor(i / bugs.length) % 3]! }) },
  ];
  for (const k of kinds) {
    for (let i = 0; i < k.cases; i++) {
      const seed = caseSeed(0x1157e, i);
      const params = k.params(i);
      const h = simulatedListHistory(mulberry32(seed), params);
      run.cases++;
      for (const level of k.levels) {
        const found = problems(run, h, level, k.expected);
        if (found.length > 0) fail(run, `${k.name} case ${i} (seed ${seed}), level ${level}`, `simulatedListHistory(mulberry32(${seed}), ${JSON.stringify(params)})`, h, found);
      }
    }
  }
  t.diagnostic(describe(run));
  assertClean(run);
  assert.ok((run.names.get('incompatible-order') ?? 0) > 0, 'the reorder bug is caught as incompatible-order');
  assert.ok(run.tally.si.valid > 0 && run.tally.si.violation > 0, `buggy stores: both verdicts ${JSON.stringify(run.tally)}`);
});
