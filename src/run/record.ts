/**
 * The recording API: wraps an application's own transactions (begin / read / write / append /
 * commit / abort, with the values) and appends them to a history file in our JSON Lines
 * format, so they can be checked with `polysi check` like a generated workload.
 *
 * Takes: a path, then per session the operations the application performed and each
 * transaction's outcome. Gives: the file, written as transactions finish (whole lines only;
 * see recorder.ts), with invocation / completion times and error codes.
 * Invariant: a transaction is written once, when its outcome is given (commit / abort /
 * unknown), with its operations in program order; a transaction object refuses use after
 * that, and a session has at most one transaction open (sessions are sequential clients).
 * The checker needs written values to be unique per key: that stays the application's job
 * (docs/workloads.md shows how).
 *
 * Predicates (issue 22; docs/formats.md, "Predicates"): declare the relations when opening
 * (`openHistory(path, { relations: { accounts: [1, 2, 3] } })`), then record `insert`, `delete`,
 * `select(relation, predicate, rows)` and `count(relation, predicate, n)`; a predicate is
 * checked to parse (history/predicate.ts) and a relation to be declared when it is recorded.
 *
 * Example (runnable against PostgreSQL: examples/record-postgres.ts):
 *   const rec = openHistory('app.jsonl');
 *   const t = rec.session('worker-1').begin();
 *   t.read('x', 1); t.write('x', 2);
 *   t.commit();                      // or t.abort('40001'), or t.unknown('timeout')
 *   rec.close();
 */

import { JsonlRecorder } from './recorder.ts';
import { parsePredicate, PredicateSyntaxError } from '../history/predicate.ts';

export type Key = string | number;
export type Value = string | number | null;

function keyJson(k: Key): string {
  if (typeof k === 'number' && !Number.isSafeInteger(k)) throw new RangeError(`key ${k} is not a safe integer; use a string`);
  return JSON.stringify(k);
}

function valueJson(v: Value): string {
  if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new RangeError(`value ${v} is not a safe integer; use a string`);
  return JSON.stringify(v);
}

export class RecordedTxn {
  private readonly ops: string[] = [];
  private done = false;
  readonly start: number;

  /** @internal created by RecordedSession.begin */
  constructor(private readonly session: RecordedSession, private readonly label: string, private readonly node?: string) {
    this.start = performance.now();
  }

  private add(op: string): this {
    if (this.done) throw new Error(`transaction ${this.label} already finished`);
    this.ops.push(op);
    return this;
  }

  /** A read of `key` that returned `value` (null: the key held its initial value / was absent). */
  read(key: Key, value: Value): this { return this.add(`["r",${keyJson(key)},${valueJson(value)}]`); }
  write(key: Key, value: Value): this { return this.add(`["w",${keyJson(key)},${valueJson(value)}]`); }
  append(key: Key, element: Value): this { return this.add(`["append",${keyJson(key)},${valueJson(element)}]`); }
  /** A read of a whole list (list-append keys), in order. */
  readList(key: Key, elements: readonly Value[]): this {
    return this.add(`["r",${keyJson(key)},[${elements.map(valueJson).join(',')}]]`);
  }

  /** An INSERT of row `key` (a key of a declared relation) with `value` (not null) that succeeded. */
  insert(key: Key, value: string | number): this {
    if (value === null) throw new RangeError(`insert of ${String(key)}: the value must not be null`);
    return this.add(`["insert",${keyJson(key)},${valueJson(value)}]`);
  }

  /** A DELETE of row `key` that removed it (one that found no row is a read of the absent row: `read(key, null)`). */
  delete(key: Key): this {
    return this.add(`["delete",${keyJson(key)}]`);
  }

  /** A predicate read `SELECT ... WHERE predicate` over `relation` that returned `rows` ([key, value] pairs, in order). */
  select(relation: string, predicate: string, rows: readonly (readonly [Key, Value])[]): this {
    this.session.history.checkPredicate(relation, predicate);
    const out = rows.map(([k, v]) => `[${keyJson(k)},${valueJson(v)}]`).join(',');
    return this.add(`["select",${JSON.stringify(relation)},${JSON.stringify(predicate)},[${out}]]`);
  }

  /** A predicate count `SELECT COUNT(*) ... WHERE predicate` over `relation` that returned `n`. */
  count(relation: string, predicate: string, n: number): this {
    this.session.history.checkPredicate(relation, predicate);
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`count over ${relation}: ${n} is not a count`);
    return this.add(`["count",${JSON.stringify(relation)},${JSON.stringify(predicate)},${n}]`);
  }

  /** COMMIT returned. */
  commit(): void { this.finish('committed', undefined); }
  /** The database rejected the transaction (or it was rolled back): `code` is its error code. */
  abort(code?: string): void { this.finish('aborted', code); }
  /** The outcome is unknown (the connection was lost or timed out during COMMIT). */
  unknown(code?: string): void { this.finish('unknown', code); }

  private finish(status: string, code: string | undefined): void {
    if (this.done) throw new Error(`transaction ${this.label} already finished`);
    this.done = true;
    this.session.finished(this, `{"session":${JSON.stringify(this.session.name)},"txn":${JSON.stringify(this.label)},` +
      `"status":"${status}","ops":[${this.ops.join(',')}],"start":${this.session.history.ms(this.start)},` +
      `"end":${this.session.history.ms(performance.now())}${code === undefined ? '' : `,"error":${JSON.stringify(code)}`}` +
      `${this.node === undefined ? '' : `,"node":${JSON.stringify(this.node)}`}}`);
  }
}

export class RecordedSession {
  private open: RecordedTxn | null = null;
  private count = 0;

  /** @internal created by RecordedHistory.session */
  constructor(readonly history: RecordedHistory, readonly name: string) {}

  /**
   * Starts recording a transaction; call it just before the application's BEGIN. `node`: the
   * server it runs on, for a database of several nodes (recorded as the txn's JSON Lines "node").
   */
  begin(opts: { node?: string } = {}): RecordedTxn {
    if (this.open !== null) throw new Error(`session ${this.name} already has a transaction open; finish it first`);
    if (opts.node !== undefined && opts.node === '') throw new Error('begin: node must be a non-empty string');
    this.open = new RecordedTxn(this, `${this.name}.${this.count++}`, opts.node);
    return this.open;
  }

  /** @internal */
  finished(t: RecordedTxn, line: string): void {
    if (this.open === t) this.open = null;
    this.history.write(line);
  }
}

export class RecordedHistory {
  private readonly out: JsonlRecorder;
  private readonly sessions = new Map<string, RecordedSession>();
  private readonly t0 = performance.now();
  private readonly relations: ReadonlySet<string>;

  constructor(readonly path: string, opts: HistoryOptions = {}) {
    const rels = Object.entries(opts.relations ?? {}).map(([name, keys]) => ({ name, keys }));
    this.relations = new Set(rels.map((r) => r.name));
    this.out = new JsonlRecorder(path, null, 0, undefined, rels.length === 0 ? undefined : { relations: rels, predicates: [] });
  }

  /** @internal throws when the relation is not declared or the predicate does not parse. */
  checkPredicate(relation: string, predicate: string): void {
    if (!this.relations.has(relation)) throw new RangeError(`relation ${JSON.stringify(relation)} was not declared in openHistory's relations`);
    try {
      parsePredicate(predicate);
    } catch (err) {
      if (err instanceof PredicateSyntaxError) throw new RangeError(`predicate ${JSON.stringify(predicate)}: ${err.message}`);
      throw err;
    }
  }

  /** The session (client) called `name`, created on first use. */
  session(name: string | number): RecordedSession {
    const key = String(name);
    let s = this.sessions.get(key);
    if (s === undefined) this.sessions.set(key, (s = new RecordedSession(this, key)));
    return s;
  }

  /** @internal milliseconds since the history was opened, to the microsecond. */
  ms(t: number): number {
    return Math.round((t - this.t0) * 1000) / 1000;
  }

  /** @internal */
  write(line: string): void {
    this.out.writeLine(line);
  }

  /** Transactions written so far. */
  get count(): number {
    return this.out.count;
  }

  /** Writes what is buffered and closes the file. Transactions still open are not written. */
  close(): void {
    this.out.close();
  }
}

export interface HistoryOptions {
  /** Relations (issue 22): name → its keys (rows), the universe its predicate reads range over. */
  relations?: Record<string, readonly Key[]>;
}

/** Creates (truncates) `path` and returns a history to record into. */
export function openHistory(path: string, opts: HistoryOptions = {}): RecordedHistory {
  return new RecordedHistory(path, opts);
}
