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
 * - Ops whose `:f` is not `:txn` (nemesis, ...) are skipped and counted in the notes. A missing
 *   `:f` counts as `:txn`.
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
    const f = field(form, 'f');
    if (f !== undefined && f !== null) {
      const fname = nameOf(f);
      if (fname !== 'txn') {
        this.skippedNonTxn++;
        if (this.firstSkippedLine < 0) this.firstSkippedLine = line;
        if (this.skippedFs.size < 5) this.skippedFs.add(fname === undefined ? show(f, 30) : `:${fname}`);
        return;
      }
    }
    const typeRaw = field(form, 'type');
    const type = nameOf(typeRaw);
    if (type !== 'invoke' && type !== 'ok' && type !== 'fail' && type !== 'info') {
      this.syntax(line, `expected :type to be :invoke, :ok, :fail or :info, found ${show(typeRaw)}`);
    }
    const processRaw = field(form, 'process');
    const proc = this.processLabel(processRaw, line);
    const pairKey = proc ?? NO_PROCESS;
    const value = field(form, 'value');
    const index = field(form, 'index');
    const label = typeof index === 'number' || typeof index === 'bigint' ? String(index) : undefined;
    // The txn's label is String(index); a number goes to the builder as it is (kept as a number).
    const txnName = typeof index === 'number' ? index : label;
    const time = timeOf(field(form, 'time'));

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
    const notes: string[] = [];
    if (this.skippedNonTxn > 0) {
      notes.push(`skipped ${this.skippedNonTxn} operation(s) that are not transactions (:f ${[...this.skippedFs].join(', ')}; first at line ${this.firstSkippedLine})`);
    }
    if (neverCompleted > 0) notes.push(`${neverCompleted} invocation(s) never completed: outcome unknown`);
    if (this.orphanCompletions > 0) notes.push(`${this.orphanCompletions} completion(s) without an :invoke, each taken as a whole transaction`);
    if (this.droppedUnknownReads > 0) notes.push(`dropped ${this.droppedUnknownReads} read(s) with unknown (nil) results in :fail / :info / never-completed transactions`);
    if (this.noProcessTxns > 0) notes.push(`${this.noProcessTxns} transaction(s) without :process: each is its own session`);
    return attachNotes(this.fixNilListReads(this.b.build()), notes);
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
