/**
 * The vocabulary of workloads: what a generated workload is and the options that shape it.
 *
 * Takes: nothing (types and constants). Gives: `WorkloadPlan`, the transactions each session
 * will run, decided before anything runs so that a seed fixes them entirely.
 * Invariant: every write of a register key and every element appended to a list key is unique
 * across the whole plan (the checker needs unique values to know which write a read saw).
 */

/** Operation kinds of a planned transaction (`TxnPlan.kinds[i]`). */
export const W_READ = 0;
export const W_WRITE = 1;
export const W_APPEND = 2;
export const W_READ_LIST = 3;

/** One planned transaction: operation i is `kinds[i]` on `keys[i]` with `values[i]` (0 for reads). */
export interface TxnPlan {
  readonly kinds: Uint8Array;
  readonly keys: Int32Array;
  readonly values: Int32Array;
}

export type WorkloadName = 'register' | 'list-append';
export type KeyDistribution = 'uniform' | 'zipfian' | 'hotspot';

export interface WorkloadOptions {
  workload: WorkloadName;
  /** Concurrent clients, one connection each. */
  sessions: number;
  txnsPerSession: number;
  opsPerTxn: number;
  /** Fraction of operations that are reads, in [0, 1]. */
  readFraction: number;
  keys: number;
  distribution: KeyDistribution;
  /** Fraction of transactions that are long, in [0, 1]; a long one has `longOps` operations. */
  longFraction: number;
  longOps: number;
  seed: number;
}

/** PolySI's defaults (paper §5.1): 20 sessions x 100 txns x 15 ops, 50 % reads, 10,000 keys. */
export const DEFAULT_WORKLOAD: Readonly<WorkloadOptions> = {
  workload: 'register',
  sessions: 20,
  txnsPerSession: 100,
  opsPerTxn: 15,
  readFraction: 0.5,
  keys: 10_000,
  distribution: 'uniform',
  longFraction: 0,
  longOps: 150,
  seed: 1,
};

export interface WorkloadPlan {
  readonly options: Readonly<WorkloadOptions>;
  /** `sessions[s][i]`: the i-th transaction of session s. */
  readonly sessions: readonly (readonly TxnPlan[])[];
  /** Which tables a target must set up. */
  readonly kinds: { registers: boolean; lists: boolean };
}
