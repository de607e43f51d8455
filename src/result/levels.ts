/**
 * Words for the levels, for people: the cycles each polygraph level forbids, each level's name in
 * Elle, and the one parser of level names that every command uses (docs/levels.md has the
 * definitions, citations and the table of names; titles are LEVEL_TITLES in types.ts).
 * Takes: strings from users. Gives: LevelName (or a message). Invariant: a name means what its
 * source means (Elle's `serializable` is PL-3, not our strong-session `ser`).
 */

import { LEVEL_NAMES, type Level, type LevelName } from './types.ts';

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

/**
 * Elle's name for each level (elle.consistency-model, "friendly" names), with Elle's meaning:
 * Elle's `:serializable` is Adya's PL-3 (no session order), its `:strong-session-serializable`
 * is ours `ser`. Null where Elle has no model with the same definition (Biswas & Enea's read
 * committed is stricter than Elle's `:read-committed`, PL-2).
 */
export const ELLE_NAMES: Readonly<Record<LevelName, string | null>> = {
  'pl-1': 'read-uncommitted',
  'ru': 'strong-session-read-uncommitted',
  'pl-2': 'read-committed',
  'mav': 'monotonic-atomic-view',
  'rc': null,
  'ss-rc': null,
  'ra': 'read-atomic',
  'tcc': 'causal-cerone',
  'pc': 'prefix',
  'psi': 'parallel-snapshot-isolation',
  'rr': 'repeatable-read',
  'pl-si': 'snapshot-isolation',
  'si': 'strong-session-snapshot-isolation',
  'pl-3': 'serializable',
  'ser': 'strong-session-serializable',
  'strict-si': 'strong-snapshot-isolation',
  'strict-ser': 'strict-serializable',
};

/**
 * Every other name a level answers to: Elle's (above) and its synonyms (`:conflict-serializable`,
 * `:strong-serializable`), Adya's canonical names (PL-1, PL-2, PL-2.99, PL-SI, PL-3, PL-SS), and
 * `cc` (causal consistency, as Cerone et al. and `polysi analyze` call it).
 */
const SYNONYMS: Readonly<Record<string, LevelName>> = {
  'conflict-serializable': 'pl-3',
  'strong-serializable': 'strict-ser',
  'pl-2.99': 'rr',
  'pl-ss': 'strict-ser',
  'cc': 'tcc',
};

/** Names that look like a level but mean something else; the parser explains instead of guessing. */
const NOT_LEVELS: Readonly<Record<string, string>> = {
  'causal': "Elle's :causal is a single-object model; transactional causal consistency is tcc (Elle: causal-cerone)",
  'strong-session-read-committed': "Elle's strong-session-read-committed (PL-2 with session order) is not checked; ss-rc is Biswas & Enea's read committed along session order, rc without, pl-2 is Adya's PL-2",
};

const BY_NAME: ReadonlyMap<string, LevelName> = new Map<string, LevelName>([
  ...LEVEL_NAMES.map((l) => [l, l] as const),
  ...LEVEL_NAMES.flatMap((l) => (ELLE_NAMES[l] === null ? [] : [[ELLE_NAMES[l]!, l] as const])),
  ...Object.entries(SYNONYMS),
]);

export type ParsedLevel = { ok: true; level: LevelName } | { ok: false; message: string };

/**
 * The one level-name parser (`check --level`, `run --check`, `analyze --model`): a short name
 * (`si`), Elle's name with Elle's meaning (`serializable`, `:strong-session-serializable`; a
 * leading `:` is allowed), or Adya's (`PL-2.99`); case-insensitive.
 */
export function parseLevelName(text: string): ParsedLevel {
  const key = text.trim().replace(/^:/, '').toLowerCase();
  const level = BY_NAME.get(key);
  if (level !== undefined) return { ok: true, level };
  const hint = NOT_LEVELS[key];
  return { ok: false, message: hint ?? `unknown level "${text}" (levels: ${LEVEL_NAMES.join(', ')}; Elle's names such as serializable, snapshot-isolation, read-committed are accepted too: docs/levels.md)` };
}

/** Every name `parseLevelName` accepts for `level`, its short name first. */
export function levelNamesOf(level: LevelName): string[] {
  return [...BY_NAME].filter(([, l]) => l === level).map(([n]) => n);
}
