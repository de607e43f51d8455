/**
 * Counterexamples for the levels decided by saturation (read uncommitted, read committed, read
 * atomic, causal consistency; src/levels/), in the same `Counterexample` shape as SI and SER.
 *
 * Takes: the Validated history and a violating `LevelOutcome`. Gives: one `Counterexample`.
 * The argument mirrors the saturation: every derived write order becomes a constraint between
 * the two writers whose refuted side (the reader's version first) gives an anti-dependency
 * t3 -RW-> t2 that closes a cycle with the path by which t3 observed t2 (forced step); the final
 * step is the cycle of session order, reads and write orders. A read of the initial value after
 * observing a writer of the key is a contradiction on its own (the initial version precedes
 * every other). The cycle is a shortest one through its nodes, and each path is a shortest
 * observation path, so no edge can be left out without losing the argument.
 * The certificate (`certifySaturated`) re-derives each edge from the operations and enumerates
 * the write orders, with the level's own notion of a forbidden cycle.
 */

import type { History } from '../history/model.ts';
import { INIT_TXN, LEVEL_TITLES, type EdgeKind } from '../result/types.ts';
import type { AnomalyName, Counterexample, CxConstraint, CxContextEdge, CxCycle, CxEdge, CxStep, CxTxn, CycleClass, EdgeStatus } from '../result/counterexample.ts';
import type { Validated } from '../validate/validate.ts';
import { E_DERIVED, E_SO, E_WR, VIA_HB, VIA_SO, type LevelBase, type LevelOutcome } from '../levels/index.ts';
import { FactIndex, keyDisplay, txnDisplay, txnFacts } from './facts.ts';
import { certifySaturated } from './certify-saturated.ts';

/** An edge of the argument before numbering. */
interface Plain {
  from: number;
  to: number;
  kind: EdgeKind;
  key: number;
}

/** A path by which the reader observed a writer, and the anti-dependency that closes it. */
interface Derivation {
  t1: number;
  t2: number;
  t3: number;
  key: number;
  path: Plain[];
}

export function explainSaturation(v: Validated, out: LevelOutcome): Counterexample {
  const h = v.history;
  const facts = new FactIndex(v);
  const b = out.graph.base;
  const g = out.graph;
  const b2 = new Builder(h, facts);
  const derivations: Derivation[] = [];
  let main: number[];
  let leaf: Plain[];
  const steps: CxStep[] = [];
  if (out.initViolation !== null) {
    const { t2, read, via } = out.initViolation;
    const t3 = v.reads.txn[read]!, key = v.reads.key[read]!;
    const path = observation(b, t2, t3, via);
    derivations.push({ t1: INIT_TXN, t2, t3, key, path });
    leaf = [{ from: t3, to: t2, kind: 'RW', key }, ...path];
    main = leaf.map((e) => b2.edge(e, 'certain', { readFrom: INIT_TXN }));
  } else {
    if (out.cycle === null) throw new Error('internal error: explaining a saturation outcome without a violation');
    leaf = [];
    const derivedAt: number[] = [];
    for (const e of compressSo(out.cycle.map((i) => ({ i, from: g.from.get(i), to: g.to.get(i), kind: g.kind.get(i) })))) {
      if (e.kind !== E_DERIVED) { leaf.push({ from: e.from, to: e.to, kind: KIND[e.kind]!, key: e.i < 0 ? -1 : g.key.get(e.i) }); derivedAt.push(-1); continue; }
      const r = g.why.get(e.i), t3 = v.reads.txn[r]!, key = v.reads.key[r]!;
      derivations.push({ t1: e.to, t2: e.from, t3, key, path: observation(b, e.from, t3, g.via.get(e.i)) });
      leaf.push({ from: e.from, to: e.to, kind: 'WW', key });
      derivedAt.push(derivations.length - 1);
    }
    // Certain edges first, then one forced step per derived write order, then the cycle.
    leaf.forEach((e, j) => { if (derivedAt[j] === -1) b2.edge(e, 'certain', {}); });
    const derivedIds = new Map<number, number>();
    derivations.forEach((d, c) => {
      d.path.forEach((e) => b2.edge(e, 'certain', {}));
      const refuted = b2.edge({ from: d.t3, to: d.t2, kind: 'RW', key: d.key }, 'hypothetical', { readFrom: d.t1, constraint: c, side: 'either' });
      const n = steps.length + 1;
      const derived = b2.edge({ from: d.t2, to: d.t1, kind: 'WW', key: d.key }, 'derived', { constraint: c, side: 'or', step: n });
      derivedIds.set(c, derived);
      const cycle = [refuted, ...d.path.map((e) => b2.edge(e, 'certain', {}))];
      steps.push({ kind: 'forced', n, constraint: c, side: 'or', refuted, cycle: b2.cycle(cycle), derived: [derived] });
    });
    main = leaf.map((e, j) => (derivedAt[j] === -1 ? b2.edge(e, 'certain', {}) : derivedIds.get(derivedAt[j]!)!));
  }
  const finalCycle = b2.cycle(main);
  steps.push({ kind: 'contradiction', n: steps.length + 1, cycle: finalCycle });
  const constraints: CxConstraint[] = derivations.filter((d) => d.t1 !== INIT_TXN).map((d, id) => ({
    id, a: d.t1, b: d.t2, keys: [d.key], keyLabels: [h.keyLabels[d.key]!],
    either: b2.edges.filter((e) => e.constraint === id && e.side === 'either').map((e) => e.id),
    or: b2.edges.filter((e) => e.constraint === id && e.side === 'or').map((e) => e.id),
  }));
  const name = anomalyName(out.level, leaf, derivations);
  const { txns, context } = b2.txns();
  const cx: Counterexample = {
    type: 'cycle',
    name,
    classes: [finalCycle.class],
    level: out.level,
    summary: summary(h, facts, out.level, name, leaf, derivations),
    txns,
    edges: b2.edges,
    constraints,
    steps,
    cycle: finalCycle,
    context,
    size: { txns: txns.filter((t) => t.role === 'core').length, edges: b2.edges.length },
    minimal: true,
    selfContained: true,
    certificate: { status: 'uncertified', choices: 0, reason: 'not checked yet' },
  };
  cx.certificate = certifySaturated(h, cx);
  return cx;
}

const KIND: Record<number, EdgeKind> = { [E_SO]: 'SO', [E_WR]: 'WR', 2: 'WW' };

/** Runs of consecutive SO edges become one (session order is transitive); derived edges keep their index. */
function compressSo(es: { i: number; from: number; to: number; kind: number }[]): { i: number; from: number; to: number; kind: number }[] {
  // Rotate so that the cycle does not start inside a run of SO edges.
  let start = es.findIndex((e, j) => e.kind !== E_SO || es[(j + es.length - 1) % es.length]!.kind !== E_SO);
  if (start < 0) start = 0;
  const rot = [...es.slice(start), ...es.slice(0, start)];
  const out: typeof es = [];
  for (const e of rot) {
    const last = out[out.length - 1];
    if (last !== undefined && last.kind === E_SO && e.kind === E_SO) out[out.length - 1] = { i: -1, from: last.from, to: e.to, kind: E_SO };
    else out.push(e.kind === E_SO ? { ...e, i: -1 } : e);
  }
  return out;
}

/** How t3 observed t2: one SO edge, one WR edge (read `via`), or a shortest causal path. */
function observation(b: LevelBase, t2: number, t3: number, via: number): Plain[] {
  const v = b.v;
  if (via === VIA_SO) return [{ from: t2, to: t3, kind: 'SO', key: -1 }];
  if (via >= 0) return [{ from: t2, to: t3, kind: 'WR', key: v.reads.key[via]! }];
  if (via !== VIA_HB) throw new Error(`internal error: unknown observation ${via}`);
  // Backward breadth-first search from t3 over SO ∪ WR to t2.
  const next = new Map<number, Plain>([[t3, { from: t3, to: t3, kind: 'SO', key: -1 }]]);
  const queue = [t3];
  for (let head = 0; head < queue.length && !next.has(t2); head++) {
    const u = queue[head]!;
    const visit = (p: number, kind: EdgeKind, key: number) => {
      if (!next.has(p)) { next.set(p, { from: p, to: u, kind, key }); queue.push(p); }
    };
    if (b.soPrev[u]! >= 0) visit(b.soPrev[u]!, 'SO', -1);
    for (let i = b.readStart[u]!; i < b.readStart[u + 1]!; i++) {
      const r = b.readIdx[i]!;
      for (let j = b.obsStart[r]!; j < b.obsStart[r + 1]!; j++) visit(b.obs[j]!, 'WR', v.reads.key[r]!);
    }
  }
  if (!next.has(t2)) throw new Error('internal error: no causal path behind a derived edge');
  const path: Plain[] = [];
  for (let u = t2; u !== t3; u = next.get(u)!.to) {
    const e = next.get(u)!;
    const last = path[path.length - 1];
    if (last !== undefined && last.kind === 'SO' && e.kind === 'SO') path[path.length - 1] = { ...last, to: e.to };
    else path.push(e);
  }
  return path;
}

/** Names by shape (docs/levels.md): what the derived edges' observation paths look like. */
function anomalyName(level: LevelOutcome['level'], leaf: readonly Plain[], ds: readonly Derivation[]): AnomalyName {
  if (ds.length === 0) return leaf.every((e) => e.kind === 'WW' || e.kind === 'SO') && leaf.some((e) => e.kind === 'WW') ? 'G0' : 'G1c';
  if (ds.every((d) => d.path.length === 1 && d.path[0]!.kind === 'SO')) return 'session guarantee violation';
  switch (level) {
    case 'ru': return 'G0';
    case 'rc': return 'non-monotonic read';
    case 'ra': return 'fractured read';
    case 'tcc': return ds.every((d) => d.path.length === 1) ? 'fractured read' : 'causality violation';
  }
}

function cycleClassOf(kinds: readonly EdgeKind[]): CycleClass {
  const rw = kinds.filter((k) => k === 'RW').length;
  if (rw === 0) return kinds.every((k) => k === 'WW' || k === 'SO') && kinds.includes('WW') ? 'G0' : 'G1c';
  return rw === 1 ? 'G-single' : 'G2';
}

function summary(h: History, facts: FactIndex, level: LevelOutcome['level'], name: AnomalyName, leaf: readonly Plain[], ds: readonly Derivation[]): string {
  const T = (t: number) => txnDisplay(h, t);
  const K = (k: number) => keyDisplay(h, k);
  const cycleText = (es: readonly Plain[]) => `${T(es[0]!.from)} ${es.map((e) => `-${e.kind === 'SO' ? 'SO' : `${e.kind}(${h.keyLabels[e.key]})`}-> ${T(e.to)}`).join(' ')}`;
  const title = LEVEL_TITLES[level];
  if (ds.length === 0) {
    return name === 'G0'
      ? `a cycle of write order and session order, which ${title} forbids: ${cycleText(leaf)}`
      : `a cycle of session order and reads (each transaction observed the next), which ${title} forbids: ${cycleText(leaf)}`;
  }
  const d = ds[0]!;
  const how = d.path.length === 1 && d.path[0]!.kind === 'SO' ? `${T(d.t2)} precedes it in its session`
    : d.path.length === 1 ? `it read ${K(d.path[0]!.key)} from ${T(d.t2)}`
      : `${cycleText(d.path)} puts ${T(d.t2)} in its causal past`;
  const read = `${T(d.t3)} read ${K(d.key)} = ${facts.readValue(d.t3, d.key, d.t1)}${d.t1 === INIT_TXN ? ' (the initial value)' : ` (written by ${T(d.t1)})`}`;
  const observed = `although ${how} and ${T(d.t2)} wrote ${K(d.key)} = ${facts.writtenValue(d.t2, d.key)}`;
  if (d.t1 === INIT_TXN) return `${read} ${observed}: it missed a write it had observed, which ${title} forbids`;
  return `${read} ${observed}, so ${T(d.t2)}'s version came first; with the rest that orders the writes in a circle: ${cycleText(leaf)}`;
}

/** Numbers edges (deduplicated) and collects the transactions they mention. */
class Builder {
  readonly edges: CxEdge[] = [];
  private readonly ids = new Map<string, number>();
  constructor(private readonly h: History, private readonly facts: FactIndex) {}

  edge(e: Plain, status: EdgeStatus, extra: { readFrom?: number; constraint?: number; side?: 'either' | 'or'; step?: number }): number {
    const sig = `${e.from}/${e.to}/${e.kind}/${e.key}/${status}/${extra.constraint ?? -1}`;
    const known = this.ids.get(sig);
    if (known !== undefined) return known;
    const id = this.edges.length;
    const f = this.facts;
    const x: CxEdge = {
      id, from: e.from, to: e.to, kind: e.kind, key: e.key, keyLabel: e.key < 0 ? null : this.h.keyLabels[e.key]!,
      status, constraint: extra.constraint ?? -1, side: extra.side ?? null, step: extra.step ?? -1,
      readFrom: null, readValue: null, writtenValue: null, toValue: null,
    };
    if (e.kind === 'WR') { x.readFrom = e.from; x.readValue = f.readValue(e.to, e.key, e.from); x.writtenValue = f.writtenValue(e.from, e.key); }
    if (e.kind === 'WW') { x.writtenValue = f.writtenValue(e.from, e.key); x.toValue = f.writtenValue(e.to, e.key); }
    if (e.kind === 'RW') { x.readFrom = extra.readFrom ?? null; x.readValue = f.readValue(e.from, e.key, extra.readFrom); x.writtenValue = f.writtenValue(e.to, e.key); }
    this.edges.push(x);
    this.ids.set(sig, id);
    return id;
  }

  cycle(ids: readonly number[]): CxCycle {
    return { edges: [...ids], class: cycleClassOf(ids.map((i) => this.edges[i]!.kind)) };
  }

  txns(): { txns: CxTxn[]; context: CxContextEdge[] } {
    const h = this.h;
    const keysOf = new Map<number, Set<number>>();
    const touch = (t: number, k: number) => {
      if (!keysOf.has(t)) keysOf.set(t, new Set());
      if (k >= 0) keysOf.get(t)!.add(k);
    };
    for (const e of this.edges) { touch(e.from, e.key); touch(e.to, e.key); }
    const core = [...keysOf.keys()];
    const context: CxContextEdge[] = [];
    const ctx = new Set<number>();
    for (const e of this.edges) {
      if (e.kind !== 'RW' || e.readFrom === null || e.readFrom === INIT_TXN) continue;
      if (!keysOf.has(e.readFrom)) ctx.add(e.readFrom);
      context.push({ from: e.readFrom, to: e.from, kind: 'WR', key: e.key, keyLabel: e.keyLabel });
    }
    for (const t of ctx) touch(t, -1);
    for (const e of context) touch(e.from, e.key);
    const order = (x: number, y: number) => (x === INIT_TXN ? -1 : y === INIT_TXN ? 1 : h.txnSession[x]! - h.txnSession[y]! || x - y);
    const txns = [
      ...core.sort(order).map((t) => txnFacts(h, t, 'core', keysOf.get(t))),
      ...[...ctx].sort(order).map((t) => txnFacts(h, t, 'context', keysOf.get(t))),
    ];
    return { txns, context };
  }
}
