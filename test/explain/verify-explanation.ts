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

/**
 * The levels whose forbidden cycles are not "every cycle", written out again from docs/levels.md
 * ("The NP-complete levels"): SI and its variants forbid cycles without two adjacent RW edges
 * (Cerone & Gotsman: (Dep ; RW?) acyclic; PL-SI and strict SI differ from SI only in the edges
 * the history gives, not in the rule); PSI forbids cycles with at most one RW edge (Bernardi &
 * Gotsman: (Dep+ ; RW?) irreflexive, which allows two RW edges anywhere: a long fork, a write
 * skew). Every other level is checked here as "every cycle is forbidden".
 */
const SI_RULE: ReadonlySet<Level> = new Set<Level>(['si', 'pl-si', 'strict-si']);

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
    if (SI_RULE.has(level) && e.kind === 'RW' && next.kind === 'RW') out.push(`${where}: adjacent RW edges (SI allows that)`);
    if (!allowed.has(e.id)) out.push(`${where}: edge ${e.id} used before it is established`);
  });
  if (level === 'psi' && es.filter((e) => e.kind === 'RW').length > 1) out.push(`${where}: more than one RW edge (PSI allows that)`);
  const expect = shapeClass(es);
  if (c.class !== expect) out.push(`${where}: class ${c.class}, expected ${expect}`);
  return out;
}

function shapeClass(es: readonly CxEdge[]): string {
  const rw = es.filter((e) => e.kind === 'RW').length;
  let base: string;
  if (rw === 0) base = es.some((e) => e.kind === 'WR') ? 'G1c' : 'G0';
  else if (rw === 1) base = 'G-single';
  else base = es.some((e, i) => e.kind === 'RW' && es[(i + 1) % es.length]!.kind === 'RW') ? 'G2-item' : 'G-nonadjacent';
  return base + (es.some((e) => e.kind === 'RT') ? '-realtime' : es.some((e) => e.kind === 'SO') ? '-process' : '');
}

/** Forbidden by fewer levels = looser: real time first, then G2-item ... G0, then session order before none. */
function looseness(cls: string): number {
  const base = ['G0', 'G1c', 'G-single', 'G-nonadjacent', 'G2-item'].indexOf(cls.replace(/-(realtime|process)$/, ''));
  return [cls.endsWith('-realtime') ? 1 : 0, base, cls.endsWith('-process') ? 1 : 0].reduce((acc, x) => acc * 10 + x, 0);
}

/** Position of t's first read of key (before any write of it), or undefined. */
function externalReadAt(h: History, t: number, key: number): number | undefined {
  if (t === INIT) return undefined;
  for (let op = h.txnOpStart[t]!; op < h.txnOpStart[t + 1]!; op++) {
    if (h.opKey[op] !== key) continue;
    return h.opKind[op] === OP_READ ? op : undefined;
  }
  return undefined;
}

/** The shape rules of docs/explain.md, written out again: "class (description)" or "class". */
export function expectedName(h: History, es: readonly CxEdge[], oneSession: boolean, level: Level): string {
  const rws = es.filter((e) => e.kind === 'RW');
  const rest = es.filter((e) => e.kind !== 'RW');
  const causal = rest.every((e) => e.kind === 'SO' || e.kind === 'WR');
  const cls = shapeClass(es);
  const label = (c: string, d: string | null) => (d === null ? c : `${c} (${d})`);
  if (cls.endsWith('-realtime')) return label(cls, 'real-time violation');
  const sameSource = (a: number, b: number, k: number) => {
    const x = externalRead(h, a, k), y = externalRead(h, b, k);
    return x !== undefined && y !== undefined && writerOf(h, k, x) === writerOf(h, k, y);
  };
  if (es.length === 2 && rws.length >= 1 && es[0]!.key === es[1]!.key && es[0]!.key >= 0 && es.every((e) => e.kind === 'RW' || e.kind === 'WW')) {
    if (sameSource(es[0]!.from, es[0]!.to, es[0]!.key)) return 'lost update';
  }
  if (es.length === 2 && rws.length === 1 && rest[0]!.kind === 'WR' && rest[0]!.key !== rws[0]!.key) {
    const seen = externalReadAt(h, rws[0]!.from, rest[0]!.key), missed = externalReadAt(h, rws[0]!.from, rws[0]!.key);
    if (seen !== undefined && missed !== undefined && seen < missed) return label('OTV', level === 'rc' ? 'non-monotonic read' : level === 'ra' ? 'fractured read' : null);
    return label(cls, level === 'ra' ? 'fractured read' : 'read skew');
  }
  if (rws.length === 1 && causal) return label(cls, oneSession && rest.every((e) => e.kind === 'SO') ? 'session guarantee violation' : 'causality violation');
  if (cls.startsWith('G-nonadjacent') && rws.length === 2 && causal) return label(cls, 'long fork');
  if (cls === 'G2-item' && es.length === 2 && rws[0]!.key !== rws[1]!.key) return label(cls, 'write skew');
  return cls;
}

const PRIORITY = ['lost update', 'OTV', 'long fork', 'read skew', 'fractured read', 'non-monotonic read', 'session guarantee violation',
  'causality violation', 'write skew', 'real-time violation'];
const priority = (name: string) => {
  const m = /^(.*?)(?: \((.*)\))?$/.exec(name)!;
  const ranks = [m[1]!, m[2] ?? ''].map((x) => PRIORITY.indexOf(x)).filter((i) => i >= 0);
  return ranks.length === 0 ? PRIORITY.length : Math.min(...ranks);
};

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
      leaves.push(s.cycle.edges.map((id) => cx.edges[id]!));
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
  const closure = (m: boolean[][]) => {
    for (let k = 0; k < n; k++) for (let a = 0; a < n; a++) if (m[a]![k]) for (let b = 0; b < n; b++) if (m[k]![b]) m[a]![b] = true;
    return m;
  };
  const splitRw = SI_RULE.has(level) || level === 'psi';
  const dep = mat(), rw = mat();
  for (const e of edges) (splitRw && e.kind === 'RW' ? rw : dep)[ix.get(e.from)!]![ix.get(e.to)!] = true;
  if (level === 'psi') {
    // Dep+ ; RW? reflexive: a Dep cycle, or an RW edge a -> b with b reaching a by Dep edges.
    const reach = closure(dep);
    for (let a = 0; a < n; a++) {
      if (reach[a]![a]) return true;
      for (let b = 0; b < n; b++) if (rw[a]![b] && reach[b]![a]) return true;
    }
    return false;
  }
  // R = Dep ∪ (Dep ; RW): under SI every RW step must follow a Dep step (rw is empty otherwise).
  const r = mat();
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) {
    if (dep[a]![b]) r[a]![b] = true;
    if (dep[a]![b]) for (let c = 0; c < n; c++) if (rw[b]![c]) r[a]![c] = true;
  }
  closure(r);
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
    // The argument proves only what all the cycles it considers prove together (each refuted
    // side's and the final ones): the class comes from the loosest of them.
    const loosest = Math.max(...leaves.map((l) => looseness(shapeClass(l))));
    const loose = leaves.filter((l) => looseness(shapeClass(l)) === loosest);
    const names = loose.map((l) => expectedName(h, l, sessions.size === 1, level));
    // A specific class (lost update, OTV) only when every loosest cycle has it; else their shape.
    const classOf = (name: string) => name.replace(/ \(.*\)$/, '');
    const cls = new Set(names.map(classOf)).size === 1 ? classOf(names[0]!) : shapeClass(loose[0]!);
    const best = names.filter((n) => classOf(n) === cls).sort((a, b) => priority(a) - priority(b))[0] ?? cls;
    const got = cx.description === null ? cx.class : `${cx.class} (${cx.description})`;
    if (got !== best) problems.push(`named ${got}, but the cycles' shapes say ${best}`);
    const classes = leaves.map(shapeClass);
    if (JSON.stringify(classes) !== JSON.stringify(cx.classes)) problems.push(`classes ${cx.classes} but cycles ${classes}`);
  }
  const status = (e: CxEdge) => (e.constraint < 0 ? 'certain' : e.step > 0 ? 'derived' : 'hypothetical');
  for (const e of cx.edges) if (status(e) !== e.status) problems.push(`edge ${e.id} status ${e.status}, expected ${status(e)}`);
  if (cx.size.edges !== cx.edges.length) problems.push('size.edges');
  return problems;
}
