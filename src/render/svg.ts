/**
 * DOT to SVG without a system Graphviz: the WebAssembly build of Graphviz in `@viz-js/viz`.
 *
 * Takes: DOT text, or counterexamples. Gives: SVG text (a Promise: the WASM module loads
 * asynchronously, once per process, on first use; about 0.1 s).
 * Layout cost grows quickly with graph size, so counterexamples past SVG_TXNS_MAX transactions
 * or SVG_EDGES_MAX edges are not laid out: a small SVG says so instead (the DOT is still written).
 */

import type { Counterexample } from '../result/counterexample.ts';
import { legendDot, renderDot } from './dot.ts';
import { importOptional } from '../util/optional.ts';

export const SVG_TXNS_MAX = 80;
export const SVG_EDGES_MAX = 400;

type Viz = { renderString(src: string, options: { format: string; engine?: string }): string };
let vizPromise: Promise<Viz> | null = null;

function viz(): Promise<Viz> {
  if (vizPromise === null) vizPromise = importOptional('@viz-js/viz', () => import('@viz-js/viz')).then((m) => m.instance());
  return vizPromise;
}

/** SVG for DOT text (the XML prologue dropped, so it can be inlined in HTML as it is). */
export async function dotToSvg(dot: string): Promise<string> {
  const svg = (await viz()).renderString(dot, { format: 'svg', engine: 'dot' });
  return svg.slice(svg.indexOf('<svg'));
}

export function tooLargeToDraw(cxs: readonly Counterexample[]): string | null {
  const txns = cxs.reduce((n, cx) => n + cx.txns.length, 0);
  const edges = cxs.reduce((n, cx) => n + cx.edges.length + cx.context.length, 0);
  if (txns <= SVG_TXNS_MAX && edges <= SVG_EDGES_MAX) return null;
  return `${txns} transactions and ${edges} edges: too large to lay out (limits ${SVG_TXNS_MAX} and ${SVG_EDGES_MAX}); see the text or the DOT`;
}

/** A one-line SVG carrying a message (for empty or too large drawings). */
export function emptySvg(message: string): string {
  const esc = message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="720" height="40" viewBox="0 0 720 40">` +
    `<text x="8" y="24" font-family="Helvetica, sans-serif" font-size="13">${esc}</text></svg>`;
}

export interface SvgOptions {
  /** Draw the legend (edge styles and what the labels mean) above the anomalies. Default true. */
  legend?: boolean;
}

/**
 * The SVG of one or more counterexamples, or a placeholder past the size caps. Each anomaly is
 * laid out on its own and they are stacked top to bottom in order (one Graphviz layout of
 * several clusters puts them wherever it likes, often anomaly 2 above anomaly 1), under the
 * legend unless `legend` is false.
 */
export async function renderSvg(cxs: readonly Counterexample[], opts: SvgOptions = {}): Promise<string> {
  const big = tooLargeToDraw(cxs);
  if (big !== null) return emptySvg(big);
  const parts: string[] = [];
  if (opts.legend !== false) parts.push(await dotToSvg(legendDot()));
  for (let i = 0; i < cxs.length; i++) parts.push(await dotToSvg(renderDot([cxs[i]!], 'polysi', cxs.length > 1 ? i + 1 : undefined)));
  return parts.length === 1 ? parts[0]! : stackSvgs(parts);
}

/** Vertical gap between stacked drawings, in points. */
const STACK_GAP_PT = 12;

/** Width and height (in points) of a Graphviz SVG (`width="333pt"`) or of our placeholder (`width="720"`). */
function svgSize(svg: string): { w: number; h: number } {
  const head = svg.slice(0, svg.indexOf('>'));
  const w = /\bwidth="([\d.]+)(?:pt)?"/.exec(head), h = /\bheight="([\d.]+)(?:pt)?"/.exec(head);
  if (w === null || h === null) throw new Error('internal error: an SVG without width and height');
  return { w: Number(w[1]), h: Number(h[1]) };
}

/** One SVG holding the given ones top to bottom, each as a nested <svg> at its offset. */
export function stackSvgs(svgs: readonly string[]): string {
  let y = 0, width = 0;
  const placed = svgs.map((svg) => {
    const { w, h } = svgSize(svg);
    // Re-open the nested element with its place in the outer one; the rest of it is kept as is.
    const open = svg.slice(0, svg.indexOf('>'))
      .replace(/\bwidth="[^"]*"/, `width="${w}"`).replace(/\bheight="[^"]*"/, `height="${h}"`);
    const nested = `${open} x="0" y="${y}"${svg.slice(svg.indexOf('>'))}`;
    y += h + STACK_GAP_PT;
    width = Math.max(width, w);
    return nested;
  });
  const height = Math.max(0, y - STACK_GAP_PT);
  return `<svg width="${width}pt" height="${height}pt" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\n` +
    `${placed.join('\n')}\n</svg>\n`;
}

/** The legend alone (the HTML report draws it once above its anomalies and lists the labels as text). */
export async function legendSvg(withLabels = true): Promise<string> {
  return dotToSvg(legendDot(withLabels));
}
