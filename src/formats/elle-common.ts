/**
 * Jepsen / Elle histories, independent of syntax: turns parsed operation maps (EDN or JSON)
 * into a History, and a History back into Jepsen operations.
 *
 * Takes: operation maps in file order, each with `:type` (:invoke :ok :fail :info), `:f`,
 * `:process`, `:value` (micro-ops `[:r k v]`, `[:w k v]`, `[:append k v]`, `[:r k [v ...]]`),
 * optionally `:index` and `:time`. Gives: a History with one session per process, one txn per
 * invocation, and parse notes (skipped non-transaction ops, unknown reads dropped, ...).
 *
 * Semantics (Elle paper §3-5, Jepsen conventions):
 * - An `:invoke` is completed by the next `:ok` / `:fail` / `:info` of the same process; the
 *   completion's value is authoritative (the invocation's reads are nil). :ok = committed,
 *   :fail = aborted, :info and "never completed" = unknown. A completion without a pending
 *   invocation is a whole transaction on its own (Elle's test histories often hold only :ok ops).
 * - A process is a session (Jepsen processes are sequential: a second :invoke while one is
 *   pending is an 'inconsistent' error). Operations without `:process` (e.g. the Elle paper's
 *   example) are paired in file order and each transaction gets a session of its own: no
 *   session order is invented.
 * - An op is a transaction when its `:f` is `:txn` (a missing `:f` counts as `:txn`) or when its
 *   `:value` is a vector of micro-ops, whatever its `:f` (real repositories write `:f :read` /
 *   `:f :write` with `[[:r k v] ...]`; issue 23 item 7). An :invoke of another `:f` whose value
 *   is not a micro-op vector (often nil) is held until its completion decides; a completion
 *   closes a pending transaction of its process whatever its `:f` and value. Other ops
 *   (nemesis, single-register ops `:f :read :value 3`) are skipped and counted in the notes; a
 *   history of which every op was skipped is refused ('unsupported', naming the first op),
 *   never read as an empty history.
 * - `[:r k nil]` in an :ok transaction reads the initial state (empty list on a list key); in
 *   :fail / :info / never-completed transactions a nil read is unknown and dropped (counted).
 * - A key is either a register (`:w`, reads of single values) or a list (`:append`, reads of
 *   vectors), never both: mixing is InputError 'unsupported'. A key only ever read as nil stays
 *   a register read of the initial value.
 * Invariant: every operation map is either turned into a transaction, or counted in a note.
 */

import { HistoryBuilder, OP_APPEND, OP_READ, OP_READ_LIST, OP_WRITE, type RawKey, type RawValue } from '../history/builder.ts';
import { InputError } from '../history/errors.ts';
import {
  assertHistory,
  INITIAL_VALUE,
  TXN_ABORTED,
  TXN_COMMITTED,
  TXN_UNKNOWN,
  type History,
  type TxnStatus,
} from '../history/model.ts';
import { attachNotes } from './io-notes.ts';
import { normBigint } from './io-int.ts';
import { Kw, Obj, field, nameOf, show } from './elle-values.ts';

const KIND_NONE = 0;
const KIND_REGISTER = 1;
const KIND_LIST = 2;

/** Pairing key for operations without a process (cannot clash with a label: labels never hold NUL). */
const NO_PROCESS = '\u0000no-process';

/** An :invoke whose `:f` is not `:txn` and whose value does not show micro-ops: its completion decides. */
interface Held {
  line: number;
  time: number;
  form: Obj;
}

/**
 * True if `v` looks like a transaction's micro-ops: a non-empty vector whose elements are all
 * three-element vectors starting with a name (`[:r k v]`, `["append" k v]`). An unknown name
 * (`[:cas k [1 2]]`) still looks like one, so it is refused by addMicroOps with its line
 * instead of being skipped.
 */
function isMicroOpVector(v: unknown): boolean {
  if (!Array.isArray(v) || v.length === 0) return false;
  for (const m of v) {
    if (!Array.isArray(m) || m.length !== 3 || nameOf(m[0]) === undefined) return false;
  }
  return true;
}

interface Pending {
  txn: number;
  value: unknown;
  line: number;
  /** The invocation's `:time` (NaN if absent). */
  time: number;
}

/** `:time` as a number (Jepsen: nanoseconds since the test began); NaN if absent. */
function timeOf(x: unknown): number {
  if (typeof x === 'number' && Number.isFinite(x)) return x;
  if (typeof x === 'bigint') return Number(x);
  return Number.NaN;
}

const EMPTY: readonly RawValue[] = Object.freeze([]);

export class JepsenAssembler {
  private readonly b: HistoryBuilder;
  private readonly pending = new Map<string, Pending>();
  private readonly keyKind: number[] = [];
  private undecidedNilReads = false;
  private skippedNonTxn = 0;
  private firstSkippedLine = -1;
  private skippedFs = new Set<string>();
  private firstSkipped: Obj | null = null;
  private readonly held = new Map<string, Held>();
  /** Transactions read from operations whose `:f` is not `:txn`, and (up to 5) those `:f`s. */
  private nonTxnFRead = 0;
  private nonTxnFs = new Set<string>();
  private droppedUnknownReads = 0;
  private orphanCompletions = 0;
  private noProcessTxns = 0;

  constructor(readonly source: string) {
    this.b = new HistoryBuilder(source, 'line');
  }

  private syntax(line: number, detail: string): never {
    throw new InputError('syntax', this.source, 'line', line, detail);
  }

  /** Consumes one top-level form: a Jepsen operation map. */
  op(form: unknown, line: number): void {
    if (!(form instanceof Obj)) this.syntax(line, `expected an operation map {:type ... :value ...}, found ${show(form)}`);
    const typeRaw = field(form, 'type');
    const type = nameOf(typeRaw);
    if (type !== 'invoke' && type !== 'ok' && type !== 'fail' && type !== 'info') {
      this.syntax(line, `expected :type to be :invoke, :ok, :fail or :info, found ${show(typeRaw)}`);
    }
    const processRaw = field(form, 'process');
    const proc = this.processLabel(processRaw, line);
    const pairKey = proc ?? NO_PROCESS;
    const value = field(form, 'value');
    const time = timeOf(field(form, 'time'));
    let held: Held | undefined;
    const f = field(form, 'f');
    const fname = f === undefined || f === null ? 'txn' : nameOf(f);
    if (fname !== 'txn') {
      const fShown = fname === undefined ? show(f, 30) : `:${fname}`;
      if (type === 'invoke') {
        // A process invokes one op at a time: an op still held was never completed.
        this.dropHeld(pairKey);
        // (With a transaction still pending, fall through: the invoke below refuses it.)
        if (!isMicroOpVector(value) && !this.pending.has(pairKey)) {
          this.held.set(pairKey, { line, time, form });
          return;
        }
      } else {
        held = this.held.get(pairKey);
        this.held.delete(pairKey);
        if (!this.pending.has(pairKey) && !isMicroOpVector(value)) {
          if (held !== undefined) this.skip(held.form, held.line, fShown);
          this.skip(form, line, fShown);
          return;
        }
      }
      // Counted once per transaction: at its invocation, or at a completion that begins one.
      if (type === 'invoke' || !this.pending.has(pairKey)) this.nonTxnFRead++;
      if (this.nonTxnFs.size < 5) this.nonTxnFs.add(fShown);
    } else {
      this.dropHeld(pairKey);
    }
    const index = field(form, 'index');
    const label = typeof index === 'number' || typeof index === 'bigint' ? String(index) : undefined;
    // The txn's label is String(index); a number goes to the builder as it is (kept as a number).
    const txnName = typeof index === 'number' ? index : label;

    if (type === 'invoke') {
      const open = this.pending.get(pairKey);
      if (open !== undefined) {
        throw new InputError('inconsistent', this.source, 'line', line,
          `${proc === null ? 'an operation without :process' : `process ${proc}`} invokes a transaction while its invocation at line ${open.line} is still pending (Jepsen processes are sequential)`);
      }
      const txn = this.b.beginTxn(this.sessionFor(proc, label), txnName, TXN_UNKNOWN, line);
      this.pending.set(pairKey, { txn, value, line, time });
      if (!Number.isNaN(time)) this.b.setTimes(txn, time, Number.NaN);
      return;
    }

    const status: TxnStatus = type === 'ok' ? TXN_COMMITTED : type === 'fail' ? TXN_ABORTED : TXN_UNKNOWN;
    const open = this.pending.get(pairKey);
    let txn: number;
    let ops: unknown = value;
    if (open !== undefined) {
      this.pending.delete(pairKey);
      txn = open.txn;
      this.b.setStatus(txn, status);
      // Real time: invoked at the :invoke's :time, completed at this one's (docs/levels.md).
      if (!Number.isNaN(open.time) || !Number.isNaN(time)) this.b.setTimes(txn, open.time, time < open.time ? Number.NaN : time);
      if (ops === undefined || ops === null) ops = open.value;
    } else if (held !== undefined) {
      // The invocation was held (its value showed no micro-ops); this completion shows them.
      txn = this.b.beginTxn(this.sessionFor(proc, label), txnName, status, held.line);
      if (!Number.isNaN(held.time) || !Number.isNaN(time)) this.b.setTimes(txn, held.time, time < held.time ? Number.NaN : time);
    } else {
      this.orphanCompletions++;
      txn = this.b.beginTxn(this.sessionFor(proc, label), txnName, status, line);
      if (ops === undefined || ops === null) this.syntax(line, `a :${type} completion without a preceding :invoke must carry the transaction's :value`);
    }
    this.addMicroOps(txn, ops, status, line);
  }

  /** Ends the input: pending invocations become unknown-outcome transactions. */
  finish(): History {
    const neverCompleted = this.pending.size;
    for (const p of this.pending.values()) this.addMicroOps(p.txn, p.value, TXN_UNKNOWN, p.line);
    this.pending.clear();
    for (const key of [...this.held.keys()]) this.dropHeld(key);
    if (this.b.txnCount === 0 && this.skippedNonTxn > 0) {
      // Nothing could be read: refuse rather than answer VALID about an empty history.
      throw new InputError('unsupported', this.source, 'line', this.firstSkippedLine,
        `none of the ${this.skippedNonTxn} operation(s) is a transaction (:f ${[...this.skippedFs].join(', ')}; the first is ` +
        `${show(this.firstSkipped, 100)}): polysi reads an operation as a transaction when its :f is :txn or its ` +
        ':value is a vector of micro-ops like [[:r k v] [:w k v] [:append k v]]');
    }
    const notes: string[] = [];
    if (this.nonTxnFRead > 0) {
      notes.push(`read ${this.nonTxnFRead} transaction(s) from operations whose :f is not :txn (${[...this.nonTxnFs].join(', ')}): their :value is a vector of micro-ops`);
    }
    if (this.skippedNonTxn > 0) {
      notes.push(`skipped ${this.skippedNonTxn} operation(s) that are not transactions (:f ${[...this.skippedFs].join(', ')}; first at line ${this.firstSkippedLine})`);
    }
    if (neverCompleted > 0) notes.push(`${neverCompleted} invocation(s) never completed: outcome unknown`);
    if (this.orphanCompletions > 0) notes.push(`${this.orphanCompletions} completion(s) without an :invoke, each taken as a whole transaction`);
    if (this.droppedUnknownReads > 0) notes.push(`dropped ${this.droppedUnknownReads} read(s) with unknown (nil) results in :fail / :info / never-completed transactions`);
    if (this.noProcessTxns > 0) notes.push(`${this.noProcessTxns} transaction(s) without :process: each is its own session`);
    return attachNotes(this.fixNilListReads(this.b.build()), notes);
  }

  /** Counts an operation map that is not a transaction (kept for the notes and the refusal). */
  private skip(form: Obj, line: number, fShown: string): void {
    this.skippedNonTxn++;
    if (this.firstSkippedLine < 0 || line < this.firstSkippedLine) {
      this.firstSkippedLine = line;
      this.firstSkipped = form;
    }
    if (this.skippedFs.size < 5) this.skippedFs.add(fShown);
  }

  /** A held invocation that no completion turned into a transaction: skipped. */
  private dropHeld(pairKey: string): void {
    const h = this.held.get(pairKey);
    if (h === undefined) return;
    this.held.delete(pairKey);
    const f = field(h.form, 'f');
    const name = nameOf(f);
    this.skip(h.form, h.line, name === undefined ? show(f, 30) : `:${name}`);
  }

  private processLabel(p: unknown, line: number): string | null {
    if (p === undefined || p === null) return null;
    if (typeof p === 'number' || typeof p === 'bigint') return String(p);
    if (p instanceof Kw) return `:${p.name}`;
    if (typeof p === 'string') return p;
    return this.syntax(line, `expected :process to be an integer, keyword or string, found ${show(p)}`);
  }

  private sessionFor(proc: string | null, label: string | undefined): number {
    if (proc !== null) return this.b.session(proc);
    this.noProcessTxns++;
    return this.b.session(`txn ${label ?? this.b.txnCount}`);
  }

  private keyOf(k: unknown, line: number): RawKey {
    if (typeof k === 'number') return k;
    if (typeof k === 'bigint') {
      const n = normBigint(k);
      return typeof n === 'number' ? n : String(n);
    }
    if (typeof k === 'string') return k;
    if (k instanceof Kw) return `:${k.name}`;
    return this.unsupported(line, `keys must be integers, keywords or strings, found ${show(k)}`);
  }

  private valueOf(v: unknown, line: number): RawValue {
    if (typeof v === 'number' || typeof v === 'string') return v;
    if (typeof v === 'bigint') return normBigint(v);
    if (v === null) return null;
    return this.unsupported(line, `values must be integers or strings, found ${show(v)}`);
  }

  private unsupported(line: number, detail: string): never {
    throw new InputError('unsupported', this.source, 'line', line, detail);
  }

  private kind(k: number, want: number, line: number, mop: unknown[]): void {
    const have = this.keyKind[k] ?? KIND_NONE;
    if (have === want) return;
    if (have === KIND_NONE) {
      this.keyKind[k] = want;
      return;
    }
    this.unsupported(line, `key ${show(mop[1])} is used both as a register (:w, single-value reads) and as a list (:append, list reads): ${show(mop)}`);
  }

  private addMicroOps(txn: number, ops: unknown, status: TxnStatus, line: number): void {
    if (!Array.isArray(ops)) this.syntax(line, `expected :value to be a vector of micro-ops like [:append k v] or [:r k v], found ${show(ops)}`);
    const b = this.b;
    for (let i = 0; i < ops.length; i++) {
      const mop: unknown = ops[i];
      if (!Array.isArray(mop) || mop.length !== 3) this.syntax(line, `expected a micro-op [f k v] with three elements, found ${show(mop)}`);
      const f = nameOf(mop[0]);
      const rk = this.keyOf(mop[1], line);
      const k = b.key(rk);
      const v: unknown = mop[2];
      if (f === 'append') {
        this.kind(k, KIND_LIST, line, mop);
        b.pushOp(txn, OP_APPEND, k, b.value(this.valueOf(v, line)), line);
      } else if (f === 'w') {
        this.kind(k, KIND_REGISTER, line, mop);
        b.pushOp(txn, OP_WRITE, k, b.value(this.valueOf(v, line)), line);
      } else if (f === 'r') {
        if (v === null) {
          if (status !== TXN_COMMITTED) {
            this.droppedUnknownReads++;
          } else if (this.keyKind[k] === KIND_LIST) {
            b.readList(txn, rk, EMPTY, line);
          } else {
            if (this.keyKind[k] !== KIND_REGISTER) this.undecidedNilReads = true;
            b.pushOp(txn, OP_READ, k, INITIAL_VALUE, line);
          }
        } else if (Array.isArray(v)) {
          this.kind(k, KIND_LIST, line, mop);
          // The parsed vector is ours: normalise its elements in place instead of copying.
          for (let j = 0; j < v.length; j++) {
            const e: unknown = v[j];
            if (e === null) this.unsupported(line, `a list read contains nil: ${show(mop)}`);
            v[j] = this.valueOf(e, line);
          }
          b.readList(txn, rk, v as RawValue[], line);
        } else {
          this.kind(k, KIND_REGISTER, line, mop);
          b.pushOp(txn, OP_READ, k, b.value(this.valueOf(v, line)), line);
        }
      } else {
        this.syntax(line, `unknown micro-op ${show(mop[0])} in ${show(mop)}; expected :r, :w or :append`);
      }
    }
  }

  /**
   * A nil read of a key whose kind was unknown when it was read was recorded as a register read
   * of the initial value; if the key later turned out to be a list, it is an empty-list read.
   */
  private fixNilListReads(h: History): History {
    if (!this.undecidedNilReads) return h;
    let hits = 0;
    for (let op = 0; op < h.opCount; op++) {
      if (h.opKind[op] === OP_READ && h.opValue[op] === INITIAL_VALUE && this.keyKind[h.opKey[op]!] === KIND_LIST) hits++;
    }
    if (hits === 0) return h;
    const opKind = h.opKind.slice();
    const opValue = h.opValue.slice();
    const empty = h.listStart.length - 1;
    const listStart = new Int32Array(h.listStart.length + 1);
    listStart.set(h.listStart);
    listStart[empty + 1] = h.listElems.length;
    for (let op = 0; op < h.opCount; op++) {
      if (opKind[op] === OP_READ && opValue[op] === INITIAL_VALUE && this.keyKind[h.opKey[op]!] === KIND_LIST) {
        opKind[op] = OP_READ_LIST;
        opValue[op] = empty;
      }
    }
    const fixed: History = { ...h, opKind, opValue, listStart };
    assertHistory(fixed);
    return fixed;
  }
}
