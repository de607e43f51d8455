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
 *
 * Relations (issue 22): a relation's rows are register keys whose value 0 means "absent" (the
 * initial value, and what a delete installs). Row operations and predicate reads see what a read
 * would see (the txn's own writes, the mode's dirty writes, the snapshot or the latest commit);
 * `select` / `count` evaluate the predicate (history/predicate.ts, the checker's own semantics)
 * on that version of every row of the relation. An insert of a row present in the newest
 * committed version (or in the txn's own writes) fails with `duplicate-key`, at the statement
 * and again at commit: a unique key, as in SQL. Under `certifyPredicates` a txn aborts at commit
 * when one of its predicate reads would return another result on the newest committed state
 * (which makes predicate reads serializable, as certifyReads does item reads).
 */

import { Random } from '../../util/random.ts';
import { matches, type Predicate } from '../../history/predicate.ts';
import { DbError, type Connection, type IsolationLevel, type RegisterValue, type SyncSession, type Target, type TableKinds } from '../types.ts';
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
  /** Rows this txn inserted (checked again at commit: a unique key). */
  readonly inserts = new Set<number>();
  /** Predicate reads to certify at commit (certifyPredicates only): relation keys, predicate, count or select. */
  readonly preds: { keys: readonly number[]; p: Predicate; count: boolean }[] = [];
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
  /** Relations by name: their keys (rows), ascending (set by the target's setup). */
  readonly relations = new Map<string, readonly number[]>();
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
    // A read of the txn's own write is not certified: only what it read from others can change.
    if (this.rules.certifyReads && !t.writes.has(key)) t.readRegs.add(key);
    return this.rowValue(t, replica, key);
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

  /** The keys of relation `rel`; an unknown name is a bug of the caller (the workload declared them). */
  relationKeys(rel: string): readonly number[] {
    const keys = this.relations.get(rel);
    if (keys === undefined) throw new Error(`internal error: relation ${rel} was not set up`);
    return keys;
  }

  /** The register or row `key` as `t` sees it (0: initial, or absent), without recording a read. */
  private rowValue(t: TxnState, replica: number, key: number): number {
    const own = t.writes.get(key);
    if (own !== undefined) return own;
    if (this.rules.dirty !== 'none') {
      const d = this.dirtyRegs.get(key);
      if (d !== undefined && d.owner !== t.id) return d.reg;
    }
    const kv = this.regs[key];
    const v = this.visible(kv, this.snapshotOf(t), replica);
    return v < 0 ? 0 : kv!.reg[v]!;
  }

  /** True if the newest committed version of `key` (or t's own write) is a present row. */
  private presentNow(t: TxnState, key: number): boolean {
    const own = t.writes.get(key);
    if (own !== undefined) return own !== 0;
    const kv = this.regs[key];
    return kv !== undefined && kv.reg.length > 0 && kv.reg[kv.reg.length - 1] !== 0;
  }

  insert(t: TxnState, replica: number, key: number, value: number): void {
    if (this.presentNow(t, key)) this.abort(t, 'duplicate-key', `insert: row ${key} is present`);
    t.inserts.add(key);
    this.write(t, replica, key, value);
  }

  /** Update (value) or delete (value 0) of a row; false, and nothing written, when the row is absent for t. */
  change(t: TxnState, replica: number, key: number, value: number): boolean {
    const present = this.rowValue(t, replica, key) !== 0;
    if (!present) {
      // What the txn learned is that the row was absent: a read, certified like one.
      if (this.rules.certifyReads && !t.writes.has(key)) t.readRegs.add(key);
      return false;
    }
    this.write(t, replica, key, value);
    return true;
  }

  /** The rows of `rel` matching p as t sees them, as flat pairs in key order. */
  select(t: TxnState, replica: number, rel: string, p: Predicate, count: boolean): number[] {
    const keys = this.relationKeys(rel);
    const out: number[] = [];
    for (const k of keys) {
      const v = this.rowValue(t, replica, k);
      if (matches(p, k, v === 0 ? null : v)) out.push(k, v);
    }
    if (this.rules.certifyPredicates) t.preds.push({ keys, p, count });
    return out;
  }

  /**
   * True if predicate read `q` of t would give another result on the newest committed state:
   * some row committed since t's snapshot entered or left the predicate, or (a select) changed
   * value while matching. Rows t wrote itself are first-committer-wins' business.
   */
  private predicateChanged(t: TxnState, q: { keys: readonly number[]; p: Predicate; count: boolean }, replica: number): boolean {
    for (const k of q.keys) {
      const kv = this.regs[k];
      if (t.writes.has(k) || !this.overwritten(kv, t, replica)) continue;
      const v = this.visible(kv, t.snapshot, replica);
      const before = v < 0 ? 0 : kv!.reg[v]!, now = kv!.reg[kv!.reg.length - 1]!;
      const a = matches(q.p, k, before === 0 ? null : before), b = matches(q.p, k, now === 0 ? null : now);
      if (a !== b || (!q.count && a && before !== now)) return true;
    }
    return false;
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
    for (const q of t.preds) if (this.predicateChanged(t, q, replica)) this.abort(t, 'serialization-failure', 'a predicate read\'s result changed after it was read');
    // A unique key: a row another txn inserted and committed since this txn's insert.
    for (const k of t.inserts) {
      const kv = this.regs[k];
      if (t.writes.get(k) !== 0 && kv !== undefined && kv.reg.length > 0 && kv.reg[kv.reg.length - 1] !== 0 && this.overwritten(kv, t, replica)) {
        this.abort(t, 'duplicate-key', `insert: row ${k} was inserted by a concurrent transaction`);
      }
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

  readRow(_rel: string, key: number): RegisterValue {
    return this.read(key);
  }

  insert(_rel: string, key: number, value: number): void {
    this.store.insert(this.current(), this.replica, key, value);
  }

  update(_rel: string, key: number, value: number): boolean {
    return this.store.change(this.current(), this.replica, key, value);
  }

  delete(_rel: string, key: number): boolean {
    return this.store.change(this.current(), this.replica, key, 0);
  }

  select(rel: string, p: Predicate): number[] {
    return this.store.select(this.current(), this.replica, rel, p, false);
  }

  count(rel: string, p: Predicate): number {
    return this.store.select(this.current(), this.replica, rel, p, true).length / 2;
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

  readRow(rel: string, key: number): Promise<RegisterValue> {
    return this.store.scheduler.step(this.session, () => this.sync.readRow(rel, key));
  }

  insert(rel: string, key: number, value: number): Promise<void> {
    return this.store.scheduler.step(this.session, () => this.sync.insert(rel, key, value));
  }

  update(rel: string, key: number, value: number): Promise<boolean> {
    return this.store.scheduler.step(this.session, () => this.sync.update(rel, key, value));
  }

  delete(rel: string, key: number): Promise<boolean> {
    return this.store.scheduler.step(this.session, () => this.sync.delete(rel, key));
  }

  select(rel: string, p: Predicate): Promise<number[]> {
    return this.store.scheduler.step(this.session, () => this.sync.select(rel, p));
  }

  count(rel: string, p: Predicate): Promise<number> {
    return this.store.scheduler.step(this.session, () => this.sync.count(rel, p));
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

  async setup(_keys?: number, kinds?: TableKinds): Promise<void> {
    // Every key starts at its initial value (absent register or row, empty list): nothing to
    // create but the relations' key sets, which predicate reads range over.
    for (const r of kinds?.relations ?? []) this.store.relations.set(r.name, [...r.keys].sort((a, b) => a - b));
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
