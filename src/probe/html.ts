/**
 * The probe's table as one self-contained HTML page: the table (Hermitage's marks, one column
 * per isolation level), and for each allowed cell a section with the counterexample's drawing
 * (SVG, laid out by render/svg.ts) and its argument (render/text.ts), linked from the cell.
 *
 * Takes: a ProbeResult. Gives: the HTML text (async: the drawings are laid out by Graphviz in
 * WebAssembly). Inline CSS and SVG only, no scripts, nothing loaded from anywhere.
 */

import { escapeHtml } from '../render/html.ts';
import { legendSvg, renderSvg } from '../render/svg.ts';
import { renderExplanationText } from '../render/text.ts';
import { LEVELS } from '../result/lattice.ts';
import { cellText } from './render.ts';
import type { Cell, ProbeResult } from './types.ts';

const STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 90em; padding: 0 1em; color: #222; }
table.probe { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
table.probe th, table.probe td { border: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
table.probe th { background: #f4f4f4; }
td.allowed { background: #fbe3e1; color: #8a1c12; }
td.prevented, td.prevented-abort, td.prevented-blocking { background: #e3f4e1; color: #1d5e17; }
td.undecided { background: #fff6d6; color: #6b5300; }
td.not-exercised, td.not-expressible, td.refused { background: #f7f7f7; color: #777; }
td a { color: inherit; }
tr.foot td, tr.foot th { font-weight: 600; }
section.anomaly { border-top: 1px solid #ccc; margin-top: 1.5em; padding-top: 0.5em; }
div.graph { overflow-x: auto; border: 1px solid #eee; padding: 0.5em; }
div.graph svg { max-width: 100%; height: auto; }
pre { white-space: pre-wrap; background: #f7f7f7; padding: 0.8em; border-radius: 4px; font-size: 0.9em; }
`;

const anchor = (level: string, scenario: string) => `cell-${level}-${scenario}`.replace(/[^A-Za-z0-9_-]/g, '_');

function td(level: string, c: Cell | null, refused: boolean): string {
  if (refused || c === null) return '<td class="refused">refused</td>';
  const text = escapeHtml(cellText(c));
  const title = escapeHtml(`${c.runs} runs: ${c.allowedRuns} showed it, ${c.blockedRuns} blocked, ${c.abortedRuns} aborted`);
  const body = c.anomaly !== null ? `<a href="#${anchor(level, c.scenario)}">${text}</a>` : text;
  return `<td class="${c.outcome}" title="${title}" data-outcome="${c.outcome}">${body}</td>`;
}

export async function renderProbeHtml(r: ProbeResult): Promise<string> {
  const head = `<tr><th>scenario</th>${r.levels.map((l) => `<th>${escapeHtml(l.level)}</th>`).join('')}</tr>`;
  const body = r.scenarios.map((s) => `<tr><th title="${escapeHtml(`${s.title}: ${s.notExpressible || s.steps}`)}">${escapeHtml(s.id)}</th>${
    r.levels.map((l) => td(l.level, l.cells.find((c) => c.scenario === s.id) ?? null, l.refused !== '')).join('')}</tr>`).join('\n');
  const foot = [
    `<tr class="foot"><th>claimed</th>${r.levels.map((l) => `<td>${escapeHtml(l.claimed === null ? '-' : LEVELS[l.claimed].title)}</td>`).join('')}</tr>`,
    `<tr class="foot"><th>every run satisfied</th>${r.levels.map((l) => `<td>${escapeHtml(l.refused !== '' ? 'refused' : l.actual.map((a) => LEVELS[a].title).join(' / ') || 'none')}</td>`).join('')}</tr>`,
  ].join('\n');
  const sections: string[] = [];
  for (const l of r.levels) {
    for (const c of l.cells) {
      const a = c.anomaly;
      if (a === null) continue;
      const cx = a.counterexample;
      const svg = cx === null ? '' : await renderSvg([cx], { legend: false });
      sections.push(`
<section class="anomaly" id="${anchor(l.level, c.scenario)}" data-name="${escapeHtml(a.name)}">
<h2>${escapeHtml(`${l.level} / ${c.scenario}: ${a.name}`)}</h2>
<p>${escapeHtml(`Violates ${LEVELS[a.level].title}; shown in ${c.allowedRuns} of ${c.runs} runs. History: ${a.file}`)}</p>
${svg === '' ? '' : `<div class="graph">${svg}</div>`}
${cx === null ? '' : `<pre>${escapeHtml(renderExplanationText(cx))}</pre>`}
</section>`);
    }
  }
  const scenarios = r.scenarios.map((s) => `<li><b>${escapeHtml(s.id)}</b> (${escapeHtml(s.title)}; ${escapeHtml(s.source)}): <code>${escapeHtml(s.notExpressible || s.steps)}</code></li>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>polysi probe: ${escapeHtml(r.database)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>polysi probe: ${escapeHtml(r.database)}</h1>
<p>${escapeHtml(`${r.kind}, ${r.repeat} runs per cell, a step is blocked after ${r.blockMs} ms; histories in ${r.outDir}`)}${r.interrupted ? ' <b>Interrupted: cells with fewer runs than planned are incomplete.</b>' : ''}</p>
<table class="probe">
${head}
${body}
${foot}
</table>
<p>✓ prevented (abort: the database aborted a transaction, with its codes; blocks: a step waited), — allowed: the checker found the anomaly in a recorded run (runs that showed it / runs), ? undecided: the checker could not decide the probed level on some run (runs / runs) and none showed it. Each allowed cell links to its counterexample.</p>
${sections.length > 0 ? `<div class="graph">${await legendSvg(false)}</div>` : ''}
${sections.join('\n')}
<h2>Scenarios</h2>
<ul>
${scenarios}
</ul>
</body>
</html>
`;
}
