/**
 * Renderings of counterexamples: text (a proof), Graphviz DOT, SVG (WebAssembly Graphviz, async)
 * and a self-contained HTML report. Pure functions returning strings; nothing here prints.
 */

export { renderExplanationText, anomalyLabel, sizeText, namedCycleSize, certificateText, namedCycleText, namedCycleTxns, verdictLine, type TextOptions } from './text.ts';
export { renderDot, legendDot, anomalyTitle, DOT_OPS_MAX, LEGEND_STYLES, LEGEND_LABELS } from './dot.ts';
export { renderSvg, dotToSvg, emptySvg, legendSvg, stackSvgs, SVG_TXNS_MAX, SVG_EDGES_MAX, type SvgOptions } from './svg.ts';
export { htmlReport, renderHtml, type ReportSource, type ReportAnomaly } from './html.ts';
