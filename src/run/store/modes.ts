/**
 * The embedded store's modes: three isolation levels and the fault modes that break them on
 * purpose, each with the rules the store follows and the anomaly it is known to produce.
 *
 * Takes: nothing (a table). Gives: `MEMORY_MODES` (for `--help`, docs and tests) and the
 * rules the store (memory.ts) reads.
 * Invariant: `snapshot` and `serializable` really provide SI and SER (tested over many seeds
 * by test/run/memory.test.ts); every fault mode's `anomaly` is the name the checker gives it.
 */

export type MemoryMode =
  | 'serializable' | 'snapshot' | 'read-committed' | 'flaky-commit'
  | 'lost-update' | 'long-fork' | 'causality' | 'aborted-read' | 'intermediate-read' | 'stale-session';

export interface ModeRules {
  /** Replicas the sessions are spread over (session % replicas); a replica sees its own commits at once. */
  replicas: number;
  /** Commits before another replica's commit becomes visible: a fixed lag, or random up to this. */
  remoteLag: number;
  remoteLagRandom: boolean;
  /** Snapshots lag the latest commit by a random number of commits up to this (0: fresh). */
  snapshotLag: number;
  /** First-committer-wins: abort a txn that writes a key with a committed version it did not see. */
  firstCommitterWins: boolean;
  /** Certify reads too (serializable): abort a txn that read a key overwritten since its snapshot. */
  certifyReads: boolean;
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
  replicas: 1, remoteLag: 0, remoteLagRandom: false, snapshotLag: 0, firstCommitterWins: true, certifyReads: false,
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
}

export const MEMORY_MODES: readonly ModeInfo[] = [
  { name: 'serializable', kind: 'isolation', level: 'ser', rules: { ...SAFE, certifyReads: true },
    summary: 'snapshot reads; at commit, abort if any key read or written changed since the snapshot (backward certification)' },
  { name: 'snapshot', kind: 'isolation', level: 'si', rules: SAFE,
    summary: 'snapshot reads, first-committer-wins on written keys' },
  { name: 'flaky-commit', kind: 'isolation', level: 'si', rules: { ...SAFE, lostCommitFraction: 0.1 },
    summary: 'snapshot, but one commit in ten loses its answer (recorded unknown; half of them took effect)' },
  { name: 'read-committed', kind: 'isolation', level: 'si', rules: { ...SAFE, readLatest: true, firstCommitterWins: false },
    summary: 'each read sees the latest committed version; no write conflicts (not SI: expect violations)' },
  { name: 'lost-update', kind: 'fault', level: 'si', anomaly: 'lost update',
    rules: { ...SAFE, firstCommitterWins: false, appendToSnapshot: true },
    summary: 'snapshot without first-committer-wins: concurrent read-modify-writes both commit' },
  { name: 'long-fork', kind: 'fault', level: 'si', anomaly: 'long fork',
    rules: { ...SAFE, replicas: 2, remoteLag: 12 },
    summary: 'two replicas, each sees the other\'s commits 12 commits late: readers disagree on the order of writes' },
  { name: 'causality', kind: 'fault', level: 'si', anomaly: 'causality violation',
    rules: { ...SAFE, replicas: 3, remoteLag: 24, remoteLagRandom: true },
    summary: 'three replicas, each commit reaches each other replica after its own random delay: effects seen before causes' },
  { name: 'aborted-read', kind: 'fault', level: 'si', anomaly: 'G1a',
    rules: { ...SAFE, dirty: 'doomed', doomedFraction: 0.2 },
    summary: 'a fifth of txns are doomed to abort, and their writes are visible before they do' },
  { name: 'intermediate-read', kind: 'fault', level: 'si', anomaly: 'G1b',
    rules: { ...SAFE, dirty: 'all' },
    summary: 'every write is visible at once, before commit, including values its txn overwrites later' },
  { name: 'stale-session', kind: 'fault', level: 'si', anomaly: 'session guarantee violation',
    rules: { ...SAFE, snapshotLag: 24 },
    summary: 'snapshots lag up to 24 commits behind, so a session may not see its own last commit (no read-your-writes)' },
];

export function modeInfo(name: string): ModeInfo | undefined {
  return MEMORY_MODES.find((m) => m.name === name);
}
