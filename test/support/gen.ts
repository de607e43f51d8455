/**
 * Seeded random history generators for tests.
 *
 * Takes: a PRNG (`mulberry32(seed)`) and size parameters. Gives: `History` values built with
 * HistoryBuilder, in PolySI's conventions (numeric keys, sessions and txn labels; value 0 is
 * the initial value and is never written; every write writes a fresh value).
 *
 * - `randomHistory`: tiny histories whose reads return arbitrary values of the key (the initial
 *   value, or any write anywhere, including the reader's own later writes), so that every kind
 *   of anomaly shows up. Sized for the brute-force oracles.
 * - `simulatedSiHistory`: a multi-version store running interleaved transactions under strong
 *   session SI (snapshot at start, first-committer-wins); its histories are SI-valid by
 *   construction unless a `bug` is switched on. Scales to thousands of transactions.
 * - `simulatedSerialHistory`: one transaction at a time, so SER-valid by construction.
 *
 * Every generator is a pure function of the PRNG state, so a seed reproduces a history.
 */

import { HistoryBuilder } from '../../src/history/builder.ts';
import {
  TXN_ABORTED,
  TXN_COMMITTED,
  TXN_UNKNOWN,
  type History,
  type TxnStatus,
} from '../../src/history/model.ts';
import { mulberry32, type Rng } from './prng.ts';
export { mulberry32, type Rng };


/** The seed of the i-th case of a test run: distinct, spread out, and printable for replay. */
export function caseSeed(baseSeed: number, i: number): number {
  return (baseSeed + Math.imul(i + 1, 0x9e3779b9)) >>> 0;
}

/** A uniform integer in [lo, hi]. */
export function randInt(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[Math.floor(rng() * items.length)]!;
}

/** A random outcome: committed, or with the given probabilities aborted or unknown. */
function randomStatus(rng: Rng, pAborted: number, pUnknown: number): TxnStatus {
  const x = rng();
  if (x < pAborted) return TXN_ABORTED;
  if (x < pAborted + pUnknown) return TXN_UNKNOWN;
  return TXN_COMMITTED;
}

// ---------------------------------------------------------------------------------------------
// Arbitrary tiny histories
// ---------------------------------------------------------------------------------------------

export interface RandomHistoryParams {
  /** Sessions: 1..sessionsMax. */
  sessionsMax: number;
  /** Transactions per session: 1..txnsPerSessionMax. */
  txnsPerSessionMax: number;
  /** Total transactions: at most txnsMax (later sessions get fewer). */
  txnsMax: number;
  /** Keys: 1..keysMax. */
  keysMax: number;
  /** Operations per transaction: 1..opsPerTxnMax. */
  opsPerTxnMax: number;
  /** Probability that an operation is a read. */
  pRead: number;
  pAborted: number;
  pUnknown: number;
}

export const RANDOM_HISTORY_DEFAULTS: RandomHistoryParams = {
  sessionsMax: 3,
  txnsPerSessionMax: 3,
  txnsMax: 6,
  keysMax: 3,
  opsPerTxnMax: 4,
  pRead: 0.5,
  pAborted: 0.08,
  pUnknown: 0.08,
};

/**
 * A tiny history with arbitrary reads. The shape (sessions, txns, op kinds and keys) is drawn
 * first, then every write gets a fresh value, then every read returns the initial value or a
 * value some write of the same key produces anywhere in the history. Reads are deliberately
 * unconstrained: the point is to reach every anomaly (thin-air reads excepted, since those are
 * caught by validation and add nothing to the graph search).
 */
export function randomHistory(rng: Rng, params: Partial<RandomHistoryParams> = {}): History {
  const p = { ...RANDOM_HISTORY_DEFAULTS, ...params };
  const sessionCount = randInt(rng, 1, p.sessionsMax);
  const keyCount = randInt(rng, 1, p.keysMax);
  interface OpShape { read: boolean; key: number; value: number }
  interface TxnShape { session: number; status: TxnStatus; ops: OpShape[] }
  const txns: TxnShape[] = [];
  let budget = p.txnsMax;
  for (let s = 1; s <= sessionCount && budget > 0; s++) {
    const count = Math.min(budget, randInt(rng, 1, p.txnsPerSessionMax));
    budget -= count;
    for (let i = 0; i < count; i++) {
      const ops: OpShape[] = [];
      const opCount = randInt(rng, 1, p.opsPerTxnMax);
      for (let j = 0; j < opCount; j++) ops.push({ read: rng() < p.pRead, key: randInt(rng, 1, keyCount), value: 0 });
      txns.push({ session: s, status: randomStatus(rng, p.pAborted, p.pUnknown), ops });
    }
  }
  // Fresh values for writes: a global counter keeps them unique per key and never 0.
  const written: number[][] = [];
  for (let k = 0; k <= keyCount; k++) written.push([]);
  let nextValue = 1;
  for (const t of txns) {
    for (const op of t.ops) {
      if (op.read) continue;
      op.value = nextValue++;
      written[op.key]!.push(op.value);
    }
  }
  for (const t of txns) {
    for (const op of t.ops) if (op.read) op.value = pick(rng, [0, ...written[op.key]!]);
  }
  const b = new HistoryBuilder();
  txns.forEach((t, i) => {
    const id = b.beginTxn(b.session(t.session), i + 1, t.status);
    for (const op of t.ops) {
      const v = op.value === 0 ? null : op.value;
      if (op.read) b.read(id, op.key, v);
      else b.write(id, op.key, v);
    }
  });
  return b.build();
}

// ---------------------------------------------------------------------------------------------
// Simulated stores
// ---------------------------------------------------------------------------------------------

/**
 * Deliberate store bugs, to produce violations the checker must find:
 * - 'lost-update': no first-committer-wins check, so concurrent writers both commit.
 * - 'stale-snapshot': a txn's snapshot is taken up to `staleCommitsMax` commits in the past,
 *   which can hide the session's own earlier commits (session guarantee, causality).
 * - 'fractured': each key is read from a random committed version (fixed per txn and key, so
 *   the txn stays internally consistent): read skew, long fork, and friends.
 * - 'mixed': each buggy transaction picks one of the above at random.
 * Weaker stores, never picked by 'mixed' (issue 23: re-reads, and non-cycle anomalies beside cycles):
 * - 'read-committed': each read returns the latest committed version at the time of the read
 *   (its own write once it wrote the key), and there is no first-committer-wins: fuzzy reads of
 *   newer versions and lost updates, valid at read committed.
 * - 'older-reread': as 'read-committed', but a re-read returns a random committed version
 *   (the same, a newer or an older one): non-monotonic reads, which read committed forbids.
 * - 'read-uncommitted': as 'read-committed', but a read returns, with probability one half, the
 *   latest write of another running txn (dirty reads: G1a when it aborts, G1b when it writes the
 *   key again), beside the lost updates and fuzzy reads.
 * Each transaction is buggy with probability `pBug`; a low rate gives subtle violations (one
 * bad transaction among many) that only the solver can find.
 */
export type StoreBug = 'none' | 'lost-update' | 'stale-snapshot' | 'fractured' | 'mixed' | 'read-committed' | 'older-reread' | 'read-uncommitted';

export interface SimParams {
  sessions: number;
  txnsPerSession: number;
  keys: number;
  opsPerTxnMin: number;
  opsPerTxnMax: number;
  /** Probability that an operation is a read. */
  pRead: number;
  /** Probability that a client aborts a transaction of its own accord. */
  pVoluntaryAbort: number;
  /** Probability that the client never learns the outcome (committed or aborted alike). */
  pUnknown: number;
  bug: StoreBug;
  /** Probability that a given txn suffers the bug (the others run correctly). */
  pBug: number;
  staleCommitsMax: number;
  /**
   * Probability that a txn does all its reads before its writes (read-modify-write, the shape
   * of write skew and lost updates) instead of mixing them at random.
   */
  pReadsFirst: number;
  /** Probability that a read is followed, later in its txn, by a re-read of its key (0: no draws). */
  pReread: number;
}

export const SIM_DEFAULTS: SimParams = {
  sessions: 3,
  txnsPerSession: 2,
  keys: 3,
  opsPerTxnMin: 1,
  opsPerTxnMax: 4,
  pRead: 0.5,
  pVoluntaryAbort: 0.05,
  pUnknown: 0.05,
  bug: 'none',
  pBug: 1,
  staleCommitsMax: 3,
  pReadsFirst: 0.3,
  pReread: 0,
};

/** One committed version of a key. `value` 0 is the initial version, at commit timestamp 0. */
interface Version { ts: number; value: number }

/** A multi-version store: per key, versions in commit order. Keys are 1..keys. */
class VersionStore {
  private readonly versions: Version[][] = [];
  clock = 0;

  constructor(keys: number) {
    for (let k = 0; k <= keys; k++) this.versions.push([{ ts: 0, value: 0 }]);
  }

  /** The value of `key` in the snapshot at timestamp `ts` (the last version committed by then). */
  readAt(key: number, ts: number): number {
    const list = this.versions[key]!;
    for (let i = list.length - 1; i >= 0; i--) if (list[i]!.ts <= ts) return list[i]!.value;
    throw new Error('unreachable: the initial version has ts 0');
  }

  /** A random committed version of `key` (any age). */
  readAny(rng: Rng, key: number): number {
    return pick(rng, this.versions[key]!).value;
  }

  /** Commit timestamp of the newest version of `key`. */
  latestTs(key: number): number {
    const list = this.versions[key]!;
    return list[list.length - 1]!.ts;
  }

  /** Installs `writes` (key -> final value) as one new commit; returns its timestamp. */
  commit(writes: ReadonlyMap<number, number>): number {
    const ts = ++this.clock;
    for (const [k, v] of writes) this.versions[k]!.push({ ts, value: v });
    return ts;
  }
}

interface ActiveTxn {
  id: number;
  startTs: number;
  bug: Exclude<StoreBug, 'mixed'>;
  plan: { read: boolean; key: number }[];
  pos: number;
  writes: Map<number, number>;
  /** For the 'fractured' bug: the version chosen per key, so re-reads agree. */
  fracturedReads: Map<number, number>;
  /** Keys read so far (the weaker stores: a later read of one is a re-read). */
  readKeys: Set<number>;
}

/** The stores without first-committer-wins whose every read sees the latest state (StoreBug). */
const WEAK_STORES: ReadonlySet<StoreBug> = new Set(['read-committed', 'older-reread', 'read-uncommitted']);

function planOps(rng: Rng, p: SimParams): { read: boolean; key: number }[] {
  const plan: { read: boolean; key: number }[] = [];
  const n = randInt(rng, p.opsPerTxnMin, p.opsPerTxnMax);
  for (let i = 0; i < n; i++) plan.push({ read: rng() < p.pRead, key: randInt(rng, 1, p.keys) });
  // A stable sort: reads keep their order, writes keep theirs.
  if (rng() < p.pReadsFirst) plan.sort((a, b) => Number(b.read) - Number(a.read));
  if (p.pReread > 0) {
    for (let i = 0; i < plan.length; i++) {
      if (plan[i]!.read && rng() < p.pReread) plan.splice(randInt(rng, i + 1, plan.length), 0, { read: true, key: plan[i]!.key });
      if (plan.length >= 2 * p.opsPerTxnMax) break;
    }
  }
  return plan;
}

/** The outcome the client records: the true one, or (with pUnknown) unknown. */
function recordedStatus(rng: Rng, p: SimParams, committed: boolean): TxnStatus {
  if (rng() < p.pUnknown) return TXN_UNKNOWN;
  return committed ? TXN_COMMITTED : TXN_ABORTED;
}

/**
 * Runs `sessions` clients concurrently against an SI store. Each step picks a random session
 * and advances it by one event: begin a txn (snapshot = everything committed so far), run its
 * next operation, or try to commit it. A commit fails (the txn aborts) if another txn committed
 * a key it writes after its snapshot: first-committer-wins. A session starts its next txn only
 * after the previous one finished, so its snapshot includes its own commits (strong session SI).
 */
export function simulatedSiHistory(rng: Rng, params: Partial<SimParams> = {}): History {
  const p = { ...SIM_DEFAULTS, ...params };
  const store = new VersionStore(p.keys);
  const b = new HistoryBuilder();
  const remaining: number[] = [];
  const active: (ActiveTxn | null)[] = [];
  for (let s = 0; s < p.sessions; s++) {
    b.session(s + 1);
    remaining.push(p.txnsPerSession);
    active.push(null);
  }
  let nextValue = 1;
  let nextLabel = 1;
  const bugs: Exclude<StoreBug, 'mixed'>[] = ['lost-update', 'stale-snapshot', 'fractured'];
  for (;;) {
    const busy: number[] = [];
    for (let s = 0; s < p.sessions; s++) if (active[s] !== null || remaining[s]! > 0) busy.push(s);
    if (busy.length === 0) break;
    const s = pick(rng, busy);
    const a = active[s];
    if (a === null || a === undefined) {
      remaining[s]!--;
      const bug = rng() >= p.pBug ? 'none' : p.bug === 'mixed' ? pick(rng, bugs) : p.bug;
      const startTs = bug === 'stale-snapshot' ? Math.max(0, store.clock - randInt(rng, 0, p.staleCommitsMax)) : store.clock;
      active[s] = {
        id: b.beginTxn(s, nextLabel++),
        startTs,
        bug,
        plan: planOps(rng, p),
        pos: 0,
        writes: new Map(),
        fracturedReads: new Map(),
        readKeys: new Set(),
      };
    } else if (a.pos < a.plan.length) {
      const op = a.plan[a.pos++]!;
      if (!op.read) {
        const v = nextValue++;
        a.writes.set(op.key, v);
        b.write(a.id, op.key, v);
        continue;
      }
      let v = a.writes.get(op.key);
      if (v === undefined && a.bug === 'fractured') {
        v = a.fracturedReads.get(op.key) ?? store.readAny(rng, op.key);
        a.fracturedReads.set(op.key, v);
      }
      if (v === undefined && WEAK_STORES.has(a.bug)) v = weakRead(rng, store, a, op.key, active);
      if (v === undefined) v = store.readAt(op.key, a.startTs);
      b.read(a.id, op.key, v === 0 ? null : v);
    } else {
      let ok = rng() >= p.pVoluntaryAbort;
      if (ok && a.bug !== 'lost-update' && !WEAK_STORES.has(a.bug)) {
        for (const k of a.writes.keys()) if (store.latestTs(k) > a.startTs) ok = false;
      }
      if (ok) store.commit(a.writes);
      b.setStatus(a.id, recordedStatus(rng, p, ok));
      active[s] = null;
    }
  }
  return b.build();
}

/** A read of the weaker stores (StoreBug) of a key `a` has not written. */
function weakRead(rng: Rng, store: VersionStore, a: ActiveTxn, key: number, active: readonly (ActiveTxn | null)[]): number {
  const reread = a.readKeys.has(key);
  a.readKeys.add(key);
  if (a.bug === 'older-reread' && reread && rng() < 0.5) return store.readAny(rng, key);
  if (a.bug === 'read-uncommitted' && rng() < 0.5) {
    const dirty = active.filter((o) => o !== null && o !== a && o.writes.has(key));
    if (dirty.length > 0) return pick(rng, dirty)!.writes.get(key)!;
  }
  return store.readAt(key, store.clock);
}

/**
 * Runs transactions one at a time (a random session's next txn, to completion), so every
 * history is serializable in execution order. Voluntary aborts discard the txn's writes.
 */
export function simulatedSerialHistory(rng: Rng, params: Partial<SimParams> = {}): History {
  const p = { ...SIM_DEFAULTS, ...params };
  const store = new VersionStore(p.keys);
  const b = new HistoryBuilder();
  const remaining: number[] = [];
  for (let s = 0; s < p.sessions; s++) {
    b.session(s + 1);
    remaining.push(p.txnsPerSession);
  }
  let nextValue = 1;
  let nextLabel = 1;
  for (;;) {
    const busy: number[] = [];
    for (let s = 0; s < p.sessions; s++) if (remaining[s]! > 0) busy.push(s);
    if (busy.length === 0) break;
    const s = pick(rng, busy);
    remaining[s]!--;
    const id = b.beginTxn(s, nextLabel++);
    const writes = new Map<number, number>();
    for (const op of planOps(rng, p)) {
      if (op.read) {
        const v = writes.get(op.key) ?? store.readAt(op.key, store.clock);
        b.read(id, op.key, v === 0 ? null : v);
      } else {
        const v = nextValue++;
        writes.set(op.key, v);
        b.write(id, op.key, v);
      }
    }
    const ok = rng() >= p.pVoluntaryAbort;
    if (ok) store.commit(writes);
    b.setStatus(id, recordedStatus(rng, p, ok));
  }
  return b.build();
}

// ---------------------------------------------------------------------------------------------
// A mix for differential testing
// ---------------------------------------------------------------------------------------------

/**
 * A small history (up to ~32 txns) for the solve stage's seeded tests, by `seed` mod 3: arbitrary
 * reads, a simulated SI store with bugs, or a serial store (the draws the phase-shortcut and
 * descent tests share).
 */
export function smallSolveHistory(rng: Rng, seed: number): History {
  return seed % 3 === 0
    ? randomHistory(rng, { sessionsMax: 5, txnsPerSessionMax: 6, txnsMax: 24, keysMax: 4, opsPerTxnMax: 4 })
    : seed % 3 === 1
      ? simulatedSiHistory(rng, { sessions: 4, txnsPerSession: 8, keys: 5, bug: 'mixed' })
      : simulatedSerialHistory(rng, { sessions: 4, txnsPerSession: 8, keys: 5 });
}

export type TinyGenerator = 'random' | 'si-store' | 'buggy-store' | 'serial-store' | 'rc-store' | 'older-reread-store' | 'ru-store';

/**
 * One tiny history (at most `txnsMax` txns, 3 keys) from a mix of generators, with the name of
 * the one used. Arbitrary-read histories alone are mostly violations of every level and almost
 * never SI-valid but not serializable (about 1 in 1000); the simulated stores supply the cases
 * near the SI/SER boundary (write skew, read-only anomalies) and near-miss violations.
 */
export function tinyMixedHistory(rng: Rng, txnsMax = 6): { history: History; generator: TinyGenerator } {
  const x = rng();
  if (x < 0.4) {
    return { history: randomHistory(rng, { txnsMax }), generator: 'random' };
  }
  // Session shapes whose txn count fits the limit. Concurrency needs several sessions and
  // write skew needs two keys, so those shapes are favoured.
  const shapes: [number, number][] = [];
  for (let s = 1; s <= 3; s++) for (let n = 1; n <= 3; n++) if (s * n <= txnsMax) shapes.push([s, n]);
  const concurrent = shapes.filter(([s]) => s >= 2);
  const [sessions, txnsPerSession] = pick(rng, rng() < 0.8 && concurrent.length > 0 ? concurrent : shapes);
  const keys = rng() < 0.8 ? 2 : randInt(rng, 1, 3);
  // Half the time, three-op txns that mostly read: the shape that yields write skew most often
  // (about a quarter of SI histories are then not serializable, against a tenth otherwise).
  const params: Partial<SimParams> = rng() < 0.5
    ? { sessions, txnsPerSession, keys, opsPerTxnMin: 3, opsPerTxnMax: 3, pRead: 0.67 }
    : { sessions, txnsPerSession, keys, pRead: 0.4 + 0.3 * rng() };
  if (x < 0.65) return { history: simulatedSiHistory(rng, params), generator: 'si-store' };
  if (x < 0.95) return { history: simulatedSiHistory(rng, { ...params, bug: 'mixed' }), generator: 'buggy-store' };
  return { history: simulatedSerialHistory(rng, params), generator: 'serial-store' };
}

/**
 * One tiny history (at most `txnsMax` txns, 1 to 3 keys) from the weaker stores (StoreBug), whose
 * txns re-read keys: fuzzy reads of newer versions and lost updates (valid at read committed),
 * non-monotonic re-reads (violating it), and dirty reads beside cycles. Issue 23's generator.
 */
export function tinyRereadHistory(rng: Rng, txnsMax = 6): { history: History; generator: TinyGenerator } {
  const shapes: [number, number][] = [];
  for (let s = 2; s <= 3; s++) for (let n = 1; n <= 3; n++) if (s * n <= txnsMax) shapes.push([s, n]);
  const [sessions, txnsPerSession] = pick(rng, shapes);
  const x = rng();
  const bug: StoreBug = x < 0.4 ? 'read-committed' : x < 0.6 ? 'older-reread' : 'read-uncommitted';
  const generator: TinyGenerator = bug === 'read-committed' ? 'rc-store' : bug === 'older-reread' ? 'older-reread-store' : 'ru-store';
  const params: Partial<SimParams> = {
    sessions, txnsPerSession, keys: randInt(rng, 1, 3), opsPerTxnMin: 2, opsPerTxnMax: 3, pRead: 0.6, pReread: 0.5,
    bug, pBug: pick(rng, [1, 0.5]), pVoluntaryAbort: bug === 'read-uncommitted' ? 0.35 : 0.05,
  };
  return { history: simulatedSiHistory(rng, params), generator };
}

/** `tinyRereadHistory(rng).history`: a differential source (replay: `rereadHistory(mulberry32(seed))`). */
export function rereadHistory(rng: Rng): History {
  return tinyRereadHistory(rng).history;
}
