/**
 * Benchmark rows and their CSV form.
 *
 * Takes: the measurements of each point. Gives: one Row per (group, x value): a sweep's point or
 * a General workload, with the medians of its repetitions; `toCsv` / `parseCsv` in RFC 4180 form
 * (a header line, comma-separated, quotes only where a field needs them).
 * Invariant: COLUMNS is the CSV header, in order; every row has every column.
 */

import type { Measured } from './harness.ts';
import type { Recorded } from './record.ts';
import type { Point } from './configs.ts';

export const STAGES = ['parse', 'validate', 'construct', 'prune', 'solve'] as const;

export interface Row {
  /** The sweep's parameter (`sessions`, ..., `distribution`) or `general`. */
  group: string;
  /** The x value of the sweep, or the General workload's name. */
  x: string;
  point: string;
  sessions: number;
  txns_per_session: number;
  ops_per_txn: number;
  read_fraction: number;
  keys: number;
  distribution: string;
  seed: number;
  reps: number;
  committed: number;
  aborted: number;
  transactions: number;
  operations: number;
  verdict: string;
  decided_by: string;
  parse_ms: number;
  validate_ms: number;
  construct_ms: number;
  prune_ms: number;
  solve_ms: number;
  /** Sum of the stages: the check's time from reading the file to the verdict. */
  total_ms: number;
  /** Child process start to exit (Node's start-up included). */
  process_ms: number;
  /** User + system CPU time of the child process (start-up included): less disturbed by a loaded machine than wall times. */
  cpu_ms: number;
  constraints_before: number;
  constraints_after: number;
  prune_rounds: number;
  solver_variables: number;
  solver_conflicts: number;
  peak_rss_mb: number;
  /** Peak RSS of a child that loads the checker and checks nothing (the same for every row of a run). */
  baseline_rss_mb: number;
}

export const COLUMNS: readonly (keyof Row)[] = [
  'group', 'x', 'point', 'sessions', 'txns_per_session', 'ops_per_txn', 'read_fraction', 'keys', 'distribution', 'seed',
  'reps', 'committed', 'aborted', 'transactions', 'operations', 'verdict', 'decided_by',
  'parse_ms', 'validate_ms', 'construct_ms', 'prune_ms', 'solve_ms', 'total_ms', 'process_ms', 'cpu_ms',
  'constraints_before', 'constraints_after', 'prune_rounds', 'solver_variables', 'solver_conflicts', 'peak_rss_mb', 'baseline_rss_mb',
];

export interface PointResult {
  point: Point;
  recorded: Recorded;
  /** One per repetition, all of the same history. */
  reps: Measured[];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

export function makeRow(group: string, x: string, r: PointResult, baselineRssKb: number): Row {
  if (r.reps.length === 0) throw new Error(`internal error: no measurement of ${r.point.id}`);
  const first = r.reps[0]!;
  // The same history every time: verdicts and counts cannot differ between repetitions.
  for (const m of r.reps) {
    if (m.verdict !== first.verdict || m.constraints.before !== first.constraints.before) {
      throw new Error(`internal error: repetitions of ${r.point.id} disagree (${m.verdict} vs ${first.verdict})`);
    }
  }
  const med = (f: (m: Measured) => number) => round(median(r.reps.map(f)));
  const stage = (k: string) => med((m) => m.timesMs[k] ?? 0);
  const o = r.point.options;
  return {
    group, x, point: r.point.id,
    sessions: o.sessions, txns_per_session: o.txnsPerSession, ops_per_txn: o.opsPerTxn, read_fraction: o.readFraction,
    keys: o.keys, distribution: o.distribution, seed: o.seed, reps: r.reps.length,
    committed: r.recorded.committed, aborted: r.recorded.aborted,
    transactions: first.counts.transactions, operations: first.counts.operations,
    verdict: first.verdict, decided_by: first.decidedBy,
    parse_ms: stage('parse'), validate_ms: stage('validate'), construct_ms: stage('construct'), prune_ms: stage('prune'), solve_ms: stage('solve'),
    total_ms: med((m) => STAGES.reduce((s, k) => s + (m.timesMs[k] ?? 0), 0)),
    process_ms: med((m) => m.processMs),
    cpu_ms: med((m) => m.cpuMs),
    constraints_before: first.constraints.before, constraints_after: first.constraints.after, prune_rounds: first.constraints.pruneRounds,
    solver_variables: first.solver?.variables ?? 0, solver_conflicts: first.solver?.conflicts ?? 0,
    peak_rss_mb: med((m) => m.maxRssKb / 1024),
    baseline_rss_mb: round(baselineRssKb / 1024),
  };
}

function field(v: string | number): string {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(rows: readonly Row[]): string {
  return [COLUMNS.join(','), ...rows.map((r) => COLUMNS.map((c) => field(r[c])).join(','))].join('\n') + '\n';
}

/** The header and records of a CSV text (quoted fields allowed); for tests and re-plotting. */
export function parseCsv(text: string): { header: string[]; records: string[][] } {
  const records: string[][] = [];
  let rec: string[] = [], cur = '', i = 0, quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cur += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; continue; }
      cur += c; i++; continue;
    }
    if (c === '"') { quoted = true; i++; continue; }
    if (c === ',') { rec.push(cur); cur = ''; i++; continue; }
    if (c === '\n') { rec.push(cur); records.push(rec); rec = []; cur = ''; i++; continue; }
    if (c === '\r') { i++; continue; }
    cur += c; i++;
  }
  if (cur !== '' || rec.length > 0) { rec.push(cur); records.push(rec); }
  const header = records.shift() ?? [];
  return { header, records };
}
