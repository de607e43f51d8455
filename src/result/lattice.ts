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
 * Repeatable read (Adya's PL-2.99: no G1, no G2-item over WR, WW and RW, without session order)
 * lies below serializability and is incomparable with every other level: a write skew is
 * allowed by SI and forbidden by RR; a stale read in one session the other way round (and it
 * separates RR from RC up, which count session order; a write cycle closed by session order
 * separates it from RU). So the order has two minimal levels, ru and rr. A claimed order is a promise the
 * checker relies on (`--levels` infers verdicts from it), so it holds only what is true under
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
  'ru': { name: 'ru', title: 'read uncommitted', abbrev: 'RU', weaker: [] },
  'rc': { name: 'rc', title: 'read committed', abbrev: 'RC', weaker: ['ru'] },
  'ra': { name: 'ra', title: 'read atomic', abbrev: 'RA', weaker: ['rc'] },
  'tcc': { name: 'tcc', title: 'transactional causal consistency', abbrev: 'TCC', weaker: ['ra'] },
  'pc': { name: 'pc', title: 'prefix consistency', abbrev: 'PC', weaker: ['tcc'] },
  'psi': { name: 'psi', title: 'parallel snapshot isolation', abbrev: 'PSI', weaker: ['tcc'] },
  // Adya's graph has no session order, so RR is not strong-session like the others: a client
  // that misses its own earlier write violates RC through TCC but not RR, and a write cycle
  // closed by session order violates RU but not RR. Only SER (and above) implies it.
  'rr': { name: 'rr', title: 'repeatable read', abbrev: 'PL-2.99', weaker: [] },
  'si': { name: 'si', title: 'snapshot isolation', abbrev: 'SI', weaker: ['pc', 'psi'] },
  'ser': { name: 'ser', title: 'serializability', abbrev: 'SER', weaker: ['si', 'rr'] },
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
