/**
 * A single self-contained HTML report: history summary, verdict, and each anomaly with its SVG
 * and its argument. Inline CSS and inline SVG only: it opens in a browser with nothing else to
 * load (no scripts, no fonts, no network).
 *
 * Takes: a CheckResult (explained) and where it came from, and the History when the run's
 * timeline should be drawn (timeline.ts: needs txn times). Gives: the HTML text (`htmlReport`
 * is async because it lays out the SVGs; `renderHtml` assembles already rendered parts).
 */

import { LEVEL_TITLES, type CheckResult } from '../result/types.ts';
import type { Counterexample } from '../result/counterexample.ts';
import { renderExplanationText, verdictLine } from './text.ts';
import { anomalyTitle, LEGEND_LABELS } from './dot.ts';
import { legendSvg, renderSvg } from './svg.ts';
import { renderTimelineSvg, timelineCaption } from './timeline.ts';
import type { History } from '../history/model.ts';

export interface ReportSource {
  file: string;
  format: string;
  notes: readonly string[];
}

export interface ReportAnomaly {
  title: string;
  /** The counterexample's class and description (explain/name.ts), as data attributes of its section. */
  class: string;
  description: string | null;
  summary: string;
  svg: string;
  text: string;
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const STYLE = `
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
table.facts { border-collapse: collapse; margin: 0.8em 0; }
table.facts th { text-align: left; padding: 0.15em 1em 0.15em 0; color: #555; font-weight: 600; }
table.facts td { padding: 0.15em 0; }
.verdict { font-size: 1.25em; font-weight: 700; padding: 0.4em 0.7em; border-radius: 4px; display: inline-block; }
.verdict.valid { background: #e3f4e1; color: #1d5e17; }
.verdict.violation { background: #fbe3e1; color: #8a1c12; }
.verdict.unknown { background: #fff3cd; color: #7a5b00; }
section.anomaly { border-top: 1px solid #ccc; margin-top: 1.5em; padding-top: 0.5em; }
section.anomaly h2 { font-size: 1.2em; }
p.summary { font-style: italic; }
div.graph { overflow-x: auto; border: 1px solid #eee; padding: 0.5em; background: #fff; }
div.graph svg { max-width: 100%; height: auto; }
section.legend h2 { font-size: 1.1em; }
div.graph.legend { border: none; padding: 0; }
div.graph.legend svg { max-width: 26em; }
ul.labels { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.85em; color: #333; }
pre.explanation { white-space: pre-wrap; background: #f7f7f7; padding: 0.8em; border-radius: 4px; font-size: 0.9em; }
footer { margin-top: 2em; color: #666; font-size: 0.85em; }
section.timeline h2 { font-size: 1.1em; }
div.timeline { overflow-x: auto; border: 1px solid #eee; padding: 0.3em; background: #fff; }
div.timeline svg { width: 100%; height: auto; }
p.caption { color: #555; font-size: 0.85em; }
`;

/** How to read the drawings: the legend drawing (edge styles) and what an edge's label says. */
function legendSection(svg: string): string {
  return `
<section class="legend" id="legend">
<h2>How to read the drawings</h2>
<div class="graph legend">${svg}</div>
<ul class="labels">
${LEGEND_LABELS.map((l) => `<li>${escapeHtml(l)}</li>`).join('\n')}
</ul>
</section>`;
}

/** The run's timeline section (timeline.ts); '' when the History has no times. */
function timelineSection(svg: string, caption: string): string {
  return `
<section class="timeline" id="timeline">
<h2>Timeline</h2>
<div class="timeline">${svg}</div>
<p class="caption">${escapeHtml(caption)}</p>
</section>`;
}

/**
 * `legendSvg`: the legend drawing, shown once above the anomalies (none: no legend section).
 * `timeline`: the timeline's SVG and caption (none: no timeline section).
 */
export function renderHtml(
  r: CheckResult, src: ReportSource, anomalies: readonly ReportAnomaly[], legendSvg = '', timeline: { svg: string; caption: string } | null = null,
): string {
  const c = r.counts;
  const t = r.timesMs;
  const row = (k: string, v: string) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`;
  const facts = [
    row('history', `${src.file} (${src.format})`),
    row('size', `${c.sessions} sessions, ${c.transactions} transactions (${c.checkedTransactions} checked), ${c.operations} operations, ${c.keys} keys`),
    row('level', r.level === 'si' ? 'snapshot isolation (strong session)' : LEVEL_TITLES[r.level]),
    row('constraints', `${r.constraints.before} generated, ${r.constraints.after} left after pruning (${r.constraints.pruneRounds} rounds)`),
    row('time (ms)', `parse ${t.parse.toFixed(0)}, validate ${t.validate.toFixed(0)}, construct ${t.construct.toFixed(0)}, prune ${t.prune.toFixed(0)}, solve ${t.solve.toFixed(0)}` +
      (t.explain === undefined ? '' : `, explain ${t.explain.toFixed(0)}`)),
    // The parser's notes, then the check's (e.g. that nothing was checked).
    ...[...src.notes, ...(r.notes ?? [])].map((n) => row('note', n)),
  ].join('\n');
  const sections = anomalies.map((a, i) => `
<section class="anomaly" id="anomaly-${i + 1}" data-class="${escapeHtml(a.class)}"${a.description === null ? '' : ` data-description="${escapeHtml(a.description)}"`}>
<h2>${escapeHtml(a.title)}</h2>
<p class="summary">${escapeHtml(a.summary)}.</p>
<div class="graph">${a.svg}</div>
<pre class="explanation">${escapeHtml(a.text)}</pre>
</section>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>PolySI report: ${escapeHtml(src.file)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>PolySI report</h1>
<table class="facts">
${facts}
</table>
<p id="verdict" class="verdict ${r.verdict}" data-verdict="${r.verdict}">${escapeHtml(verdictLine(r))}</p>
${timeline === null ? '' : timelineSection(timeline.svg, timeline.caption)}
${anomalies.length > 0 && legendSvg !== '' ? legendSection(legendSvg) : ''}
${sections}
<footer>Each counterexample is certified before it is reported: every edge is re-derived from the
operations, and every choice of its write orders is enumerated and leaves a forbidden cycle
(the last line of each argument says whether this check ran).</footer>
</body>
</html>
`;
}

/**
 * The report for an explained result: lays out one SVG per anomaly; with `history`, also the
 * run's timeline (when it has txn times) with the counterexamples' txns highlighted.
 */
export async function htmlReport(r: CheckResult, src: ReportSource, history?: History): Promise<string> {
  const explained = r.anomalies.map((a) => a.explanation).filter((x): x is Counterexample => x !== undefined);
  const parts: ReportAnomaly[] = [];
  for (let i = 0; i < explained.length; i++) {
    const cx = explained[i]!;
    parts.push({
      title: anomalyTitle(cx, i + 1),
      class: cx.class,
      description: cx.description,
      summary: cx.summary,
      svg: await renderSvg([cx], { legend: false }),
      text: renderExplanationText(cx, { index: i + 1, total: explained.length }),
    });
  }
  let timeline: { svg: string; caption: string } | null = null;
  if (history !== undefined) {
    // Each counterexample txn with the numbers of the anomalies it is in (the sections' numbers).
    const highlight = new Map<number, number[]>();
    explained.forEach((cx, i) => {
      for (const t of cx.txns) {
        if (t.txn < 0 || t.role !== 'core') continue;
        const ins = highlight.get(t.txn) ?? [];
        if (ins[ins.length - 1] !== i + 1) ins.push(i + 1);
        highlight.set(t.txn, ins);
      }
    });
    // Elle's :time is in nanoseconds (elle-common.ts); polysi run's times are milliseconds.
    const unitMs = src.format === 'edn' || src.format === 'elle-json' ? 1e-6 : 1;
    const svg = renderTimelineSvg(history, highlight, { unitMs });
    if (svg !== null) timeline = { svg, caption: timelineCaption(history) };
  }
  return renderHtml(r, src, parts, parts.length > 0 ? await legendSvg(false) : '', timeline);
}
