/**
 * The probe's table as text: for a terminal (aligned columns) and as Markdown.
 *
 * Takes: a ProbeResult. Gives: strings (the CLI prints them). One row per scenario, one column
 * per isolation level, Hermitage's marks: ✓ prevented (and how), — allowed (with the
 * counterexample's name); then the level each name claims against the strongest level every run
 * satisfied, and the list of anomalies with the histories that show them.
 */

import { LEVELS } from '../result/lattice.ts';
import type { LevelName } from '../result/types.ts';
import type { Cell, LevelReport, ProbeResult } from './types.ts';

/** Short text of a cell (both renderings). */
export function cellText(c: Cell): string {
  const star = c.incomplete && c.outcome !== 'not-exercised' ? ` (${c.runs}/${c.planned} runs)` : '';
  switch (c.outcome) {
    case 'allowed': return `— ${c.anomaly?.name ?? 'anomaly'} ${c.allowedRuns}/${c.runs}${star}`;
    case 'undecided': return `? undecided ${c.undecidedRuns}/${c.runs}${star}`;
    case 'prevented-abort': return `✓ abort ${codesText(c.abortCodes)}${star}`;
    case 'prevented-blocking': return `✓ blocks${star}`;
    case 'prevented': return `✓${star}`;
    case 'not-exercised': return c.planned > 0 && c.runs < c.planned ? `not run (0/${c.planned})` : 'not run';
    case 'not-expressible': return 'n/a (predicates)';
  }
}

function codesText(codes: Record<string, number>): string {
  return Object.entries(codes).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}×${n}`).join(' ');
}

function levelsText(ls: readonly LevelName[]): string {
  return ls.length === 0 ? 'none' : ls.map((l) => LEVELS[l].abbrev).join(' / ');
}

function header(r: ProbeResult): string[] {
  return [
    `polysi probe: ${r.database} (${r.kind}), ${r.repeat} run${r.repeat === 1 ? '' : 's'} per cell, a step is blocked after ${r.blockMs} ms`,
    `histories: ${r.outDir}`,
    ...(r.interrupted ? ['INTERRUPTED: cells marked (k/n runs) are incomplete'] : []),
  ];
}

function rows(r: ProbeResult): { head: string[]; body: string[][]; foot: string[][] } {
  const head = ['scenario', ...r.levels.map((l) => l.level)];
  const body = r.scenarios.map((s) => [s.id, ...r.levels.map((l) => {
    if (l.refused !== '') return 'refused';
    return cellText(l.cells.find((c) => c.scenario === s.id)!);
  })]);
  const foot = [
    ['claimed', ...r.levels.map((l) => (l.claimed === null ? '-' : LEVELS[l.claimed].abbrev))],
    ['actual', ...r.levels.map((l) => (l.refused !== '' ? 'refused' : levelsText(l.actual)))],
  ];
  return { head, body, foot };
}

/** Every allowed cell: level, scenario, the counterexample's name and class, the level it violates, the history. */
function findings(r: ProbeResult): string[] {
  const out: string[] = [];
  for (const l of r.levels) {
    for (const c of l.cells) {
      const a = c.anomaly;
      if (a === null) continue;
      out.push(`${l.level} / ${c.scenario}: ${a.name}, violates ${LEVELS[a.level].abbrev} — ${a.file}`);
    }
  }
  return out;
}

function refusals(r: ProbeResult): string[] {
  return r.levels.filter((l) => l.refused !== '').map((l) => `${l.level}: refused by the database: ${l.refused}`);
}

export function renderProbeText(r: ProbeResult): string {
  const { head, body, foot } = rows(r);
  const all = [head, ...body, ...foot];
  const widths = head.map((_, i) => Math.max(...all.map((row) => [...row[i]!].length)));
  const line = (row: string[]) => row.map((c, i) => c + ' '.repeat(widths[i]! - [...c].length)).join('  ').trimEnd();
  const out = [...header(r), '', line(head), ...body.map(line), '', ...foot.map(line)];
  const f = findings(r);
  if (f.length > 0) out.push('', 'anomalies found (the first run that showed each):', ...f.map((x) => `  ${x}`));
  const refused = refusals(r);
  if (refused.length > 0) out.push('', ...refused);
  out.push('', '✓ prevented (abort: the database aborted a transaction, with its codes; blocks: a step waited), — allowed (runs that showed it / runs)');
  return `${out.join('\n')}\n`;
}

const md = (s: string) => s.replace(/\|/g, '\\|');

export function renderProbeMarkdown(r: ProbeResult): string {
  const { head, body, foot } = rows(r);
  const line = (row: string[]) => `| ${row.map(md).join(' | ')} |`;
  const out = [
    `# polysi probe: ${md(r.database)}`, '',
    ...header(r).slice(1).map((h) => `${h}  `), '',
    line(head), `|${head.map(() => ' --- ').join('|')}|`, ...body.map(line), ...foot.map((row) => line(row.map((c, i) => (i === 0 ? `**${c}**` : c)))),
    '', '✓ prevented (abort: the database aborted a transaction, with its codes; blocks: a step waited), — allowed (runs that showed it / runs).',
  ];
  const f = findings(r);
  if (f.length > 0) out.push('', '## Anomalies found', '', ...f.map((x) => `- ${md(x)}`));
  const refused = refusals(r);
  if (refused.length > 0) out.push('', '## Refused levels', '', ...refused.map((x) => `- ${md(x)}`));
  out.push('', '## Scenarios', '', ...r.scenarios.map((s) => `- **${md(s.id)}** (${md(s.title)}; ${md(s.source)}): ${s.notExpressible !== '' ? md(s.notExpressible) : `\`${s.steps}\``}`));
  return `${out.join('\n')}\n`;
}

/** The level reports' claimed-vs-actual line, for summaries. */
export function claimText(l: LevelReport): string {
  return `${l.level}: claims ${l.claimed === null ? '-' : LEVELS[l.claimed].abbrev}, every run satisfied ${levelsText(l.actual)}`;
}
