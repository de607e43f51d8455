/**
 * A predicted anomaly as a `Counterexample` (src/result/counterexample.ts), so that the dynamic
 * checker's renderers (text, DOT, SVG) draw it unchanged.
 *
 * Takes: the analysed program and a witness (with its confirmation run, if any). Gives: a
 * counterexample whose transactions are the instances ("withdraw#1(ID=0, Amount=1)"), whose
 * edges are the cycle's dependencies labelled with the record and field, all certain, and whose
 * one step is the cycle. Invariant: edges[i].to === edges[i+1].from, around.
 */

import type { AnomalyClass, AnomalyDescription, Counterexample, CxEdge, CxTxn } from '../result/counterexample.ts';
import { cycleClass, nameCycle, type NameEdge, type NamingFacts } from '../explain/name.ts';
import type { ProgramInfo } from './lang/access.ts';
import { ALIVE } from './lang/access.ts';
import type { Confirmation } from './confirm.ts';
import type { Witness, WitnessEdge } from './queries.ts';

export function instanceLabel(info: ProgramInfo, w: Pick<Witness, 'execution'>, i: number): string {
  const inst = w.execution.instances[i]!;
  const t = info.program.txns.find((x) => x.name === inst.txn)!;
  return `${inst.txn}#${i + 1}(${t.params.map((p, k) => `${p}=${inst.args[k]}`).join(', ')})`;
}

export function recordLabel(info: ProgramInfo, e: WitnessEdge): string {
  if (e.item !== undefined) return e.item;
  const t = info.tables.get(e.table)!;
  const key = t.key.map((k, i) => `${k}=${e.key[i]}`).join(',');
  const fields = e.fields.map((f) => (f === ALIVE ? 'exists' : f)).join('/');
  return `${e.table}[${key}].${fields}`;
}

/** The cycle as naming (explain/name.ts) sees it: one key per record field, so that a lost update is on one key. */
function nameEdges(w: Witness): NameEdge[] {
  const items = new Map<string, number>();
  const item = (e: WitnessEdge) => {
    const id = e.item ?? `${e.table}|${e.key.join(',')}|${e.fields.join()}`;
    if (!items.has(id)) items.set(id, items.size);
    return items.get(id)!;
  };
  return w.cycle.map((e) => ({ from: e.from, to: e.to, kind: e.kind, key: item(e) }));
}

/**
 * A predicted execution reads each record once, from the version before its own write: two
 * instances that read the same record read the same version (what a lost update needs). No
 * positions inside a transaction are predicted, so no OTV.
 */
const PREDICTED: NamingFacts = { oneSession: false, readSource: () => 0, readAt: () => null };

export function nameAnomaly(w: Witness): { class: AnomalyClass; description: AnomalyDescription | null } {
  return nameCycle(nameEdges(w), PREDICTED, 'ser');
}

export function toCounterexample(info: ProgramInfo, w: Witness, conf: Confirmation | null): Counterexample {
  const n = w.execution.instances.length;
  const txns: CxTxn[] = Array.from({ length: n }, (_, i) => ({
    txn: i,
    label: instanceLabel(info, w, i),
    session: `instance ${i + 1}`,
    index: w.execution.ar.indexOf(i),
    source: info.program.source,
    loc: `line ${info.program.txns.find((t) => t.name === w.execution.instances[i]!.txn)!.loc.line}`,
    ops: opsOf(info, w, conf, i),
    focus: [],
    role: 'core',
  }));
  const str = (v: number | undefined): string | null => (v === undefined ? null : String(v));
  const edges: CxEdge[] = w.cycle.map((e, id) => ({
    id, from: e.from, to: e.to, kind: e.kind, key: id, keyLabel: recordLabel(info, e), status: 'certain',
    constraint: -1, side: null, step: -1, readFrom: e.kind === 'WR' ? e.from : null,
    readValue: e.kind === 'WW' ? null : str(e.fromValue),
    writtenValue: e.kind === 'RW' ? str(e.toValue) : str(e.fromValue),
    toValue: e.kind === 'WW' ? str(e.toValue) : null,
  }));
  const cls = cycleClass(nameEdges(w));
  const named = nameAnomaly(w);
  const cycleText = w.cycle.map((e) => `${txns[e.from]!.label} -${e.kind}-> `).join('') + txns[w.cycle[0]!.from]!.label;
  return {
    type: 'cycle', class: named.class, description: named.description, classes: [cls], level: 'ser',
    summary: `${named.description ?? named.class}: ${cycleText}`,
    txns, edges, constraints: [],
    steps: [{ kind: 'contradiction', n: 1, cycle: { edges: edges.map((e) => e.id), class: cls } }],
    cycle: { edges: edges.map((e) => e.id), class: cls },
    context: [], size: { txns: n, edges: edges.length }, minimal: true, selfContained: true,
    // The independent check of a predicted anomaly is its re-execution on the program's own
    // semantics (interp.ts via confirm.ts), not the brute force of recorded histories.
    certificate: conf !== null && conf.reproduced
      ? { status: 'certified', choices: 0, reason: '' }
      : { status: 'uncertified', choices: 0, reason: `not confirmed by re-executing the program (interp.ts)${conf === null || conf.reason === '' ? '' : `: ${conf.reason}`}` },
  };
}

/** The statements behind the cycle's edges, and (when confirmed) what the instance read and wrote. */
function opsOf(info: ProgramInfo, w: Witness, conf: Confirmation | null, i: number): string[] {
  const out: string[] = [];
  for (const e of w.cycle) {
    for (const [who, stmt] of [[e.from, e.stmtFrom], [e.to, e.stmtTo]] as const) {
      if (who !== i) continue;
      const a = info.access[stmt]!;
      const text = `${a.stmt.k.toUpperCase()} ${a.table.name} (line ${a.stmt.loc.line})`;
      if (!out.includes(text)) out.push(text);
    }
  }
  if (conf?.run) {
    const fmt = (item: string) => { const [t, k, f] = item.split('|'); return `${t}[${k}].${f === ALIVE ? 'exists' : f}`; };
    const r = [...conf.run.reads[i]!].map(([item, from]) => `r ${fmt(item)} = ${conf.run!.readValues[i]!.get(item)} (${from < 0 ? 'initial' : `from #${from + 1}`})`);
    const wr = [...conf.run.writes[i]!].map((item) => `w ${fmt(item)} = ${conf.run!.writeValues[i]!.get(item)}`);
    out.push(...r.slice(0, 6), ...wr.slice(0, 6));
  }
  return out;
}
