/**
 * Words for the polygraph levels, for people (constants only, like types.ts): the cycles each
 * forbids (docs/levels.md has the definitions and citations; titles are LEVEL_TITLES in types.ts).
 */

import type { Level } from './types.ts';

/** The levels decided by the polygraph (src/check/index.ts); the others by saturation (src/levels/). */
export type PolygraphLevel = Extract<Level, 'pc' | 'psi' | 'rr' | 'pl-si' | 'si' | 'pl-3' | 'ser' | 'strict-si' | 'strict-ser'>;

/** "a cycle ..., which <level> forbids": the shape of the cycles the level rules out. */
export const LEVEL_FORBIDDEN_CYCLES: Readonly<Record<PolygraphLevel, string>> = {
  'pc': 'a cycle in which some RW edge follows an SO or WR edge',
  'psi': 'a cycle with at most one RW edge',
  'rr': 'a cycle of WR, WW and RW edges (G2-item)',
  'pl-si': 'a cycle of WR, WW and RW edges without two consecutive RW edges (G-nonadjacent)',
  'si': 'a cycle without two consecutive RW edges',
  'pl-3': 'a cycle of WR, WW and RW edges (G2)',
  'ser': 'a cycle',
  'strict-si': 'a cycle without two consecutive RW edges (real-time order included)',
  'strict-ser': 'a cycle (real-time order included)',
};
