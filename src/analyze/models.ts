/**
 * Consistency models as axioms over visibility and arbitration (ANODE §3.2), per transaction.
 *
 * Takes: a default model, the program's `ISOLATION` and `SERIALIZABLE ... WITH ...`
 * declarations. Gives: for each transaction the set of axioms its instances obey.
 *   cc:  vis;vis ⊆ vis, for the viewer (the last instance)
 *   pc:  ar;vis ⊆ vis, for the viewer (prefix consistency = repeatable read; implies cc)
 *   psi: WW ⊆ vis, when either writer obeys it (write conflicts are detected); PSI here also
 *        includes cc, as in Sovran et al.
 *   ser: ar ⊆ vis, for the viewer
 * ec has none; si = psi + pc; ser implies every other axiom.
 */

import type { ModelName, Program } from './lang/ast.ts';
import type { LevelName } from '../result/types.ts';

export type Axiom = 'cc' | 'pc' | 'psi' | 'ser';

export const MODEL_AXIOMS: Record<ModelName, Axiom[]> = {
  ec: [],
  cc: ['cc'],
  pc: ['pc', 'cc'],
  psi: ['psi', 'cc'],
  si: ['psi', 'pc', 'cc'],
  ser: ['ser', 'psi', 'pc', 'cc'],
};

export interface ModelSpec {
  /** Per transaction name: its model and axioms. */
  models: Map<string, ModelName>;
  axioms: Map<string, Set<Axiom>>;
  serializablePairs: [string, string][];
}

export function modelSpec(program: Program, defaultModel: ModelName): ModelSpec {
  const models = new Map<string, ModelName>();
  const axioms = new Map<string, Set<Axiom>>();
  for (const t of program.txns) {
    const m = program.isolation.get(t.name) ?? defaultModel;
    models.set(t.name, m);
    axioms.set(t.name, new Set(MODEL_AXIOMS[m]));
  }
  return { models, axioms, serializablePairs: program.serializablePairs };
}

/** "ec", or "ec; Enroll: psi; serializable AddCourse with AddCourse" for mixed specifications. */
export function describeSpec(spec: ModelSpec, defaultModel: ModelName): string {
  const parts = [defaultModel as string];
  for (const [t, m] of spec.models) if (m !== defaultModel) parts.push(`${t}: ${m}`);
  for (const [a, b] of spec.serializablePairs) parts.push(`serializable ${a} with ${b}`);
  return parts.join('; ');
}

/**
 * The model `analyze` checks for a level of `polysi check` (the same names, one parser:
 * src/result/levels.ts), or null when the analysis has no such model. ANODE's models have no
 * session order (every transaction instance is its own client), so a strong-session level and
 * its session-free counterpart (SI and PL-SI, SER and PL-3) are the same model here.
 */
export function modelOfLevel(level: LevelName): ModelName | null {
  switch (level) {
    case 'tcc': return 'cc';
    case 'pc': return 'pc';
    case 'psi': return 'psi';
    case 'si': case 'pl-si': return 'si';
    case 'ser': case 'pl-3': return 'ser';
    default: return null;
  }
}
