/**
 * The suite's outputs from its rows: SVG figures (the paper's Figures 5, 6 and 8 and Table 3 in
 * chart form) and a markdown report.
 *
 * Takes: rows (rows.ts), the sweeps' order and labels (configs.ts), the machine (harness.ts).
 * Gives: { file name -> SVG text } and the markdown text. Pure: writes nothing.
 * Invariant: a sweep's panel has one x per row of that group, in the sweep's order.
 */

import type { Machine } from './harness.ts';
import type { Row } from './rows.ts';
import { STAGES } from './rows.ts';
import type { Suite } from './configs.ts';
import { renderFigure, type Panel } from './svg.ts';

function machineLine(m: Machine): string {
  return `${m.cores} cores (${m.cpuModel}), ${m.memoryGb} GB, load ${m.loadAverage.join(' ')}, Node ${m.node}, ` +
    `commit ${m.commit.slice(0, 10)}${m.dirty ? ' (uncommitted changes)' : ''}, ${m.date.slice(0, 16).replace('T', ' ')} UTC`;
}

function xValue(v: number | string, param: string): number | string {
  return param === 'readFraction' && typeof v === 'number' ? Math.round(v * 100) : v;
}

function sweepPanels(suite: Suite, rows: readonly Row[], yLabel: string, pick: (r: Row) => (number | null)[], logY = false): Panel[] {
  return suite.sweeps.map((s, i) => {
    const mine = rows.filter((r) => r.group === s.param);
    return {
      title: `(${String.fromCharCode(97 + i)}) ${s.label}`,
      xLabel: s.label, yLabel,
      x: s.values.map((v) => xValue(v, s.param)),
      y: transpose(mine.map(pick)),
      logY,
    };
  });
}

function transpose(m: (number | null)[][]): (number | null)[][] {
  const n = m[0]?.length ?? 0;
  return Array.from({ length: n }, (_, s) => m.map((row) => row[s] ?? null));
}

const stageValues = (r: Row): number[] => [r.parse_ms, r.validate_ms, r.construct_ms, r.prune_ms, r.solve_ms, r.total_ms, r.cpu_ms];
const STAGE_SERIES = [...STAGES, 'total (wall)', 'process CPU'];

export function renderCharts(suite: Suite, rows: readonly Row[], m: Machine): Record<string, string> {
  const sub = `${suite.mode} run · ${machineLine(m)}`;
  const general = rows.filter((r) => r.group === 'general');
  return {
    'fig5-time.svg': renderFigure({
      title: 'Checking time by stage (cf. PolySI Figure 5)', subtitle: sub, series: STAGE_SERIES, columns: 3,
      panels: sweepPanels(suite, rows, 'ms (median)', stageValues),
    }),
    'fig6-memory.svg': renderFigure({
      title: 'Peak memory of the checking process (cf. PolySI Figure 6)', subtitle: sub, series: ['peak RSS of the check', 'Node + checker loaded, nothing checked'], columns: 3,
      panels: sweepPanels(suite, rows, 'peak RSS (MB)', (r) => [r.peak_rss_mb, r.baseline_rss_mb]),
    }),
    'constraints.svg': renderFigure({
      title: 'Constraints before and after pruning (cf. PolySI Table 3)', subtitle: sub,
      series: ['before pruning', 'after pruning'], columns: 3,
      panels: [
        ...sweepPanels(suite, rows, 'constraints (log; 0 on the axis)', (r) => [r.constraints_before, r.constraints_after], true),
      ],
    }),
    'general-stages.svg': renderFigure({
      title: 'General workloads: time by stage (cf. PolySI Figure 8)', subtitle: sub, series: STAGE_SERIES, columns: 1,
      panels: [{ title: 'GeneralRH / RW / WH', xLabel: 'workload', yLabel: 'time (ms, median)', x: general.map((r) => r.x), y: transpose(general.map(stageValues)) }],
    }),
  };
}

const n = (v: number) => v.toLocaleString('en');

export function renderMarkdown(suite: Suite, rows: readonly Row[], m: Machine, targetName: string): string {
  const out: string[] = [];
  out.push(`# PolySI paper experiments (${suite.mode})`, '');
  out.push(`Machine: ${machineLine(m)}. Platform ${m.platform}.`, '');
  out.push(`Histories recorded from ${targetName} by the workload generator (register workload), checked for SI by the library in a ` +
    `fresh process each (times are medians of the repetitions; peak RSS includes Node itself: ${rows[0]?.baseline_rss_mb ?? '?'} MB with ` +
    'the checker loaded and nothing checked).', '');
  out.push('## General workloads (cf. Table 3 and Figure 8)', '');
  out.push('| workload | sessions x txns x ops | % reads | txns (aborted) | verdict | constraints before → after | prune rounds | parse | validate | construct | prune | solve | total ms | CPU ms | peak MB |');
  out.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows.filter((x) => x.group === 'general')) {
    out.push(`| ${r.x} | ${r.sessions} x ${r.txns_per_session} x ${r.ops_per_txn} | ${Math.round(r.read_fraction * 100)} | ${n(r.transactions)} (${n(r.aborted)}) | ${r.verdict} | ` +
      `${n(r.constraints_before)} → ${n(r.constraints_after)} | ${r.prune_rounds} | ${r.parse_ms} | ${r.validate_ms} | ${r.construct_ms} | ${r.prune_ms} | ${r.solve_ms} | ${r.total_ms} | ${r.cpu_ms} | ${r.peak_rss_mb} |`);
  }
  out.push('');
  for (const s of suite.sweeps) {
    out.push(`## Sweep: ${s.label} (cf. Figures 5-6)`, '');
    out.push(`| ${s.label} | txns (aborted) | ops | verdict | constraints before → after | parse | validate | construct | prune | solve | total ms | process ms | CPU ms | peak MB |`);
    out.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const r of rows.filter((x) => x.group === s.param)) {
      out.push(`| ${r.x} | ${n(r.transactions)} (${n(r.aborted)}) | ${n(r.operations)} | ${r.verdict} | ${n(r.constraints_before)} → ${n(r.constraints_after)} | ` +
        `${r.parse_ms} | ${r.validate_ms} | ${r.construct_ms} | ${r.prune_ms} | ${r.solve_ms} | ${r.total_ms} | ${r.process_ms} | ${r.cpu_ms} | ${r.peak_rss_mb} |`);
    }
    out.push('');
  }
  return out.join('\n');
}
