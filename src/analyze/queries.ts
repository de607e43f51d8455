/**
 * The questions asked of the encoding (ANODE §5): a dependency cycle of length ≤ k (bounded
 * anomaly detection), a chordless path of length k (the shortest-path proof) and the inductive
 * step on a set of transactions (the inductive proof).
 *
 * Takes: the analysed program, the model specification, a bound, a deadline. Gives: for a cycle,
 * the witness read off the Z3 model (instances, parameters, arbitration, visibility, the cycle's
 * edges with the statements and record behind each); for proofs, sat / unsat / unknown.
 * Invariant: one Z3 query at a time; every query has a timeout, and an exhausted budget
 * answers 'unknown', never 'unsat'.
 */

import type { ProgramInfo } from './lang/access.ts';
import type { Bool } from 'z3-solver';
import type { Transaction } from './lang/ast.ts';
import type { ModelSpec } from './models.ts';
import { Encoding, type EdgeKindA } from './encode/encoding.ts';
import { z3Idle, type Z3 } from './encode/z3.ts';
import type { AbstractExecution } from './interp.ts';

export type SatAnswer = 'sat' | 'unsat' | 'unknown';

export interface WitnessEdge {
  from: number;
  to: number;
  kind: EdgeKindA;
  /** The statements (program-wide ids) and the record behind the edge, as the model chose them. */
  stmtFrom: number;
  stmtTo: number;
  table: string;
  key: number[];
  fields: string[];
  /** The kind and fields as the model chose them (kind and item may be replaced by the real ones). */
  modelKind: EdgeKindA;
  modelFields: string[];
  /** After confirmation: the item of the real dependency (e.g. `Account[0].Balance`) and its values (interp.ts DepEdge). */
  item?: string;
  fromValue?: number;
  toValue?: number;
}

export interface Witness {
  execution: AbstractExecution;
  /** The cycle: edges[i].to === edges[i+1].from, around. */
  cycle: WitnessEdge[];
  /** Values of tracked locals per instance, for reading the model (e.g. bal = 3). */
  locals: Record<string, number>[];
  /** Field values the model's instances read through tracked row sets (hints for confirmation). */
  fieldValues: { table: string; field: string; value: number }[];
}

export interface QueryBudget { deadline: number }

function remaining(b: QueryBudget): number {
  return Math.max(1, Math.floor(b.deadline - performance.now()));
}

type Solver = InstanceType<Z3['Solver']>;

/**
 * Encodings are built once per (transactions, slots) and kept with a solver that holds their
 * constraints; each query pushes its goal and pops it again, so the cycle search, the
 * shortest-path proof and the inductive steps share the work of building and internalising.
 */
const cache = new WeakMap<ProgramInfo, Map<string, { enc: Encoding; solver: Solver }>>();

function encodingFor(Z: Z3, info: ProgramInfo, spec: ModelSpec, txns: Transaction[], n: number): { enc: Encoding; solver: Solver } {
  let m = cache.get(info);
  if (m === undefined) { m = new Map(); cache.set(info, m); }
  const key = `${[...spec.models].join()}|${spec.serializablePairs.join()}|${txns.map((t) => t.name).join()}|${n}`;
  let e = m.get(key);
  if (e === undefined) {
    const enc = new Encoding(Z, info, spec, txns, n);
    const solver = new Z.Solver();
    solver.add(...enc.constraints);
    e = { enc, solver };
    m.set(key, e);
  }
  return e;
}

/** How long past its own time limit a check may take before it is taken for a crashed worker. */
const Z3_GRACE_MS = 15_000;

/**
 * `p`, or a rejection once `ms` have passed: when Z3's WebAssembly worker dies (a trap such as
 * "memory access out of bounds"), the check's promise never settles, and the process would
 * hang instead of failing (the CLI reports the error as internal, exit 4).
 */
export function answerWithin<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Z3 gave no answer ${Math.round(ms / 1000)} s into a query (its time limit plus ${Z3_GRACE_MS / 1000} s): its WebAssembly worker stopped`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

async function check(solver: Solver, goal: Bool<'main'>, b: QueryBudget, block: Bool<'main'>[] = []): Promise<{ answer: SatAnswer; model: ReturnType<Solver['model']> | null }> {
  solver.set('timeout', remaining(b));
  solver.push();
  try {
    solver.add(goal, ...block);
    const r = await answerWithin(solver.check(), remaining(b) + Z3_GRACE_MS);
    return { answer: r === 'unknown' ? 'unknown' : r, model: r === 'sat' ? solver.model() : null };
  } finally {
    solver.pop();
    // No check runs now: free what the GC found unreachable meanwhile (see encode/z3.ts).
    z3Idle();
  }
}

/**
 * A cycle through exactly m instances: slot 0 → 1 → ... → m-1 → 0. With `involving`, every
 * instance is one of the named transactions and each of them has an instance (unsat when there
 * are more names than instances).
 */
export async function findCycle(
  Z: Z3, info: ProgramInfo, spec: ModelSpec, m: number, b: QueryBudget, exclude: Witness[] = [], involving: string[] | null = null,
): Promise<{ answer: SatAnswer; witness: Witness | null }> {
  if (involving !== null && new Set(involving).size > m) return { answer: 'unsat', witness: null };
  const txns = involving === null ? info.program.txns : info.program.txns.filter((t) => involving.includes(t.name));
  const { enc, solver } = encodingFor(Z, info, spec, txns, m);
  const slots = Array.from({ length: m }, (_, i) => i);
  const goal = Z.And(...slots.map((i) => enc.dep(i, (i + 1) % m)),
    ...[...new Set(involving ?? [])].map((t) => Z.Or(...slots.map((i) => enc.isType(i, t)))));
  // Refuted witnesses: exclude their instances, and, once a pattern (transactions and the
  // statement pairs behind each edge) has been refuted twice, the pattern itself, so that the
  // search moves on to other explanations (index.ts never reports "none" because of this).
  const seen = new Map<string, number>();
  const block: Bool<'main'>[] = [];
  for (const w of exclude) {
    const types = w.execution.instances.map((inst, i) => enc.isType(i, inst.txn));
    block.push(Z.Not(Z.And(...types, ...w.execution.instances.flatMap((inst, i) =>
      inst.args.map((a, p) => enc.param(i, inst.txn, info.program.txns.find((t) => t.name === inst.txn)!.params[p]!).eq(a))))));
    const pattern = patternKey(w);
    seen.set(pattern, (seen.get(pattern) ?? 0) + 1);
    if (seen.get(pattern) === 2) {
      const conds = w.cycle.map((e) => enc.causes.find((c) => c.kind === e.modelKind && c.from === e.from && c.to === e.to && c.stmtFrom === e.stmtFrom && c.stmtTo === e.stmtTo && c.fields.join() === e.modelFields.join())!.cond);
      block.push(Z.Not(Z.And(...types, ...conds)));
    }
  }
  const first = await check(solver, goal, b, block);
  if (first.answer !== 'sat') return { answer: first.answer, witness: null };
  let model = first.model!;
  // A nicer witness when there is one (e.g. a predicate read matching the row another instance inserts).
  let preferred = false;
  if (enc.prefer.length > 0) {
    const nicer = await check(solver, goal, b, [...block, Z.And(...enc.prefer)]);
    if (nicer.answer === 'sat') { model = nicer.model!; preferred = true; }
  }
  // Parameters a user would run (Z3 readily picks Amount = -1): when the model has one outside
  // 0..SMALL_PARAM, ask once more with every parameter in that range (keeping the preferences
  // if they held), for a few seconds at most; keep the model so far if that fails.
  if (!smallParams(enc, model, m)) {
    const small = enc.txns.flatMap((t) => t.params.flatMap((p) => Array.from({ length: m }, (_, i) => {
      const x = enc.param(i, t.name, p);
      return Z.And(x.ge(0), x.le(SMALL_PARAM));
    })));
    const again = await check(solver, goal, { deadline: Math.min(b.deadline, performance.now() + SMALL_PARAM_MS) }, [...block, ...(preferred ? enc.prefer : []), ...small]);
    if (again.answer === 'sat') model = again.model!;
  }
  const pairs = Array.from({ length: m }, (_, i) => [i, (i + 1) % m] as const);
  const { edges, ...rest } = readWitness(Z, enc, model, m, pairs);
  return { answer: 'sat', witness: { ...rest, cycle: edges } };
}

/** Whether every slot's parameters (of the transaction the model gives it) lie in 0..SMALL_PARAM. */
function smallParams(enc: Encoding, model: ReturnType<Solver['model']>, m: number): boolean {
  const int = (e: Parameters<typeof model.eval>[0]): number => Number((model.eval(e as never, true) as unknown as { value(): bigint }).value());
  for (let i = 0; i < m; i++) {
    const t = enc.txns[int(enc.type[i]!)]!;
    for (const p of t.params) {
      const v = int(enc.param(i, t.name, p));
      if (v < 0 || v > SMALL_PARAM) return false;
    }
  }
  return true;
}

/** The preferred parameter range of a witness, and the time the second query may take. */
const SMALL_PARAM = 9;
const SMALL_PARAM_MS = 5000;
/** The wall time the preferred (serial, small, distinct) chordless path may take. */
const PATH_PREFER_MS = 20_000;

export function patternKey(w: Witness): string {
  return w.execution.instances.map((x) => x.txn).join() + '|' + w.cycle.map((e) => `${e.modelKind}:${e.stmtFrom}:${e.stmtTo}:${e.modelFields.join('/')}`).join();
}

/** The model's execution of m slots, and the edges `pairs` (each a dependency in the model) with their causes. */
function readWitness(Z: Z3, enc: Encoding, model: ReturnType<Solver['model']>, m: number, pairs: readonly (readonly [number, number])[]): Omit<Witness, 'cycle'> & { edges: WitnessEdge[] } {
  const int = (e: Parameters<typeof model.eval>[0]): number => Number((model.eval(e as never, true) as unknown as { value(): bigint }).value());
  const bool = (e: Parameters<typeof model.eval>[0]): boolean => Z.isTrue(model.eval(e as never, true));
  const txns = enc.txns;
  const instances = Array.from({ length: m }, (_, i) => {
    const t = txns[int(enc.type[i]!)]!;
    return { txn: t.name, args: t.params.map((p) => int(enc.param(i, t.name, p))) };
  });
  const ar = Array.from({ length: m }, (_, i) => i).sort((x, y) => int(enc.pos[x]!) - int(enc.pos[y]!));
  const vis = Array.from({ length: m }, (_, i) => Array.from({ length: m }, (_, j) => i !== j && bool(enc.vis[i]![j]!)));
  const cycle: WitnessEdge[] = [];
  for (const [i, j] of pairs) {
    const kinds = (['WW', 'WR', 'RW'] as const).filter((k) => bool(enc.rel[k][i]![j]!));
    const kind = kinds[0]!;
    // The model makes some disjunct of R(i,j)'s necessary condition true; fall back to the first
    // candidate if evaluation leaves it symbolic.
    const candidates = enc.causes.filter((c) => c.kind === kind && c.from === i && c.to === j);
    const cause = candidates.find((c) => bool(c.cond)) ?? candidates[0]!;
    cycle.push({
      from: i, to: j, kind, stmtFrom: cause.stmtFrom, stmtTo: cause.stmtTo, table: cause.table,
      key: cause.key.map((k) => int(k)), fields: cause.fields, modelKind: kind, modelFields: cause.fields,
    });
  }
  const locals = instances.map((inst, i) => {
    const t = txns.find((x) => x.name === inst.txn)! as Transaction;
    const out: Record<string, number> = {};
    for (const [v, vi] of t.vars) {
      if (vi.kind === 'scalar' && vi.depth === 0 && vi.assignments === 1) out[v] = int(Z.Int.const(`${t.name}_${i}_${v}`));
      if (vi.kind === 'rows' && vi.depth === 0 && vi.assignments === 1 && vi.fields.length === 1) out[v] = int(Z.Int.const(`${t.name}_${i}_${v}.${vi.fields[0]}`));
    }
    return out;
  });
  const fieldValues: Witness['fieldValues'] = [];
  instances.forEach((inst, i) => {
    const t = txns.find((x) => x.name === inst.txn)!;
    for (const [v, vi] of t.vars) {
      if (vi.kind !== 'rows' || vi.depth !== 0 || vi.assignments !== 1) continue;
      if (bool(Z.Bool.const(`${t.name}_${i}_${v}_null`))) continue;
      for (const f of vi.fields) fieldValues.push({ table: vi.table, field: f, value: int(Z.Int.const(`${t.name}_${i}_${v}.${f}`)) });
    }
  });
  return { execution: { instances, ar, vis }, edges: cycle, locals, fieldValues };
}

/** A chordless dependency path read off a model of φ_ShortestPath,k: instances 0 → 1 → ... → k. */
export interface PathWitness extends Omit<Witness, 'cycle'> {
  /** edges[i] is the dependency from instance i to instance i + 1. */
  path: WitnessEdge[];
}

/**
 * φ_ShortestPath,k: k+1 distinct instances on a path with no chord (no dependency from instance
 * i to instance j ≥ i + 2). unsat ⇒ no shortest path of length ≥ k. When sat, the path as a
 * witness, from a model that is serial along the path (each instance arbitrated after and
 * seeing every earlier one) with parameters in 0..SMALL_PARAM when the encoding admits one:
 * a serial execution obeys every model, so confirming it on the interpreter needs no axiom.
 * `exclude`: paths refuted already, with the edges that arose in no run of the interpreter.
 */
export async function shortestPath(
  Z: Z3, info: ProgramInfo, spec: ModelSpec, k: number, b: QueryBudget, exclude: { witness: PathWitness; blame: number[] }[] = [],
): Promise<{ answer: SatAnswer; witness: PathWitness | null }> {
  const n = k + 1;
  const { enc, solver } = encodingFor(Z, info, spec, info.program.txns, n);
  const parts: Bool<'main'>[] = [];
  for (let i = 0; i < k; i++) parts.push(enc.dep(i, i + 1));
  for (let i = 0; i < k; i++) for (let j = i + 2; j <= k; j++) parts.push(Z.Not(enc.dep(i, j)));
  // Steering the search for a confirmable path: a refuted path's sequence of transactions is
  // not asked again, and the edges to blame (missing from the interpreter's runs that came
  // closest, e.g. a predicate read of a record whose name the encoding leaves free) are excluded
  // between any two consecutive instances of the same transactions, whatever the kind and field
  // between the same two statements. Only confirmation is steered so: the proof's own query
  // (exclude = []) excludes nothing.
  const block: Bool<'main'>[] = [];
  for (const x of exclude) {
    const w = x.witness;
    block.push(Z.Not(Z.And(...w.execution.instances.map((inst, i) => enc.isType(i, inst.txn)))));
    for (const ei of x.blame) {
      const e = w.path[ei]!;
      for (let a = 0; a < k; a++) {
        const conds = enc.causes.filter((c) => c.from === a && c.to === a + 1 && c.stmtFrom === e.stmtFrom && c.stmtTo === e.stmtTo).map((c) => c.cond);
        if (conds.length > 0) block.push(Z.Not(Z.And(enc.isType(a, w.execution.instances[e.from]!.txn), enc.isType(a + 1, w.execution.instances[e.to]!.txn), Z.Or(...conds))));
      }
    }
  }
  const serial: Bool<'main'>[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) serial.push(enc.ar(i, j), enc.vis[i]![j]!);
  }
  const small = enc.txns.flatMap((t) => t.params.flatMap((p) => Array.from({ length: n }, (_, i) => {
    const x = enc.param(i, t.name, p);
    return Z.And(x.ge(0), x.le(SMALL_PARAM));
  })));
  // No two instances of one transaction with the same arguments: repeating an instance makes
  // every later writer of what it read a chord in the real run (RW goes to every later writer).
  const distinct: Bool<'main'>[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      for (const t of enc.txns) distinct.push(Z.Not(Z.And(enc.isType(i, t.name), enc.isType(j, t.name), ...t.params.map((p) => enc.param(i, t.name, p).eq(enc.param(j, t.name, p))))));
    }
  }
  const briefly = (ms: number): QueryBudget => ({ deadline: Math.min(b.deadline, performance.now() + ms) });
  // The serial, small, distinct path first: a model of it is a model of φ_ShortestPath,k (sat
  // answers the proof's question), and it costs about what φ_ShortestPath,k costs (measured on
  // Courseware at k = 4: 2.5-3 s CPU each), so it is given PATH_PREFER_MS of wall time, enough on
  // a loaded machine, rather than a few seconds after which the same work would start again.
  // Otherwise φ_ShortestPath,k itself (its unsat proves), then a serial model of it.
  let model: ReturnType<Solver['model']>;
  const preferred = await check(solver, Z.And(...parts), briefly(PATH_PREFER_MS), [...block, ...serial, ...small, ...distinct]);
  if (preferred.answer === 'sat') model = preferred.model!;
  else {
    const first = await check(solver, Z.And(...parts), b, block);
    if (first.answer !== 'sat') return { answer: first.answer, witness: null };
    model = first.model!;
    const again = await check(solver, Z.And(...parts), briefly(SMALL_PARAM_MS), [...block, ...serial]);
    if (again.answer === 'sat') model = again.model!;
  }
  const { edges, ...rest } = readWitness(Z, enc, model, n, Array.from({ length: k }, (_, i) => [i, i + 1] as const));
  return { answer: 'sat', witness: { ...rest, path: edges } };
}

/**
 * φ_Inductive,T' over the transactions `among`: an edge out of an instance of T' against
 * arbitration, or a two-edge path t1 → t2 → t3 with t3 arbitrated before both. unsat ⇒ no
 * execution of `among` with an instance of T' has a cycle through it (Theorem 12).
 */
export async function inductiveStep(Z: Z3, info: ProgramInfo, spec: ModelSpec, among: Transaction[], tPrime: Transaction[], b: QueryBudget): Promise<SatAnswer> {
  const { enc: e2, solver: s2 } = encodingFor(Z, info, spec, among, 2);
  const first = await check(s2, Z.And(Z.Or(...tPrime.map((t) => e2.isType(0, t.name))), e2.dep(0, 1), Z.Not(e2.ar(0, 1))), b);
  if (first.answer !== 'unsat') return first.answer;
  const { enc: e3, solver: s3 } = encodingFor(Z, info, spec, among, 3);
  const second = await check(s3, Z.And(e3.dep(0, 1), e3.dep(1, 2), Z.Not(e3.ar(0, 2)), Z.Not(e3.ar(1, 2))), b);
  return second.answer;
}

/** Whether any two instances of `among` can be dependent at all. */
export async function anyDependency(Z: Z3, info: ProgramInfo, spec: ModelSpec, among: Transaction[], b: QueryBudget): Promise<SatAnswer> {
  const { enc: e2, solver } = encodingFor(Z, info, spec, among, 2);
  return (await check(solver, e2.dep(0, 1), b)).answer;
}
