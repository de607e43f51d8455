/**
 * Seeded random generators of list-append histories (with register keys beside the lists).
 *
 * Takes: a PRNG (`mulberry32(seed)`, from gen.ts) and size parameters. Gives: `History` values
 * built with HistoryBuilder: numeric keys, each key a register or a list for the whole history
 * (the checker refuses a mix), every write or append a fresh value (never 0, the initial value).
 *
 * - `randomListHistory`: tiny histories whose list reads are drawn from a plausible order of
 *   appends per key and then, now and then, damaged: two elements swapped (inside one writer's
 *   run, too), a writer's run cut short, an element repeated or made up, a different order for
 *   another reader, the reader's own appends left off. So every list anomaly shows up, beside
 *   histories that are valid. Sized for the brute-force oracles.
 * - `simulatedListHistory`: a multi-version store running interleaved transactions under strong
 *   session SI (snapshot at start, first-committer-wins) on list and register keys; SI-valid by
 *   construction unless a `bug` is on. `serial: true` runs one transaction at a time
 *   (SER-valid). Bugs: the register store's ('lost-update', 'stale-snapshot', 'fractured') and
 *   'reorder', which installs a transaction's appends to a key in reverse order (a read then
 *   shows one writer's run out of program order).
 * - `tinyMixedListHistory`: a mix of both for the differential test.
 *
 * Every generator is a pure function of the PRNG state, so a seed reproduces a history.
 */

import { HistoryBuilder } from '../../src/history/builder.ts';
import { TXN_ABORTED, TXN_COMMITTED, TXN_UNKNOWN, type History, type TxnStatus } from '../../src/history/model.ts';
import { pick, randInt, type Rng } from './gen.ts';

/** An op of a generated txn: `value` for r/w/a, `list` for a list read. */
interface GenOp { kind: 'r' | 'w' | 'a' | 'rl'; key: number; value: number; list: number[] }
interface GenTxn { session: number; status: TxnStatus; ops: GenOp[] }

function build(txns: readonly GenTxn[]): History {
  const b = new HistoryBuilder('<gen-lists>');
  txns.forEach((t, i) => {
    const id = b.beginTxn(b.session(t.session), i + 1, t.status);
    for (const op of t.ops) {
      const v = op.value === 0 ? null : op.value;
      if (op.kind === 'r') b.read(id, op.key, v);
      else if (op.kind === 'w') b.write(id, op.key, v);
      else if (op.kind === 'a') b.append(id, op.key, v);
      else b.readList(id, op.key, op.list);
    }
  });
  return b.build();
}

function status(rng: Rng, pAborted: number, pUnknown: number): TxnStatus {
  const x = rng();
  return x < pAborted ? TXN_ABORTED : x < pAborted + pUnknown ? TXN_UNKNOWN : TXN_COMMITTED;
}

function shuffle<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randInt(rng, 0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

// ---------------------------------------------------------------------------------------------
// Arbitrary tiny histories
// ---------------------------------------------------------------------------------------------

export interface RandomListParams {
  sessionsMax: number;
  txnsPerSessionMax: number;
  txnsMax: number;
  keysMax: number;
  opsPerTxnMax: number;
  /** Probability that an operation is a read. */
  pRead: number;
  /** Probability that a key is a list (else a register). */
  pListKey: number;
  pAborted: number;
  pUnknown: number;
  /** Probability that a list read is damaged (one of the defects in the module comment). */
  pDamage: number;
}

export const RANDOM_LIST_DEFAULTS: RandomListParams = {
  sessionsMax: 3,
  txnsPerSessionMax: 3,
  txnsMax: 6,
  keysMax: 2,
  opsPerTxnMax: 4,
  pRead: 0.5,
  pListKey: 0.75,
  pAborted: 0.08,
  pUnknown: 0.1,
  pDamage: 0.12,
};

/**
 * The shape first (sessions, txns, op kinds, keys), then fresh values for writes and appends,
 * then reads: a register read returns the initial value or any write of the key (later reads of
 * the key, mostly, what the txn read or wrote before); a list read returns a prefix (at a writer
 * boundary) of one random order of the key's appending txns, each contributing its appends in
 * program order (later reads of the key, mostly, the same prefix), followed by the reader's own
 * appends so far, and is then damaged with probability `pDamage`.
 */
export function randomListHistory(rng: Rng, params: Partial<RandomListParams> = {}): History {
  const p = { ...RANDOM_LIST_DEFAULTS, ...params };
  const sessionCount = randInt(rng, 1, p.sessionsMax);
  const keyCount = randInt(rng, 1, p.keysMax);
  const isList: boolean[] = [false];
  for (let k = 1; k <= keyCount; k++) isList.push(rng() < p.pListKey);
  const txns: GenTxn[] = [];
  let budget = p.txnsMax;
  for (let s = 1; s <= sessionCount && budget > 0; s++) {
    const count = Math.min(budget, randInt(rng, 1, p.txnsPerSessionMax));
    budget -= count;
    for (let i = 0; i < count; i++) {
      const ops: GenOp[] = [];
      for (let j = randInt(rng, 1, p.opsPerTxnMax); j > 0; j--) {
        const key = randInt(rng, 1, keyCount);
        const read = rng() < p.pRead;
        ops.push({ kind: isList[key] ? (read ? 'rl' : 'a') : read ? 'r' : 'w', key, value: 0, list: [] });
      }
      txns.push({ session: s, status: status(rng, p.pAborted, p.pUnknown), ops });
    }
  }
  let next = 1;
  const written: number[][] = Array.from({ length: keyCount + 1 }, () => []);
  for (const t of txns) {
    for (const op of t.ops) if (op.kind === 'w' || op.kind === 'a') { op.value = next++; written[op.key]!.push(op.value); }
  }
  // Per list key, a random order of its appending txns: each contributes its run of appends.
  const orderOf = (key: number): number[][] => {
    const runs = txns.map((t) => t.ops.filter((o) => o.kind === 'a' && o.key === key).map((o) => o.value)).filter((r) => r.length > 0);
    return shuffle(rng, runs);
  };
  const orders = new Map<number, number[][]>();
  for (let k = 1; k <= keyCount; k++) if (isList[k]) orders.set(k, orderOf(k));
  for (const t of txns) {
    const own = new Map<number, number[]>();
    // What the txn saw or wrote first per key: later reads mostly agree with it (else INT
    // would swamp every other anomaly).
    const register = new Map<number, number>();
    const external = new Map<number, number[]>();
    for (const op of t.ops) {
      if (op.kind === 'w') register.set(op.key, op.value);
      if (op.kind === 'r') {
        const known = register.get(op.key);
        op.value = known !== undefined && rng() >= p.pDamage ? known : pick(rng, [0, ...written[op.key]!]);
        if (known === undefined) register.set(op.key, op.value);
      }
      if (op.kind === 'a') own.set(op.key, [...(own.get(op.key) ?? []), op.value]);
      if (op.kind !== 'rl') continue;
      let prefix = external.get(op.key);
      if (prefix === undefined || rng() < p.pDamage) {
        // Another reader sometimes sees a different order altogether (incompatible orders).
        const runs = rng() < 0.1 ? orderOf(op.key) : orders.get(op.key)!;
        const all = t.ops.filter((o) => o.kind === 'a' && o.key === op.key).map((o) => o.value);
        const others = runs.filter((r) => !all.includes(r[0]!));
        prefix = others.slice(0, randInt(rng, 0, others.length)).flat();
        if (!external.has(op.key)) external.set(op.key, prefix);
      }
      op.list = [...prefix, ...(own.get(op.key) ?? [])];
      if (rng() < p.pDamage) op.list = damage(rng, op.list, prefix.length, written[op.key]!, next++);
    }
  }
  return build(txns);
}

/** One defect in a list read (see the module comment); `ext` elements come before own appends. */
function damage(rng: Rng, list: number[], ext: number, appended: readonly number[], fresh: number): number[] {
  const out = list.slice();
  const i = randInt(rng, 0, Math.max(0, out.length - 1));
  switch (randInt(rng, 0, 5)) {
    case 0: // swap two neighbours (inside a writer's run, or across two runs)
      if (out.length >= 2) { const j = Math.min(i, out.length - 2); [out[j], out[j + 1]] = [out[j + 1]!, out[j]!]; }
      return out;
    case 1: // a run cut short: drop one element
      out.splice(i, 1);
      return out;
    case 2: // an element twice
      if (out.length > 0) out.splice(i, 0, out[i]!);
      return out;
    case 3: // an element nobody appended to this key
      out.splice(i, 0, fresh);
      return out;
    case 4: // the reader's own appends left off
      return out.slice(0, ext);
    default: // any appended element added at the end
      return appended.length === 0 ? out : [...out, pick(rng, appended)];
  }
}

// ---------------------------------------------------------------------------------------------
// A simulated store
// ---------------------------------------------------------------------------------------------

export type ListStoreBug = 'none' | 'lost-update' | 'stale-snapshot' | 'fractured' | 'reorder' | 'mixed' | 'read-committed' | 'older-reread';

export interface ListSimParams {
  sessions: number;
  txnsPerSession: number;
  keys: number;
  /** Probability that a key is a list (else a register). */
  pListKey: number;
  opsPerTxnMin: number;
  opsPerTxnMax: number;
  pRead: number;
  pVoluntaryAbort: number;
  pUnknown: number;
  bug: ListStoreBug;
  /** Probability that a given txn suffers the bug. */
  pBug: number;
  staleCommitsMax: number;
  /** One transaction at a time (SER-valid without a bug). */
  serial: boolean;
  /** Probability that a read is followed, later in its txn, by a re-read of its key (0: no draws). */
  pReread: number;
}

export const LIST_SIM_DEFAULTS: ListSimParams = {
  sessions: 3,
  txnsPerSession: 2,
  keys: 2,
  pListKey: 0.75,
  opsPerTxnMin: 1,
  opsPerTxnMax: 4,
  pRead: 0.5,
  pVoluntaryAbort: 0.05,
  pUnknown: 0.08,
  bug: 'none',
  pBug: 1,
  staleCommitsMax: 3,
  serial: false,
  pReread: 0,
};

/** A committed version of a key: its whole state (a list, or a register as [value] / []). */
interface Version { ts: number; state: readonly number[] }

interface Active {
  txn: GenTxn;
  startTs: number;
  bug: Exclude<ListStoreBug, 'mixed'>;
  plan: { read: boolean; key: number }[];
  pos: number;
  /** Key -> the txn's local state of the key (after its own writes and appends). */
  local: Map<number, readonly number[]>;
  /** Key -> the values it appended, in program order. */
  appended: Map<number, number[]>;
  fractured: Map<number, readonly number[]>;
  /** Keys read so far (the weaker stores: a later read of one is a re-read). */
  readKeys: Set<number>;
}

/**
 * The weaker stores, never picked by 'mixed' (issue 23), without first-committer-wins:
 * 'read-committed' reads the latest committed state of a key at each read, followed by the txn's
 * own appends (MariaDB's repeatable read after an UPDATE does this), so a re-read may show a
 * longer list; 'older-reread' is the same, but a re-read shows a random committed version
 * (the same, a newer or an older one) before the own appends.
 */
const WEAK_LIST_STORES: ReadonlySet<ListStoreBug> = new Set(['read-committed', 'older-reread']);

/**
 * Runs `sessions` clients against an SI store of lists and registers (one event per step: begin
 * with a snapshot, run the next op, or try to commit with first-committer-wins), as
 * `simulatedSiHistory` does for registers. A commit installs, per list key, the committed list
 * with the txn's appends added (equal to its local list when first-committer-wins held).
 */
export function simulatedListHistory(rng: Rng, params: Partial<ListSimParams> = {}): History {
  const p = { ...LIST_SIM_DEFAULTS, ...params };
  const isList: boolean[] = [false];
  for (let k = 1; k <= p.keys; k++) isList.push(rng() < p.pListKey);
  const versions: Version[][] = Array.from({ length: p.keys + 1 }, () => [{ ts: 0, state: [] }]);
  let clock = 0;
  const readAt = (key: number, ts: number): readonly number[] => {
    const list = versions[key]!;
    for (let i = list.length - 1; i >= 0; i--) if (list[i]!.ts <= ts) return list[i]!.state;
    throw new Error('unreachable: the initial version has ts 0');
  };
  const latest = (key: number): Version => versions[key]![versions[key]!.length - 1]!;

  const txns: GenTxn[] = [];
  const remaining = Array.from({ length: p.sessions }, () => p.txnsPerSession);
  const active: (Active | null)[] = Array.from({ length: p.sessions }, () => null);
  const bugs: Exclude<ListStoreBug, 'mixed' | 'none'>[] = ['lost-update', 'stale-snapshot', 'fractured', 'reorder'];
  let next = 1;
  for (;;) {
    const running = active.findIndex((a) => a !== null);
    const busy: number[] = [];
    for (let s = 0; s < p.sessions; s++) if (active[s] !== null || remaining[s]! > 0) busy.push(s);
    if (busy.length === 0) break;
    const s = p.serial && running >= 0 ? running : pick(rng, busy);
    const a = active[s];
    if (a === null || a === undefined) {
      remaining[s]!--;
      const bug = rng() >= p.pBug ? 'none' : p.bug === 'mixed' ? pick(rng, bugs) : p.bug;
      const txn: GenTxn = { session: s + 1, status: TXN_COMMITTED, ops: [] };
      txns.push(txn);
      const plan: { read: boolean; key: number }[] = [];
      for (let n = randInt(rng, p.opsPerTxnMin, p.opsPerTxnMax); n > 0; n--) plan.push({ read: rng() < p.pRead, key: randInt(rng, 1, p.keys) });
      if (p.pReread > 0) {
        for (let i = 0; i < plan.length && plan.length < 2 * p.opsPerTxnMax; i++) {
          if (plan[i]!.read && rng() < p.pReread) plan.splice(randInt(rng, i + 1, plan.length), 0, { read: true, key: plan[i]!.key });
        }
      }
      const startTs = bug === 'stale-snapshot' ? Math.max(0, clock - randInt(rng, 0, p.staleCommitsMax)) : clock;
      active[s] = { txn, startTs, bug, plan, pos: 0, local: new Map(), appended: new Map(), fractured: new Map(), readKeys: new Set() };
    } else if (a.pos < a.plan.length) {
      const { read, key } = a.plan[a.pos++]!;
      let cur = a.local.get(key);
      if (cur === undefined && a.bug === 'fractured') {
        cur = a.fractured.get(key) ?? pick(rng, versions[key]!).state;
        a.fractured.set(key, cur);
      }
      if (WEAK_LIST_STORES.has(a.bug) && (isList[key] || cur === undefined)) {
        const reread = a.readKeys.has(key);
        if (read) a.readKeys.add(key);
        const base = a.bug === 'older-reread' && reread && rng() < 0.5 ? pick(rng, versions[key]!).state : latest(key).state;
        cur = isList[key] ? [...base, ...(a.appended.get(key) ?? [])] : base;
      }
      cur ??= readAt(key, a.startTs);
      if (read) {
        a.txn.ops.push(isList[key] ? { kind: 'rl', key, value: 0, list: cur.slice() } : { kind: 'r', key, value: cur.at(-1) ?? 0, list: [] });
        if (!a.local.has(key) && !WEAK_LIST_STORES.has(a.bug)) a.local.set(key, cur); // later reads agree with this one
        continue;
      }
      const v = next++;
      a.txn.ops.push({ kind: isList[key] ? 'a' : 'w', key, value: v, list: [] });
      a.local.set(key, isList[key] ? [...cur, v] : [v]);
      if (isList[key]) a.appended.set(key, [...(a.appended.get(key) ?? []), v]);
    } else {
      const writes = [...a.local.keys()].filter((k) => a.txn.ops.some((o) => o.key === k && (o.kind === 'w' || o.kind === 'a')));
      let ok = rng() >= p.pVoluntaryAbort;
      if (ok && a.bug !== 'lost-update' && !WEAK_LIST_STORES.has(a.bug)) for (const k of writes) if (latest(k).ts > a.startTs) ok = false;
      if (ok) {
        clock++;
        for (const k of writes) {
          const own = a.appended.get(k);
          const state = !isList[k] ? a.local.get(k)! : [...latest(k).state, ...(a.bug === 'reorder' ? own!.slice().reverse() : own!)];
          versions[k]!.push({ ts: clock, state });
        }
      }
      a.txn.status = rng() < p.pUnknown ? TXN_UNKNOWN : ok ? TXN_COMMITTED : TXN_ABORTED;
      active[s] = null;
    }
  }
  return build(txns);
}

export type TinyListGenerator = 'random-lists' | 'list-store' | 'buggy-list-store' | 'serial-list-store' | 'rc-list-store' | 'older-reread-list-store';

/**
 * One tiny history (at most `txnsMax` txns) from a mix of the generators above, with the name
 * of the one used: damaged random reads for the anomalies, the correct stores for valid
 * histories near the SI/SER boundary (write skew over lists), the buggy store for cycles.
 */
export function tinyMixedListHistory(rng: Rng, txnsMax = 6): { history: History; generator: TinyListGenerator } {
  const x = rng();
  if (x < 0.35) return { history: randomListHistory(rng, { txnsMax }), generator: 'random-lists' };
  const shapes: [number, number][] = [];
  for (let s = 1; s <= 3; s++) for (let n = 1; n <= 3; n++) if (s * n <= txnsMax) shapes.push([s, n]);
  const concurrent = shapes.filter(([s]) => s >= 2);
  const [sessions, txnsPerSession] = pick(rng, rng() < 0.8 ? concurrent : shapes);
  const base: Partial<ListSimParams> = rng() < 0.5
    ? { sessions, txnsPerSession, keys: 2, opsPerTxnMin: 3, opsPerTxnMax: 3, pRead: 0.67 }
    : { sessions, txnsPerSession, keys: randInt(rng, 1, 3), pRead: 0.4 + 0.3 * rng() };
  if (x < 0.6) return { history: simulatedListHistory(rng, base), generator: 'list-store' };
  if (x < 0.92) return { history: simulatedListHistory(rng, { ...base, bug: 'mixed', pBug: pick(rng, [1, 0.5]) }), generator: 'buggy-list-store' };
  return { history: simulatedListHistory(rng, { ...base, serial: true }), generator: 'serial-list-store' };
}

/**
 * One tiny history (at most `txnsMax` txns) from the weaker list stores (WEAK_LIST_STORES), whose
 * txns re-read keys: longer lists on a re-read (valid at read committed) and older ones
 * (violating it), beside lost updates. Issue 23's generator.
 */
export function tinyRereadListHistory(rng: Rng, txnsMax = 6): { history: History; generator: TinyListGenerator } {
  const shapes: [number, number][] = [];
  for (let s = 2; s <= 3; s++) for (let n = 1; n <= 3; n++) if (s * n <= txnsMax) shapes.push([s, n]);
  const [sessions, txnsPerSession] = pick(rng, shapes);
  const older = rng() < 0.35;
  const history = simulatedListHistory(rng, {
    sessions, txnsPerSession, keys: randInt(rng, 1, 2), opsPerTxnMin: 2, opsPerTxnMax: 3, pRead: 0.6, pReread: 0.5,
    bug: older ? 'older-reread' : 'read-committed', pBug: pick(rng, [1, 0.5]),
  });
  return { history, generator: older ? 'older-reread-list-store' : 'rc-list-store' };
}
