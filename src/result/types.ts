/**
 * The checker's vocabulary of results, below every stage: levels, verdicts, edge kinds,
 * anomalies, what `checkHistory` takes (CheckOptions) and returns (CheckResult, printed by the
 * CLI as JSON). Types and constants only: it imports nothing but `counterexample.ts` beside it,
 * so every stage may import it without an arrow running back up.
 *
 * Transactions are named by their index in the History (`txnLabel(History, t)` is the user's
 * name); the implicit initial transaction that writes the initial value of every key is
 * `INIT_TXN` (-1). Keys are key ids (`History.keyLabels[k]`), values are value ids.
 */

import type { Counterexample } from './counterexample.ts';

/**
 * Every isolation level of the ladder (docs/levels.md, where each is defined with its source),
 * weakest first (a linear extension of the lattice, src/result/lattice.ts):
 * - `pl-1`, `pl-2`: Adya's PL-1 (read uncommitted) and PL-2 (read committed), without session
 *   order, as Elle's `:read-uncommitted` and `:read-committed` mean them;
 * - `ru`: strong-session PL-1 (Elle's `:strong-session-read-uncommitted`);
 * - `mav`: monotonic atomic view (Bailis et al., HAT, VLDB 2014), without session order;
 * - `rc`: Biswas & Enea's read committed (OOPSLA 2019), as Plume and AWDIT check it;
 * - `ss-rc`: its strong-session variant (the axiom's premise also along session order);
 * - `ra`, `tcc`, `pc`, `psi`: read atomic, causal, prefix, parallel SI (Cerone et al.);
 * - `rr`: repeatable read (Adya's PL-2.99, no session order);
 * - `pl-si`, `pl-3`: Adya's PL-SI and PL-3, i.e. snapshot isolation and serializability without
 *   session order (Elle's `:snapshot-isolation` and `:serializable`);
 * - `si`, `ser`: strong-session SI and serializability (Elle's `:strong-session-...`), the
 *   checker's historical meaning of both short names;
 * - `strict-si`, `strict-ser`: their real-time (strict) variants.
 */
export const LEVEL_NAMES = [
  'pl-1', 'ru', 'pl-2', 'mav', 'rc', 'ss-rc', 'ra', 'tcc', 'pc', 'psi', 'rr', 'pl-si', 'si', 'pl-3', 'ser', 'strict-si', 'strict-ser',
] as const;
export type LevelName = (typeof LEVEL_NAMES)[number];

/**
 * The levels `checkHistory` decides today; a subset of LevelName that grows as levels are
 * implemented. Code that switches on a Level must handle every member (no `else` = SER).
 */
export type Level = LevelName;
export type Verdict = 'valid' | 'violation' | 'unknown';

/** Each level's name for people (docs/levels.md). */
export const LEVEL_TITLES: Record<Level, string> = {
  'pl-1': 'read uncommitted (PL-1)',
  ru: 'read uncommitted',
  'pl-2': 'read committed (PL-2)',
  mav: 'monotonic atomic view',
  rc: 'read committed',
  'ss-rc': 'strong session read committed',
  ra: 'read atomic',
  tcc: 'transactional causal consistency',
  pc: 'prefix consistency',
  psi: 'parallel snapshot isolation',
  rr: 'repeatable read (PL-2.99)',
  'pl-si': 'snapshot isolation (PL-SI)',
  si: 'snapshot isolation',
  'pl-3': 'serializability (PL-3)',
  ser: 'serializability',
  'strict-si': 'strict snapshot isolation',
  'strict-ser': 'strict serializability',
};

/** The implicit initial transaction. */
export const INIT_TXN = -1;

/** RT: real-time order (the first txn completed before the second was invoked; strict levels only). */
export type EdgeKind = 'SO' | 'WR' | 'WW' | 'RW' | 'RT';

/** A dependency edge between two transactions. `key` is -1 for SO and RT. */
export interface DepEdge {
  from: number;
  to: number;
  kind: EdgeKind;
  key: number;
}

/** Anomalies found before any graph work (PolySI §4.5; Elle §5). */
export type NonCycleAnomalyName =
  | 'G1a'               // aborted read: read a value written by an aborted transaction
  | 'G1b'               // intermediate read: read a value its writer later overwrote in the same txn
  | 'INT'               // internal inconsistency: a read disagrees with the txn's own earlier read or write
  | 'garbage-read'      // read a value that no transaction wrote
  | 'future-read'       // read a value the same transaction writes only later
  | 'duplicate-elements'// list-append: a list read contains an element twice
  | 'incompatible-order'// list-append: two list reads of a key are not prefixes of one another
  | 'predicate-mismatch'// a predicate read's result contradicts its own predicate (a returned row that does not match it, a count no versions allow)
  | 'duplicate-insert'; // a row inserted twice with no delete of it anywhere: one insert found it present

export interface NonCycleAnomaly {
  type: 'non-cycle';
  name: NonCycleAnomalyName;
  /** The transaction that observed the anomaly. */
  txn: number;
  /** The operation (History op index) that observed it. */
  op: number;
  key: number;
  /** The writer involved, if any (INIT_TXN for the initial state, -2 if none). */
  writer: number;
  /** One sentence for people. */
  message: string;
  /** Present when the check was asked to explain (`CheckOptions.explain`). */
  explanation?: Counterexample;
}

export interface CycleAnomaly {
  type: 'cycle';
  /** The cycle's edges in order: edges[i].to === edges[i+1].from, last.to === first.from. */
  edges: DepEdge[];
  /** The minimal counterexample behind this cycle, when the check was asked to explain. */
  explanation?: Counterexample;
}

export type Anomaly = NonCycleAnomaly | CycleAnomaly;

export interface StageTimesMs {
  parse: number;
  validate: number;
  construct: number;
  prune: number;
  solve: number;
  /** Only when explaining: restore, minimize, argue and name every anomaly. */
  explain?: number;
}

/**
 * Which stage settled the verdict:
 * - 'validation': a non-cycle anomaly the level forbids (the level's cycles are still looked
 *   for on the rest of the history, and reported after it);
 * - 'pruning': the known graph, grown by pruning, became cyclic (violation), or pruning decided
 *   every constraint and the known graph stayed acyclic (valid);
 * - 'solver-sat' / 'solver-unsat': the SAT solver, on the constraints pruning left (all of them
 *   without pruning); `solver.conflicts` (the CDCL search's) and `solver.flips` (the greedy
 *   descent's, docs/solver.md) say how hard it had to work;
 * - 'choice-search': a predicate history whose undecided observations (rows a predicate read did
 *   not return, seen in one of several versions) the SAT solver searched together with the
 *   version order (check/predicate-search.ts; docs/levels.md, "Predicates");
 * - 'saturation': the levels checked in polynomial time (ru, rc, ra, tcc; src/levels/): the
 *   commit-order graph their axiom saturates is acyclic (valid) or has a cycle (violation);
 * - 'recorded-order': valid because the recorded times give a witness (predicate histories
 *   only, tried before the polygraph): the completion order is a serial execution
 *   (check/serial-order.ts), or snapshots at the invocations satisfy SI (check/snapshot-order.ts);
 * - 'limit': the verdict is 'unknown' (a time or conflict limit was hit).
 */
export type DecidedBy = 'validation' | 'pruning' | 'solver-sat' | 'solver-unsat' | 'choice-search' | 'saturation' | 'recorded-order' | 'limit';

export interface CheckResult {
  verdict: Verdict;
  level: Level;
  decidedBy: DecidedBy;
  counts: {
    sessions: number;
    transactions: number;
    /** Transactions that take part in the check (committed, or unknown and read by someone). */
    checkedTransactions: number;
    operations: number;
    keys: number;
  };
  timesMs: StageTimesMs;
  constraints: {
    /** Generalized constraints (one per pair of writers of a common key, coalesced). */
    before: number;
    /** Constraints left for the SAT solver after pruning. */
    after: number;
    pruneRounds: number;
  };
  /** `conflicts`: CDCL conflicts only; `flips`: phases the greedy descent flipped before any CDCL (docs/solver.md). */
  solver: { variables: number; conflicts: number; decisions: number; propagations: number; flips: number } | null;
  /** Violations found; empty when valid. At least one when verdict is 'violation'. */
  anomalies: Anomaly[];
  /**
   * True when `anomalies` may be cut short: more distinct violations were found
   * (`anomaliesNotShown` > 0), or the search for more stopped at a bound (maxAnomalies, the
   * explain time limit or budget) before it knew whether there are others.
   */
  truncated: boolean;
  /** Distinct violations found but not listed in `anomalies`; a lower bound unless `anomalySearchComplete`. */
  anomaliesNotShown: number;
  /**
   * The search for distinct violations ran to its end (no violation left, or validation listed
   * them all), so `anomaliesNotShown` is exact. False when a count, try or time bound stopped
   * it, or when nothing was explained (then only the first violation was looked for).
   */
  anomalySearchComplete: boolean;
  /** Why the verdict is 'unknown' (a limit was hit). */
  unknownReason?: string;
  /** Things the user should know about how the check ran (e.g. partial pruning). */
  notes?: string[];
}

/** A step of a long check: the stage starting, and for pruning rounds how much is left. */
export interface ProgressEvent {
  stage: 'validate' | 'construct' | 'prune' | 'solve' | 'explain';
  /** For 'prune': the round just finished (0 = starting). */
  round?: number;
  /** Constraints still undecided, when known. */
  constraintsLeft?: number;
  /** For 'construct': keys processed so far, of `keysTotal` (reported every 1024 keys and at the end). */
  keysDone?: number;
  keysTotal?: number;
}

export interface CheckOptions {
  level: Level;
  /** Prune constraints before solving (PolySI §4.3). Off is for testing and measurement. */
  pruning: boolean;
  /**
   * Wall-clock budget for the whole check (validate, construct, prune, solve, explain); past
   * it the verdict is 'unknown' and `unknownReason` names the stage.
   */
  timeoutMs?: number;
  /**
   * The same as an absolute epoch-milliseconds deadline, so that one deadline can cover
   * parsing (readHistory's `deadlineMs`) and checking. The earlier of the two applies.
   */
  deadlineMs?: number;
  /**
   * Most writer pairs (constraints before coalescing) to build; past it the verdict is
   * 'unknown', naming the hottest key and its writers (default CONSTRAINTS_MAX, 20M).
   */
  constraintsMax?: number;
  /** Most constraint edges to build (default CONSTRAINT_EDGES_MAX, 60M); as constraintsMax. */
  constraintEdgesMax?: number;
  /** Solver conflict budget; past it the verdict is 'unknown'. */
  conflictsMax?: number;
  /**
   * Bound on pruning rounds (default 1000, a safety net: real histories need a handful). Fewer
   * rounds leave more constraints to the solver, never a different verdict; 0 only looks for a
   * cycle in the known graph. For testing the solver on what pruning would have decided.
   */
  pruneRoundsMax?: number;
  /** Memory bound of pruning's reachability table in Int32 cells (default 150M = 600 MB). */
  reachCellsMax?: number;
  /**
   * Memory budget of the process in MiB (resident set). Before each stage the checker adds an
   * estimate of what the stage allocates to the current resident set; past the budget the
   * verdict is 'unknown' and `unknownReason` names the stage. Pruning's reachability table is
   * shrunk to fit instead (weaker pruning, same verdicts).
   */
  maxMemoryMb?: number;
  /**
   * Called as the check moves from stage to stage (and after each pruning round), so a caller
   * can show progress on long runs. The library itself never prints.
   */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * On a violation, explain each anomaly (a minimal counterexample, its name and the argument;
   * see docs/explain.md), and look for up to `maxAnomalies` distinct ones. Off by default: the
   * verdict never waits for it.
   */
  explain?: boolean;
  /**
   * Bound on the distinct cycle violations searched for and reported when explaining (default
   * 10); non-cycle anomalies from validation are cut only when this is given.
   */
  maxAnomalies?: number;
  /** Wall-clock budget for explaining (default 30 s); past it, what was found so far is reported. */
  explainTimeoutMs?: number;
  /**
   * Budget for looking beyond the first counterexample (default: none, only explainTimeoutMs):
   * the first is always explained in full; further ones are searched for only while explaining
   * has taken less than this many milliseconds. When it stops the search, the result says so
   * (`truncated`, `anomalySearchComplete: false`). The CLI sets it unless --max-anomalies is given.
   */
  explainMoreMs?: number;
  /** Add each counterexample's session neighbours (for drawing). */
  neighbours?: boolean;
}
