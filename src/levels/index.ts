/**
 * The levels decided in polynomial time by saturation (Biswas & Enea, OOPSLA 2019; AWDIT;
 * Plume), one file per level, each exporting the same interface `check*(v) => LevelOutcome`:
 * read uncommitted (`ru.ts`), read committed (`rc.ts`), read atomic (`ra.ts`), transactional
 * causal consistency (`tcc.ts`). Shared: the facts they start from (`base.ts`), the saturated
 * graph and its cycle search (`saturate.ts`), session walking (`session.ts`).
 *
 * Takes: a Validated history without non-cycle anomalies (the caller reports those first).
 * Gives: a LevelOutcome (`outcome.ts`), explained by `explain/saturated.ts`.
 */

import type { Validated } from '../validate/validate.ts';
import type { LevelOutcome, SaturationLevel } from './outcome.ts';
import { checkRa } from './ra.ts';
import { checkRc } from './rc.ts';
import { checkRu } from './ru.ts';
import { checkTcc } from './tcc.ts';

export type { LevelOutcome, SaturationLevel } from './outcome.ts';
export { checkRa, checkRc, checkRu, checkTcc };
export { E_SO, E_WR, E_WW, E_DERIVED, VIA_SO, VIA_HB, type InitViolation, type SatGraph } from './saturate.ts';
export type { LevelBase } from './base.ts';

export const SATURATION_LEVELS: readonly SaturationLevel[] = ['ru', 'rc', 'ra', 'tcc'];

export function isSaturationLevel(level: string): level is SaturationLevel {
  return (SATURATION_LEVELS as readonly string[]).includes(level);
}

export function checkSaturationLevel(v: Validated, level: SaturationLevel): LevelOutcome {
  switch (level) {
    case 'ru': return checkRu(v);
    case 'rc': return checkRc(v);
    case 'ra': return checkRa(v);
    case 'tcc': return checkTcc(v);
  }
}
