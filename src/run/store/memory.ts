/**
 * The embedded store: an in-process multi-version key-value store behind the runner's `Target`
 * contract, with registers and lists, one mode (modes.ts) and a seeded scheduler.
 *
 * Takes: a mode and a seed. Gives: connections whose every call is one scheduler step.
 * Invariant: versions of a key are kept in commit order (`ts` ascending); a version is visible
 * to a snapshot taken on replica r at time S iff its per-replica visibility time `vis` is ≤ S
 * (its commit time for the committing replica, later for the others in replicated modes).
 * Committed versions are never removed. Everything is synchronous inside a step, so the store
 * needs no locks and a seed fixes every result.
 */

import { Random } from '../../util/random.ts';
import { DbError, type Connection, type IsolationLevel, type RegisterValue, type SyncSession, type Target } from '../types.ts';
import { modeInfo, type MemoryMode, type ModeRules } from './modes.ts';
import { Scheduler } from './scheduler.ts';

/**
 * All versions of one key: `vis[v * replicas + r]` is when version v becomes visible on replica
 * r; `reg[v]` its register value (register keys) or `list[v]` its whole list (list keys).
 */
interface KeyVersions {
  vis: number[];
  reg: number[];
  list: number[][];
}

interface Dirty {
  owner: number;
  reg: number;
  elems: number[];
}

class TxnState {
  readonly writes = new Map<number, number>();
  readonly appends = new Map<number, number[]>();
  readonly readRegs = new Set<number>();
  readonly readLists = new Set<number>();
  constructor(readonly id: number, readonly snapshot: number, readonly doomed: boolean) {}
}

export class MemoryStore {
  readonly rules: ModeRules;
  readonly scheduler: Scheduler;
  private readonly rng: Random;
  private clock = 0;
  private nextTxn = 1;
  // Keys are small non-negative integers (workload keys 0..keys-1): arrays, not Maps.
  private readonly regs: (KeyVersions | undefined)[] = [];
  private readonly lists: (KeyVersions | undefined)[] = [];
  private readonly dirtyRegs = new Map<number, Dirty>();
  private readonly dirtyLists = new Map<number, Dirty>();
  /** Counters for reports: commits, and failures (aborts, lost commits) by code. */
  commits = 0;
  readonly aborts = new Map<string, number>();

  constructor(readonly mode: MemoryMode, seed: number) {
    const info = modeInfo(mode);
    if (info === undefined) throw new RangeError(`unknown memory mode ${mode}`);
    this.rules = info.rules;
    const root = new Random(seed);
    this.scheduler = new Scheduler(root.uint32());
    this.rng = root.fork();
  }

  begin(replica: number): TxnState {
    const r = this.rules;
    const lag = r.snapshotLag > 0 ? this.rng.int(r.snapshotLag + 1) : 0;
    const doomed = r.doomedFraction > 0 && this.rng.next() < r.doomedFraction;
    void replica;
    return new TxnState(this.nextTxn++, Math.max(0, this.clock - lag), doomed);
  }

  /** Index of the newest version of `kv` visible at (snapshot, replica), -1 for the initial value. */
  private visible(kv: KeyVersions | undefined, snapshot: number, replica: number): number {
    if (kv === undefined) return -1;
    const R = this.rules.replicas;
    for (let v = kv.vis.length / R - 1; v >= 0; v--) if (kv.vis[v * R + replica]! <= snapshot) return v;
    return -1;
  }

  private snapshotOf(t: TxnState): number {
    return this.rules.readLatest ? this.clock : t.snapshot;
  }

  read(t: TxnState, replica: number, key: number): number {
    const own = t.writes.get(key);
    if (own !== undefined) return own;
    if (this.rules.certifyReads) t.readRegs.add(key);
    if (this.rules.dirty !== 'none') {
      const d = this.dirtyRegs.get(key);
      if (d !== undefined && d.owner !== t.id) return d.reg;
    }
    const kv = this.regs[key];
    const v = this.visible(kv, this.snapshotOf(t), replica);
    return v < 0 ? 0 : kv!.reg[v]!;
  }

  readList(t: TxnState, replica: number, key: number): number[] {
    if (this.rules.certifyReads) t.readLists.add(key);
    const kv = this.lists[key];
    const v = this.visible(kv, this.snapshotOf(t), replica);
    let out = v < 0 ? [] : kv!.list[v]!;
    const d = this.dirtyLists.get(key);
    if (d !== undefined && d.owner !== t.id) out = out.concat(d.elems);
    const own = t.appends.get(key);
    return own === undefined ? out.slice() : out.concat(own);
  }

  /** readOnlyReplica: a write there fails its transaction, as on a hot standby. */
  private checkWritable(t: TxnState, replica: number): void {
    if (this.rules.readOnlyReplica === replica) this.abort(t, 'read-only-replica', `replica ${replica} is read-only (a standby)`);
  }

  write(t: TxnState, replica: number, key: number, value: number): void {
    this.checkWritable(t, replica);
    t.writes.set(key, value);
    if (this.exposes(t)) this.dirtyRegs.set(key, { owner: t.id, reg: value, elems: [] });
  }

  append(t: TxnState, replica: number, key: number, elem: number): void {
    this.checkWritable(t, replica);
    let own = t.appends.get(key);
    if (own === undefined) t.appends.set(key, (own = []));
    own.push(elem);
    if (this.exposes(t)) this.dirtyLists.set(key, { owner: t.id, reg: 0, elems: own.slice() });
  }

  private exposes(t: TxnState): boolean {
    return this.rules.dirty === 'all' || (this.rules.dirty === 'doomed' && t.doomed);
  }

  /** Drops the txn's uncommitted writes from the dirty tables. */
  private forget(t: TxnState): void {
    if (this.rules.dirty === 'none') return;
    for (const k of t.writes.keys()) if (this.dirtyRegs.get(k)?.owner === t.id) this.dirtyRegs.delete(k);
    for (const k of t.appends.keys()) if (this.dirtyLists.get(k)?.owner === t.id) this.dirtyLists.delete(k);
  }

  /** True if the newest committed version of `key` is one `t` did not see. */
  private overwritten(kv: KeyVersions | undefined, t: TxnState, replica: number): boolean {
    if (kv === undefined || kv.vis.length === 0) return false;
    const R = this.rules.replicas;
    // One replica: visibility times are commit times, increasing, so only the newest matters.
    if (R === 1) return kv.vis[kv.vis.length - 1]! > t.snapshot;
    return this.visible(kv, t.snapshot, replica) !== kv.vis.length / R - 1;
  }

  private abort(t: TxnState, code: string, message: string): never {
    this.forget(t);
    return this.fail('aborted', code, message);
  }

  private fail(kind: 'aborted' | 'unknown', code: string, message: string): never {
    this.aborts.set(code, (this.aborts.get(code) ?? 0) + 1);
    // Aborts are routine here (one txn in ten under snapshot): skip the stack trace, which
    // nobody reads and which cost ~15 % of a run's time when captured.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    const err = new DbError(message, kind, code);
    Error.stackTraceLimit = limit;
    throw err;
  }

  commit(t: TxnState, replica: number): void {
    const r = this.rules;
    if (t.doomed) this.abort(t, 'injected-abort', 'transaction aborted by the aborted-read fault mode');
    if (r.firstCommitterWins) {
      for (const k of t.writes.keys()) if (this.overwritten(this.regs[k], t, replica)) this.abort(t, 'write-conflict', `write conflict on register ${k}`);
      for (const k of t.appends.keys()) if (this.overwritten(this.lists[k], t, replica)) this.abort(t, 'write-conflict', `write conflict on list ${k}`);
    }
    if (r.certifyReads) {
      for (const k of t.readRegs) if (this.overwritten(this.regs[k], t, replica)) this.abort(t, 'serialization-failure', `register ${k} changed after it was read`);
      for (const k of t.readLists) if (this.overwritten(this.lists[k], t, replica)) this.abort(t, 'serialization-failure', `list ${k} changed after it was read`);
    }
    this.forget(t);
    // flaky-commit: the answer is lost; the commit takes effect or not, a coin decides.
    const lost = r.lostCommitFraction > 0 && this.rng.next() < r.lostCommitFraction;
    if (lost && this.rng.next() < 0.5) this.fail('unknown', 'lost-commit', 'connection lost during COMMIT (the commit did not take effect)');
    this.apply(t, replica);
    if (lost) this.fail('unknown', 'lost-commit', 'connection lost during COMMIT (the commit took effect)');
  }

  private apply(t: TxnState, replica: number): void {
    const r = this.rules;
    if (t.writes.size === 0 && t.appends.size === 0) { this.commits++; return; }
    const ts = ++this.clock;
    const vis = this.visibility(ts, replica);
    for (const [k, v] of t.writes) this.install(this.regs, k, vis).reg.push(v);
    for (const [k, elems] of t.appends) {
      const kv = this.lists[k];
      // SQL's `UPDATE ... SET v = v || x` appends to the newest version; the lost-update fault
      // rebuilds from the snapshot instead, dropping concurrent appends.
      const base = kv === undefined ? -1 : r.appendToSnapshot ? this.visible(kv, t.snapshot, replica) : kv.list.length - 1;
      const prev = base < 0 ? [] : kv!.list[base]!;
      this.install(this.lists, k, vis).list.push(prev.concat(elems));
    }
    this.commits++;
  }

  rollback(t: TxnState): void {
    this.forget(t);
  }

  /** Per-replica visibility times of a version committed at `ts` on `replica`. */
  private visibility(ts: number, replica: number): number[] {
    const r = this.rules;
    const out: number[] = [];
    for (let q = 0; q < r.replicas; q++) {
      if (q === replica) out.push(ts);
      else if (r.lagMatrix !== undefined) out.push(ts + r.lagMatrix[replica * r.replicas + q]!);
      else out.push(ts + (r.remoteLagRandom ? this.rng.int(r.remoteLag + 1) : r.remoteLag));
    }
    return out;
  }

  private install(table: (KeyVersions | undefined)[], key: number, vis: number[]): KeyVersions {
    let kv = table[key];
    if (kv === undefined) {
      while (table.length < key) table.push(undefined); // no holes: keeps the array packed
      kv = table[key] = { vis: [], reg: [], list: [] };
    }
    for (const x of vis) kv.vis.push(x);
    return kv;
  }
}

/** A session's synchronous calls on the store (the runner's fast path, and the body of every async step). */
class MemorySyncSession implements SyncSession {
  private txn: TxnState | null = null;
  closed = false;

  constructor(private readonly store: MemoryStore, private readonly session: number, private readonly replica: number) {}

  private current(): TxnState {
    if (this.txn === null) throw new DbError('no transaction in progress', 'aborted', 'no-transaction');
    return this.txn;
  }

  begin(_isolation: IsolationLevel): void {
    if (this.txn !== null) this.store.rollback(this.txn);
    this.txn = this.store.begin(this.replica);
  }

  read(key: number): RegisterValue {
    const v = this.store.read(this.current(), this.replica, key);
    return v === 0 ? null : v;
  }

  write(key: number, value: number): void {
    this.store.write(this.current(), this.replica, key, value);
  }

  append(key: number, element: number): void {
    this.store.append(this.current(), this.replica, key, element);
  }

  readList(key: number): number[] {
    return this.store.readList(this.current(), this.replica, key);
  }

  commit(): void {
    const t = this.current();
    this.txn = null;
    this.store.commit(t, this.replica);
  }

  rollback(): void {
    if (this.txn !== null) this.store.rollback(this.txn);
    this.txn = null;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.rollback();
    this.store.scheduler.leave(this.session);
  }

  pick(live: number): number {
    return this.store.scheduler.pick(live);
  }
}

/** The asynchronous Connection: every call is one step of the seeded scheduler. */
class MemoryConnection implements Connection {
  constructor(private readonly store: MemoryStore, private readonly session: number, readonly sync: MemorySyncSession) {}

  begin(isolation: IsolationLevel): Promise<void> {
    return this.store.scheduler.step(this.session, () => this.sync.begin(isolation));
  }

  read(key: number): Promise<RegisterValue> {
    return this.store.scheduler.step(this.session, () => this.sync.read(key));
  }

  write(key: number, value: number): Promise<void> {
    return this.store.scheduler.step(this.session, () => this.sync.write(key, value));
  }

  append(key: number, element: number): Promise<void> {
    return this.store.scheduler.step(this.session, () => this.sync.append(key, element));
  }

  readList(key: number): Promise<number[]> {
    return this.store.scheduler.step(this.session, () => this.sync.readList(key));
  }

  commit(): Promise<void> {
    return this.store.scheduler.step(this.session, () => this.sync.commit());
  }

  rollback(): Promise<void> {
    return this.store.scheduler.step(this.session, () => this.sync.rollback());
  }

  async close(): Promise<void> {
    this.sync.close();
  }
}

/** `memory:MODE` as a Target: one store, one scheduler, one connection per session. */
export class MemoryTarget implements Target {
  readonly name: string;
  readonly store: MemoryStore;

  constructor(readonly mode: MemoryMode, seed: number) {
    this.name = `memory:${mode}`;
    this.store = new MemoryStore(mode, seed);
  }

  async setup(): Promise<void> {
    // Every key starts at its initial value (absent register, empty list): nothing to create.
  }

  /**
   * Session s's connection. The runner uses its synchronous twin (`sync`) unless it needs
   * timeouts; both make the same seeded choices. Session numbers must be distinct.
   */
  async connect(session: number): Promise<Connection> {
    this.store.scheduler.join(session);
    return new MemoryConnection(this.store, session, new MemorySyncSession(this.store, session, session % this.store.rules.replicas));
  }

  async close(): Promise<void> {}
}
