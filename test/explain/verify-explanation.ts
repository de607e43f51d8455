/**
 * An independent check of a counterexample: shares no code with src/explain or src/graph.
 *
 * Takes: the History (read/write registers) and a `Counterexample`. Gives: a list of problems,
 * empty when the explanation holds up:
 * - every edge is justified by the raw operations (certain edges by what was read; edges of a
 *   write order by both transactions writing the key, RW edges by what the reader read and from
 *   whom; the side of the constraint matches the direction);
 * - every cycle of the argument closes, is forbidden at the level, and uses only edges the
 *   argument has established at that point (certain, derived earlier, or the supposed side);
 * - the counterexample is a violation, by brute force over every choice of its constraints,
 *   with an SI test written from the Cerone–Gotsman characterisation ((Dep ; RW?) acyclic) on
 *   boolean matrices, and it is minimal: without any one edge it is not a violation;
 * - the name and cycle classes follow the shape rules of docs/explain.md (re-implemented here).
 */

import {
  INITIAL_VALUE,
  OP_READ,
  OP_WRITE,
  TXN_ABORTED,
  TXN_COMMITTED,
  valueLabel,
  type History,
} from '../../src/history/model.ts';
import type { Level } from '../../src/result/types.ts';
import type { Counterexample, CxCycle, CxEdge, CxStep } from '../../src/result/counterexample.ts';

const INIT = -1;

function finalWrite(h: History, t: number, key: number): number | undefined {
  if (t === INIT) return INITIAL_VALUE;
  let v: number | undefined;
  for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) if (h.opKind[op] === OP_WRITE && h.opKey[op] === key) v = h.opValue[op]!;
  return v;
}

/**
 * The values of t's reads of key before its own write of it (a re-read of another value is one
 * more external read: docs/levels.md, "Re-reads"), in program order; empty if none.
 */
function externalReads(h: History, t: number, key: number): number[] {
  const out: number[] = [];
  if (t === INIT) return out;
  for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
    if (h.opKey[op] !== key) continue;
    if (h.opKind[op] === OP_WRITE) break;
    if (h.opKind[op] === OP_READ && !out.includes(h.opValue[op]!)) out.push(h.opValue[op]!);
  }
  return out;
}

/**
 * The value of t's first read of key before its own write of it that a committed or unknown
 * writer's final write (or the initial state) explains, if any: a read of an aborted,
 * intermediate, unwritten or own later value is a non-cycle anomaly, not a read a cycle uses.
 */
function externalRead(h: History, t: number, key: number): number | undefined {
  return externalReads(h, t, key).find((v) => {
    const w = writerOf(h, key, v);
    return w !== undefined && w !== t && (w === INIT || h.txnStatus[w] !== TXN_ABORTED);
  });
}

/** Who wrote value v of key last in its txn (INIT for the initial value). */
function writerOf(h: History, key: number, v: number): number | undefined {
  if (v === INITIAL_VALUE) return INIT;
  for (let t = 0; t < h.txnCount; t++) if (finalWrite(h, t, key) === v) return t;
  return undefined;
}

function edgeProblem(h: History, cx: Counterexample, e: CxEdge): string | null {
  for (const t of [e.from, e.to]) {
    if (t < 0 || t >= h.txnCount) return `txn ${t} out of range`;
    if (h.txnStatus[t] === TXN_ABORTED) return `aborted txn ${t}`;
  }
  if (e.from === e.to) return 'self-loop';
  const label = (v: number | undefined) => (v === undefined ? null : valueLabel(h, v));
  switch (e.kind) {
    case 'SO':
      if (e.status !== 'certain') return 'SO edge not certain';
      if (h.txnStatus[e.from] !== TXN_COMMITTED) return 'SO out of a txn whose commit the client never saw';
      return h.txnSession[e.from] === h.txnSession[e.to] && e.from < e.to ? null : 'not in session order';
    case 'WR': {
      if (e.status !== 'certain') return 'WR edge not certain';
      const fw = finalWrite(h, e.from, e.key);
      const r = externalReads(h, e.to, e.key).find((x) => x === fw);
      if (r === undefined) return '`to` did not read what `from` wrote last';
      return e.readValue === label(r) ? null : `readValue ${e.readValue} but the read returned ${label(r)}`;
    }
    case 'WW': {
      if (finalWrite(h, e.from, e.key) === undefined || finalWrite(h, e.to, e.key) === undefined) return 'not both writers of the key';
      if (e.status === 'certain') return 'a certain WW edge on a register key';
      const c = cx.constraints[e.constraint];
      if (c === undefined) return 'WW edge of no constraint';
      const [first, second] = e.side === 'either' ? [c.a, c.b] : [c.b, c.a];
      return e.from === first && e.to === second ? null : 'WW direction does not match its side';
    }
    case 'RW': {
      const rs = externalReads(h, e.from, e.key);
      if (rs.length === 0) return '`from` does not read the key before writing it';
      // With re-reads, the read the edge stands for is the one whose writer it names.
      const r = rs.find((x) => writerOf(h, e.key, x) === e.readFrom) ?? rs[0]!;
      if (finalWrite(h, e.to, e.key) === undefined) return '`to` does not write the key';
      const source = writerOf(h, e.key, r);
      if (source === e.to) return '`from` read `to`\'s own write';
      if (e.readFrom !== source || e.readValue !== label(r)) return `readFrom/readValue ${e.readFrom}/${e.readValue} do not match the history`;
      if (e.status === 'certain') return r === INITIAL_VALUE ? null : 'certain RW edge from a non-initial read';
      const c = cx.constraints[e.constraint];
      if (c === undefined) return 'RW edge of no constraint';
      const [first, second] = e.side === 'either' ? [c.a, c.b] : [c.b, c.a];
      return source === first && e.to === second ? null : 'RW edge does not follow from its side';
    }
    default:
      return 'unknown kind';
  }
}

function cycleProblem(cx: Counterexample, level: Level, c: CxCycle, allowed: ReadonlySet<number>, where: string): string[] {
  const out: string[] = [];
  const es = c.edges.map((id) => cx.edges[id]!);
  if (es.length === 0) return [`${where}: empty cycle`];
  es.forEach((e, i) => {
    const next = es[(i + 1) % es.length]!;
    if (e.to !== next.from) out.push(`${where}: edge ${e.id} does not lead to edge ${next.id}`);
    if (level === 'si' && e.kind === 'RW' && next.kind === 'RW') out.push(`${where}: adjacent RW edges (SI allows that)`);
    if (!allowed.has(e.id)) out.push(`${where}: edge ${e.id} used before it is established`);
  });
  const expect = shapeClass(es);
  if (c.class !== expect) out.push(`${where}: class ${c.class}, expected ${expect}`);
  return out;
}

function shapeClass(es: readonly CxEdge[]): string {
  const rw = es.filter((e) => e.kind === 'RW').length;
  if (rw === 0) return es.every((e) => e.kind === 'WW') ? 'G0' : 'G1c';
  if (rw === 1) return 'G-single';
  return es.some((e, i) => e.kind === 'RW' && es[(i + 1) % es.length]!.kind === 'RW') ? 'G2' : 'G-nonadjacent';
}

/** The shape rules of docs/explain.md, written out again. */
export function expectedName(h: History, es: readonly CxEdge[], oneSession: boolean): string {
  const rws = es.filter((e) => e.kind === 'RW');
  const rest = es.filter((e) => e.kind !== 'RW');
  const causal = rest.every((e) => e.kind === 'SO' || e.kind === 'WR');
  const cls = shapeClass(es);
  if (es.length === 2 && rws.length === 1 && rest[0]!.kind === 'WW' && rest[0]!.key === rws[0]!.key) {
    const k = rws[0]!.key;
    const a = externalRead(h, rws[0]!.from, k), b = externalRead(h, rws[0]!.to, k);
    if (a !== undefined && b !== undefined && writerOf(h, k, a) === writerOf(h, k, b)) return 'lost update';
  }
  if (es.length === 2 && rws.length === 2 && rws[0]!.key === rws[1]!.key) {
    const k = rws[0]!.key;
    const a = externalRead(h, rws[0]!.from, k), b = externalRead(h, rws[1]!.from, k);
    if (a !== undefined && b !== undefined && writerOf(h, k, a) === writerOf(h, k, b)) return 'lost update';
  }
  if (es.length === 2 && rws.length === 1 && rest[0]!.kind === 'WR') return 'read skew';
  if (rws.length === 1 && causal) return oneSession && rest.every((e) => e.kind === 'SO') ? 'session guarantee violation' : 'causality violation';
  if (cls === 'G-nonadjacent' && rws.length === 2 && causal) return 'long fork';
  if (cls === 'G2' && es.length === 2) return 'write skew';
  return cls;
}

const PRIORITY = ['lost update', 'long fork', 'read skew', 'session guarantee violation', 'causality violation',
  'write skew', 'G-single', 'G-nonadjacent', 'G2', 'G1c', 'G0'];

function verifySteps(cx: Counterexample, level: Level, steps: readonly CxStep[], established: Set<number>, leaves: CxEdge[][], problems: string[]): void {
  const est = new Set(established);
  for (const s of steps) {
    const where = `step ${s.n}`;
    if (s.kind === 'contradiction') {
      problems.push(...cycleProblem(cx, level, s.cycle, est, where));
      leaves.push(s.cycle.edges.map((id) => cx.edges[id]!));
      continue;
    }
    const c = cx.constraints[s.constraint];
    if (c === undefined) { problems.push(`${where}: no constraint ${s.constraint}`); continue; }
    const withSide = (side: 'either' | 'or') => new Set([...est, ...c[side]]);
    if (s.kind === 'forced') {
      const refutedSide = s.side === 'either' ? 'or' : 'either';
      if (!c[refutedSide].includes(s.refuted)) problems.push(`${where}: refuted edge is not on the other side`);
      problems.push(...cycleProblem(cx, level, s.cycle, withSide(refutedSide), where));
      if (!s.cycle.edges.includes(s.refuted)) problems.push(`${where}: the cycle does not use the refuted edge`);
      for (const id of c[s.side]) est.add(id);
    } else if (s.kind === 'dilemma') {
      problems.push(...cycleProblem(cx, level, s.either, withSide('either'), `${where} (either)`));
      problems.push(...cycleProblem(cx, level, s.or, withSide('or'), `${where} (or)`));
      leaves.push(s.either.edges.map((id) => cx.edges[id]!), s.or.edges.map((id) => cx.edges[id]!));
    } else {
      verifySteps(cx, level, s.either, withSide('either'), leaves, problems);
      verifySteps(cx, level, s.or, withSide('or'), leaves, problems);
    }
  }
}

// ------------------------------------------------------------------ brute-force violation test

/** Does the edge set hold a cycle the level forbids? Boolean-matrix closure, tiny graphs only. */
export function forbiddenCycle(edges: readonly { from: number; to: number; kind: string }[], level: Level): boolean {
  const nodes = [...new Set(edges.flatMap((e) => [e.from, e.to]))];
  const ix = new Map(nodes.map((t, i) => [t, i]));
  const n = nodes.length;
  const mat = () => Array.from({ length: n }, () => new Array<boolean>(n).fill(false));
  const dep = mat(), rw = mat();
  for (const e of edges) (level === 'si' && e.kind === 'RW' ? rw : dep)[ix.get(e.from)!]![ix.get(e.to)!] = true;
  // R = Dep ∪ (Dep ; RW): under SI every RW step must follow a Dep step.
  const r = mat();
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) {
    if (dep[a]![b]) r[a]![b] = true;
    if (dep[a]![b]) for (let c = 0; c < n; c++) if (rw[b]![c]) r[a]![c] = true;
  }
  for (let k = 0; k < n; k++) for (let a = 0; a < n; a++) if (r[a]![k]) for (let b = 0; b < n; b++) if (r[k]![b]) r[a]![b] = true;
  for (let a = 0; a < n; a++) if (r[a]![a]) return true;
  return false;
}

/** Is every choice of the constraints (restricted to the given edge ids) cyclic? */
export function isViolation(cx: Counterexample, ids: ReadonlySet<number>, level: Level): boolean {
  const certain = cx.edges.filter((e) => e.status === 'certain' && ids.has(e.id));
  const cons = cx.constraints.map((c) => [c.either.filter((id) => ids.has(id)), c.or.filter((id) => ids.has(id))] as const);
  if (cons.length > 16) throw new Error('too many constraints for brute force');
  for (let mask = 0; mask < 1 << cons.length; mask++) {
    const chosen = [...certain];
    cons.forEach((sides, i) => { for (const id of sides[(mask >> i) & 1]!) chosen.push(cx.edges[id]!); });
    if (!forbiddenCycle(chosen, level)) return false;
  }
  return true;
}

export function verifyExplanation(h: History, level: Level, cx: Counterexample): string[] {
  const problems: string[] = [];
  if (cx.type !== 'cycle') return problems;
  cx.edges.forEach((e, i) => {
    if (e.id !== i) problems.push(`edge ${i} has id ${e.id}`);
    const p = edgeProblem(h, cx, e);
    if (p !== null) problems.push(`edge ${i} ${e.from} -${e.kind}(${e.keyLabel})-> ${e.to} [${e.status}]: ${p}`);
  });
  for (const c of cx.constraints) {
    for (const id of [...c.either, ...c.or]) if (cx.edges[id]?.constraint !== c.id) problems.push(`constraint ${c.id} lists edge ${id} of another`);
  }
  const all = new Set(cx.edges.map((e) => e.id));
  if (!cx.selfContained) return problems;
  if (!isViolation(cx, all, level)) problems.push('the counterexample is not a violation');
  if (cx.minimal) {
    for (const e of cx.edges) {
      const without = new Set(all);
      without.delete(e.id);
      if (isViolation(cx, without, level)) problems.push(`not minimal: still a violation without edge ${e.id}`);
    }
  }
  const leaves: CxEdge[][] = [];
  const certain = new Set(cx.edges.filter((e) => e.status === 'certain').map((e) => e.id));
  verifySteps(cx, level, cx.steps, certain, leaves, problems);
  if (cx.steps.length > 0) {
    const sessions = new Set(cx.txns.filter((t) => t.role === 'core').map((t) => t.session));
    // The argument proves only what all its final cycles prove together: the name comes from
    // the most permissive shape among them (G2 before G-nonadjacent before G-single ...).
    const loose = ['G2', 'G-nonadjacent', 'G-single', 'G1c', 'G0'];
    const loosest = Math.min(...leaves.map((l) => loose.indexOf(shapeClass(l))));
    const names = leaves.filter((l) => loose.indexOf(shapeClass(l)) === loosest).map((l) => expectedName(h, l, sessions.size === 1));
    const best = names.sort((a, b) => PRIORITY.indexOf(a) - PRIORITY.indexOf(b))[0];
    if (cx.name !== best) problems.push(`named ${cx.name}, but the cycles' shapes say ${best}`);
    const classes = leaves.map(shapeClass);
    if (JSON.stringify(classes) !== JSON.stringify(cx.classes)) problems.push(`classes ${cx.classes} but cycles ${classes}`);
  }
  const status = (e: CxEdge) => (e.constraint < 0 ? 'certain' : e.step > 0 ? 'derived' : 'hypothetical');
  for (const e of cx.edges) if (status(e) !== e.status) problems.push(`edge ${e.id} status ${e.status}, expected ${status(e)}`);
  if (cx.size.edges !== cx.edges.length) problems.push('size.edges');
  return problems;
}
