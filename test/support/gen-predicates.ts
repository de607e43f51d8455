/**
 * Seeded generator of tiny predicate histories (issue 22) for the predicate oracle and the
 * differential test: relations of a few integer rows, inserts, updates, deletes, item reads,
 * predicate selects and counts, plus a plain key.
 *
 * Takes: an Rng (gen.ts's mulberry32). Gives: `tinyPredicateHistory(rng)`, a PredHistory
 * (test/oracle/predicate-history.ts) of at most 6 txns and the name of the generator that made
 * it. Histories come from a simulated multi-version store run with interleaved sessions in one of
 * several modes, so that valid and anomalous histories both occur:
 * - `serial`: one txn at a time (valid at every level);
 * - `si`: a snapshot per txn, with first-committer-wins on write conflicts, or without it (lost
 *   updates); predicate write skews (Hermitage's G2) arise here;
 * - `rc`: every statement reads the latest committed state (PMP, fractured counts);
 * - `chaos`: every row of every read is a random version of that row ever installed;
 * and Hermitage's two shapes with random rows, values and predicates (`pmp`, `g2`). A fifth of the
 * histories then get one result mutated (a row dropped or added, a count off by one, a read of
 * another value): predicate mismatches, impossible counts, reads of aborted or later values.
 * Versions that do not match a predicate often have several candidate writers (updates to
 * non-matching values, deletes, the initial absent row), so a checker must choose.
 * `buildPredHistory(p)` makes the History the checker reads (through the HistoryBuilder).
 * Invariant: every written value is unique (a global counter), so the oracle's precondition holds.
 */

import type { PredHistory, PredOp, PredStatus, Scalar } from '../oracle/predicate-history.ts';
import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type History } from '../../src/history/model.ts';
import type { Rng } from './gen.ts';
// The simulated store evaluates predicates with the oracle's evaluator (not src/'s): the
// generated results are then what the oracle's reading of the language says.
import { rowMatches } from '../oracle/predicate-eval.ts';

export type PredGenerator = 'serial' | 'si' | 'si-nofcw' | 'rc' | 'chaos' | 'pmp' | 'g2';

export const PREDICATES: readonly string[] = [
  'value % 2 = 0', 'value % 3 = 0', 'value > 4', 'value between 2 and 6', 'key >= 2',
  'not (value % 2 = 0)', 'value % 2 = 1 or key = 1', 'true', 'key < 3 and value >= 3', 'value != 5',
];

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
const between = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));


type Cell = Scalar | null;

/** The simulated store: every key's committed versions in order (null: absent / initial). */
class Store {
  readonly versions = new Map<string, Cell[]>();
  committedState(): Map<string, Cell> {
    const s = new Map<string, Cell>();
    for (const [k, vs] of this.versions) s.set(k, vs[vs.length - 1]!);
    return s;
  }
  all(k: string): Cell[] {
    return [null, ...(this.versions.get(k) ?? [])];
  }
  install(writes: Map<string, Cell>): void {
    for (const [k, v] of writes) {
      if (!this.versions.has(k)) this.versions.set(k, []);
      this.versions.get(k)!.push(v);
    }
  }
}

interface Ctx {
  rng: Rng;
  rel: Scalar[];
  plain: string;
  next: () => number;
}

/** A running txn of the simulation. */
class Run {
  readonly ops: PredOp[] = [];
  readonly writes = new Map<string, Cell>();
  snapshot: Map<string, Cell> | null = null;
  /** Commit count of the store when the txn began (first-committer-wins). */
  began = 0;
  constructor(readonly session: string, readonly opsLeft: number) {}
}

type ViewFn = (run: Run, key: string) => Cell;

/** One random op of `run`, consistent with what the txn sees through `view`. */
function randomOp(c: Ctx, run: Run, view: ViewFn): PredOp {
  const { rng } = c;
  const roll = rng();
  const key = pick(rng, c.rel);
  const k = String(key);
  const seen = view(run, k);
  if (roll < 0.3) {
    const pred = pick(rng, PREDICATES);
    const rows = c.rel.map((r) => [r, view(run, String(r))] as const).filter(([r, v]) => rowMatches(pred, r, v)) as [Scalar, Scalar][];
    return rng() < 0.75 ? { op: 'select', rel: 'R', pred, rows } : { op: 'count', rel: 'R', pred, n: rows.length };
  }
  if (roll < 0.45) return { op: 'r', key, value: seen };
  if (roll < 0.52) return rng() < 0.5 ? { op: 'r', key: c.plain, value: view(run, c.plain) } : { op: 'w', key: c.plain, value: c.next() };
  if (seen === null || rng() < 0.08) return { op: 'insert', key, value: c.next() };
  return rng() < 0.6 ? { op: 'w', key, value: c.next() } : { op: 'delete', key };
}

function applyWrite(run: Run, o: PredOp): void {
  if (o.op === 'w' || o.op === 'insert') run.writes.set(String(o.key), o.value);
  else if (o.op === 'delete') run.writes.set(String(o.key), null);
}

function outcome(rng: Rng): PredStatus {
  const x = rng();
  return x < 0.06 ? 'aborted' : x < 0.12 ? 'unknown' : 'committed';
}

/** Runs random programs on the store in `mode`, sessions interleaved op by op (one at a time for serial). */
function simulate(c: Ctx, mode: 'serial' | 'si' | 'si-nofcw' | 'rc' | 'chaos', sessions: number, txns: number): PredHistory {
  const { rng } = c;
  const store = new Store();
  let commits = 0;
  const lastWriteCommit = new Map<string, number>();
  const view: ViewFn = (run, k) => {
    if (run.writes.has(k)) return run.writes.get(k)!;
    if (mode === 'si' || mode === 'si-nofcw') return run.snapshot!.get(k) ?? null;
    if (mode === 'chaos') return pick(rng, store.all(k));
    return store.committedState().get(k) ?? null;
  };
  const queues: Run[][] = Array.from({ length: sessions }, () => []);
  for (let i = 0; i < txns; i++) {
    const s = i < sessions ? i : between(rng, 0, sessions - 1);
    queues[s]!.push(new Run(`s${s + 1}`, between(rng, 1, 4)));
  }
  const active = queues.map(() => 0);
  const txnsOut: { run: Run; status: PredStatus }[] = [];
  for (;;) {
    const live = queues.map((_, s) => s).filter((s) => active[s]! < queues[s]!.length);
    if (live.length === 0) break;
    const s = pick(rng, live);
    const run = queues[s]![active[s]!]!;
    const steps = mode === 'serial' ? run.opsLeft : 1;
    for (let i = 0; i < steps; i++) {
      if (run.snapshot === null) { run.snapshot = store.committedState(); run.began = commits; }
      const o = randomOp(c, run, view);
      run.ops.push(o);
      applyWrite(run, o);
    }
    if (run.ops.length < run.opsLeft) continue;
    active[s]!++;
    let status = outcome(rng);
    const conflict = [...run.writes.keys()].some((k) => (lastWriteCommit.get(k) ?? -1) >= run.began);
    if (mode === 'si' && conflict) status = 'aborted';
    if (status === 'committed' || (status === 'unknown' && rng() < 0.5)) {
      store.install(run.writes);
      commits++;
      for (const k of run.writes.keys()) lastWriteCommit.set(k, commits);
    }
    txnsOut.push({ run, status });
  }
  // Txns are listed in session order (the oracle and JSONL want a session's txns in the order they ran).
  const bySession = [...txnsOut].sort((a, b) => a.run.session.localeCompare(b.run.session));
  return { relations: { R: c.rel }, txns: bySession.map(({ run, status }) => ({ session: run.session, status, ops: run.ops })) };
}

/** Rows (key, value) of `state` matching pred. */
const matching = (c: Ctx, pred: string, state: Map<string, Cell>): [Scalar, Scalar][] =>
  c.rel.map((r) => [r, state.get(String(r)) ?? null] as const).filter(([r, v]) => rowMatches(pred, r, v)) as [Scalar, Scalar][];

/**
 * Hermitage's PMP, randomised: T1 selects with P1, T2 inserts (or deletes) a row, T1 selects with
 * P2 seeing the new state (read committed) or its snapshot (SI). A setup txn may insert rows first.
 */
function pmp(c: Ctx): PredHistory {
  const { rng } = c;
  const state = new Map<string, Cell>();
  const txns: PredHistory['txns'] = [];
  if (rng() < 0.6) {
    const ops: PredOp[] = [];
    for (const r of c.rel) if (rng() < 0.5) { const v = c.next(); ops.push({ op: 'insert', key: r, value: v }); state.set(String(r), v); }
    txns.push({ session: 's0', status: 'committed', ops });
  }
  const [p1, p2] = [pick(rng, PREDICATES), pick(rng, PREDICATES)];
  const first = matching(c, p1, state);
  const key = pick(rng, c.rel);
  const after = new Map(state);
  let change: PredOp;
  if (state.get(String(key)) != null && rng() < 0.5) { change = { op: 'delete', key }; after.set(String(key), null); }
  else { const v = c.next(); change = state.get(String(key)) == null ? { op: 'insert', key, value: v } : { op: 'w', key, value: v }; after.set(String(key), v); }
  const second = matching(c, p2, rng() < 0.5 ? after : state);
  const tail: PredOp = rng() < 0.7 ? { op: 'select', rel: 'R', pred: p2, rows: second } : { op: 'count', rel: 'R', pred: p2, n: second.length };
  txns.push({ session: 's1', status: 'committed', ops: [{ op: 'select', rel: 'R', pred: p1, rows: first }, tail] });
  txns.push({ session: 's2', status: 'committed', ops: [change] });
  return { relations: { R: c.rel }, txns };
}

/**
 * Hermitage's G2 with a predicate, randomised: after a setup txn, T1 and T2 both read with P and
 * then each inserts or updates a row, from the same snapshot (a write skew) or one after the other.
 */
function g2(c: Ctx): PredHistory {
  const { rng } = c;
  const state = new Map<string, Cell>();
  const setup: PredOp[] = [];
  for (const r of c.rel) if (rng() < 0.5) { const v = c.next(); setup.push({ op: 'insert', key: r, value: v }); state.set(String(r), v); }
  const pred = pick(rng, PREDICATES);
  const txn = (st: Map<string, Cell>): PredOp[] => {
    const ops: PredOp[] = [];
    const rows = matching(c, pred, st);
    ops.push(rng() < 0.75 ? { op: 'select', rel: 'R', pred, rows } : { op: 'count', rel: 'R', pred, n: rows.length });
    const key = pick(rng, c.rel);
    const v = c.next();
    ops.push(st.get(String(key)) == null ? { op: 'insert', key, value: v } : rng() < 0.7 ? { op: 'w', key, value: v } : { op: 'delete', key });
    return ops;
  };
  const t1 = txn(state);
  const concurrent = rng() < 0.7;
  const after = new Map(state);
  for (const o of t1) if (o.op === 'insert' || o.op === 'w') after.set(String(o.key), o.value); else if (o.op === 'delete') after.set(String(o.key), null);
  const t2 = txn(concurrent ? state : after);
  return {
    relations: { R: c.rel },
    txns: [
      { session: 's0', status: 'committed', ops: setup },
      { session: 's1', status: 'committed', ops: t1 },
      { session: 's2', status: 'committed', ops: t2 },
    ],
  };
}

/** Changes one result: a row dropped or added (maybe not matching), a count off by one, a read of another value. */
function mutate(c: Ctx, h: PredHistory): void {
  const { rng } = c;
  const reads = h.txns.flatMap((t) => t.ops).filter((o) => o.op === 'select' || o.op === 'count' || o.op === 'r');
  if (reads.length === 0) return;
  const o = pick(rng, reads);
  const written = h.txns.flatMap((t) => t.ops).filter((x): x is Extract<PredOp, { op: 'w' | 'insert' }> => x.op === 'w' || x.op === 'insert');
  if (o.op === 'count') o.n = Math.max(0, o.n + (rng() < 0.5 ? 1 : -1));
  else if (o.op === 'r') {
    const same = written.filter((x) => String(x.key) === String(o.key) && x.value !== o.value);
    o.value = same.length > 0 && rng() < 0.8 ? pick(rng, same).value : o.value === null ? c.next() : null;
  } else if (o.rows.length > 0 && rng() < 0.5) o.rows.splice(between(rng, 0, o.rows.length - 1), 1);
  else {
    const cands = written.filter((x) => c.rel.includes(x.key) && !o.rows.some(([k]) => String(k) === String(x.key)));
    if (cands.length > 0) { const x = pick(rng, cands); o.rows.push([x.key, x.value]); }
  }
}

/** A random tiny predicate history (at most 6 txns) and the generator that made it. */
export function tinyPredicateHistory(rng: Rng): { history: PredHistory; generator: PredGenerator; mutated: boolean } {
  let counter = 0;
  const c: Ctx = { rng, rel: Array.from({ length: between(rng, 2, 3) }, (_, i) => i + 1), plain: 'x', next: () => ++counter };
  const generator = pick(rng, ['serial', 'si', 'si-nofcw', 'rc', 'chaos', 'pmp', 'g2'] as const);
  const history = generator === 'pmp' ? pmp(c) : generator === 'g2' ? g2(c) : simulate(c, generator, between(rng, 2, 3), between(rng, 2, 5));
  const mutated = rng() < 0.2;
  if (mutated) mutate(c, history);
  return { history, generator, mutated };
}

/** The PredHistory as a History, through the builder's predicate API (txns `T1`, `T2`, ... as in JSON Lines). */
export function buildPredHistory(p: PredHistory): History {
  const b = new HistoryBuilder('<generated>');
  for (const [rel, keys] of Object.entries(p.relations)) b.relation(rel, keys);
  p.txns.forEach((t, i) => {
    const status = t.status === 'committed' ? TXN_COMMITTED : t.status === 'aborted' ? TXN_ABORTED : TXN_UNKNOWN;
    const id = b.beginTxn(b.session(t.session), `T${i + 1}`, status);
    for (const o of t.ops) {
      switch (o.op) {
        case 'r': b.read(id, o.key, o.value); break;
        case 'w': b.write(id, o.key, o.value); break;
        case 'insert': b.insert(id, o.key, o.value); break;
        case 'delete': b.delete(id, o.key); break;
        case 'select': b.select(id, o.rel, o.pred, o.rows); break;
        case 'count': b.count(id, o.rel, o.pred, o.n); break;
      }
    }
  });
  return b.build();
}
