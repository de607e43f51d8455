// Differential test of the static analysis (issue 11): on small random programs over one table,
// every anomaly that brute force finds (all instances of k transactions with small parameters,
// every arbitration order, every visibility relation the model allows, small initial values,
// executed by the interpreter) must be found by the bounded search; and every anomaly the search
// reports confirmed is a real execution. The oracle enumerates executions and checks the model's
// axioms itself; it shares no code with the encoding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProgram, analyzeProgram } from '../../src/analyze/index.ts';
import type { ModelName, Program } from '../../src/analyze/lang/ast.ts';
import { runExecution, type Run } from '../../src/analyze/interp.ts';
import { mulberry32, type Rng } from '../support/prng.ts';

const PROGRAMS = Number(process.env.POLYSI_FUZZ_SCALE ?? 1) * 8;
const DOMAIN = [0, 1];

function pick<T>(rng: Rng, xs: readonly T[]): T { return xs[Math.floor(rng() * xs.length)]!; }

/** One table T(K KEY, V, W); two transactions of one to three statements over params p (a key) and q. */
function randomProgram(rng: Rng): string {
  const stmt = (i: number): string => {
    const key = pick(rng, ['p', 'q', '0']);
    const f = pick(rng, ['V', 'W']);
    switch (Math.floor(rng() * 5)) {
      case 0: return `SELECT ${f} AS x${i} FROM T WHERE K = ${key};`;
      case 1: return `UPDATE T SET ${f} = ${pick(rng, ['q', '1', `${f} + 1`])} WHERE K = ${key};`;
      case 2: return `SELECT ${f} AS x${i} FROM T WHERE K = ${key};\n  IF x${i} > q { UPDATE T SET ${pick(rng, ['V', 'W'])} = x${i} - 1 WHERE K = ${key}; }`;
      case 3: return `SELECT ${f} AS x${i} FROM T WHERE K = ${key};\n  UPDATE T SET ${pick(rng, ['V', 'W'])} = x${i} + 1 WHERE K = ${key};`;
      default: return `SELECT MAX(${f}) AS x${i} FROM T WHERE K >= ${key};`;
    }
  };
  const txn = (name: string): string => {
    const n = 1 + Math.floor(rng() * 3);
    return `TRANSACTION ${name}(p, q) {\n  ${Array.from({ length: n }, (_, i) => stmt(i)).join('\n  ')}\n}`;
  };
  return `TABLE T (K KEY, V, W);\n${txn('A')}\n${txn('B')}\n`;
}

/** The model's axioms on one execution, with the real WW edges (docs/analyze-language.md). */
function allowed(model: ModelName, n: number, pos: number[], vis: boolean[][], run: Run): boolean {
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

function cyclic(n: number, run: Run): boolean {
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

/** Brute force: is there an execution of k instances with a dependency cycle that the model allows? */
function bruteForce(program: Program, model: ModelName, k: number, values: readonly number[] = [0, 1, 2]): boolean {
  const txns = program.txns;
  const insts = (m: number): { txn: string; args: number[] }[][] => {
    if (m === 0) return [[]];
    const one = txns.flatMap((t) => DOMAIN.flatMap((p) => DOMAIN.map((q) => ({ txn: t.name, args: [p, q] }))));
    return insts(m - 1).flatMap((rest) => one.map((x) => [...rest, x]));
  };
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
        for (const v of values) {
          const run = runExecution(program, { instances, ar, vis }, { value: () => v, rows: [] });
          if (cyclic(k, run) && allowed(model, k, pos, vis, run)) return true;
        }
      }
    }
  }
  return false;
}

test('bounded search agrees with brute force on random one-table programs (k = 2)', async () => {
  const rng = mulberry32(11);
  const tally = { anomalies: 0, none: 0, confirmed: 0 };
  for (let n = 0; n < PROGRAMS; n++) {
    const text = randomProgram(rng);
    const program = parseProgram(text, `random-${n}`);
    for (const model of ['ec', 'psi', 'si', 'ser'] as const) {
      const brute = bruteForce(program, model, 2);
      const r = await analyzeProgram(program, { model, bound: 2, prove: false, timeoutMs: 60_000 });
      assert.notEqual(r.verdict, 'unknown', text);
      // Soundness: no execution the search missed.
      if (brute) assert.equal(r.verdict, 'anomaly', `brute force finds a cycle under ${model} that the search misses:\n${text}`);
      if (model === 'ser') assert.equal(brute, false, text);
      if (r.verdict === 'anomaly') {
        tally.anomalies++;
        if (r.anomaly!.confirmation.reproduced) tally.confirmed++;
        // A confirmed anomaly whose parameters lie in the brute-force domain is one brute force finds.
        const inDomain = r.anomaly!.witness.execution.instances.every((x) => x.args.every((a) => DOMAIN.includes(a)));
        if (r.anomaly!.confirmation.reproduced && inDomain && r.anomaly!.confirmation.initialRows.length === 0
          && [0, 1, 2].includes(r.anomaly!.confirmation.initialValue!)) {
          assert.equal(brute, true, `confirmed anomaly under ${model} that brute force does not find:\n${text}`);
        }
      } else tally.none++;
      // Completeness on what we can see: brute force found one, so the search must report it confirmed.
      if (brute) assert.equal(r.anomaly!.confirmation.reproduced, true, `unconfirmed anomaly under ${model}:\n${text}`);
    }
  }
  assert.ok(tally.anomalies > 0 && tally.none > 0, JSON.stringify(tally));
});

test('bounded search agrees with brute force at k = 3 (ec, psi; initial value 0)', async () => {
  const rng = mulberry32(33);
  for (let n = 0; n < Math.max(2, PROGRAMS / 4); n++) {
    const text = randomProgram(rng);
    const program = parseProgram(text, `random3-${n}`);
    for (const model of ['ec', 'psi'] as const) {
      const brute = bruteForce(program, model, 3, [0]);
      const r = await analyzeProgram(program, { model, bound: 3, prove: false, timeoutMs: 60_000 });
      assert.notEqual(r.verdict, 'unknown', text);
      if (brute) assert.equal(r.verdict, 'anomaly', `brute force finds a cycle of 3 under ${model} that the search misses:\n${text}`);
      if (brute) assert.equal(r.anomaly!.confirmation.reproduced, true, `unconfirmed anomaly under ${model}:\n${text}`);
    }
  }
});
