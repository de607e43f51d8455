/**
 * The embedded store's modes: three isolation levels and the fault modes that break them on
 * purpose, each with the rules the store follows and the anomaly it is known to produce.
 *
 * Takes: nothing (a table). Gives: `MEMORY_MODES` (for `--help`, docs and tests) and the
 * rules the store (memory.ts) reads.
 * Invariant: `snapshot` and `serializable` really provide SI and SER (tested over many seeds
 * by test/run/memory.test.ts); every fault mode's `anomaly` is the name the checker gives it.
 */

import type { WorkloadOptions } from '../../workload/types.ts';

export type MemoryMode =
  | 'serializable' | 'snapshot' | 'read-committed' | 'flaky-commit'
  | 'lost-update' | 'long-fork' | 'causality' | 'aborted-read' | 'intermediate-read' | 'stale-session' | 'phantom';

export interface ModeRules {
  /** Replicas the sessions are spread over (session % replicas); a replica sees its own commits at once. */
  replicas: number;
  /** Commits before another replica's commit becomes visible: a fixed lag, or random up to this. */
  remoteLag: number;
  remoteLagRandom: boolean;
  /**
   * Optional per-pair lags, `lagMatrix[from * replicas + to]`, instead of remoteLag: a network
   * where some paths are slower than others (causality: 0→1→2 fast, 0→2 slow).
   */
  lagMatrix?: readonly number[];
  /**
   * A replica that takes no writes, as a hot standby (PostgreSQL: SQLSTATE 25006): a write there
   * fails its transaction. Its sessions are readers only.
   */
  readOnlyReplica?: number;
  /** Snapshots lag the latest commit by a random number of commits up to this (0: fresh). */
  snapshotLag: number;
  /** First-committer-wins: abort a txn that writes a key with a committed version it did not see. */
  firstCommitterWins: boolean;
  /** Certify reads too (serializable): abort a txn that read a key overwritten since its snapshot. */
  certifyReads: boolean;
  /**
   * Certify predicate reads too (serializable; issue 22): abort a txn one of whose predicate
   * reads would return another result on the newest committed state.
   */
  certifyPredicates: boolean;
  /** Each read sees the latest committed version (read committed), not the txn's snapshot. */
  readLatest: boolean;
  /** Appends rebuild the list from the txn's snapshot rather than the latest version (lost appends). */
  appendToSnapshot: boolean;
  /** Uncommitted writes other txns can see: none, those of txns doomed to abort, or all. */
  dirty: 'none' | 'doomed' | 'all';
  /** Fraction of txns doomed to abort at commit (aborted-read). */
  doomedFraction: number;
  /**
   * Fraction of commits whose answer is lost (the connection "drops" during COMMIT): the client
   * gets an `unknown` error; half of these commits took effect, half did not.
   */
  lostCommitFraction: number;
}

const SAFE: ModeRules = {
  replicas: 1, remoteLag: 0, remoteLagRandom: false, snapshotLag: 0, firstCommitterWins: true, certifyReads: false, certifyPredicates: false,
  readLatest: false, appendToSnapshot: false, dirty: 'none', doomedFraction: 0, lostCommitFraction: 0,
};

export interface ModeInfo {
  name: MemoryMode;
  kind: 'isolation' | 'fault';
  /** The level it provides (isolation modes) or the level whose check finds the fault. */
  level: 'ser' | 'si';
  /** Fault modes: the anomaly the checker names. */
  anomaly?: string;
  summary: string;
  rules: ModeRules;
  /**
   * The workload `polysi run` uses on this mode unless told otherwise: the contention the fault
   * needs to show (hot keys, read-modify-writes); docs/workloads.md has the figures.
   */
  workload?: Partial<Pick<WorkloadOptions, 'workload' | 'shapes' | 'sessions' | 'keys' | 'opsPerTxn' | 'readFraction' | 'rmwFraction'>>;
}

export const MEMORY_MODES: readonly ModeInfo[] = [
  { name: 'serializable', kind: 'isolation', level: 'ser', rules: { ...SAFE, certifyReads: true, certifyPredicates: true },
    summary: 'snapshot reads; at commit, abort if any key read or written changed since the snapshot, or a predicate read would now give another result (backward certification)' },
  { name: 'snapshot', kind: 'isolation', level: 'si', rules: SAFE,
    summary: 'snapshot reads, first-committer-wins on written keys' },
  { name: 'flaky-commit', kind: 'isolation', level: 'si', rules: { ...SAFE, lostCommitFraction: 0.1 },
    summary: 'snapshot, but one commit in ten loses its answer (recorded unknown; half of them took effect)' },
  { name: 'read-committed', kind: 'isolation', level: 'si', rules: { ...SAFE, readLatest: true, firstCommitterWins: false },
    summary: 'each read sees the latest committed version; no write conflicts (not SI: expect violations)' },
  { name: 'lost-update', kind: 'fault', level: 'si', anomaly: 'lost update',
    rules: { ...SAFE, firstCommitterWins: false, appendToSnapshot: true },
    workload: { sessions: 5, keys: 5, opsPerTxn: 1, readFraction: 0, rmwFraction: 1 },
    summary: 'snapshot without first-committer-wins: concurrent read-modify-writes both commit' },
  { name: 'long-fork', kind: 'fault', level: 'si', anomaly: 'long fork',
    rules: { ...SAFE, replicas: 2, remoteLag: 12 },
    workload: { keys: 10, opsPerTxn: 4 },
    summary: 'two replicas, each sees the other\'s commits 12 commits late: readers disagree on the order of writes' },
  { name: 'causality', kind: 'fault', level: 'si', anomaly: 'causality violation',
    // One slow path: a commit on 0 reaches 2 late, but what 1 wrote after seeing it reaches 2 at
    // once. (Random lags on every path made long forks as often as causality violations.)
    // Replica 2 only reads: a writer there, seeing its own commit at once and 0's late, made
    // long forks with the readers of 1 (memory:causality seed 6); 75 % reads give it readers.
    rules: { ...SAFE, replicas: 3, remoteLag: 24, lagMatrix: [0, 0, 24, 0, 0, 0, 0, 0, 0], readOnlyReplica: 2 },
    workload: { keys: 10, opsPerTxn: 4, readFraction: 0.75 },
    summary: 'three replicas; what replica 0 commits reaches replica 2 24 commits late, everything else at once; replica 2 takes no writes: an effect (via replica 1) can arrive before its cause' },
  { name: 'aborted-read', kind: 'fault', level: 'si', anomaly: 'G1a',
    rules: { ...SAFE, dirty: 'doomed', doomedFraction: 0.2 },
    summary: 'a fifth of txns are doomed to abort, and their writes are visible before they do' },
  { name: 'intermediate-read', kind: 'fault', level: 'si', anomaly: 'G1b',
    rules: { ...SAFE, dirty: 'all' },
    workload: { keys: 10, opsPerTxn: 4 },
    summary: 'every write is visible at once, before commit, including values its txn overwrites later' },
  { name: 'stale-session', kind: 'fault', level: 'si', anomaly: 'session guarantee violation',
    rules: { ...SAFE, snapshotLag: 24 },
    summary: 'snapshots lag up to 24 commits behind, so a session may not see its own last commit (no read-your-writes)' },
  // Serializable for items, not for predicates: two txns that each read a predicate and insert a
  // row matching it both commit (each missed the other's insert). The checker names it G2
  // ("predicate write skew"; docs/levels.md, "Predicates"); SI allows it, serializability not.
  { name: 'phantom', kind: 'fault', level: 'ser', anomaly: 'G2',
    rules: { ...SAFE, certifyReads: true, certifyPredicates: false },
    workload: { workload: 'predicate', shapes: 'g2', sessions: 8, keys: 60 },
    summary: 'serializable certification of item reads, but predicate reads are not certified: a predicate read misses a concurrent insert (a phantom) and the txn still commits' },
];

export function modeInfo(name: string): ModeInfo | undefined {
  return MEMORY_MODES.find((m) => m.name === name);
}
