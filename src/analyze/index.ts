/**
 * Static analysis of transaction programs (ANODE): `analyzeProgram` answers whether some
 * execution of at most `bound` instances under the model has a dependency cycle (a
 * serializability anomaly), and with `prove`, whether no execution of any size has one.
 *
 * Takes: a parsed program and options. Gives: an `AnalysisResult` (data; nothing printed):
 * 'anomaly' with the shortest cycle found, confirmed on the interpreter and explained as a
 * Counterexample; 'none' (no cycle up to the bound); 'proved' (with the method: shortest path
 * at k, or induction on a sequence of transaction sets); 'unknown' (the time budget ran out).
 * Invariant: Z3 is loaded here only (dynamic import), never by `polysi check`.
 */

import type { Counterexample } from '../result/counterexample.ts';
import { analyzeProgram as analyzeAccess, type ProgramInfo } from './lang/access.ts';
import type { ModelName, Program, Transaction } from './lang/ast.ts';
import { describeSpec, modelSpec, type ModelSpec } from './models.ts';
import { loadZ3 } from './encode/z3.ts';
import { anyDependency, findCycle, inductiveStep, shortestPath, type PathWitness, type SatAnswer, type Witness, type WitnessEdge } from './queries.ts';
import { confirmPath, confirmWitness, type Confirmation, type PathOrder } from './confirm.ts';
import { instanceLabel, toCounterexample } from './explain.ts';
import type { Instance, InitialDb, Run } from './interp.ts';

export { parseProgram } from './lang/parse.ts';
export type { Program } from './lang/ast.ts';

export interface AnalyzeOptions {
  model: ModelName;
  /** Longest cycle searched (number of instances), ≥ 2. */
  bound: number;
  prove: boolean;
  timeoutMs: number;
  /** Witnesses tried before giving up on confirming one on the interpreter. */
  confirmTries?: number;
  /** With prove: chordless paths tried on the interpreter before reporting one not confirmed (16). */
  pathTries?: number;
  /**
   * Focus the bounded search: every instance of the cycle is one of these transactions, and each
   * of them has an instance. Not with `prove` (a proof is about every transaction).
   */
  involving?: string[];
}

export interface QueryRecord { query: string; answer: SatAnswer; ms: number }

export interface ProofResult {
  method: 'shortest-path' | 'inductive';
  /** shortest-path: no chordless path of length k and no cycle of length ≤ k. */
  k?: number;
  /** inductive: the sets T' proved one after another (then the rest has no dependencies). */
  steps?: string[][];
  statement: string;
}

/**
 * A chordless dependency path of length k (k + 1 instances) that φ_ShortestPath,k admits, and
 * whether the interpreter confirmed it: a confirmed one is a real execution with a shortest path
 * of length k, so the shortest-path proof cannot succeed at this k with any sound encoding.
 */
export interface ChordlessPath {
  k: number;
  instances: Instance[];
  /** The execution shown: the one that confirmed the path (serial or the model's), else the model's. */
  arbitration: number[];
  visibility: boolean[][];
  /** edges[i]: instance i → i + 1, with `item` and values of the real dependency when confirmed. */
  edges: WitnessEdge[];
  confirmed: boolean;
  /** 'serial' (path order, each instance seeing all before it: an execution of every model) or 'model'. */
  order: PathOrder | null;
  /** Why not, when not confirmed (the encoding's imprecision). */
  reason: string;
  initialValue: number | null;
  initialRows: InitialDb['rows'];
  /** One line for people ("shortest-path proof does not apply: ..."). */
  statement: string;
}

/** With --prove and no proof: why each method did not apply. */
export interface ProofAttempts {
  /** Why the inductive proof failed ('' when it was not the reason, e.g. the budget ran out first). */
  inductive: string;
  /** Why the shortest-path proof failed, or null when it was not tried (a confirmed anomaly, the budget). */
  shortestPath: string | null;
  /** The longest chordless path found, tried on the interpreter. */
  chordlessPath: ChordlessPath | null;
}

export interface AnalysisResult {
  verdict: 'anomaly' | 'none' | 'proved' | 'unknown';
  model: string;
  bound: number;
  /** The transactions the search was restricted to (--involving), or null. */
  involving: string[] | null;
  anomaly: null | {
    length: number;
    witness: Witness;
    confirmation: Confirmation;
    explanation: Counterexample;
  };
  proof: ProofResult | null;
  /** Why a proof was not found, when --prove did not prove (the text of proofAttempts). */
  proofNote: string | null;
  /** With --prove and no proof: the reasons as data. */
  proofAttempts: ProofAttempts | null;
  queries: QueryRecord[];
  timesMs: { z3Load: number; total: number };
}

export async function analyzeProgram(program: Program, opts: AnalyzeOptions): Promise<AnalysisResult> {
  if (!(opts.bound >= 2)) throw new RangeError('bound must be at least 2');
  const involving = opts.involving === undefined ? null : [...new Set(opts.involving)];
  if (involving !== null) {
    if (involving.length === 0) throw new RangeError('involving needs at least one transaction');
    const unknown = involving.filter((t) => !program.txns.some((x) => x.name === t));
    if (unknown.length > 0) throw new RangeError(`involving: no transaction named ${unknown.join(', ')}`);
    if (opts.prove) throw new RangeError('involving focuses the bounded search; it cannot be combined with prove');
  }
  const t0 = performance.now();
  const Z = await loadZ3();
  const z3Load = performance.now() - t0;
  const info = analyzeAccess(program);
  const spec = modelSpec(program, opts.model);
  const budget = { deadline: t0 + opts.timeoutMs };
  const queries: QueryRecord[] = [];
  const ask = async <T extends { answer: SatAnswer } | SatAnswer>(query: string, f: () => Promise<T>): Promise<T> => {
    const s = performance.now();
    const r = await f();
    queries.push({ query, answer: typeof r === 'string' ? r : r.answer, ms: Math.round(performance.now() - s) });
    return r;
  };
  const result = (verdict: AnalysisResult['verdict'], rest: Partial<AnalysisResult> = {}): AnalysisResult => ({
    verdict, model: describeSpec(spec, opts.model), bound: opts.bound, involving, anomaly: null, proof: null, proofNote: null, proofAttempts: null,
    queries, timesMs: { z3Load: Math.round(z3Load), total: Math.round(performance.now() - t0) }, ...rest,
  });

  // With --prove, the inductive proof first: it is cheap and, when it holds, covers every
  // execution (Theorem 12), so no bounded search is needed.
  let inductiveNote = '';
  if (opts.prove) {
    const ind = await proveInductive(Z, info, spec, describeSpec(spec, opts.model), budget, ask);
    if (ind.proof !== null) return result('proved', { proof: ind.proof });
    inductiveNote = ind.note;
  }
  // The shortest confirmed cycle; failing that, the shortest predicted one (reported as not
  // confirmed: a refuted witness never turns into "none").
  let unknown = false;
  let unconfirmed: NonNullable<AnalysisResult['anomaly']> | null = null;
  // The longest m such that the encoding has no cycle of any length 2..m (Theorem 10's premise).
  let cycleFree = 1;
  const tries = opts.confirmTries ?? 8;
  for (let m = 2; m <= opts.bound; m++) {
    const tried: Witness[] = [];
    for (let attempt = 0; attempt < tries; attempt++) {
      const r = await ask(`cycle of length ${m}`, () => findCycle(Z, info, spec, m, budget, tried, involving));
      if (r.answer === 'unknown') { unknown = true; break; }
      if (r.answer === 'unsat') {
        if (attempt === 0 && cycleFree === m - 1) cycleFree = m;
        break;
      }
      const w = r.witness!;
      const conf = confirmWitness(info, spec, w);
      if (conf.reproduced) {
        realEdges(w.cycle, conf.run!);
        return result('anomaly', { anomaly: { length: m, witness: w, confirmation: conf, explanation: toCounterexample(info, w, conf) } });
      }
      unconfirmed ??= { length: m, witness: w, confirmation: conf, explanation: toCounterexample(info, w, conf) };
      tried.push(w);
    }
    if (unknown) break;
  }
  if (unknown) return result(unconfirmed !== null ? 'anomaly' : 'unknown', { anomaly: unconfirmed });
  if (!opts.prove) return unconfirmed !== null ? result('anomaly', { anomaly: unconfirmed }) : result('none');
  // The shortest-path proof, also after a refuted prediction: it may still prove at a k below
  // the refuted cycle's length, and otherwise says why it does not apply (a chordless path,
  // confirmed on the interpreter or not).
  const sp = await proveShortestPath(Z, info, spec, describeSpec(spec, opts.model), opts.bound, cycleFree, opts.pathTries ?? 16, budget, ask);
  if (sp.proof !== null) return result('proved', { proof: sp.proof });
  const attempts: ProofAttempts = { inductive: inductiveNote, shortestPath: sp.note, chordlessPath: sp.path };
  const proofNote = [sp.note, inductiveNote].filter((x) => x !== '').join('; ');
  const verdict = unconfirmed !== null ? 'anomaly' : sp.unknown ? 'unknown' : 'none';
  return result(verdict, { anomaly: unconfirmed, proofNote, proofAttempts: attempts });
}

/** Report the real dependencies of a confirmed run: the kind it produced (the model's if among them) and the item. */
function realEdges(edges: WitnessEdge[], run: Run): void {
  for (const e of edges) {
    const real = run.edges.filter((x) => x.from === e.from && x.to === e.to);
    const pick = real.find((x) => x.kind === e.kind) ?? real[0]!;
    e.kind = pick.kind;
    e.item = pick.item;
    e.fromValue = pick.fromValue;
    e.toValue = pick.toValue;
  }
}

type Ask = <T extends { answer: SatAnswer } | SatAnswer>(query: string, f: () => Promise<T>) => Promise<T>;

async function proveInductive(
  Z: Awaited<ReturnType<typeof loadZ3>>, info: ProgramInfo, spec: ModelSpec, desc: string, budget: { deadline: number }, ask: Ask,
): Promise<{ proof: ProofResult | null; unknown: boolean; note: string }> {
  let unknown = false;
  // Induction (Theorem 12): peel off sets T' whose instances cannot lie on a cycle.
  let rest: Transaction[] = [...info.program.txns];
  const steps: string[][] = [];
  while (rest.length > 0) {
    const all = await ask(`inductive step on {${rest.map((t) => t.name).join(', ')}}`, () => inductiveStep(Z, info, spec, rest, rest, budget));
    if (all === 'unsat') { steps.push(rest.map((t) => t.name)); rest = []; break; }
    if (all === 'unknown') { unknown = true; break; }
    const passing: Transaction[] = [];
    for (const t of rest) {
      const a = await ask(`inductive step on {${t.name}}`, () => inductiveStep(Z, info, spec, rest, [t], budget));
      if (a === 'unsat') passing.push(t);
      if (a === 'unknown') unknown = true;
    }
    if (passing.length === 0) {
      const dep = await ask(`any dependency among {${rest.map((t) => t.name).join(', ')}}`, () => anyDependency(Z, info, spec, rest, budget));
      if (dep === 'unsat') { steps.push([]); break; }
      return { proof: null, unknown, note: `inductive proof does not apply: the inductive step fails for every one of {${rest.map((t) => t.name).join(', ')}}` };
    }
    steps.push(passing.map((t) => t.name));
    rest = rest.filter((t) => !passing.includes(t));
  }
  if (unknown && rest.length > 0) return { proof: null, unknown: true, note: 'the time budget ran out' };
  const sets = steps.filter((s) => s.length > 0).map((s) => `{${s.join(', ')}}`).join(', then ');
  const tail = steps.at(-1)?.length === 0 ? '; the remaining transactions have no dependencies between them' : '';
  return {
    proof: { method: 'inductive', steps: steps.filter((s) => s.length > 0), statement: `serializable for all executions under ${desc}, by induction on ${sets}${tail}` },
    unknown: false, note: '',
  };
}

async function proveShortestPath(
  Z: Awaited<ReturnType<typeof loadZ3>>, info: ProgramInfo, spec: ModelSpec, desc: string, bound: number, cycleFree: number, tries: number,
  budget: { deadline: number }, ask: Ask,
): Promise<{ proof: ProofResult | null; unknown: boolean; note: string; path: ChordlessPath | null }> {
  // Theorem 10: no chordless path of length k and no cycle of length ≤ k (cycleFree ≥ k).
  let longest: { k: number; witness: PathWitness } | null = null;
  let note = '';
  for (let k = 2; k <= bound; k++) {
    const a = await ask(`chordless path of length ${k}`, () => shortestPath(Z, info, spec, k, budget));
    if (a.answer === 'unknown') return { proof: null, unknown: true, note: 'the time budget ran out', path: null };
    if (a.answer === 'unsat') {
      if (k <= cycleFree) {
        return { proof: { method: 'shortest-path', k, statement: `serializable for all executions under ${desc}: no chordless dependency path of length ${k} and no cycle of length ≤ ${k}` }, unknown: false, note: '', path: null };
      }
      note = `no chordless dependency path of length ${k}, but the encoding has a cycle of length ≤ ${k} (not confirmed on the interpreter)`;
      break;
    }
    longest = { k, witness: a.witness! };
  }
  if (longest === null) return { proof: null, unknown: false, note, path: null };
  // The longest path found, on the interpreter: every sub-path of a chordless path is chordless,
  // so a real one of length k shows real ones of every length ≤ k. A refuted path is excluded
  // (its instances and parameters) and the solver asked again, `tries` paths in all.
  const { k } = longest;
  const tried: { witness: PathWitness; blame: number[] }[] = [];
  let w = longest.witness;
  let first: { w: PathWitness; reason: string } | null = null;
  for (let attempt = 0; ; attempt++) {
    const c = confirmPath(info, spec, w);
    if (c.reproduced) {
      realEdges(w.path, c.run!);
      const exec = c.execution!;
      const order = exec.ar.map((i) => instanceLabel(info, w, i)).join(' < ');
      const edges = w.path.map((e) => `-${e.kind}(${e.item})->`).join(' ');
      const statement = `shortest-path proof does not apply: a chordless path of length ${k} exists in a real execution `
        + `(confirmed on the interpreter: ${c.order === 'serial' ? 'serial order' : `the model's order${visSummary(exec.vis)}`} ${order}; path ${edges})`;
      return {
        proof: null, unknown: false, note: [statement, note].filter((x) => x !== '').join('; '),
        path: { k, instances: w.execution.instances, arbitration: exec.ar, visibility: exec.vis, edges: w.path, confirmed: true, order: c.order, reason: '', initialValue: c.initialValue, initialRows: c.initialRows, statement },
      };
    }
    first ??= { w, reason: c.reason };
    tried.push({ witness: w, blame: c.blame });
    if (attempt + 1 >= tries) break;
    const again = await ask(`chordless path of length ${k} (another, to confirm)`, () => shortestPath(Z, info, spec, k, budget, tried));
    if (again.answer !== 'sat') break;
    w = again.witness!;
  }
  const fw = first!.w;
  const statement = `shortest-path proof: a chordless path of length ${k} in the encoding, not confirmed on the interpreter in ${tried.length} tries `
    + `(the encoding's imprecision; first: ${first!.reason})`;
  return {
    proof: null, unknown: false, note: [statement, note].filter((x) => x !== '').join('; '),
    path: { k, instances: fw.execution.instances, arbitration: fw.execution.ar, visibility: fw.execution.vis, edges: fw.path, confirmed: false, order: null, reason: first!.reason, initialValue: null, initialRows: [], statement },
  };
}

/** ", visible: #1→#2, ..." for a non-serial execution shown in the model's order. */
function visSummary(vis: boolean[][]): string {
  const out: string[] = [];
  vis.forEach((row, i) => row.forEach((v, j) => { if (v) out.push(`#${i + 1}→#${j + 1}`); }));
  return ` (visible: ${out.length === 0 ? 'none' : out.join(', ')})`;
}
