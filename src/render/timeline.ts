/**
 * The timeline of a recorded run (issue 24) as inline SVG, for the HTML report: sessions as
 * lanes, transactions as bars from their start to their end, the faults injected as bands
 * across every lane, the counterexamples' transactions highlighted, a session's move to another
 * node marked where it happened, and a legend of what is drawn.
 *
 * Takes: a History with txn times (`txnStart` / `txnEnd`: `polysi run`, JSON Lines "start" /
 * "end"; Elle's `:time`), the txns to highlight (with the numbers of the anomalies they are in),
 * and the times' unit. Gives: the SVG text, or null when the history has no times.
 * Invariant: the size of the drawing is bounded whatever the history's: neighbouring bars of one
 * lane with one outcome that fall within a pixel are merged, and node-change marks closer than a
 * pixel are one (one pass over the txns, in session order, which is time order within a lane);
 * at most LANES_MAX lanes are drawn; highlighted txns are always drawn one by one, on top; no
 * label leaves the drawing or runs into another label of its lane.
 */

import { TXN_ABORTED, TXN_COMMITTED, txnLabel, txnNodeLabel, type History } from '../history/model.ts';

/** Lanes drawn at most (the rest are said in a caption). */
export const LANES_MAX = 200;
/** Width of a bold 10 px character, about, to keep labels apart. */
const LABEL_CHAR_PX = 6.5;
/** Lane labels are cut to this many characters. */
const LANE_LABEL_CHARS_MAX = 18;
const WIDTH = 1000, RIGHT = 12, LANE = 16, BAR = 10, AXIS = 24, LEGEND = 20;
/** Rows of fault labels above the plot (a label that fits in neither is left to its band's title). */
const FAULT_LABEL_ROWS = 2, FAULT_ROW = 12;

const OUTCOME_FILL = ['#9db7d5', '#f0a8a0', '#f3c66b'] as const; // committed, aborted, unknown
/** A highlighted txn: the same hue as its outcome, darker, so the legend's colours keep their meaning. */
const OUTCOME_MARK = ['#2f5f98', '#c0392b', '#b7950b'] as const;
const OUTCOME_NAME = ['committed', 'aborted', 'unknown'] as const;
const FAULT_FILL: Record<string, string> = { kill: '#d9534f', pause: '#6f42c1', partition: '#e08e0b', stall: '#17a2b8' };
/** A label's white outline, so that it stays readable over bars and bands. */
const HALO = 'paint-order="stroke" stroke="#fff" stroke-width="3" stroke-linejoin="round"';

export interface TimelineOptions {
  /** Milliseconds per unit of the history's times (1 for `polysi run`; 1e-6 for Elle's nanoseconds). */
  unitMs?: number;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A tick step (ms) giving about 8-12 ticks over `span` ms: 1, 2 or 5 times a power of ten. */
function tickStep(span: number): number {
  const raw = span / 10;
  const p = 10 ** Math.floor(Math.log10(raw));
  return raw / p < 2 ? p : raw / p < 5 ? 2 * p : 5 * p;
}

/** The unit of the axis' labels for ticks `stepMs` apart: [ms per unit, its name]. */
function axisUnit(stepMs: number): [number, string] {
  if (stepMs >= 100) return [1000, 's'];
  if (stepMs >= 0.1) return [1, 'ms'];
  if (stepMs >= 1e-4) return [1e-3, 'µs'];
  return [1e-6, 'ns'];
}

const labelWidth = (label: string) => label.length * LABEL_CHAR_PX + 4;

/**
 * The labels placed so far, per lane: `end` the right end of the last one placed in x order,
 * `spans` every one placed (the few of highlighted txns), for labels placed later in another order.
 */
interface LaneLabels {
  readonly end: Map<number, number>;
  readonly spans: Map<number, [number, number][]>;
}

/** Whether a label from x in lane s clears the lane's previous label; if so, records it. */
function labelFits(placed: LaneLabels, s: number, x: number, label: string): boolean {
  if (x < (placed.end.get(s) ?? -Infinity)) return false;
  const to = x + labelWidth(label);
  placed.end.set(s, to);
  const spans = placed.spans.get(s);
  if (spans === undefined) placed.spans.set(s, [[x, to]]); else spans.push([x, to]);
  return true;
}

/** The time span drawn (in the history's unit): every start and known end, and every fault. */
function timeSpan(h: History): [number, number] | null {
  const start = h.txnStart!, end = h.txnEnd!;
  let t0 = Infinity, t1 = -Infinity;
  for (let t = 0; t < h.txnCount; t++) {
    const a = start[t]!, b = end[t]!;
    if (Number.isNaN(a)) continue;
    t0 = Math.min(t0, a);
    // An end not recorded (Elle: an :info that never completed) must not poison the span.
    t1 = Math.max(t1, Number.isNaN(b) ? a : b);
  }
  if (t0 === Infinity) return null;
  for (const f of h.faults ?? []) {
    t0 = Math.min(t0, f.start);
    t1 = Math.max(t1, Number.isNaN(f.end) ? f.start : f.end);
  }
  return [t0, t1 <= t0 ? t0 + 1 : t1];
}

/** Lane s's label: the session, and the node its first txn ran on when recorded. */
function laneLabel(h: History, s: number): string {
  let node: string | null = null;
  for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]! && node === null; t++) node = txnNodeLabel(h, t);
  const label = node === null ? h.sessionLabels[s]! : `${h.sessionLabels[s]!} (${node})`;
  return label.length > LANE_LABEL_CHARS_MAX ? `${label.slice(0, LANE_LABEL_CHARS_MAX - 1)}…` : label;
}

/**
 * The run's timeline. `highlight`: the txns to outline, each with the (1-based) numbers of the
 * anomalies it is in when given as a Map (shown after its label: "1.8 on n2 (#1)").
 */
export function renderTimelineSvg(h: History, highlight: ReadonlySet<number> | ReadonlyMap<number, readonly number[]>, opts: TimelineOptions = {}): string | null {
  const start = h.txnStart, end = h.txnEnd;
  if (start === undefined || end === undefined) return null;
  const span = timeSpan(h);
  if (span === null) return null;
  const [t0, t1] = span;
  const unitMs = opts.unitMs ?? 1;
  const lanes = Math.min(h.sessionCount, LANES_MAX);
  const laneLabels = Array.from({ length: lanes }, (_, s) => laneLabel(h, s));
  const left = Math.min(140, Math.max(40, Math.max(...laneLabels.map((l) => l.length)) * 6 + 10));
  const faults = h.faults ?? [];
  const top = faults.length === 0 ? 8 : 6 + FAULT_LABEL_ROWS * FAULT_ROW;
  const plotW = WIDTH - left - RIGHT, plotR = left + plotW;
  const x = (u: number) => left + ((u - t0) / (t1 - t0)) * plotW;
  /** A txn's end as drawn: one never recorded runs to the right edge (it may have taken effect any time after). */
  const endX = (t: number) => (Number.isNaN(end[t]!) ? plotR : x(end[t]!));
  const ms = (u: number) => +(u * unitMs).toFixed(3);
  const laneY = (s: number) => top + s * LANE;
  const plotH = lanes * LANE;
  const height = top + plotH + AXIS + LEGEND;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" class="timeline" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="10">`);
  out.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="#fafafa" stroke="#ddd"/>`);

  // Lanes: labels, then the bars (neighbours within a pixel merged), noting where a session
  // changed node (a reconnect to another server) for the marks drawn later.
  const moves: { s: number; x: number; node: string; title: string }[] = [];
  for (let s = 0; s < lanes; s++) {
    const y = laneY(s);
    out.push(`<text x="${left - 4}" y="${y + BAR}" text-anchor="end" fill="#444">${esc(laneLabels[s]!)}</text>`);
    let runStart = -1, runEnd = -1, runStatus = -1, drawn = 0;
    let prevNode: string | null = null, lastMoveX = -Infinity;
    const flush = () => {
      if (runStatus < 0) return;
      out.push(`<rect class="txn ${OUTCOME_NAME[runStatus]}" x="${runStart.toFixed(1)}" y="${y + 3}" width="${Math.max(1, runEnd - runStart).toFixed(1)}" height="${BAR}" fill="${OUTCOME_FILL[runStatus]}"/>`);
      runStatus = -1;
    };
    for (let t = h.sessionTxnStart[s]!; t < h.sessionTxnStart[s + 1]!; t++) {
      if (Number.isNaN(start[t]!)) continue;
      drawn++;
      const a = x(start[t]!), b = endX(t), st = h.txnStatus[t]!;
      const node = txnNodeLabel(h, t);
      if (node !== null && prevNode !== null && node !== prevNode && a > lastMoveX + 1) {
        moves.push({ s, x: a, node, title: `session ${h.sessionLabels[s]!} moved from ${prevNode} to ${node} at ${ms(start[t]! - t0)} ms (${txnLabel(h, t)})` });
        lastMoveX = a;
      }
      if (node !== null) prevNode = node;
      if (st === runStatus && a <= runEnd + 1) { runEnd = Math.max(runEnd, b); continue; }
      flush();
      runStart = a; runEnd = b; runStatus = st;
    }
    flush();
    if (drawn === 0) out.push(`<text x="${left + 4}" y="${y + BAR}" fill="#999" font-style="italic">no transaction with times in this session</text>`);
  }

  out.push(...faultBands(h, x, top, plotH, plotR, unitMs));
  const placed: LaneLabels = { end: new Map(), spans: new Map() };
  out.push(...highlighted(h, highlight, x, endX, laneY, lanes, left, plotR, placed, ms));
  out.push(...moveMarks(moves, laneY, plotR, placed));

  // The time axis, from the first event, in the unit that suits its ticks (s, ms, µs or ns).
  const axisY = top + plotH;
  const step = tickStep(t1 - t0);
  const [scale, unit] = axisUnit(step * unitMs);
  for (let i = 0; i * step <= t1 - t0 + step * 1e-9; i++) {
    const tx = x(t0 + i * step);
    out.push(`<line x1="${tx.toFixed(1)}" y1="${axisY}" x2="${tx.toFixed(1)}" y2="${axisY + 4}" stroke="#888"/>` +
      `<text x="${tx.toFixed(1)}" y="${axisY + 14}" text-anchor="middle" fill="#555">${+((i * step * unitMs) / scale).toPrecision(6)} ${unit}</text>`);
  }
  out.push(legend(h, moves.length > 0, left, axisY + AXIS + 10));
  out.push('</svg>');
  return out.join('\n');
}

/** The id of the hatch pattern of a fault colour (ids are global in an HTML page: prefixed). */
const hatchId = (fill: string) => `polysi-timeline-hatch-${fill.slice(1)}`;

/**
 * One band per fault across every lane, drawn over the bars (hatched, so the transactions it
 * hit stay visible under it), each named above the plot in the first of FAULT_LABEL_ROWS rows
 * where its label clears the previous one, and kept inside the drawing.
 */
function faultBands(h: History, x: (u: number) => number, top: number, plotH: number, plotR: number, unitMs: number): string[] {
  // Hatched, not tinted: a tint over the bars turns their colours grey; between stripes they keep them.
  const fills = new Set((h.faults ?? []).map((f) => FAULT_FILL[f.kind] ?? '#777'));
  const out: string[] = [`<defs>${[...fills].map((fill) => `<pattern id="${hatchId(fill)}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
    `<rect width="6" height="6" fill="${fill}" fill-opacity="0.08"/><line x1="0" y1="0" x2="0" y2="6" stroke="${fill}" stroke-width="2" stroke-opacity="0.55"/></pattern>`).join('')}</defs>`];
  const rowEnd = new Array<number>(FAULT_LABEL_ROWS).fill(-Infinity);
  for (const f of h.faults ?? []) {
    const healed = !Number.isNaN(f.end);
    const a = x(f.start), b = healed ? x(f.end) : plotR;
    const fill = FAULT_FILL[f.kind] ?? '#777';
    const span = healed ? `${(((f.end - f.start) * unitMs) / 1000).toFixed(2)} s` : 'never healed';
    const label = `${f.kind} ${f.node}`;
    const lx = Math.max(0, Math.min(a + 2, WIDTH - labelWidth(label)));
    const row = rowEnd.findIndex((e) => lx >= e);
    let text = '';
    if (row >= 0) {
      rowEnd[row] = lx + labelWidth(label);
      text = `<text x="${lx.toFixed(1)}" y="${top - 4 - (FAULT_LABEL_ROWS - 1 - row) * FAULT_ROW}" fill="${fill}" font-weight="bold" ${HALO}>${esc(label)}</text>`;
    }
    const w = Math.max(2, b - a);
    out.push(`<g class="fault" data-kind="${esc(f.kind)}" data-node="${esc(f.node)}"><title>${esc(`${label}: ${+(f.start * unitMs).toFixed(3)} → ${healed ? +(f.end * unitMs).toFixed(3) : '…'} ms (${span})`)}</title>` +
      `<rect x="${a.toFixed(1)}" y="${top}" width="${w.toFixed(1)}" height="${plotH}" fill="url(#${hatchId(fill)})" stroke="${fill}" stroke-width="1.5" stroke-dasharray="${healed ? 'none' : '4 2'}"/>` +
      `<line x1="${a.toFixed(1)}" y1="${top - 2}" x2="${a.toFixed(1)}" y2="${top + plotH}" stroke="${fill}" stroke-width="2"/>` + text + '</g>');
  }
  return out;
}

/**
 * The highlighted txns on top, one by one, in time order: darker than their outcome's colour,
 * outlined, each labelled "T on NODE (#i)" to its right (to its left near the right edge) unless
 * the label would run into the previous one of its lane (its title still names it).
 */
function highlighted(
  h: History, highlight: ReadonlySet<number> | ReadonlyMap<number, readonly number[]>, x: (u: number) => number, endX: (t: number) => number,
  laneY: (s: number) => number, lanes: number, left: number, plotR: number, placed: LaneLabels, ms: (u: number) => number,
): string[] {
  const out: string[] = [];
  const start = h.txnStart!, end = h.txnEnd!;
  const ids = highlight instanceof Map ? [...highlight.keys()] : [...highlight as ReadonlySet<number>];
  const marked = ids.filter((t) => t >= 0 && t < h.txnCount && !Number.isNaN(start[t]!) && h.txnSession[t]! < lanes)
    .sort((a, b) => start[a]! - start[b]! || a - b);
  for (const t of marked) {
    const s = h.txnSession[t]!;
    const a = x(start[t]!), b = endX(t), y = laneY(s), txn = txnLabel(h, t);
    const st = h.txnStatus[t]!, node = txnNodeLabel(h, t);
    const inAnomalies: readonly number[] = highlight instanceof Map ? (highlight as ReadonlyMap<number, readonly number[]>).get(t) ?? [] : [];
    // "T1 on n2" (issue 24): the node where the txn ran, when recorded; then its anomalies.
    const label = (node === null ? txn : `${txn} on ${node}`) + (inAnomalies.length === 0 ? '' : ` (${inAnomalies.map((i) => `#${i}`).join(', ')})`);
    const w = labelWidth(label);
    // Right of its outline (at least 4 px wide), else left of it near the right edge.
    const after = Math.max(b, a + 3) + 3;
    const lx = after + w <= plotR ? after : Math.max(left, a - 3 - w);
    const endText = Number.isNaN(end[t]!) ? '…' : `${ms(end[t]!)}`;
    out.push(`<g class="txn highlight" data-txn="${esc(txn)}"><title>${esc(`${label}: ${OUTCOME_NAME[st]}, ${ms(start[t]!)} → ${endText} ms`)}</title>` +
      `<rect x="${(a - 1).toFixed(1)}" y="${y + 1}" width="${Math.max(4, b - a + 2).toFixed(1)}" height="${BAR + 4}" fill="${OUTCOME_MARK[st === TXN_COMMITTED ? 0 : st === TXN_ABORTED ? 1 : 2]}" stroke="#000" stroke-width="1.5"/>` +
      (labelFits(placed, s, lx, label) ? `<text x="${lx.toFixed(1)}" y="${y + BAR + 1}" font-weight="bold" ${HALO}>${esc(label)}</text>` : '') + '</g>');
  }
  return out;
}

/**
 * A mark where a session moved to another node: a black notch over the lane, named when its
 * label fits (inside the plot, clear of the previous mark's label and of every highlighted txn's).
 */
function moveMarks(moves: readonly { s: number; x: number; node: string; title: string }[], laneY: (s: number) => number, plotR: number, placed: LaneLabels): string[] {
  const end = new Map<number, number>();
  return moves.map((m) => {
    const y = laneY(m.s), label = `→${m.node}`;
    const from = m.x + 3, to = from + labelWidth(label);
    const fits = to <= plotR && from >= (end.get(m.s) ?? -Infinity) && !(placed.spans.get(m.s) ?? []).some(([a, b]) => from < b && a < to);
    if (fits) end.set(m.s, to);
    return `<g class="move" data-node="${esc(m.node)}"><title>${esc(m.title)}</title>` +
      `<path d="M${(m.x - 3).toFixed(1)},${y} L${(m.x + 3).toFixed(1)},${y} L${m.x.toFixed(1)},${y + 5} Z" fill="#000"/>` +
      `<line x1="${m.x.toFixed(1)}" y1="${y}" x2="${m.x.toFixed(1)}" y2="${y + BAR + 3}" stroke="#000" stroke-width="1"/>` +
      (fits ? `<text x="${(m.x + 3).toFixed(1)}" y="${y + BAR}" font-size="9" ${HALO}>${esc(label)}</text>` : '') + '</g>';
  });
}

/** The legend under the axis: the outcomes, a highlighted txn, node moves (if any) and each fault kind drawn. */
function legend(h: History, withMoves: boolean, left: number, y: number): string {
  const items: string[] = [];
  let lx = left;
  const item = (swatch: string, text: string) => {
    items.push(`${swatch}<text x="${(lx + 16).toFixed(1)}" y="${y + 9}" fill="#333">${esc(text)}</text>`);
    lx += 16 + labelWidth(text) + 8;
  };
  const box = (fill: string, extra = '') => `<rect x="${lx}" y="${y}" width="12" height="10" fill="${fill}"${extra}/>`;
  OUTCOME_NAME.forEach((name, i) => item(box(OUTCOME_FILL[i]!), name));
  item(box(OUTCOME_MARK[0], ' stroke="#000" stroke-width="1.5"'), 'in a counterexample');
  if (withMoves) item(`<path d="M${lx + 3},${y} L${lx + 9},${y} L${lx + 6},${y + 5} Z" fill="#000"/><line x1="${lx + 6}" y1="${y}" x2="${lx + 6}" y2="${y + 10}" stroke="#000"/>`, 'moved to another node');
  for (const kind of new Set((h.faults ?? []).map((f) => f.kind))) {
    const fill = FAULT_FILL[kind] ?? '#777';
    item(box(`url(#${hatchId(fill)})`, ` stroke="${fill}" stroke-width="1.5"`), `${kind} (fault)`);
  }
  return `<g class="legend">${items.join('')}</g>`;
}

/** A caption for the timeline: what is drawn, and any lanes left out. */
export function timelineCaption(h: History): string {
  const more = h.sessionCount > LANES_MAX ? ` Only the first ${LANES_MAX} of ${h.sessionCount} sessions are drawn.` : '';
  const faults = h.faults?.length ?? 0;
  return `Sessions as lanes (with the node each started on), transactions as bars from invocation to completion ` +
    `(neighbours within a pixel drawn as one), ${faults === 0 ? 'no faults recorded' : `${faults} fault${faults === 1 ? '' : 's'} as bands across the lanes`}; ` +
    `the counterexamples' transactions are outlined and named with the anomalies they are in (#1 is Anomaly 1 below). ` +
    `Hover over a band, a mark or an outlined transaction for its times.${more}`;
}
