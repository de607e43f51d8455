/**
 * DOT to SVG without a system Graphviz: the WebAssembly build of Graphviz in `@viz-js/viz`.
 *
 * Takes: DOT text, or counterexamples. Gives: SVG text (a Promise: the WASM module loads
 * asynchronously, once per process, on first use; about 0.1 s).
 * Layout cost grows quickly with graph size, so counterexamples past SVG_TXNS_MAX transactions
 * or SVG_EDGES_MAX edges are not laid out: a small SVG says so instead (the DOT is still written).
 */

import type { Counterexample } from '../explain/types.ts';
import { renderDot } from './dot.ts';

export const SVG_TXNS_MAX = 80;
export const SVG_EDGES_MAX = 400;

type Viz = { renderString(src: string, options: { format: string; engine?: string }): string };
let vizPromise: Promise<Viz> | null = null;

function viz(): Promise<Viz> {
  if (vizPromise === null) vizPromise = import('@viz-js/viz').then((m) => m.instance());
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

/** The SVG of one or more counterexamples drawn together, or a placeholder past the size caps. */
export async function renderSvg(cxs: readonly Counterexample[]): Promise<string> {
  const big = tooLargeToDraw(cxs);
  if (big !== null) return emptySvg(big);
  return dotToSvg(renderDot(cxs));
}
