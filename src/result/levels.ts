/**
 * Words for each level the checker decides, for people (constants only, like types.ts): its
 * title, and the cycles it forbids (docs/levels.md has the definitions and citations).
 */

import type { Level } from './types.ts';

export const LEVEL_TITLES: Readonly<Record<Level, string>> = {
  'pc': 'prefix consistency',
  'psi': 'parallel snapshot isolation',
  'rr': 'repeatable read (PL-2.99)',
  'si': 'snapshot isolation',
  'ser': 'serializability',
  'strict-si': 'strict snapshot isolation',
  'strict-ser': 'strict serializability',
};

/** "a cycle ..., which <level> forbids": the shape of the cycles the level rules out. */
export const LEVEL_FORBIDDEN_CYCLES: Readonly<Record<Level, string>> = {
  'pc': 'a cycle in which some RW edge follows an SO or WR edge',
  'psi': 'a cycle with at most one RW edge',
  'rr': 'a cycle of WR, WW and RW edges (G2-item)',
  'si': 'a cycle without two consecutive RW edges',
  'ser': 'a cycle',
  'strict-si': 'a cycle without two consecutive RW edges (real-time order included)',
  'strict-ser': 'a cycle (real-time order included)',
};
