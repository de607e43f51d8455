/**
 * The vocabulary of workloads: what a generated workload is and the options that shape it.
 *
 * Takes: nothing (types and constants). Gives: `WorkloadPlan`, the transactions each session
 * will run, decided before anything runs so that a seed fixes them entirely.
 * Invariant: every write of a register key and every element appended to a list key is unique
 * across the whole plan (the checker needs unique values to know which write a read saw).
 * Session s's j-th written value is `s + 1 + j * sessions`: unique without coordination, so
 * sessions can be generated independently and lazily.
 */

/** Operation kinds of a planned transaction (`TxnPlan.kinds[i]`). */
export const W_READ = 0;
export const W_WRITE = 1;
export const W_APPEND = 2;
export const W_READ_LIST = 3;
/**
 * Predicate workload (issue 22): insert of row `keys[i]` with `values[i]`; delete of row
 * `keys[i]`; a predicate read of relation `keys[i]` (an index into `WorkloadPlan.relations`) by
 * predicate `values[i]` (an index into `WorkloadPlan.predicates`), giving its rows or their count.
 * W_READ and W_WRITE of a relation's key read and update the row.
 */
export const W_INSERT = 4;
export const W_DELETE = 5;
export const W_SELECT = 6;
export const W_COUNT = 7;

/**
 * One planned transaction: operation i is `kinds[i]` on `keys[i]` with `values[i]` (0 for
 * reads). Plain arrays, not typed arrays: a run allocates three per transaction, and small
 * typed arrays cost several times more to allocate and collect (measured by bench/run-workload.ts).
 */
export interface TxnPlan {
  readonly kinds: readonly number[];
  readonly keys: readonly number[];
  readonly values: readonly number[];
}

export type WorkloadName = 'register' | 'list-append' | 'predicate';
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
  /**
   * Fraction of writes made read-modify-writes: the write of key k is preceded by a read of k in
   * the same transaction (what a lost update needs); 0 by default. Such a write takes two
   * operations.
   */
  rmwFraction?: number;
  /**
   * The predicate workload's transaction shapes: `mixed` (G2, PMP and writers; the default) or
   * `g2` (only predicate-read-then-insert transactions: inserts only, so every row has at most
   * one present version, which keeps the checker's search small; the phantom mode's default).
   */
  shapes?: 'mixed' | 'g2';
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
  /**
   * The transactions of session s, in order, generated lazily (a run of 10^7 transactions never
   * holds them all); each call starts the session's stream afresh, with the same transactions.
   */
  session(s: number): Iterable<TxnPlan>;
  /** Which tables a target must set up (relations: the predicate workload's). */
  readonly kinds: { registers: boolean; lists: boolean; relations?: readonly WorkloadRelation[] };
  /** The predicate workload's relations (their keys are no register's) and predicates; absent otherwise. */
  readonly relations?: readonly WorkloadRelation[];
  readonly predicates?: readonly WorkloadPredicate[];
}

/** A relation: its name (a plain identifier, it names an SQL table) and its keys (rows). */
export interface WorkloadRelation {
  readonly name: string;
  readonly keys: readonly number[];
}

/** A predicate a predicate read uses: its text (as recorded) and its parse. */
export interface WorkloadPredicate {
  readonly text: string;
  readonly parsed: import('../history/predicate.ts').Predicate;
}
