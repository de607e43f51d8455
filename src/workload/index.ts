/**
 * Workloads (issue 8): the public entry points of the generation stage.
 * Takes: WorkloadOptions. Gives: a WorkloadPlan (see types.ts).
 */

export * from './types.ts';
export { generateWorkload, checkWorkloadOptions } from './generate.ts';
export { keyChooser } from './keys.ts';
