/**
 * The timeline of a recorded run (issue 24) as inline SVG, for the HTML report: sessions as
 * lanes, transactions as bars from their start to their end, the faults injected as bands
 * across every lane, the counterexamples' transactions highlighted.
 *
 * Takes: a History with txn times (`txnStart` / `txnEnd`: `polysi run`, JSON Lines "start" /
 * "end") and the txns to highlight. Gives: the SVG text, or null when the history has no times.
 * Invariant: the size of the drawing is bounded whatever the history's: neighbouring bars of one
 * lane with one outcome that fall within a pixel are merged (one pass over the txns, in session
 * order, which is time order within a lane); at most LANES_MAX lanes are drawn; highlighted txns
 * are always drawn one by one, on top, with their label.
 */

import { TXN_ABORTED, TXN_COMMITTED, txnLabel, txnNodeLabel, type History } from '../history/model.ts';

/** Lanes drawn at most (the rest are said in a caption). */
export const LANES_MAX = 200;
/** Width of a bold 10 px character, about, to keep labels apart. */
const LABEL_CHAR_PX = 6.5;
const WIDTH = 1000, LEFT = 70, RIGHT = 10, TOP = 22, LANE = 14, BAR = 10, AXIS = 26;

const OUTCOME_FILL = ['#9db7d5', '#f0a8a0', '#f3c66b'] as const; // committed, aborted, unknown
const OUTCOME_NAME = ['committed', 'aborted', 'unknown'] as const;
const FAULT_FILL: Record<string, string> = { kill: '#d9534f', pause: '#6f42c1', partition: '#f0ad4e', stall: '#5bc0de' };

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A tick step (ms) giving about 8-12 ticks over `span` ms: 1, 2 or 5 times a power of ten. */
function tickStep(span: number): number {
  const raw = span / 10;
  const p = 10 ** Math.floor(Math.log10(raw));
  return raw / p < 2 ? p : raw / p < 5 ? 2 * p : 5 * p;
}

/** Whether a label at x in lane s clears the lane's previous label; if so, records its end. */
function labelFits(labelEnd: Map<number, number>, s: number, x: number, label: string): boolean {
  if (x < (labelEnd.get(s) ?? -Infinity)) return false;
  labelEnd.set(s, x + label.length * LABEL_CHAR_PX + 4);
  return true;
}

export function renderTimelineSvg(h: History, highlight: ReadonlySet<number>): string | null {
  const start = h.txnStart, end = h.txnEnd;
  if (start === undefined || end === undefined) return null;
  let t0 = Infinity, t1 = -Infinity;
  for (let t = 0; t < h.txnCount; t++) {
    if (Number.isNaN(start[t]!)) continue;
    t0 = Math.min(t0, start[t]!);
    t1 = Math.max(t1, end[t]!);
  }
  if (t0 === Infinity) return null;
  for (const f of h.faults ?? []) {
    t0 = Math.min(t0, f.start);
    t1 = Math.max(t1, Number.isNaN(f.end) ? f.start : f.end);
  }
  if (t1 <= t0) t1 = t0 + 1;
  const lanes = Math.min(h.sessionCount, LANES_MAX);
  const plotW = WIDTH - LEFT - RIGHT;
  const x = (ms: number) => LEFT + ((ms - t0) / (t1 - t0)) * plotW;
  const laneY = (s: number) => TOP + s * LANE;
  const height = TOP + lanes * LANE + AXIS;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="timeline" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="10">`);
  out.push(`<rect x="${LEFT}" y="${TOP}" width="${plotW}" height="${lanes * LANE}" fill="#fafafa" stroke="#ddd"/>`);

  // Fault bands first (under the bars), each with its kind and node above the plot.
  for (const f of h.faults ?? []) {
    const a = x(f.start), b = Number.isNaN(f.end) ? LEFT + plotW : x(f.end);
    const fill = FAULT_FILL[f.kind] ?? '#999';
    const span = Number.isNaN(f.end) ? 'never healed' : `${((f.end - f.start) / 1000).toFixed(2)} s`;
    out.push(`<g class="fault" data-kind="${esc(f.kind)}" data-node="${esc(f.node)}"><title>${esc(`${f.kind} ${f.node}: ${f.start} → ${Number.isNaN(f.end) ? '…' : f.end} ms (${span})`)}</title>` +
      `<rect x="${a.toFixed(1)}" y="${TOP}" width="${Math.max(2, b - a).toFixed(1)}" height="${lanes * LANE}" fill="${fill}" fill-opacity="0.18" stroke="${fill}" stroke-opacity="0.6"/>` +
      `<text x="${(a + 2).toFixed(1)}" y="${TOP - 6}" fill="${fill}" font-weight="bold">${esc(`${f.kind} ${f.node}`)}</text></g>`);
  }

  // Lanes: labels, then the bars, neighbours within a pixel merged.
  for (let s = 0; s < lanes; s++) {
    const y = laneY(s);
    out.push(`<text x="${LEFT - 4}" y="${y + BAR}" text-anchor="end" fill="#444">${esc(h.sessionLabels[s]!.slice(0, 12))}</text>`);
    let runStart = -1, runEnd = -1, runStatus = -1;
    const flush = () => {
      if (runStatus < 0) return;
      out.push(`<rect class="txn ${OUTCOME_NAME[runStatus]}" x="${runStart.toFixed(1)}" y="${y + 2}" width="${Math.max(1, runEnd - runStart).toFixed(1)}" height="${BAR}" fill="${OUTCOME_FILL[runStatus]}"/>`);
      runStatus = -1;
    };
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      if (Number.isNaN(start[t]!)) continue;
      const a = x(start[t]!), b = x(end[t]!), st = h.txnStatus[t]!;
      if (st === runStatus && a <= runEnd + 1) { runEnd = Math.max(runEnd, b); continue; }
      flush();
      runStart = a; runEnd = b; runStatus = st;
    }
    flush();
  }

  // Highlighted txns on top, one by one, in time order, each labelled unless the label would
  // run into the previous one in its lane (its bar is still drawn; its title names it).
  const labelEnd = new Map<number, number>();
  const marked = [...highlight].filter((t) => t >= 0 && t < h.txnCount).sort((a, b) => start[a]! - start[b]! || a - b);
  for (const t of marked) {
    if (h.txnSession[t]! >= lanes || Number.isNaN(start[t]!)) continue;
    const s = h.txnSession[t]!;
    const a = x(start[t]!), b = x(end[t]!), y = laneY(s), txn = txnLabel(h, t);
    const st = h.txnStatus[t]!, node = txnNodeLabel(h, t);
    // "T1 on n2" (issue 24): the node where the txn ran, when recorded.
    const label = node === null ? txn : `${txn} on ${node}`;
    out.push(`<g class="txn highlight" data-txn="${esc(txn)}"><title>${esc(`${label}: ${OUTCOME_NAME[st]}, ${start[t]} → ${end[t]} ms`)}</title>` +
      `<rect x="${(a - 1).toFixed(1)}" y="${y}" width="${Math.max(3, b - a + 2).toFixed(1)}" height="${BAR + 4}" fill="${st === TXN_COMMITTED ? '#c0392b' : st === TXN_ABORTED ? '#e67e22' : '#b7950b'}" stroke="#000" stroke-width="1"/>` +
      (labelFits(labelEnd, s, b + 3, label) ? `<text x="${(b + 3).toFixed(1)}" y="${y + BAR}" font-weight="bold">${esc(label)}</text>` : '') + '</g>');
  }

  // The time axis, in seconds from the first event.
  const axisY = TOP + lanes * LANE;
  const step = tickStep(t1 - t0);
  for (let v = 0; v <= t1 - t0 + 1e-9; v += step) {
    const tx = x(t0 + v);
    out.push(`<line x1="${tx.toFixed(1)}" y1="${axisY}" x2="${tx.toFixed(1)}" y2="${axisY + 4}" stroke="#888"/>` +
      `<text x="${tx.toFixed(1)}" y="${axisY + 14}" text-anchor="middle" fill="#555">${+(v / 1000).toFixed(3)} s</text>`);
  }
  out.push('</svg>');
  return out.join('\n');
}

/** A caption for the timeline: what the colours are, and any lanes left out. */
export function timelineCaption(h: History): string {
  const more = h.sessionCount > LANES_MAX ? ` Only the first ${LANES_MAX} of ${h.sessionCount} sessions are drawn.` : '';
  const faults = h.faults?.length ?? 0;
  return `Sessions as lanes, transactions as bars from invocation to completion (blue committed, red aborted, ` +
    `yellow unknown), ${faults === 0 ? 'no faults recorded' : `${faults} fault${faults === 1 ? '' : 's'} as bands`}; ` +
    `the counterexamples' transactions are outlined and named.${more}`;
}
