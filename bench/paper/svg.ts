/**
 * Line charts as SVG text, written by hand (no charting dependency).
 *
 * Takes: a figure (title, subtitle, series names and panels, each with x labels and one y value
 * per series and x, null for a missing point). Gives: one standalone SVG document: the title,
 * a legend shared by the panels, then the panels in a grid, each with axes, ticks, axis titles
 * and a polyline plus a dot per point for every series.
 * Invariant: the output is well-formed XML (every text goes through `esc`); numeric x values
 * are placed to scale, other x values evenly; y starts at 0 (linear) or spans whole decades (log).
 */

export interface Panel {
  title: string;
  xLabel: string;
  yLabel: string;
  /** The x values in order; placed to scale when all are numbers. */
  x: (number | string)[];
  /** y[s][i]: series s at x[i]; null leaves a gap. */
  y: (number | null)[][];
  logY?: boolean;
}

export interface Figure {
  title: string;
  subtitle: string;
  series: string[];
  panels: Panel[];
  columns: number;
}

const PANEL_W = 380, PANEL_H = 270;
const M = { left: 64, right: 16, top: 30, bottom: 48 };
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#111111', '#17becf', '#8c564b'];

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** 0.1 -> "0.1", 2000 -> "2k", 1500000 -> "1.5M". */
export function shortNumber(v: number): string {
  const a = Math.abs(v);
  const trim = (x: number) => String(Math.round(x * 100) / 100);
  if (a >= 1e6) return `${trim(v / 1e6)}M`;
  if (a >= 1e3) return `${trim(v / 1e3)}k`;
  return trim(v);
}

/** Tick values from 0 to at least max: 1, 2 or 5 times a power of ten, about five of them. */
export function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let t = 0; t < max + step * 1e-9; t += step) ticks.push(Math.round(t * 1e9) / 1e9);
  if (ticks[ticks.length - 1]! < max) ticks.push(Math.round((ticks[ticks.length - 1]! + step) * 1e9) / 1e9);
  return ticks;
}

function fmt(n: number): string {
  return String(Math.round(n * 10) / 10);
}

function panelSvg(p: Panel, ox: number, oy: number): string {
  const w = PANEL_W - M.left - M.right, h = PANEL_H - M.top - M.bottom;
  const x0 = ox + M.left, y0 = oy + M.top;
  const out: string[] = [];
  const numeric = p.x.every((v) => typeof v === 'number');
  const xs = p.x.map((v) => v as number);
  const xMin = numeric ? Math.min(...xs) : 0, xMax = numeric ? Math.max(...xs) : p.x.length - 1;
  const pad = p.x.length === 1 ? 0.5 : 0.06 * (numeric ? xMax - xMin : p.x.length - 1);
  const xPos = (i: number) => {
    const v = numeric ? xs[i]! : i;
    const lo = (numeric ? xMin : 0) - pad, hi = (numeric ? xMax : p.x.length - 1) + pad;
    return x0 + ((v - lo) / (hi - lo || 1)) * w;
  };
  const values = p.y.flat().filter((v): v is number => v !== null && Number.isFinite(v));
  let yPos: (v: number) => number, ticks: number[];
  if (p.logY === true) {
    const pos = values.filter((v) => v > 0);
    const lo = Math.floor(Math.log10(Math.min(...pos, 1))), hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(...pos, 1))));
    ticks = [];
    for (let e = lo; e <= hi; e++) ticks.push(10 ** e);
    // Zero has no place on a log axis: it is drawn on the bottom line.
    yPos = (v) => y0 + h - ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * h;
  } else {
    ticks = niceTicks(Math.max(0, ...values));
    const top = ticks[ticks.length - 1]!;
    yPos = (v) => y0 + h - (v / top) * h;
  }
  out.push(`<text x="${fmt(ox + PANEL_W / 2)}" y="${fmt(oy + 18)}" text-anchor="middle" font-size="13" font-weight="bold">${esc(p.title)}</text>`);
  // Grid lines and y ticks.
  for (const t of ticks) {
    const y = yPos(t);
    out.push(`<line x1="${fmt(x0)}" y1="${fmt(y)}" x2="${fmt(x0 + w)}" y2="${fmt(y)}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${fmt(x0 - 6)}" y="${fmt(y + 4)}" text-anchor="end" font-size="11">${esc(shortNumber(t))}</text>`);
  }
  // Axes.
  out.push(`<line x1="${fmt(x0)}" y1="${fmt(y0 + h)}" x2="${fmt(x0 + w)}" y2="${fmt(y0 + h)}" stroke="#333"/>`);
  out.push(`<line x1="${fmt(x0)}" y1="${fmt(y0)}" x2="${fmt(x0)}" y2="${fmt(y0 + h)}" stroke="#333"/>`);
  p.x.forEach((v, i) => {
    const x = xPos(i);
    out.push(`<line x1="${fmt(x)}" y1="${fmt(y0 + h)}" x2="${fmt(x)}" y2="${fmt(y0 + h + 4)}" stroke="#333"/>`);
    out.push(`<text x="${fmt(x)}" y="${fmt(y0 + h + 17)}" text-anchor="middle" font-size="11">${esc(typeof v === 'number' ? shortNumber(v) : v)}</text>`);
  });
  out.push(`<text x="${fmt(x0 + w / 2)}" y="${fmt(oy + PANEL_H - 8)}" text-anchor="middle" font-size="12">${esc(p.xLabel)}</text>`);
  const ly = y0 + h / 2, lx = ox + 14;
  out.push(`<text x="${fmt(lx)}" y="${fmt(ly)}" text-anchor="middle" font-size="12" transform="rotate(-90 ${fmt(lx)} ${fmt(ly)})">${esc(p.yLabel)}</text>`);
  // Series: a polyline through consecutive present points, and a dot on each.
  p.y.forEach((ys, s) => {
    const color = COLORS[s % COLORS.length]!;
    let run: string[] = [];
    const flush = () => {
      if (run.length > 1) out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${run.join(' ')}"/>`);
      run = [];
    };
    ys.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) { flush(); return; }
      run.push(`${fmt(xPos(i))},${fmt(yPos(v))}`);
    });
    flush();
    ys.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) return;
      out.push(`<circle cx="${fmt(xPos(i))}" cy="${fmt(yPos(v))}" r="3" fill="${color}"><title>${esc(`${p.x[i]}: ${v}`)}</title></circle>`);
    });
  });
  return out.join('\n');
}

export function renderFigure(f: Figure): string {
  const cols = Math.max(1, Math.min(f.columns, f.panels.length));
  const rows = Math.ceil(f.panels.length / cols);
  const head = 72;
  // Wide enough for the title, subtitle and legend too (about 9, 6 and 7 px per character),
  // the panels centred in it.
  const itemW = f.series.map((s) => 28 + s.length * 7);
  const width = Math.ceil(Math.max(cols * PANEL_W, f.title.length * 9 + 40, f.subtitle.length * 6 + 40, itemW.reduce((a, b) => a + b, 0) + 40));
  const height = head + rows * PANEL_H + 8;
  const left = (width - cols * PANEL_W) / 2;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="16" font-weight="bold">${esc(f.title)}</text>`,
    `<text x="${width / 2}" y="40" text-anchor="middle" font-size="11" fill="#555">${esc(f.subtitle)}</text>`,
  ];
  // The legend, centred on one line: a colour swatch and a name per series.
  let x = (width - itemW.reduce((a, b) => a + b, 0)) / 2;
  f.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    out.push(`<line x1="${fmt(x)}" y1="58" x2="${fmt(x + 18)}" y2="58" stroke="${color}" stroke-width="3"/>`);
    out.push(`<text x="${fmt(x + 23)}" y="62" font-size="12">${esc(s)}</text>`);
    x += itemW[i]!;
  });
  f.panels.forEach((p, i) => {
    out.push(panelSvg(p, left + (i % cols) * PANEL_W, head + Math.floor(i / cols) * PANEL_H));
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
