/**
 * One sentence per anomaly, in the words of the literature, built from the cycle that named it.
 *
 * Takes: the history, its FactIndex, the anomaly's class and description (name.ts) and that
 * cycle (edges in order). Gives a
 * sentence such as "T3 and T8 both read key 0 = 4 and both wrote key 0: one overwrote the other's
 * update without seeing it". Pure; the text renderer prints it above the argument.
 */

import type { History } from '../history/model.ts';
import { LEVEL_TITLES, type Level } from '../result/types.ts';
import { keyDisplay, txnDisplay, type FactIndex } from './facts.ts';
import type { AnomalyClass, AnomalyDescription } from '../result/counterexample.ts';
import type { NameEdge } from './name.ts';

type SummaryEdge = NameEdge;

export function edgeText(h: History, e: SummaryEdge): string {
  const k = e.kind;
  return `-${k === 'SO' || k === 'RT' ? k : `${k}(${h.keyLabels[e.key]})`}->`;
}

/** `T1 -SO-> T2 -RW(x)-> T1` */
export function cycleText(h: History, cycle: readonly SummaryEdge[]): string {
  if (cycle.length === 0) return '';
  return `${txnDisplay(h, cycle[0]!.from)} ${cycle.map((e) => `${edgeText(h, e)} ${txnDisplay(h, e.to)}`).join(' ')}`;
}

/** The cycle rotated so that it ends with its last RW edge (or unchanged without one). */
function endingWithRw(cycle: readonly SummaryEdge[]): SummaryEdge[] {
  let at = -1;
  cycle.forEach((e, i) => { if (e.kind === 'RW') at = i; });
  const start = (at + 1) % cycle.length;
  return [...cycle.slice(start), ...cycle.slice(0, start)];
}

export function summarize(
  h: History, facts: FactIndex, level: Level, named: { class: AnomalyClass; description: AnomalyDescription | null }, cycle: readonly SummaryEdge[],
): string {
  const T = (t: number) => txnDisplay(h, t);
  const K = (k: number) => keyDisplay(h, k);
  const levelName = LEVEL_TITLES[level];
  const c = endingWithRw(cycle);
  const rws = c.filter((e) => e.kind === 'RW');
  const readText = (t: number, k: number) => {
    const r = facts.readOf(t, k);
    const v = facts.readValue(t, k);
    return r === null ? `read ${K(k)}` : `read ${K(k)} = ${v}${r.writer >= 0 ? ` (written by ${T(r.writer)})` : ' (the initial value)'}`;
  };
  switch (named.class === 'lost update' || named.class === 'OTV' ? named.class : named.description) {
    case 'lost update': {
      // Named so only when both read the key from the same writer (name.ts).
      const rw = rws[0]!;
      const r = rw.from, w = rw.to, k = rw.key;
      const source = facts.readOf(r, k)!.writer;
      return `${T(Math.min(r, w))} and ${T(Math.max(r, w))} both read ${K(k)} = ${facts.readValue(r, k)}` +
        `${source >= 0 ? ` (written by ${T(source)})` : ' (the initial value)'} and both wrote ${K(k)}: ` +
        'whichever committed second overwrote the other\'s update without seeing it';
    }
    case 'long fork': {
      const [r1, r2] = rws as [SummaryEdge, SummaryEdge];
      return `${T(r1.from)} saw ${T(r2.to)}'s writes but not ${T(r1.to)}'s write of ${K(r1.key)}, while ${T(r2.from)} saw ` +
        `${T(r1.to)}'s writes but not ${T(r2.to)}'s write of ${K(r2.key)}: the two writes were observed in opposite orders`;
    }
    case 'OTV': {
      const rw = rws[0]!;
      const wr = c.find((e) => e.kind !== 'RW')!;
      return `${T(rw.from)} read ${T(wr.from)}'s write of ${K(wr.key)}, then ${readText(rw.from, rw.key)}, a version ${T(wr.from)} ` +
        `overwrote: ${T(wr.from)} vanished from its view (observed transaction vanishes)`;
    }
    case 'read skew': case 'fractured read': {
      const rw = rws[0]!;
      const wr = c.find((e) => e.kind !== 'RW')!;
      return `${T(rw.from)} saw ${T(wr.from)}'s write of ${K(wr.key)} but not its write of ${K(rw.key)} ` +
        `(it ${readText(rw.from, rw.key)}): it observed only part of ${T(wr.from)}'s writes (fractured read)`;
    }
    case 'session guarantee violation': {
      const rw = rws[0]!;
      return `${T(rw.from)} ${readText(rw.from, rw.key)}, missing the write ${K(rw.key)} = ${facts.writtenValue(rw.to, rw.key)} ` +
        `of ${T(rw.to)}, an earlier transaction of its own session`;
    }
    case 'causality violation': {
      const rw = rws[0]!;
      const path = c.slice(0, c.length - 1);
      return `${T(rw.from)} ${readText(rw.from, rw.key)}, missing the write ${K(rw.key)} = ${facts.writtenValue(rw.to, rw.key)} ` +
        `of ${T(rw.to)}, although ${T(rw.to)} precedes it causally (${cycleText(h, path)})`;
    }
    case 'write skew': {
      const [x, y] = rws as [SummaryEdge, SummaryEdge];
      return `${T(x.from)} and ${T(y.from)} each read a key the other wrote (${K(x.key)}, ${K(y.key)}) without seeing ` +
        'the other\'s write: no serial order explains both';
    }
    case 'real-time violation':
      return `a cycle through the real-time order (RT: a transaction invoked after another had returned must come after it) ` +
        `that ${levelName} forbids: ${cycleText(h, c)}`;
    default:
      return `a cycle of dependencies that ${levelName} forbids: ${cycleText(h, c)}`;
  }
}
