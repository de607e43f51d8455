/**
 * A counterexample as text in the style of a proof (Elle §6): "T2 wrote x = 4 and T3 read it,
 * so T2 -WR(x)-> T3. ... If T8's write came first, ... would be a cycle. So ... However ...:
 * a contradiction."
 *
 * Takes: a `Counterexample` (data only; no History needed). Gives: a string. Pure.
 */

import type { Counterexample, CxConstraint, CxCycle, CxEdge, CxStep, CxTxn } from '../result/counterexample.ts';
import { keyLabelDisplay, txnLabelDisplay } from '../explain/facts.ts';
import { INIT_TXN, type CheckResult, type Level } from '../result/types.ts';
import { LEVELS } from '../result/lattice.ts';
import { LEVEL_FORBIDDEN_CYCLES } from '../result/levels.ts';

export interface TextOptions {
  /** "Anomaly 2 of 5" in the heading. */
  index?: number;
  total?: number;
  /** Prefix of every line. */
  indent?: string;
}

/** Each level's name for people, from the lattice (so a new level needs no edit here). */
const LEVEL_NAMES = Object.fromEntries(Object.values(LEVELS).map((i) => [i.name, i.title])) as Record<keyof typeof LEVELS, string>;

class Namer {
  private readonly labels = new Map<number, string>();
  constructor(readonly cx: Counterexample) {
    for (const t of cx.txns) this.labels.set(t.txn, t.txn === INIT_TXN ? 'init' : txnLabelDisplay(t.label));
  }
  t(txn: number): string {
    return this.labels.get(txn) ?? (txn === INIT_TXN ? 'init' : `txn #${txn}`);
  }
  k(e: { keyLabel: string | null }): string {
    return e.keyLabel === null ? '' : keyLabelDisplay(e.keyLabel);
  }
  arrow(e: CxEdge): string {
    return `-${e.kind === 'SO' || e.kind === 'RT' ? e.kind : `${e.kind}(${e.keyLabel})`}->`;
  }
  edge(e: CxEdge): string {
    return `${this.t(e.from)} ${this.arrow(e)} ${this.t(e.to)}`;
  }
  cycle(c: CxCycle): string {
    const edges = c.edges.map((id) => this.cx.edges[id]!);
    if (edges.length === 0) return '';
    return `${this.t(edges[0]!.from)} ${edges.map((e) => `${this.arrow(e)} ${this.t(e.to)}`).join(' ')}`;
  }
  value(v: string | null): string {
    return v === null ? '?' : v;
  }
}

/** A counterexample's class with its description: `G-single (read skew)`, `lost update`, `G1a (aborted read)`. */
export function anomalyLabel(cx: Pick<Counterexample, 'class' | 'description'>): string {
  return cx.description === null ? cx.class : `${cx.class} (${cx.description})`;
}

/** `2 txns, 3 edges`: the size of a cycle as printed, in words that agree with the numbers. */
export function sizeText(txns: number, edges: number): string {
  return `${txns} txn${txns === 1 ? '' : 's'}, ${edges} edge${edges === 1 ? '' : 's'}`;
}

/** The transactions and edges of the named cycle (what the summaries print after the label); null without one. */
export function namedCycleSize(cx: Counterexample): { txns: number; edges: number } | null {
  if (cx.cycle === null) return null;
  return { txns: new Set(namedCycleTxns(cx)).size, edges: cx.cycle.edges.length };
}

export function renderExplanationText(cx: Counterexample, opts: TextOptions = {}): string {
  const nm = new Namer(cx);
  const ind = opts.indent ?? '';
  const lines: string[] = [];
  const counter = opts.index === undefined ? 'Anomaly' : `Anomaly ${opts.index}${opts.total === undefined ? '' : ` of ${opts.total}`}`;
  lines.push(`${counter}: ${anomalyLabel(cx)}, forbidden by ${LEVEL_NAMES[cx.level]}`);
  lines.push(`  ${cx.summary}.`);
  if (cx.selfContained && !cx.minimal) lines.push('  (The time limit cut minimization short: some of these edges may not be needed.)');
  lines.push('');
  const source = cx.txns.find((t) => t.source !== '')?.source;
  lines.push(`  Transactions${source === undefined ? '' : ` (${source})`}:`);
  const width = Math.max(...cx.txns.map((t) => nm.t(t.txn).length));
  for (const t of cx.txns) lines.push(`    ${nm.t(t.txn).padEnd(width)}  ${txnLine(t)}`);
  if (cx.type === 'non-cycle') return lines.map((l) => (l === '' ? l : ind + l)).join('\n');

  const certain = cx.edges.filter((e) => e.status === 'certain');
  lines.push('');
  if (certain.length > 0) {
    lines.push('  From the history:');
    for (const e of certain) lines.push(`    ${certainText(nm, e)}`);
  }
  if (!cx.selfContained) {
    lines.push('  The cycle the checker found (the time limit stopped the explanation before it became a self-contained argument;');
    lines.push('  supposed edges were forced by pruning or chosen by the solver):');
    lines.push(`    ${nm.cycle({ edges: cx.edges.map((e) => e.id), class: 'G1c' })}`);
  } else if (cx.steps.length === 0) {
    lines.push(`  Every choice of the ${cx.constraints.length} write order(s) below closes a cycle (checked by the solver; the case analysis is too long to print):`);
    for (const c of cx.constraints) lines.push(`    ${writers(nm, c)} both write ${keys(c)}`);
  } else {
    lines.push('  Argument:');
    renderSteps(nm, cx.steps, '    ', lines);
  }
  lines.push(`  ${certificateText(cx)}`);
  return lines.map((l) => (l === '' ? l : ind + l)).join('\n');
}

/** One sentence on the independent check of the counterexample (src/explain/certify.ts). */
export function certificateText(cx: Counterexample): string {
  const c = cx.certificate;
  switch (c.status) {
    case 'certified': {
      const m = cx.constraints.length;
      const orders = m === 0 ? 'its certain edges alone hold a forbidden cycle'
        : `all ${c.choices} choices of its ${m} write order${m === 1 ? '' : 's'} leave a forbidden cycle`;
      return `Certified independently of the solver: every edge re-derived from the operations, and ${orders}.`;
    }
    case 'uncertified': return `Not certified independently: ${c.reason}.`;
    case 'failed': return `FAILED its independent check (an internal error): ${c.reason}.`;
    default: return '';
  }
}

/** The cycle the anomaly's name describes, as `T8 -RW(0)-> T3 -WW(0)-> T8`; '' without one. */
export function namedCycleText(cx: Counterexample): string {
  return cx.cycle === null ? '' : new Namer(cx).cycle(cx.cycle);
}

/** The transactions on the named cycle, in cycle order. */
export function namedCycleTxns(cx: Counterexample): number[] {
  if (cx.cycle === null) return [];
  return cx.cycle.edges.map((id) => cx.edges[id]!.from);
}

/**
 * The verdict in one line, shared by the text summary and the HTML report: "SI: VIOLATION — 1
 * anomaly shown (4 more not shown; raise --max-anomalies)", with "at least" when the search for
 * more stopped at a bound.
 */
export function verdictLine(r: CheckResult): string {
  const level = r.level.toUpperCase();
  if (r.verdict === 'valid') return `${level}: VALID — the history satisfies ${LEVEL_NAMES[r.level]}`;
  if (r.verdict === 'unknown') return `${level}: UNKNOWN — ${r.unknownReason ?? 'a limit was hit'}`;
  const n = r.anomalies.length;
  const count = `${n} anomal${n === 1 ? 'y' : 'ies'}`;
  if (!r.truncated) return `${level}: VIOLATION — ${count} found`;
  const more = r.anomaliesNotShown > 0
    ? `${r.anomalySearchComplete ? '' : 'at least '}${r.anomaliesNotShown} more not shown`
    : 'there may be more: the search stopped';
  return `${level}: VIOLATION — ${count} shown (${more}; raise --max-anomalies)`;
}

function txnLine(t: CxTxn): string {
  const role = t.role === 'core' ? '' : t.role === 'context' ? ' [context]' : ' [neighbour]';
  if (t.txn === INIT_TXN) return `the initial transaction${role}`;
  return `session ${t.session} #${t.index}${t.node === undefined ? '' : ` on ${t.node}`}${t.loc === '' ? '' : `, ${t.loc}`}${role}: ${t.ops.join(' ')}`;
}

function certainText(nm: Namer, e: CxEdge): string {
  const T = (x: number) => nm.t(x);
  switch (e.kind) {
    case 'SO':
      return `${T(e.to)} follows ${T(e.from)} in their session, so ${nm.edge(e)}.`;
    case 'RT':
      return `${T(e.to)} was invoked after ${T(e.from)} had committed and returned (real time), so ${nm.edge(e)}.`;
    case 'WR':
      return `${T(e.to)} read ${nm.k(e)} = ${nm.value(e.readValue)}, written by ${T(e.from)}, so ${nm.edge(e)}.`;
    case 'WW':
      return `The reads of ${nm.k(e)} show ${T(e.from)}'s write (${nm.value(e.writtenValue)}) installed before ${T(e.to)}'s (${nm.value(e.toValue)}), so ${nm.edge(e)}.`;
    default:
      return `${T(e.from)} read ${nm.k(e)} = ${nm.value(e.readValue)}${readFromText(nm, e)}, which ${T(e.to)} overwrote with ${nm.value(e.writtenValue)}, so ${nm.edge(e)}.`;
  }
}

function readFromText(nm: Namer, e: CxEdge): string {
  if (e.readFrom === null) return '';
  return e.readFrom === INIT_TXN ? ' (the initial value)' : ` (written by ${nm.t(e.readFrom)})`;
}

function writers(nm: Namer, c: CxConstraint): string {
  return `${nm.t(c.a)} and ${nm.t(c.b)}`;
}

function keys(c: CxConstraint): string {
  const ks = c.keyLabels.map(keyLabelDisplay);
  return ks.length <= 1 ? (ks[0] ?? 'a key') : `${ks.slice(0, -1).join(', ')} and ${ks[ks.length - 1]}`;
}

/** "T2's write of key 0 came first" for one side of a constraint. */
function firstText(nm: Namer, c: CxConstraint, side: 'either' | 'or'): string {
  const [first, second] = side === 'either' ? [c.a, c.b] : [c.b, c.a];
  return `${nm.t(first)}'s write of ${keys(c)} came before ${nm.t(second)}'s`;
}

/** What one supposed or derived edge means: "T3 -RW(0)-> T8, as T3 read key 0 = 4 from T2 and T8 overwrote it". */
function consequence(nm: Namer, e: CxEdge): string {
  if (e.kind !== 'RW') return nm.edge(e);
  const source = e.readFrom === null ? '' : e.readFrom === INIT_TXN ? ' (the initial value)' : ` from ${nm.t(e.readFrom)}`;
  return `${nm.edge(e)}, as ${nm.t(e.from)} read ${nm.k(e)} = ${nm.value(e.readValue)}${source} and ${nm.t(e.to)} overwrote it`;
}

function renderSteps(nm: Namer, steps: readonly CxStep[], pad: string, lines: string[]): void {
  const level = LEVEL_NAMES[nm.cx.level];
  const forbids = forbiddenText(nm.cx.level);
  for (const s of steps) {
    switch (s.kind) {
      case 'forced': {
        const c = nm.cx.constraints[s.constraint]!;
        const other = s.side === 'either' ? 'or' : 'either';
        const refuted = nm.cx.edges[s.refuted]!;
        const derived = s.derived.map((id) => consequence(nm, nm.cx.edges[id]!));
        lines.push(`${pad}${s.n}. ${writers(nm, c)} both write ${keys(c)}. If ${firstText(nm, c, other)}, then ${consequence(nm, refuted)}, ` +
          `and ${nm.cycle(s.cycle)} would be ${cycleWord(nm)}. So ${firstText(nm, c, s.side)}: ${derived.join('; ')}.`);
        break;
      }
      case 'contradiction':
        lines.push(`${pad}${s.n}. ${s.n === 1 ? 'These edges form' : 'Now there is'} ${nm.cycle(s.cycle)}, ${forbids}: a contradiction.`);
        break;
      case 'dilemma': {
        const c = nm.cx.constraints[s.constraint]!;
        const first = nm.cx.edges[s.either.edges[0]!]!, second = nm.cx.edges[s.or.edges[0]!]!;
        lines.push(`${pad}${s.n}. ${writers(nm, c)} both write ${keys(c)}. If ${firstText(nm, c, 'either')}, then ${consequence(nm, first)}, ` +
          `and ${nm.cycle(s.either)} is ${cycleWord(nm)}; if ${firstText(nm, c, 'or')}, then ${consequence(nm, second)}, ` +
          `and ${nm.cycle(s.or)} is ${cycleWord(nm)}. Either way ${level} is violated: a contradiction.`);
        break;
      }
      default: {
        const c = nm.cx.constraints[s.constraint]!;
        lines.push(`${pad}${s.n}. ${writers(nm, c)} both write ${keys(c)}; neither order is ruled out yet, so take each in turn.`);
        lines.push(`${pad}   Case ${firstText(nm, c, 'either')}:`);
        renderSteps(nm, s.either, `${pad}     `, lines);
        lines.push(`${pad}   Case ${firstText(nm, c, 'or')}:`);
        renderSteps(nm, s.or, `${pad}     `, lines);
        lines.push(`${pad}   Both cases end in a contradiction.`);
      }
    }
  }
}

function cycleWord(nm: Namer): string {
  switch (nm.cx.level) {
    case 'si': case 'pc': case 'psi': case 'rr': case 'pl-si': case 'pl-3': case 'strict-si': return 'a forbidden cycle';
    case 'ser': case 'strict-ser': return 'a cycle';
    case 'pl-1': case 'ru': case 'pl-2': case 'mav': case 'rc': case 'ss-rc': case 'ra': case 'tcc': return `a cycle ${LEVEL_NAMES[nm.cx.level]} forbids`;
  }
}

/** What the level forbids, for the final step of an argument. */
function forbiddenText(level: Level): string {
  switch (level) {
    case 'si': return 'a cycle without two consecutive RW edges, which snapshot isolation forbids';
    case 'ser': return 'a cycle, which serializability forbids';
    case 'ru': return 'a cycle of session order and write order (G0), which read uncommitted forbids';
    case 'pl-1': return 'a cycle of write order (G0), which read uncommitted (PL-1) forbids';
    case 'pl-2': return 'a cycle of write order and reads (G1c), which read committed (PL-2) forbids';
    case 'mav': case 'rc': case 'ss-rc': case 'ra': case 'tcc':
      return `a cycle in the order the versions must have been committed in, which ${LEVEL_NAMES[level]} forbids`;
    case 'pc': case 'psi': case 'rr': case 'pl-si': case 'pl-3': case 'strict-si': case 'strict-ser':
      return `${LEVEL_FORBIDDEN_CYCLES[level]}, which ${LEVEL_NAMES[level]} forbids`;
  }
}
