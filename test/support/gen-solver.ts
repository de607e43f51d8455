/**
 * Tiny histories that pruning cannot settle: shapes that reach the SAT solver.
 *
 * Takes: a PRNG. Gives: a History of 8 txns (the brute-force oracles' limit) built around the
 * "crossed readers" gadget below, with random perturbations, so that a run of them covers
 * every way the pipeline decides: pruning leaves constraints and the solver proves a violation,
 * the solver finds a model after conflicts, pruning decides alone, and validation.
 *
 * The gadget. Writers A and B both write x, C and D both write y (two constraints, {A, B} and
 * {C, D}); each also writes a private key (a, b, c, d) that nobody else writes. Four readers:
 *
 *   Ra: r(x from A) r(c from C) r(d from D)     Rc: r(y from C) r(a from A) r(b from B)
 *   Rb: r(x from B) r(c from C) r(d from D)     Rd: r(y from D) r(a from A) r(b from B)
 *
 * The known edges run from writers to readers only, so no single side of either constraint
 * closes a cycle and pruning decides nothing; but every choice does: A before B gives
 * Ra -RW(x)-> B, and then C before D closes Ra -> B -WR(b)-> Rc -RW(y)-> D -WR(d)-> Ra, D
 * before C closes Ra -> B -> Rd -RW(y)-> C -WR(c)-> Ra, and symmetrically for B before A. So the
 * history violates SER and SI (the RW edges are never adjacent), and only the solver can tell.
 *
 * Perturbations (each drawn independently): a cross read is left out or reads the initial
 * value instead (some choices become acyclic: valid, or SAT after conflicts; an initial-value
 * read adds a known RW edge that can let pruning decide), txns are grouped into sessions in
 * different ways (extra SO edges), and a reader may have an unknown outcome (nobody reads it,
 * so it is left out).
 */

import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_COMMITTED, TXN_UNKNOWN, type History } from '../../src/history/model.ts';
import { pick, type Rng } from './gen.ts';

/** Probabilities of the perturbations; the defaults give a mix of every decision path. */
export interface CrossedReadersParams {
  /** A cross read (of a private key) is left out. */
  pDropRead: number;
  /** A cross read that stays returns the initial value instead of the write. */
  pInitialRead: number;
  /** A reader's outcome is unknown. */
  pUnknownReader: number;
}

export const CROSSED_READERS_DEFAULTS: CrossedReadersParams = { pDropRead: 0.12, pInitialRead: 0.06, pUnknownReader: 0.05 };

type Op = readonly ['r' | 'w', string, number];

export function crossedReadersHistory(rng: Rng, params: Partial<CrossedReadersParams> = {}): History {
  const p = { ...CROSSED_READERS_DEFAULTS, ...params };
  // Values: x and y get 1 (A, C) and 2 (B, D); each private key gets 1; 0 is the initial value.
  const writers: { name: string; ops: Op[] }[] = [
    { name: 'A', ops: [['w', 'x', 1], ['w', 'a', 1]] },
    { name: 'B', ops: [['w', 'x', 2], ['w', 'b', 1]] },
    { name: 'C', ops: [['w', 'y', 1], ['w', 'c', 1]] },
    { name: 'D', ops: [['w', 'y', 2], ['w', 'd', 1]] },
  ];
  const cross = (key: string): Op[] => {
    if (rng() < p.pDropRead) return [];
    return [['r', key, rng() < p.pInitialRead ? 0 : 1]];
  };
  const readers: { name: string; ops: Op[] }[] = [
    { name: 'Ra', ops: [['r', 'x', 1], ...cross('c'), ...cross('d')] },
    { name: 'Rb', ops: [['r', 'x', 2], ...cross('c'), ...cross('d')] },
    { name: 'Rc', ops: [['r', 'y', 1], ...cross('a'), ...cross('b')] },
    { name: 'Rd', ops: [['r', 'y', 2], ...cross('a'), ...cross('b')] },
  ];
  for (const r of readers) shuffle(rng, r.ops);
  const txns = [...writers, ...readers];
  // Sessions: one per txn (no SO), each writer with its reader, or a random grouping in a
  // random order (SO edges that may or may not agree with the gadget's order).
  const layout = pick(rng, ['own', 'own', 'pairs', 'random'] as const);
  const order = txns.map((_, i) => i);
  let sessionOf: number[];
  if (layout === 'own') {
    sessionOf = order.slice();
  } else if (layout === 'pairs') {
    sessionOf = order.map((i) => i % 4);
  } else {
    shuffle(rng, order);
    sessionOf = txns.map(() => Math.floor(rng() * 4));
  }
  const b = new HistoryBuilder('<crossed-readers>');
  for (const i of order) {
    const t = txns[i]!;
    const status = i >= 4 && rng() < p.pUnknownReader ? TXN_UNKNOWN : TXN_COMMITTED;
    const id = b.beginTxn(b.session(`s${sessionOf[i]!}`), t.name, status);
    for (const [kind, key, value] of t.ops) {
      if (kind === 'r') b.read(id, key, value === 0 ? null : value);
      else b.write(id, key, value);
    }
  }
  return b.build();
}

function shuffle<T>(rng: Rng, items: T[]): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
