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
