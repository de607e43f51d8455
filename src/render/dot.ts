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

import { INIT_TXN } from '../check/types.ts';
import { keyLabelDisplay, txnLabelDisplay } from '../explain/facts.ts';
import type { Counterexample, CxEdge, CxStep, CxTxn } from '../explain/types.ts';

/** Operations shown per transaction node; the rest is elided. */
export const DOT_OPS_MAX = 8;

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
  const rows: string[] = [];
  for (let i = 0; i < ops.length; i += 4) rows.push(ops.slice(i, i + 4).join(' '));
  return `${txnName(t)}  (session ${t.session} #${t.index})\n${rows.join('\n')}`;
}

function edgeLabel(e: CxEdge): string {
  const head = e.kind === 'SO' ? 'SO' : `${e.kind}(${e.keyLabel})`;
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
    const head = e.kind === 'SO' ? 'SO' : `${e.kind}(${e.keyLabel})`;
    lines.push(`${pad}${id(e.from)} -> ${id(e.to)} [label=${dotString(head)}, style=dotted, color=gray55, fontcolor=gray40];`);
  }
  return lines;
}

export function anomalyTitle(cx: Counterexample, index?: number): string {
  const keys = [...new Set(cx.edges.filter((e) => e.keyLabel !== null).map((e) => keyLabelDisplay(e.keyLabel!)))];
  const on = keys.length === 0 || keys.length > 3 ? '' : ` on ${keys.join(', ')}`;
  return `${index === undefined ? '' : `Anomaly ${index}: `}${cx.name}${on}`;
}

/** One digraph for one or more counterexamples. */
export function renderDot(cxs: readonly Counterexample[], graphName = 'polysi'): string {
  const lines = [`digraph ${dotString(graphName)} {`];
  lines.push('  graph [fontname="Helvetica", fontsize=11, rankdir=LR, nodesep=0.4, ranksep=0.7];');
  lines.push('  node [fontname="Helvetica", fontsize=10];');
  lines.push('  edge [fontname="Helvetica", fontsize=9];');
  if (cxs.length === 1) {
    lines.push(`  label=${dotString(anomalyTitle(cxs[0]!))}; labelloc=t;`);
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
