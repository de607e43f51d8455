/**
 * The brute-force oracle of the analysis differential (test/analyze/differential.test.ts):
 * random transaction programs, and every execution of k instances of them.
 *
 * Takes: a program, k, the models, initial databases. Gives: the models under which some
 * execution (instances with parameters in DOMAIN, every arbitration order, every visibility
 * relation the model's axioms allow, each initial database) has a dependency cycle, run on the
 * interpreter (src/analyze/interp.ts). Invariant: shares no code with the encoding — the axioms,
 * the cycle test and which tables are dynamic are computed here.
 */
import type { ModelName, Program } from '../../src/analyze/lang/ast.ts';
import { runExecution, type InitialDb, type Run } from '../../src/analyze/interp.ts';
import type { Rng } from './prng.ts';

/** Parameter values and record keys brute force ranges over. */
export const DOMAIN = [0, 1];
export const KEYS = [0, 1];

function pick<T>(rng: Rng, xs: readonly T[]): T { return xs[Math.floor(rng() * xs.length)]!; }

/**
 * Two tables, T(K KEY, V, W) and U(K KEY, V); two transactions of one to three statements over
 * params p (a key) and q. Statements: key lookups, blind and read-modify-write updates, a guarded
 * update, a MAX over a key range (a predicate read), INSERT, DELETE and insert-if-absent, so that
 * a table with INSERT or DELETE has records that may or may not exist.
 */
export function randomProgram(rng: Rng): string {
  const stmt = (i: number): string => {
    const key = pick(rng, ['p', 'q', '0']);
    const tbl = pick(rng, ['T', 'T', 'U']);
    const f = tbl === 'T' ? pick(rng, ['V', 'W']) : 'V';
    const g = tbl === 'T' ? pick(rng, ['V', 'W']) : 'V';
    const row = tbl === 'T' ? `(K, V, W) VALUES (${key}, q, 1)` : `(K, V) VALUES (${key}, q)`;
    switch (Math.floor(rng() * 8)) {
      case 0: return `SELECT ${f} AS x${i} FROM ${tbl} WHERE K = ${key};`;
      case 1: return `UPDATE ${tbl} SET ${f} = ${pick(rng, ['q', '1', `${f} + 1`])} WHERE K = ${key};`;
      case 2: return `SELECT ${f} AS x${i} FROM ${tbl} WHERE K = ${key};\n  IF x${i} > q { UPDATE ${tbl} SET ${g} = x${i} - 1 WHERE K = ${key}; }`;
      case 3: return `SELECT ${f} AS x${i} FROM ${tbl} WHERE K = ${key};\n  UPDATE ${tbl} SET ${g} = x${i} + 1 WHERE K = ${key};`;
      case 4: return `SELECT MAX(${f}) AS x${i} FROM ${tbl} WHERE K >= ${key};`;
      case 5: return `INSERT INTO ${tbl} ${row};`;
      case 6: return `DELETE FROM ${tbl} WHERE K = ${key};`;
      default: return `SELECT ${f} AS x${i} FROM ${tbl} WHERE K = ${key};\n  IF x${i} IS NULL { INSERT INTO ${tbl} ${row}; }`;
    }
  };
  const txn = (name: string): string => {
    const n = 1 + Math.floor(rng() * 3);
    return `TRANSACTION ${name}(p, q) {\n  ${Array.from({ length: n }, (_, i) => stmt(i)).join('\n  ')}\n}`;
  };
  return `TABLE T (K KEY, V, W);\nTABLE U (K KEY, V);\n${txn('A')}\n${txn('B')}\n`;
}

/** The model's axioms on one execution, with the real WW edges (docs/analyze-language.md). */
export function allowed(model: ModelName, n: number, pos: number[], vis: boolean[][], run: Run): boolean {
  const ar = (i: number, j: number) => pos[i]! < pos[j]!;
  const cc = model !== 'ec';
  const pc = model === 'pc' || model === 'si' || model === 'ser';
  const psi = model === 'psi' || model === 'si' || model === 'ser';
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      if (model === 'ser' && ar(i, j) && !vis[i]![j]) return false;
      if (psi && run.edges.some((e) => e.kind === 'WW' && e.from === i && e.to === j) && !vis[i]![j]) return false;
      for (let l = 0; l < n; l++) {
        if (l === i || l === j) continue;
        if (cc && vis[i]![j] && vis[j]![l] && !vis[i]![l]) return false;
        if (pc && ar(i, j) && vis[j]![l] && !vis[i]![l]) return false;
      }
    }
  }
  return true;
}

export function cyclic(n: number, run: Run): boolean {
  const adj = Array.from({ length: n }, () => new Set<number>());
  for (const e of run.edges) adj[e.from]!.add(e.to);
  // n ≤ 3: a cycle exists iff some node reaches itself.
  for (let s = 0; s < n; s++) {
    const seen = new Set<number>();
    const stack = [...adj[s]!];
    while (stack.length > 0) {
      const x = stack.pop()!;
      if (x === s) return true;
      if (seen.has(x)) continue;
      seen.add(x);
      stack.push(...adj[x]!);
    }
  }
  return false;
}

function permutations(n: number): number[][] {
  if (n === 1) return [[0]];
  return permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]));
}

/** Initial databases: every static table's fields hold v; each dynamic table holds one subset of KEYS, fields v. */
export function initialDbs(program: Program, values: readonly number[], subsets: 'all' | 'extremes'): InitialDb[] {
  // Dynamic: some statement inserts into or deletes from it (computed here, not taken from the analysis).
  const dynamic = program.tables.filter((t) => program.stmts.some(({ stmt }) => (stmt.k === 'insert' || stmt.k === 'delete') && stmt.table === t.name));
  // 'all': each dynamic table independently any subset of KEYS; 'extremes': all empty, or all full.
  const choices = Array.from({ length: 1 << KEYS.length }, (_, m) => KEYS.filter((_k, b) => (m & (1 << b)) !== 0));
  let combos: number[][][] = [[]];
  if (subsets === 'all') for (const _t of dynamic) combos = combos.flatMap((c) => choices.map((ks) => [...c, ks]));
  else combos = [dynamic.map(() => []), dynamic.map(() => [...KEYS])];
  return values.flatMap((v) => combos.map((combo) => ({
    value: () => v,
    rows: dynamic.flatMap((t, ti) => combo[ti]!.map((k) => ({ table: t.name, values: Object.fromEntries(t.fields.map((f) => [f, t.key.includes(f) ? k : v])) }))),
  })));
}

/** Brute force: the models under which some execution of k instances has a dependency cycle. */
export function bruteForce(program: Program, k: number, models: readonly ModelName[], dbs: InitialDb[]): Set<ModelName> {
  const found = new Set<ModelName>();
  const txns = program.txns;
  const one = txns.flatMap((t) => DOMAIN.flatMap((p) => DOMAIN.map((q) => ({ txn: t.name, args: [p, q] }))));
  // Multisets of instances suffice: every arbitration order and visibility relation over the
  // indices is enumerated below, so a permutation of the instances adds no execution.
  const insts = (m: number, from = 0): { txn: string; args: number[] }[][] =>
    (m === 0 ? [[]] : one.slice(from).flatMap((x, i) => insts(m - 1, from + i).map((rest) => [x, ...rest])));
  const pairs: [number, number][] = [];
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) if (i !== j) pairs.push([i, j]);
  for (const instances of insts(k)) {
    for (const ar of permutations(k)) {
      const pos = new Array<number>(k);
      ar.forEach((i, p) => { pos[i] = p; });
      const forward = pairs.filter(([i, j]) => pos[i]! < pos[j]!);
      for (let mask = 0; mask < 1 << forward.length; mask++) {
        const vis = Array.from({ length: k }, () => new Array<boolean>(k).fill(false));
        forward.forEach(([i, j], b) => { vis[i]![j] = (mask & (1 << b)) !== 0; });
        for (const db of dbs) {
          const run = runExecution(program, { instances, ar, vis }, db);
          if (!cyclic(k, run)) continue;
          for (const model of models) if (allowed(model, k, pos, vis, run)) found.add(model);
          if (found.size === models.length) return found;
        }
      }
    }
  }
  return found;
}

