/**
 * The levels decided in polynomial time by saturation (Biswas & Enea, OOPSLA 2019; AWDIT;
 * Plume), one file per level, each exporting the same interface `check*(v) => LevelOutcome`:
 * Adya's PL-1 and PL-2 without session order (`adya.ts`), read uncommitted (`ru.ts`), monotonic
 * atomic view (`mav.ts`), read committed and its strong-session variant (`rc.ts`), read atomic
 * (`ra.ts`), transactional causal consistency (`tcc.ts`). Shared: the facts they start from (`base.ts`), the saturated
 * graph and its cycle search (`saturate.ts`), session walking (`session.ts`).
 *
 * Takes: a Validated history without non-cycle anomalies (the caller reports those first).
 * Gives: a LevelOutcome (`outcome.ts`), explained by `explain/saturated.ts`.
 */

import type { Validated } from '../validate/validate.ts';
import type { LevelOutcome, SaturationLevel } from './outcome.ts';
import { checkPl1, checkPl2 } from './adya.ts';
import { checkMav } from './mav.ts';
import { checkRa } from './ra.ts';
import { checkRc, checkSsRc } from './rc.ts';
import { checkRu } from './ru.ts';
import { checkTcc } from './tcc.ts';

export type { LevelOutcome, SaturationLevel } from './outcome.ts';
export { checkMav, checkPl1, checkPl2, checkRa, checkRc, checkRu, checkSsRc, checkTcc };
export { E_SO, E_WR, E_WW, E_DERIVED, VIA_SO, VIA_HB, type InitViolation, type SatGraph } from './saturate.ts';
export type { LevelBase } from './base.ts';

export const SATURATION_LEVELS: readonly SaturationLevel[] = ['pl-1', 'ru', 'pl-2', 'mav', 'rc', 'ss-rc', 'ra', 'tcc'];

export function isSaturationLevel(level: string): level is SaturationLevel {
  return (SATURATION_LEVELS as readonly string[]).includes(level);
}

export function checkSaturationLevel(v: Validated, level: SaturationLevel): LevelOutcome {
  switch (level) {
    case 'pl-1': return checkPl1(v);
    case 'ru': return checkRu(v);
    case 'pl-2': return checkPl2(v);
    case 'mav': return checkMav(v);
    case 'rc': return checkRc(v);
    case 'ss-rc': return checkSsRc(v);
    case 'ra': return checkRa(v);
    case 'tcc': return checkTcc(v);
  }
}
