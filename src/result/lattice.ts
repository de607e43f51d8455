/**
 * The isolation levels as a lattice (docs/levels.md): which level implies which.
 *
 * Takes: nothing (data and small pure functions over LEVEL_NAMES). Gives: each level's title,
 * its direct weaker and stronger neighbours (the covers of the Hasse diagram), the order
 * `implies(a, b)` ("every history that satisfies a satisfies b"), and the helpers `--levels`
 * needs: the strongest levels of a set (its maximal elements) and down-closure.
 * Invariant: the order is the reflexive-transitive closure of COVERS; LEVEL_NAMES, weakest
 * first, is a linear extension of it (asserted when this module loads), so walking
 * LEVEL_NAMES backwards visits every level after all levels stronger than it.
 *
 * The levels form a lattice, not a chain: prefix consistency and parallel SI are incomparable
 * (a long fork is allowed by PSI and forbidden by PC; a lost update the other way round), and
 * both lie between causal consistency and SI (Cerone, Bernardi and Gotsman, CONCUR 2015:
 * SI = PREFIX ∧ NOCONFLICT, PSI = TRANSVIS ∧ NOCONFLICT, PC = PREFIX, TCC = TRANSVIS).
 * Adya's levels (PL-1, PL-2, PL-2.99 = repeatable read, PL-SI, PL-3) and monotonic atomic view
 * have no session order; `ru`, `rc`, `ss-rc` and the Cerone et al. levels from `ra` up do. A
 * level without session order is implied by its strong-session counterpart (its graph is a
 * subgraph), never the other way round: a client that misses its own earlier write separates
 * them. So the order has one minimal level, pl-1, and RR, PL-SI and PL-3 sit beside the
 * strong-session ladder, above MAV. A claimed order is a promise the checker relies on
 * (`--levels` infers verdicts from it), so it holds only what is true under
 * every level's definition; the monotonicity test holds the checks to it.
 */

import { LEVEL_NAMES, type LevelName } from './types.ts';

export interface LevelInfo {
  name: LevelName;
  /** The level's name for people ('snapshot isolation'). */
  title: string;
  /** Its usual short name in the literature ('SI', 'PL-2.99'). */
  abbrev: string;
  /** The levels directly below it (covers): each is implied by this one, with nothing between. */
  weaker: readonly LevelName[];
}

/** Every level, weakest first (LEVEL_NAMES order), with its direct weaker neighbours. */
export const LEVELS: Readonly<Record<LevelName, LevelInfo>> = {
  // Adya's PL-1 and PL-2 as Elle checks them: no session order in the graph.
  'pl-1': { name: 'pl-1', title: 'read uncommitted (PL-1)', abbrev: 'PL-1', weaker: [] },
  'ru': { name: 'ru', title: 'read uncommitted', abbrev: 'RU', weaker: ['pl-1'] },
  'pl-2': { name: 'pl-2', title: 'read committed (PL-2)', abbrev: 'PL-2', weaker: ['pl-1'] },
  // MAV is Biswas & Enea's RC axiom without session order: RC's graph minus SO.
  'mav': { name: 'mav', title: 'monotonic atomic view', abbrev: 'MAV', weaker: ['pl-2'] },
  'rc': { name: 'rc', title: 'read committed', abbrev: 'RC', weaker: ['ru', 'mav'] },
  'ss-rc': { name: 'ss-rc', title: 'strong session read committed', abbrev: 'SS-RC', weaker: ['rc'] },
  'ra': { name: 'ra', title: 'read atomic', abbrev: 'RA', weaker: ['ss-rc'] },
  'tcc': { name: 'tcc', title: 'transactional causal consistency', abbrev: 'TCC', weaker: ['ra'] },
  'pc': { name: 'pc', title: 'prefix consistency', abbrev: 'PC', weaker: ['tcc'] },
  'psi': { name: 'psi', title: 'parallel snapshot isolation', abbrev: 'PSI', weaker: ['tcc'] },
  // Adya's graphs have no session order, so RR, PL-SI and PL-3 are not strong-session: a client
  // that misses its own earlier write violates SS-RC (and up) but none of them. Each forbids the
  // cycle t3 -RW-> t2 -WR-> t3 by which a transaction loses sight of one it observed, so each
  // implies MAV.
  'rr': { name: 'rr', title: 'repeatable read', abbrev: 'PL-2.99', weaker: ['mav'] },
  'pl-si': { name: 'pl-si', title: 'snapshot isolation (PL-SI)', abbrev: 'PL-SI', weaker: ['mav'] },
  'si': { name: 'si', title: 'snapshot isolation', abbrev: 'SI', weaker: ['pc', 'psi', 'pl-si'] },
  // On key-value histories (no predicates) PL-3 and PL-2.99 coincide; the lattice claims only
  // the direction that holds in general (PL-3 implies PL-2.99).
  'pl-3': { name: 'pl-3', title: 'serializability (PL-3)', abbrev: 'PL-3', weaker: ['rr', 'pl-si'] },
  'ser': { name: 'ser', title: 'serializability', abbrev: 'SER', weaker: ['si', 'pl-3'] },
  'strict-si': { name: 'strict-si', title: 'strict snapshot isolation', abbrev: 'strict SI', weaker: ['si'] },
  'strict-ser': { name: 'strict-ser', title: 'strict serializability', abbrev: 'strict SER', weaker: ['ser', 'strict-si'] },
};

/** The Hasse diagram: [weaker, stronger] for every cover, in LEVEL_NAMES order of the stronger. */
export const COVERS: readonly (readonly [LevelName, LevelName])[] =
  LEVEL_NAMES.flatMap((l) => LEVELS[l].weaker.map((w) => [w, l] as const));

const N = LEVEL_NAMES.length;
const INDEX = new Map<LevelName, number>(LEVEL_NAMES.map((l, i) => [l, i]));

/**
 * `IMPLIES[a * N + b]` = 1 when level a implies level b (a is at least as strong). Built in one
 * pass weakest first: a implies itself and everything its covers imply. Correct because
 * LEVEL_NAMES is a linear extension (asserted below), so the covers' rows are complete.
 */
const IMPLIES = new Uint8Array(N * N);
for (let a = 0; a < N; a++) {
  IMPLIES[a * N + a] = 1;
  for (const w of LEVELS[LEVEL_NAMES[a]!].weaker) {
    const wi = INDEX.get(w)!;
    if (wi >= a) throw new Error(`internal error: LEVEL_NAMES is not weakest first (${w} is listed after ${LEVEL_NAMES[a]})`);
    for (let b = 0; b < N; b++) if (IMPLIES[wi * N + b] === 1) IMPLIES[a * N + b] = 1;
  }
}

/** The position of a level in LEVEL_NAMES (weakest first). */
export function levelIndex(l: LevelName): number {
  return INDEX.get(l)!;
}

/** True when every history that satisfies `a` satisfies `b` (a is b, or stronger than b). */
export function implies(a: LevelName, b: LevelName): boolean {
  return IMPLIES[INDEX.get(a)! * N + INDEX.get(b)!] === 1;
}

/** Neither implies the other (e.g. pc and psi). */
export function incomparable(a: LevelName, b: LevelName): boolean {
  return !implies(a, b) && !implies(b, a);
}

/** The levels directly above `l` (those that list it as a direct weaker neighbour). */
export function strongerNeighbours(l: LevelName): LevelName[] {
  return LEVEL_NAMES.filter((s) => LEVELS[s].weaker.includes(l));
}

/** Every level strictly weaker than `l`, weakest first. */
export function weakerThan(l: LevelName): LevelName[] {
  return LEVEL_NAMES.filter((w) => w !== l && implies(l, w));
}

/** Every level strictly stronger than `l`, weakest first. */
export function strongerThan(l: LevelName): LevelName[] {
  return LEVEL_NAMES.filter((s) => s !== l && implies(s, l));
}

/** The maximal elements of `set` (no other member is stronger), in LEVEL_NAMES order. */
export function strongestOf(set: Iterable<LevelName>): LevelName[] {
  const members = new Set(set);
  return LEVEL_NAMES.filter((l) => members.has(l) && ![...members].some((m) => m !== l && implies(m, l)));
}

/** The minimal elements of `set` (no other member is weaker), in LEVEL_NAMES order. */
export function weakestOf(set: Iterable<LevelName>): LevelName[] {
  const members = new Set(set);
  return LEVEL_NAMES.filter((l) => members.has(l) && ![...members].some((m) => m !== l && implies(l, m)));
}

/** True when `set` holds every level weaker than each of its members (the shape of a satisfied set). */
export function isDownClosed(set: Iterable<LevelName>): boolean {
  const members = new Set(set);
  return [...members].every((l) => weakerThan(l).every((w) => members.has(w)));
}
