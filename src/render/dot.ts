/**
 * Counterexamples as Graphviz DOT: only their own transactions (and, when asked, context and
 * session neighbours), never the whole history, since laying out big graphs is slow.
 *
 * Takes: one or more `Counterexample`s. Gives: one `digraph`, with a cluster per anomaly when
 * there are several, and a cluster per session inside.
 * Drawing conventions (the legend in docs/explain.md):
 *   certain edge: solid black; derived edge: solid blue, labelled with its step;
 *   hypothetical edge (a supposed side of a write order): dashed red;
 *   context edge (the read and write behind an RW edge, or session order to a neighbour): dotted grey;
 *   edges of the cycles the argument ends with are drawn thicker;
 *   context and neighbour transactions are grey.
 */

import { INIT_TXN } from '../result/types.ts';
import { keyLabelDisplay, txnLabelDisplay } from '../explain/facts.ts';
import type { Counterexample, CxEdge, CxStep, CxTxn } from '../result/counterexample.ts';
import { anomalyLabel } from './text.ts';

/** Operations shown per transaction node; the rest is elided. */
export const DOT_OPS_MAX = 8;
/** Characters per row of operations in a transaction's box (four `r(123,456)` fit). */
const DOT_ROW_CHARS = 48;

export function dotString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

function txnName(t: CxTxn): string {
  return t.txn === INIT_TXN ? 'init' : txnLabelDisplay(t.label);
}

/** The transaction's operations on the counterexample's keys (all of them if it has few). */
function nodeLabel(t: CxTxn): string {
  if (t.txn === INIT_TXN) return 'init\n(initial values)';
  const chosen = t.ops.length <= DOT_OPS_MAX ? t.ops : t.focus.slice(0, DOT_OPS_MAX).map((i) => t.ops[i]!);
  const rest = t.ops.length - chosen.length;
  const ops = rest > 0 ? [...chosen, `(+${rest} more ops)`] : chosen;
  // Rows by width, not by count: Graphviz sizes the box with its own font metrics, and long
  // operations four to a row (a program's `r Account[6].Balance = 2 (initial)`) overflowed it.
  const rows: string[] = [];
  for (const op of ops) {
    const last = rows.length - 1;
    if (last >= 0 && rows[last]!.length + 1 + op.length <= DOT_ROW_CHARS) rows[last] += ` ${op}`;
    else rows.push(op);
  }
  return `${txnName(t)}  (session ${t.session} #${t.index}${t.node === undefined ? '' : ` on ${t.node}`})\n${rows.join('\n')}`;
}

function edgeLabel(e: CxEdge): string {
  const head = e.kind === 'SO' || e.kind === 'RT' ? e.kind : `${e.kind}(${e.keyLabel})`;
  let value = '';
  if (e.kind === 'WR' || e.kind === 'RW') value = e.readValue === null ? '' : ` r=${e.readValue}`;
  else if (e.kind === 'WW') value = e.writtenValue === null ? '' : ` ${e.writtenValue}<${e.toValue}`;
  const tag = e.status === 'derived' ? `\n(derived, step ${e.step})` : e.status === 'hypothetical' ? '\n(supposed)' : '';
  return `${head}${value}${tag}`;
}

/** Edge ids on the cycles the argument ends with. */
function finalCycleEdges(steps: readonly CxStep[], into: Set<number>): Set<number> {
  for (const s of steps) {
    if (s.kind === 'contradiction') s.cycle.edges.forEach((id) => into.add(id));
    else if (s.kind === 'dilemma') { s.either.edges.forEach((id) => into.add(id)); s.or.edges.forEach((id) => into.add(id)); }
    else if (s.kind === 'cases') { finalCycleEdges(s.either, into); finalCycleEdges(s.or, into); }
  }
  return into;
}

function body(cx: Counterexample, prefix: string, pad: string): string[] {
  const lines: string[] = [];
  const id = (t: number) => dotString(`${prefix}t${t}`);
  const sessions = new Map<string, CxTxn[]>();
  for (const t of cx.txns) {
    const list = sessions.get(t.session);
    if (list === undefined) sessions.set(t.session, [t]); else list.push(t);
  }
  let si = 0;
  for (const [session, txns] of sessions) {
    lines.push(`${pad}subgraph ${dotString(`cluster_${prefix}s${si++}`)} {`);
    lines.push(`${pad}  label=${dotString(session === '-' ? 'initial state' : `session ${session}`)}; style=dashed; color=gray70; fontcolor=gray40;`);
    for (const t of txns) {
      const style = t.role === 'core' ? 'shape=box, style="rounded"' : 'shape=box, style="rounded,dashed", color=gray55, fontcolor=gray40';
      lines.push(`${pad}  ${id(t.txn)} [${style}, label=${dotString(nodeLabel(t))}];`);
    }
    lines.push(`${pad}}`);
  }
  const bold = finalCycleEdges(cx.steps, new Set());
  for (const e of cx.edges) {
    const attrs = [`label=${dotString(edgeLabel(e))}`];
    if (e.status === 'derived') attrs.push('color=blue', 'fontcolor=blue');
    else if (e.status === 'hypothetical') attrs.push('color=red', 'fontcolor=red', 'style=dashed');
    if (bold.has(e.id)) attrs.push('penwidth=2');
    lines.push(`${pad}${id(e.from)} -> ${id(e.to)} [${attrs.join(', ')}];`);
  }
  for (const e of cx.context) {
    const head = e.kind === 'SO' || e.kind === 'RT' ? e.kind : `${e.kind}(${e.keyLabel})`;
    lines.push(`${pad}${id(e.from)} -> ${id(e.to)} [label=${dotString(head)}, style=dotted, color=gray55, fontcolor=gray40];`);
  }
  return lines;
}

/**
 * How to read a drawing, in words: the edge styles, and what the values in an edge's label mean
 * (e.g. `WW(377) 7<2`). Shared by the legend drawn in standalone SVGs and the HTML report.
 */
export const LEGEND_STYLES: readonly { text: string; attrs: string }[] = [
  { text: 'certain: follows from the history', attrs: '' },
  { text: 'derived: forced by the numbered step', attrs: 'color=blue, fontcolor=blue' },
  { text: 'supposed: one order of two writes, ruled out', attrs: 'color=red, fontcolor=red, style=dashed' },
  { text: 'context: the read and write behind an RW edge', attrs: 'style=dotted, color=gray55, fontcolor=gray40' },
  { text: 'thick: on the cycle the argument ends with', attrs: 'penwidth=2' },
];

export const LEGEND_LABELS: readonly string[] = [
  'SO: session order (the source ran before the target in one session)',
  'WR(k) r=v: the target read value v of key k, written by the source',
  'WW(k) a<b: the source\'s write of key k (value a) was installed before the target\'s (value b)',
  'RW(k) r=v: the source read value v of key k, a version older than the target\'s write of k',
  'In a box: the transaction, its session and position there, and its operations on these keys:',
  'r(k,v) read value v of key k, w(k,v) wrote v, "init" is the initial value.',
];

const LEGEND_LINE_CHARS = 58;

/** Word-wraps `s` at `width` characters; continuation lines are indented. */
function wrap(s: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of s.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) { out.push(line); line = `    ${word}`; }
    else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') out.push(line);
  return out;
}

/** The legend as its own small DOT graph: one sample edge per style, then (`withLabels`) the label key. */
export function legendDot(withLabels = true): string {
  const lines = ['digraph "legend" {'];
  lines.push('  graph [fontname="Helvetica", fontsize=10, rankdir=LR, nodesep=0.22, ranksep=2.6, labelloc=b, labeljust=l,');
  // `\l` ends a left-justified line in a DOT label (dotString would escape the backslash). Short
  // lines: browsers without Helvetica fall back to a wider font than Graphviz measured.
  const text = ['Edge labels:', ...LEGEND_LABELS.flatMap((l) => wrap(l, LEGEND_LINE_CHARS))]
    .map((l) => `${l.replace(/"/g, '\\"')}\\l`).join('');
  lines.push(withLabels ? `    label="${text}"];` : '  ];');
  lines.push('  node [shape=point, width=0.04, color=gray60];');
  lines.push('  edge [fontname="Helvetica", fontsize=9];');
  LEGEND_STYLES.forEach((st, i) => {
    const attrs = [`label=${dotString(st.text)}`, ...(st.attrs === '' ? [] : [st.attrs])];
    lines.push(`  "l${i}a" -> "l${i}b" [${attrs.join(', ')}];`);
  });
  // Keep the samples stacked in this order.
  lines.push(`  { rank=same; ${LEGEND_STYLES.map((_, i) => `"l${i}a"`).join('; ')} }`);
  lines.push(`  ${LEGEND_STYLES.map((_, i) => `"l${i}a"`).join(' -> ')} [style=invis];`);
  lines.push('}');
  return lines.join('\n') + '\n';
}

export function anomalyTitle(cx: Counterexample, index?: number): string {
  const keys = [...new Set(cx.edges.filter((e) => e.keyLabel !== null).map((e) => keyLabelDisplay(e.keyLabel!)))];
  const on = keys.length === 0 || keys.length > 3 ? '' : ` on ${keys.join(', ')}`;
  return `${index === undefined ? '' : `Anomaly ${index}: `}${anomalyLabel(cx)}${on}`;
}

/**
 * One digraph for one or more counterexamples (`index`: number the title of a single one, as in
 * "Anomaly 2: ..."). `newrank` ranks all nodes together rather than cluster by cluster: without
 * it, two transactions of different sessions that write to each other (a lost update's two
 * writers) land in the same rank, and the labels of the edges between them print on top of
 * each other.
 */
export function renderDot(cxs: readonly Counterexample[], graphName = 'polysi', index?: number): string {
  const lines = [`digraph ${dotString(graphName)} {`];
  lines.push('  graph [fontname="Helvetica", fontsize=11, rankdir=LR, newrank=true, nodesep=0.4, ranksep=0.7];');
  // Wider margins than Graphviz's default: browsers often fall back to a wider font than the
  // one Graphviz measured, and the operations would spill out of their box.
  lines.push('  node [fontname="Helvetica", fontsize=10, margin="0.2,0.06"];');
  lines.push('  edge [fontname="Helvetica", fontsize=9];');
  if (cxs.length === 1) {
    lines.push(`  label=${dotString(anomalyTitle(cxs[0]!, index))}; labelloc=t;`);
    lines.push(...body(cxs[0]!, 'a1_', '  '));
  } else {
    cxs.forEach((cx, i) => {
      lines.push(`  subgraph ${dotString(`cluster_a${i + 1}`)} {`);
      lines.push(`    label=${dotString(anomalyTitle(cx, i + 1))}; labelloc=t; style=solid; color=gray30;`);
      lines.push(...body(cx, `a${i + 1}_`, '    '));
      lines.push('  }');
    });
  }
  lines.push('}');
  return lines.join('\n') + '\n';
}
