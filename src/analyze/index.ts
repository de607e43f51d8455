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
import { anyDependency, findCycle, inductiveStep, shortestPath, type SatAnswer, type Witness } from './queries.ts';
import { confirmWitness, type Confirmation } from './confirm.ts';
import { toCounterexample } from './explain.ts';

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
  /** Why a proof was not found, when --prove did not prove. */
  proofNote: string | null;
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
    verdict, model: describeSpec(spec, opts.model), bound: opts.bound, involving, anomaly: null, proof: null, proofNote: null,
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
  const tries = opts.confirmTries ?? 8;
  for (let m = 2; m <= opts.bound; m++) {
    const tried: Witness[] = [];
    for (let attempt = 0; attempt < tries; attempt++) {
      const r = await ask(`cycle of length ${m}`, () => findCycle(Z, info, spec, m, budget, tried, involving));
      if (r.answer === 'unknown') { unknown = true; break; }
      if (r.answer === 'unsat') break;
      const w = r.witness!;
      const conf = confirmWitness(info, spec, w);
      if (conf.reproduced) {
        // Report the real dependencies: the kind the run produced (the model's if it is among
        // them) and the item.
        for (const e of w.cycle) {
          const real = conf.run!.edges.filter((x) => x.from === e.from && x.to === e.to);
          const pick = real.find((x) => x.kind === e.kind) ?? real[0]!;
          e.kind = pick.kind;
          e.item = pick.item;
          e.fromValue = pick.fromValue;
          e.toValue = pick.toValue;
        }
        return result('anomaly', { anomaly: { length: m, witness: w, confirmation: conf, explanation: toCounterexample(info, w, conf) } });
      }
      unconfirmed ??= { length: m, witness: w, confirmation: conf, explanation: toCounterexample(info, w, conf) };
      tried.push(w);
    }
    if (unknown) break;
  }
  if (unconfirmed !== null) return result('anomaly', { anomaly: unconfirmed });
  if (unknown) return result('unknown');
  if (!opts.prove) return result('none');
  const proof = await proveShortestPath(Z, info, spec, describeSpec(spec, opts.model), opts.bound, budget, ask);
  if (proof.proof !== null) return result('proved', { proof: proof.proof });
  return result(proof.unknown ? 'unknown' : 'none', { proofNote: `${proof.note} (${inductiveNote})` });
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
      return { proof: null, unknown, note: `the inductive step fails for every one of {${rest.map((t) => t.name).join(', ')}}` };
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
  Z: Awaited<ReturnType<typeof loadZ3>>, info: ProgramInfo, spec: ModelSpec, desc: string, bound: number, budget: { deadline: number }, ask: Ask,
): Promise<{ proof: ProofResult | null; unknown: boolean; note: string }> {
  // Theorem 10: the caller has already excluded cycles up to `bound`.
  let unknown = false;
  for (let k = 2; k <= bound; k++) {
    const a = await ask(`chordless path of length ${k}`, () => shortestPath(Z, info, spec, k, budget));
    if (a === 'unknown') { unknown = true; break; }
    if (a === 'unsat') {
      return { proof: { method: 'shortest-path', k, statement: `serializable for all executions under ${desc}: no chordless dependency path of length ${k} and no cycle of length ≤ ${k}` }, unknown: false, note: '' };
    }
  }
  return { proof: null, unknown, note: `a chordless dependency path of every length up to ${bound}, and the inductive step fails` };
}
